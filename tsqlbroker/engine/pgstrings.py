"""Moved to :mod:`tsqlbroker.storage.backends.postgres.strings_sql` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.postgres import strings_sql as moved

sys.modules[__name__] = moved
