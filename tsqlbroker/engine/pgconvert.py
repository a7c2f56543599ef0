"""Moved to :mod:`tsqlbroker.storage.backends.postgres.convert_sql` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.postgres import convert_sql as moved

sys.modules[__name__] = moved
