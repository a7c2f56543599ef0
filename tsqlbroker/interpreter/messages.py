"""Moved to :mod:`tsqlbroker.errors.messages` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.errors import messages as moved

sys.modules[__name__] = moved
