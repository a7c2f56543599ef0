"""Moved to :mod:`tsqlbroker.storage.backends.sqlite.file_locks` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.sqlite import file_locks as moved

sys.modules[__name__] = moved
