"""Moved to :mod:`tsqlbroker.values.builtins` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import builtins as moved

sys.modules[__name__] = moved
