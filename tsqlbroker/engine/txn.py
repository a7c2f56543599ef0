"""Moved to :mod:`tsqlbroker.storage.txn` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage import txn as moved

sys.modules[__name__] = moved
