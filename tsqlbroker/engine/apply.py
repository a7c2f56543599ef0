"""CROSS APPLY / OUTER APPLY in storage queries.

PostgreSQL has the same operator: ``JOIN LATERAL (…) ON TRUE`` (``LEFT JOIN`` for OUTER
APPLY), which sqlglot generates. SQLite has no LATERAL, but a table-valued function's
arguments may refer to the tables before it in the FROM clause, and a scalar subquery there
may be correlated. So the applied table expression becomes a JSON array of its rows, built by
a correlated subquery, and ``json_each`` turns that array back into rows:

    CROSS APPLY (SELECT TOP (1) o.v, o.d FROM o WHERE o.c = c.id ORDER BY o.d) x
 →  JOIN json_each((SELECT json_group_array(json(q.j)) FROM
                    (SELECT json_array(o.v, o.d) AS j FROM o WHERE … LIMIT 1) AS q)) AS x
    CROSS APPLY (VALUES (c.a), (c.b)) v(col)
 →  JOIN json_each(json_array(json_array(c.a), json_array(c.b))) AS v

and each reference ``x.v`` reads ``json_extract(x.value, '$[0]')``. The inner query keeps its
order (TOP … ORDER BY), the array keeps the row order, and OUTER APPLY is ``LEFT JOIN`` (an
empty array yields the one row of NULLs). Binary values cannot pass through JSON: an applied
query returning varbinary columns is refused on SQLite.
"""

from __future__ import annotations

from sqlglot import exp

from ..storage.stored_values import BINARY_TYPES
from ..values.types import parse_spec
from .parsing import not_supported
from .shapes import is_star, order_key, replace_stars, source_aliases, values_source
from .transpiler.interface import BindContext
from .transpiler.scope import Applied, Source, projection_name


def applied_columns(binder: BindContext, lateral: exp.Lateral) -> list[tuple[str, str | None]]:
    """The columns (name, type spec) of an applied table expression."""
    alias = lateral.args.get("alias")
    named = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
    inner = lateral.this.this if isinstance(lateral.this, exp.Subquery) else lateral.this
    if isinstance(inner, exp.Values):
        if not named:
            raise not_supported("CROSS APPLY (VALUES …) without column names")
        fake = inner.copy()
        fake.set("alias", exp.TableAlias(this=exp.to_identifier(alias.name),
                                         columns=[exp.to_identifier(n) for n in named]))
        source = values_source(binder, fake)
        # values_source CASTs mismatched items in the copy: keep them in the original.
        inner.set("expressions", fake.expressions)
        return list(source.columns) if source is not None else [(n, None) for n in named]
    if isinstance(inner, exp.Select):
        columns: list[tuple[str, str | None]] = []
        for proj in inner.expressions:
            if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column)
                                               and isinstance(proj.this, exp.Star)):
                raise not_supported("SELECT * inside CROSS APPLY / OUTER APPLY")
            columns.append((projection_name(proj), binder.spec_of(proj)))
        if named:
            columns = [(n, s) for n, (_, s) in zip(named, columns, strict=False)]
        return columns
    if isinstance(inner, exp.Dot):
        raise not_supported("CROSS APPLY / OUTER APPLY of an XML nodes() method in a query")
    raise not_supported("This CROSS APPLY / OUTER APPLY table expression")


def register(binder: BindContext, tree: exp.Expression) -> None:
    """Give every applied table expression in ``tree`` a source (names and types)."""
    for lateral in tree.find_all(exp.Lateral):
        alias = lateral.args.get("alias")
        if not isinstance(alias, exp.TableAlias) or not alias.name:
            raise not_supported("CROSS APPLY / OUTER APPLY without an alias")
        columns = applied_columns(binder, lateral)
        source = Source("derived", alias.name, columns)
        binder.sources.setdefault(alias.name.lower(), source)
        if not binder.backend.supports_lateral:  # emulated: see the module docstring
            if any(s is not None and parse_spec(s).name in BINARY_TYPES for _n, s in columns):
                raise not_supported("Binary columns from CROSS APPLY / OUTER APPLY on SQLite")
            binder.applied[alias.name.lower()] = Applied(
                alias.name.lower(), [n.lower() for n, _s in columns])


