"""Moved to :mod:`tsqlbroker.storage.backends.sqlite.wake` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.sqlite import wake as moved

sys.modules[__name__] = moved
