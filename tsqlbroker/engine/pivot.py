"""PIVOT and UNPIVOT in FROM, as SQL Server's "Using PIVOT and UNPIVOT" documents them.

Neither backend has the operators, so each becomes a derived table under the operator's
alias before the statement is bound:

* ``src PIVOT (AGG(v) FOR p IN ([a], [b])) AS x`` is conditional aggregation,
  ``(SELECT g…, AGG(CASE WHEN p = 'a' THEN v END) AS [a], … FROM src GROUP BY g…) AS x``,
  grouped by every column of ``src`` other than ``v`` and ``p`` (the implicit grouping).
  Each IN name is compared as a number when ``p`` is numeric, as a string otherwise.
* ``src UNPIVOT (v FOR n IN (c1, c2)) AS x`` is one query per listed column joined with
  UNION ALL, ``SELECT others…, c1 AS v, CAST(N'c1' AS nvarchar(128)) AS n FROM src WHERE c1
  IS NOT NULL`` — UNPIVOT drops the NULL values. The listed columns must share one type
  (Msg 8167).
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import MESSAGES, BindError, tsql_error
from .parsing import not_supported
from .transpiler.interface import BindContext

MESSAGES.setdefault(8167, (16, ('The type of column "%.*ls" conflicts with the type of other '
                                "columns specified in the UNPIVOT list.")))

_NUMERIC = ("tinyint", "smallint", "int", "bigint", "decimal", "numeric", "float", "real",
            "money", "smallmoney", "bit")


def expand(binder: BindContext, tree: exp.Expression) -> None:
    """Replace every PIVOT / UNPIVOT of ``tree`` by its derived table (innermost first)."""
    holders = [n for n in tree.find_all(exp.Table, exp.Subquery) if n.args.get("pivots")]
    for node in reversed(holders):
        pivots = node.args["pivots"]
        node.set("pivots", None)
        # ``t PIVOT (…) AS p UNPIVOT (…) AS q``: each operator reads the previous one's result.
        current: exp.Expression = node.copy()
        for op in pivots:
            columns = _source_columns(binder, current, tree)
            body = _unpivot(op, current, columns) if op.args.get("unpivot") \
                else _pivot(op, current, columns)
            alias = op.args.get("alias")
            current = exp.Subquery(this=body, alias=alias.copy() if alias is not None else None)
        node.replace(current)


def _source_columns(binder: BindContext, node: exp.Expression, tree: exp.Expression
                    ) -> list[tuple[str, str | None]]:
    """The columns (name, type spec) of the table source a PIVOT / UNPIVOT reads."""
    if isinstance(node, exp.Subquery):
        names, types = binder.describe(node.this)
        if names is None:
            raise not_supported("PIVOT / UNPIVOT over a derived table whose columns are *")
        return list(zip(names, types + [None] * (len(names) - len(types)), strict=True))
    if not node.args.get("db") and not node.args.get("catalog"):
        for cte in tree.find_all(exp.CTE):
            if cte.alias_or_name.lower() == node.name.lower():
                named = [c.name for c in cte.args["alias"].args.get("columns") or []]
                names, types = binder.describe(cte.this)
                if names is None:
                    raise not_supported("PIVOT / UNPIVOT over a CTE whose columns are *")
                return list(zip(named or names, types, strict=False))
    return binder.table_columns(node)


def _find(columns: list[tuple[str, str | None]], name: str) -> tuple[str, str | None]:
    low = name.lower()
    for column in columns:
        if column[0].lower() == low:
            return column
    raise tsql_error(207, name, cls=BindError)


def _source(node: exp.Expression) -> exp.From:
    return exp.From(this=node.copy())


def _pivot(op: exp.Pivot, node: exp.Expression,
           columns: list[tuple[str, str | None]]) -> exp.Select:
    aggs = op.expressions
    fields = op.args.get("fields") or []
    if len(aggs) != 1 or len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise not_supported("This PIVOT form")
    agg = aggs[0]
    field = fields[0]
    if not isinstance(agg, exp.AggFunc) or not isinstance(agg.this, exp.Column):
        raise not_supported("A PIVOT aggregate over anything but one column")
    value_name, _spec = _find(columns, agg.this.name)
    pivot_name, pivot_spec = _find(columns, field.this.name)
    numeric = (pivot_spec or "").split("(")[0].strip().lower() in _NUMERIC
    used = {value_name.lower(), pivot_name.lower()}
    groups = [exp.column(n, quoted=True) for n, _s in columns if n.lower() not in used]
    items: list[exp.Expression] = list(groups)
    for listed in field.expressions:
        label = listed.name if isinstance(listed, (exp.Column, exp.Identifier)) else None
        if label is None:
            raise not_supported("A PIVOT IN list of anything but column names")
        literal = exp.Literal.number(label) if numeric else exp.Literal.string(label)
        case = exp.Case(ifs=[exp.If(this=exp.EQ(this=exp.column(pivot_name, quoted=True),
                                                expression=literal),
                                    true=exp.column(value_name, quoted=True))])
        aggregate = agg.copy()
        aggregate.set("this", case)
        items.append(exp.alias_(aggregate, exp.to_identifier(label, quoted=True)))
    select = exp.Select(expressions=items).from_(_source(node))
    if groups:
        select = select.group_by(*[g.copy() for g in groups])
    return select


def _unpivot(op: exp.Pivot, node: exp.Expression,
             columns: list[tuple[str, str | None]]) -> exp.Expression:
    fields = op.args.get("fields") or []
    if len(op.expressions) != 1 or len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise not_supported("This UNPIVOT form")
    value_name = op.expressions[0].name
    name_name = fields[0].this.name
    listed = [_find(columns, c.name) for c in fields[0].expressions]
    first_spec = listed[0][1]
    for name, spec in listed[1:]:
        if spec is not None and first_spec is not None and spec.lower() != first_spec.lower():
            raise tsql_error(8167, name, cls=BindError)
    used = {n.lower() for n, _s in listed}
    others = [n for n, _s in columns if n.lower() not in used]
    body: exp.Expression | None = None
    for name, _spec in listed:
        label = exp.Cast(this=exp.Literal.string(name), to=exp.DataType.build(
            "NVARCHAR(128)", dialect="tsql"))
        items = [exp.column(n, quoted=True) for n in others]
        items.append(exp.alias_(exp.column(name, quoted=True),
                                exp.to_identifier(value_name, quoted=True)))
        items.append(exp.alias_(label, exp.to_identifier(name_name, quoted=True)))
        select = exp.Select(expressions=items).from_(_source(node)).where(
            exp.Not(this=exp.Is(this=exp.column(name, quoted=True), expression=exp.Null())))
        body = select if body is None else exp.Union(this=body, expression=select,
                                                     distinct=False)
    assert body is not None  # the grammar wants at least one listed column
    return body
