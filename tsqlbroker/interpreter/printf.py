"""Moved to :mod:`tsqlbroker.values.message_format` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import message_format as moved

sys.modules[__name__] = moved
