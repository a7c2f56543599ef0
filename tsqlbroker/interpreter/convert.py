"""Moved to :mod:`tsqlbroker.values.convert` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import convert as moved

sys.modules[__name__] = moved
