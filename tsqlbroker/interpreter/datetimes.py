"""Moved to :mod:`tsqlbroker.values.dates` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import dates as moved

sys.modules[__name__] = moved
