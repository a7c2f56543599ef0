"""Moved to :mod:`tsqlbroker.storage.backends.postgres.interest` (issue 15); removed in P5."""  # issue15-shim
import sys

from tsqlbroker.storage.backends.postgres import interest as moved

sys.modules[__name__] = moved
