"""Moved to :mod:`tsqlbroker.values.text` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import text as moved

sys.modules[__name__] = moved
