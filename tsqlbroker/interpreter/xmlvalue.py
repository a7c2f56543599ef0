"""Moved to :mod:`tsqlbroker.values.xml_value` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import xml_value as moved

sys.modules[__name__] = moved
