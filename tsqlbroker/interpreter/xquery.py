"""Moved to :mod:`tsqlbroker.values.xquery` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import xquery as moved

sys.modules[__name__] = moved
