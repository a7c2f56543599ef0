"""The types of written AST nodes: a declared data type and a literal constant.

These two read grammar AST nodes, which :mod:`tsqlbroker.values` may not import; they hand the
node's parts to :func:`tsqlbroker.values.types.make_type` and
:func:`tsqlbroker.values.types.constant_type`.
"""

from __future__ import annotations

from typing import Any

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar import ast
from tsqlbroker.values.types import SqlType, constant_type, make_type


def type_from_ast(dt: ast.DataType, context: str = "declare", *, position: int = 1) -> SqlType:
    """The :class:`SqlType` a written type denotes.

    ``context`` decides defaults for a missing length: ``'declare'`` (DECLARE, parameters,
    columns) gives 1, ``'cast'`` (CAST/CONVERT) gives 30. Unknown names raise Msg 2715
    (``position`` is the ``#%d`` of that message).
    """
    coll = None
    if dt.xml_collection is not None:
        c = dt.xml_collection
        coll = f"{c.schema}.{c.name}" if c.schema else c.name
    return make_type(dt.name, tuple(dt.args), context, position, coll)


def literal_type(lit: ast.Literal) -> tuple[SqlType, Any]:
    """The type and runtime value of a literal, typed as SQL Server types constants."""
    return constant_type(lit.kind, lit.value, lit.text)


def is_builtin(dt: ast.DataType) -> bool:
    """True when ``dt`` names a system type (False: a user-defined type, Msg 2715 if none)."""
    try:
        type_from_ast(dt, "declare")
    except TSqlError as e:
        if e.number == 2715:
            return False
        raise
    return True
