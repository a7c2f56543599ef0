"""Moved to :mod:`tsqlbroker.values.xml_modify` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.values import xml_modify as moved

sys.modules[__name__] = moved
