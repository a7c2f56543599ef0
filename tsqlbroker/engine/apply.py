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

``CROSS APPLY t.x.nodes('path') AS n(c)`` on SQLite is ``json_each(tsqlb_xml_nodes(t.x,
'path'))``: each row carries its context node as a token the xml methods read back in Python
(storage/backends/sqlite/tsql_functions.py). PostgreSQL, whose xml methods are xpath() in
SQL, refuses it (Msg 40000, docs/decisions.md).
"""

from __future__ import annotations

import json

from sqlglot import exp

from ..errors import tsql_error
from ..storage.stored_values import BINARY_TYPES
from ..values.json_builtins import openjson_column_path, parse_path
from ..values.types import parse_spec
from .parsing import not_supported
from .shapes import (
    is_star,
    order_key,
    replace_stars,
    source_aliases,
    values_source,
    xml_method_target,
)
from .transpiler.interface import BindContext
from .transpiler.scope import Applied, Source, projection_name, require_column_names
from .tvf import openjson_columns, openjson_schema


def applied_columns(binder: BindContext, lateral: exp.Lateral) -> list[tuple[str, str | None]]:
    """The columns (name, type spec) of an applied table expression."""
    alias = lateral.args.get("alias")
    named = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
    inner = lateral.this.this if isinstance(lateral.this, exp.Subquery) else lateral.this
    if isinstance(inner, exp.OpenJSON):
        return list(openjson_columns(inner))
    # Msg 8155 for a column without a name, before anything is refused as not supported
    require_column_names(inner, alias, alias.name)
    if isinstance(inner, exp.Values):
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
        if binder.backend.xpath_in_sql or not is_nodes_call(inner):
            # PostgreSQL's xpath() has no context node to carry (docs/decisions.md)
            raise not_supported("CROSS APPLY / OUTER APPLY of an XML nodes() method in a query")
        return [(n, "xml") for n in named[:1]]
    raise not_supported("This CROSS APPLY / OUTER APPLY table expression")


def is_nodes_call(node: exp.Expression) -> bool:
    """Whether ``node`` is ``target.nodes(…)``, the xml method as a table expression."""
    return isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous) \
        and node.expression.name.lower() == "nodes"


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
            converts = [s for _n, s in columns] if isinstance(lateral.this, exp.OpenJSON) \
                and lateral.this.expressions else None
            binder.applied[alias.name.lower()] = Applied(
                alias.name.lower(), [n.lower() for n, _s in columns], converts,
                xml_context=is_nodes_call(lateral.this))


def sqlite_join(binder: BindContext, lateral: exp.Lateral) -> exp.Expression:
    """The SQLite form of an applied table expression (see the module docstring)."""
    alias = lateral.args["alias"].name
    inner = lateral.this.this if isinstance(lateral.this, exp.Subquery) else lateral.this
    if isinstance(inner, exp.OpenJSON):
        return exp.Table(this=exp.Anonymous(this="json_each", expressions=[
            _openjson_call(binder, inner)]),
            alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
    if is_nodes_call(inner):
        # tsqlb_xml_nodes: a JSON array of one-item rows, each a context node (a token
        # naming the document and the nodes() steps to it; the xml methods read it back)
        assert isinstance(inner, exp.Dot) and isinstance(inner.expression, exp.Anonymous)
        array = exp.Anonymous(this="tsqlb_xml_nodes", expressions=[
            binder.rewrite(xml_method_target(inner)),
            *[binder.rewrite(a) for a in inner.expression.expressions]])
        return exp.Table(this=exp.Anonymous(this="json_each", expressions=[array]),
                         alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
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
    if applied.xml_context and node.parent is not None and not isinstance(node.parent, exp.Is):
        # only an xml method's target (a column made afresh, no parent) or IS [NOT] NULL
        raise tsql_error(493, node.name)
    index = applied.columns.index(name)
    value = exp.Anonymous(this="json_extract", expressions=[
        exp.column("value", applied.alias, quoted=True), exp.Literal.string(f"$[{index}]")])
    if applied.converts is not None:
        value = binder.converted(value, applied.converts[index], "nvarchar(max)")
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


def _openjson_call(binder: BindContext, call: exp.OpenJSON) -> exp.Expression:
    """``tsqlb_openjson(json, path, schema)``: OPENJSON of the outer row's value in the
    store's query. Each store has the function (SQLite: Python over
    ``values.json_builtins.openjson_rows``, a JSON array of the rows; PostgreSQL: PL/pgSQL
    returning one text array per row); ``schema`` is the JSON text of the WITH columns'
    ``[name, path, AS JSON]`` (NULL: the default schema, key / value / type)."""
    path = call.args.get("path")
    if isinstance(path, exp.Literal):
        parse_path(path.name)  # a malformed constant path is Msg 13607 before any row
    schema = openjson_schema(call)
    spec = exp.Literal.string(json.dumps([[n, openjson_column_path(n, p), j]
                                          for n, p, j in schema])) if schema else exp.null()
    return exp.Anonymous(this="tsqlb_openjson", expressions=[
        binder.rewrite(call.this),
        binder.rewrite(path) if isinstance(path, exp.Expression) else exp.Literal.string("$"),
        spec])


def lateral_openjson(binder: BindContext, lateral: exp.Lateral) -> exp.Lateral:
    """``CROSS APPLY OPENJSON(t.c) …`` where the store has LATERAL: a lateral query over
    ``tsqlb_openjson``'s text arrays, each text converted to its column's type."""
    call = lateral.this
    assert isinstance(call, exp.OpenJSON)
    columns = openjson_columns(call)
    rows = exp.Table(this=_openjson_call(binder, call), alias=exp.TableAlias(
        this=exp.to_identifier("r", quoted=True), columns=[exp.to_identifier("v", quoted=True)]))
    items = []
    for i, (name, spec) in enumerate(columns):
        # sqlglot writes PostgreSQL's 1-based subscript from this 0-based index.
        text: exp.Expression = exp.Bracket(this=exp.column("v", "r", quoted=True),
                                           expressions=[exp.Literal.number(i)])
        items.append(exp.alias_(binder.converted(text, spec, "nvarchar(max)"), name,
                                quoted=True))
    out = lateral.copy()
    out.set("this", exp.Subquery(this=exp.select(*items).from_(rows)))
    return out