def sqlite_join(binder: BindContext, lateral: exp.Lateral) -> exp.Expression:
    """The SQLite form of an applied table expression (see the module docstring)."""
    alias = lateral.args["alias"].name
    inner = lateral.this.this if isinstance(lateral.this, exp.Subquery) else lateral.this
    if isinstance(inner, exp.Values):
        rows = [exp.Anonymous(this="json_array", expressions=[
            binder.rewrite(e) for e in (t.expressions if isinstance(t, exp.Tuple) else [t])])
            for t in inner.expressions]
        array: exp.Expression = exp.Anonymous(this="json_array", expressions=rows)
    else:
        assert isinstance(inner, exp.Select)
        order = inner.args.get("order")
        if order is not None:  # select-list aliases vanish into the JSON array below
            order.set("expressions", [order_key(o, list(inner.expressions))
                                      for o in order.expressions])
        items = [p.this if isinstance(p, exp.Alias) else p for p in inner.expressions]
        inner.set("expressions", [exp.alias_(exp.Anonymous(this="json_array", expressions=items),
                                             "j", quoted=True)])
        rewritten = binder.rewrite(inner)
        array = exp.Subquery(this=exp.select(
            exp.Anonymous(this="json_group_array", expressions=[
                exp.Anonymous(this="json", expressions=[exp.column("j", "q", quoted=True)])])
        ).from_(exp.Subquery(this=rewritten, alias=exp.TableAlias(
            this=exp.to_identifier("q", quoted=True)))))
    return exp.Table(this=exp.Anonymous(this="json_each", expressions=[array]),
                     alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))


def sqlite_join_node(binder: BindContext, join: exp.Join) -> exp.Join:
    """``JOIN json_each(…)`` for CROSS APPLY, ``LEFT JOIN … ON 1 = 1`` for OUTER APPLY."""
    lateral = join.this
    assert isinstance(lateral, exp.Lateral)
    outer = not lateral.args.get("cross_apply")
    table = sqlite_join(binder, lateral)
    if outer:
        return exp.Join(this=table, side="LEFT", on=exp.EQ(
            this=exp.Literal.number(1), expression=exp.Literal.number(1)))
    return exp.Join(this=table, kind="CROSS")


def column_reference(binder: BindContext, node: exp.Column) -> exp.Expression | None:
    """``x.col`` of an applied expression on SQLite: the JSON array element it reads."""
    if not binder.applied or isinstance(node.this, exp.Star):
        return None
    name = node.name.lower()
    table = node.table.lower() if node.table else ""
    if table:
        applied = binder.applied.get(table)
    else:
        owners = [a for a in binder.applied.values() if name in a.columns]
        others = [s for k, s in binder.sources.items()
                  if k not in binder.applied and s.has_column(name)]
        applied = owners[0] if len(owners) == 1 and not others else None
    if applied is None or name not in applied.columns:
        return None
    value = exp.Anonymous(this="json_extract", expressions=[
        exp.column("value", applied.alias, quoted=True),
        exp.Literal.string(f"$[{applied.columns.index(name)}]")])
    if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
        return exp.alias_(value, node.name, quoted=True)
    return value


def expand_stars(binder: BindContext, select: exp.Select) -> None:
    """``SELECT *`` / ``x.*`` over applied expressions on SQLite: the applied columns by name
    (json_each's own columns are not the applied expression's)."""
    if not any(is_star(p) for p in select.expressions):
        return
    order = source_aliases(select)
    if not any(a in binder.applied for a in order):
        return

    def columns(alias: str) -> list[exp.Expression]:
        if alias not in binder.applied:
            return [exp.Column(this=exp.Star(), table=exp.to_identifier(alias))]
        return [exp.column(name, alias) for name, _spec in binder.sources[alias].columns]
    replace_stars(select, order, columns)
