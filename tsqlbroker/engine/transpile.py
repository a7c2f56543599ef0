"""Split into the passes of :mod:`tsqlbroker.engine.transpiler` (issue 15); removed in P5."""  # issue15-shim
from .parsing import (  # issue15-shim
    Parsed,
    not_supported,
    parse_statement,
    stats,
    syntax_error,
)
from .transpiler import Binder  # issue15-shim
from .transpiler.generate import clear_caches  # issue15-shim
from .transpiler.resolve import object_id_of, temp_table_object_id  # issue15-shim
from .transpiler.scope import (  # issue15-shim
    PHYSICAL_MARK,
    Compiled,
    Source,
    datatype_spec,
    table_key,
    written_name,
)

__all__ = ["PHYSICAL_MARK", "Binder", "Compiled", "Parsed", "Source", "clear_caches",
           "datatype_spec", "not_supported", "object_id_of", "parse_statement", "stats",
           "syntax_error", "table_key", "temp_table_object_id", "written_name"]
