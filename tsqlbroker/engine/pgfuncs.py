"""Moved to :mod:`tsqlbroker.storage.backends.postgres.functions` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.postgres import functions as moved

sys.modules[__name__] = moved
