"""Moved to :mod:`tsqlbroker.values.precedence` and :mod:`tsqlbroker.values.types` (issue 15);
removed in P5."""  # issue15-shim
from tsqlbroker.values.precedence import (  # issue15-shim
    aggregate_spec,
    arithmetic_spec,
    common_spec,
    decimal_arith,
)
from tsqlbroker.values.types import literal_spec  # issue15-shim

__all__ = ["aggregate_spec", "arithmetic_spec", "common_spec", "decimal_arith", "literal_spec"]
