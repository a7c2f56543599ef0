"""Moved to :mod:`tsqlbroker.storage.naming` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage import naming as moved

sys.modules[__name__] = moved
