"""Query shapes the backends spell differently: table value constructors used as derived
tables and integer ``AVG``.

``(VALUES (1, 'a'), (2.5, 'b')) AS v(n, s)``: SQL Server types each column by data type
precedence over its values (``n`` is ``decimal(11,1)``); PostgreSQL accepts the column
alias list, SQLite does not (it names the columns ``column1`` …), so there the constructor
becomes ``(SELECT column1 AS n, column2 AS s FROM (VALUES …)) AS v``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from .sqltypes import parse_spec
from .typeprec import aggregate_spec, common_spec, literal_spec

if TYPE_CHECKING:
    from .transpile import Binder, Source


def value_spec(binder: Binder, node: exp.Expression) -> str | None:
    """The type of one constructor item: constants typed as SQL Server types them."""
    if isinstance(node, exp.Neg):
        return value_spec(binder, node.this)
    if isinstance(node, exp.National):
        return literal_spec(node.name, True, national=True)
    if isinstance(node, exp.Literal):
        return literal_spec(node.name, node.is_string)
    if isinstance(node, exp.Null):
        return None
    return binder.spec_of(node)


def _kind(spec: str | None) -> str | None:
    if spec is None:
        return None
    t = parse_spec(spec)
    return "string" if t.is_string else "number" if t.is_numeric else t.name


def values_source(binder: Binder, node: exp.Values) -> Source | None:
    """A derived table ``(VALUES …) AS alias(columns)``: its columns and their types.
    Items whose kind differs from the column's type (``'1'`` in an int column) get an
    explicit CAST, so they convert (or fail with Msg 245) as SQL Server converts them."""
    from .transpile import Source  # import cycle: transpile uses this module

    alias = node.args.get("alias")
    if not isinstance(alias, exp.TableAlias) or not alias.columns:
        return None
    names = [c.name for c in alias.columns]
    rows = [t.expressions if isinstance(t, exp.Tuple) else [t] for t in node.expressions]
    columns: list[tuple[str, str | None]] = []
    for i, name in enumerate(names):
        items = [row[i] for row in rows if i < len(row)]
        specs = [value_spec(binder, item) for item in items]
        spec = common_spec(specs)
        columns.append((name, spec))
        if spec is None:
            continue
        for row, item_spec in zip(rows, specs, strict=True):
            if item_spec is not None and _kind(item_spec) != _kind(spec):
                row[i] = exp.Cast(this=row[i], to=exp.DataType.build(spec, dialect="tsql"))
    return Source("values", alias.name, columns)


def sqlite_values(node: exp.Values) -> exp.Expression:
    """``(VALUES …) AS v(a, b)`` (already rewritten) as SQLite reads it."""
    alias = node.args["alias"]
    items = [exp.alias_(exp.column(f"column{i}"), c.name, quoted=True)
             for i, c in enumerate(alias.columns, 1)]
    node.set("alias", None)
    inner = exp.select(*items).from_(exp.Subquery(this=node))
    return exp.Subquery(this=inner, alias=exp.TableAlias(this=alias.this))


def integer_avg(binder: Binder, node: exp.Avg) -> exp.Expression | None:
    """``AVG`` of an integer expression is an integer in SQL Server (the sum divided by
    the count, truncated toward zero); the backends average in floating point or numeric.
    Returns the backend form, or None when the argument is not an integer."""
    arg = node.this
    distinct = isinstance(arg, exp.Distinct)
    inner = arg.expressions[0] if distinct and arg.expressions else arg
    if aggregate_spec("avg", binder.spec_of(inner)) not in ("int", "bigint"):
        return None
    rewritten = binder.rewrite(arg)
    if binder.conn.dialect == "sqlite":
        # SQLite's integer division truncates toward zero, as SQL Server's does.
        return exp.Div(this=exp.Sum(this=rewritten),
                       expression=exp.Count(this=rewritten.copy()), typed=True)
    return exp.Cast(this=exp.Anonymous(this="trunc", expressions=[exp.Avg(this=rewritten)]),
                    to=exp.DataType.build("bigint"))


def aggregate_result_spec(binder: Binder, node: exp.Expression) -> str | None:
    """The type spec of a ``SUM`` / ``AVG`` call, as SQL Server types it."""
    arg = node.this
    if isinstance(arg, exp.Distinct) and arg.expressions:
        arg = arg.expressions[0]
    return aggregate_spec("avg" if isinstance(node, exp.Avg) else "sum", binder.spec_of(arg))
