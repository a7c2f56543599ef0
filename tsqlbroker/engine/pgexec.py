"""Moved to :mod:`tsqlbroker.storage.backends.postgres.libpq` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.postgres import libpq as moved

sys.modules[__name__] = moved
