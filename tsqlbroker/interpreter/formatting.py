"""Moved to :mod:`tsqlbroker.values.format_builtins` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import format_builtins as moved

sys.modules[__name__] = moved
