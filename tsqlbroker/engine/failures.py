"""Moved to :mod:`tsqlbroker.storage.failures` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage import failures as moved

sys.modules[__name__] = moved
