"""UPDATE … SET @v = … that reads a variable it assigns (``SET @total = run = @total + c``,
``SET @n += 1``): evaluated row by row, each row seeing the variables the rows before it left,
as SQL Server does (the "quirky update"; docs/decisions.md gives the row order).

Within a row the SET items run left to right: a variable an earlier item assigned stands for
that item's value (converted to the variable's type) in the items after it, so one backend
query per row computes the row's new column values and the variables' new values from the
variables' values before the row. Columns read the row as it was before the statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ..storage.store import StoreConnection
from ..storage.stored_values import backend_value, from_storage, to_storage
from .context import Params
from .execsql import BackendSql, read_rows
from .transpiler.scope import Compiled

__all__ = ["RID_ALIAS", "SetStep", "row_values", "run_rows"]

# The name of the row id column of the per-row query (its first column).
RID_ALIAS = "tsqlb_rid"


@dataclass(frozen=True)
class SetStep:
    """One SET item in written order: ``col = e`` (variable None), ``@v = e`` (column
    None) or ``@v = col = e`` (both)."""

    column: str | None
    variable: str | None
    value: exp.Expression


def row_values(steps: Sequence[SetStep], params: Params
               ) -> tuple[list[exp.Expression], list[exp.Expression]]:
    """The new column values (in the order of the column items) and the variables' new
    values (in the order of the variable items) of one row, as expressions of the row and
    of the variables' values before it."""
    current: dict[str, exp.Expression] = {}
    columns: list[exp.Expression] = []
    variables: list[exp.Expression] = []
    for step in steps:
        value = _substituted(step.value.copy(), current)
        if step.column is not None:
            columns.append(value)
        if step.variable is not None:
            spec = params.get(step.variable.lower(), (None, None))[1]
            typed = exp.Cast(this=value.copy(), to=exp.DataType.build(spec, dialect="tsql")) \
                if spec else value
            current[step.variable.lower()] = typed
            variables.append(typed)
    return columns, variables


def _substituted(node: exp.Expression, current: dict[str, exp.Expression]) -> exp.Expression:
    if not current:
        return node

    def swap(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Parameter) and not isinstance(n.this, exp.Parameter):
            value = current.get(("@" + n.name).lower())
            if value is not None:
                return exp.Paren(this=value.copy())
        return n
    return node.transform(swap)


def run_rows(conn: StoreConnection, compiled: Compiled, binds: dict[str, Any],
             params: Params, variables: Sequence[str], width: int,
             native_decimal: bool) -> list[tuple[Any, ...]]:
    """The rows of ``compiled`` (``SELECT rid AS tsqlb_rid, <column values>, <variable
    values> … ORDER BY <row order>``), one per target row in that order, each computed with
    the variables the rows before it assigned (``variables``: their names in the order of
    the values after the first ``width`` columns)."""
    first = read_rows(conn, compiled.sql, binds)[1]
    order = list(dict.fromkeys(r[0] for r in first))
    if not order:
        return []
    one = _one_row(compiled.sql)
    values = dict(params)
    binds = dict(binds)
    out: list[tuple[Any, ...]] = []
    row = tuple(first[0])
    for i, rid in enumerate(order):
        if i:
            binds[RID_ALIAS] = rid
            row = tuple(read_rows(conn, one, binds)[1][0])
        out.append(row)
        for name, value in zip(variables, row[width:], strict=True):
            spec = values.get(name.lower(), (None, None))[1]
            values[name.lower()] = (from_storage(value, spec), spec)
        for key, name in compiled.param_keys:
            if name.lower() in values:
                value, spec = values[name.lower()]
                binds[key] = backend_value(to_storage(value, spec, native_decimal))
    return out


def _one_row(sql: BackendSql) -> BackendSql:
    """``sql`` as a derived table, only its rows of the row id bound as ``tsqlb_rid``."""
    numbered = sql.names is not None
    mark = f"${len(sql.names or ()) + 1}" if numbered else f":{RID_ALIAS}"
    return BackendSql(f"SELECT * FROM ({sql.text}) AS tsqlb_row "
                      f"WHERE tsqlb_row.{RID_ALIAS} = {mark}",
                      (*(sql.names or ()), RID_ALIAS) if numbered else None)
