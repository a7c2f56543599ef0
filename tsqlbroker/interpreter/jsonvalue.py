"""Moved to :mod:`tsqlbroker.values.json_builtins` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import json_builtins as moved

sys.modules[__name__] = moved
