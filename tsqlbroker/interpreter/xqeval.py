"""Moved to :mod:`tsqlbroker.values.xquery_eval` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import xquery_eval as moved

sys.modules[__name__] = moved
