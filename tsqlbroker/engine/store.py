"""Moved to :mod:`tsqlbroker.storage.store` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage import store as moved

sys.modules[__name__] = moved
