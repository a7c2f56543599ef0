"""Moved to :mod:`tsqlbroker.values.operators` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import operators as moved

sys.modules[__name__] = moved
