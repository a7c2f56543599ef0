"""INSERT, UPDATE and DELETE through a view (SQL Server's updatable views).

The view (and the views it is built on, down to base tables) is flattened into its FROM
items (each base table under an alias of its own), its WHERE and an expression per view
column over those aliases. The statement is then rewritten against the one base table it
modifies — ``INSERT base (mapped columns)``, ``UPDATE alias SET … FROM <view's FROM> WHERE
<view's WHERE> AND <statement's WHERE>``, ``DELETE alias FROM …`` — and runs as any DML on a
table does (row writer, constraints, identity, OUTPUT, the base table's triggers). SQL
Server's refusals: Msg 4405 (the modification affects several base tables), 4406 (a derived
or constant column), 4403 (aggregates, DISTINCT, GROUP BY); WITH CHECK OPTION is checked
on the written rows (Msg 550).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from .catalog import Catalog
from .context import ExecContext, register_view_describer
from .parsing import Parsed, has_check_option, not_supported, view_query
from .query import run_query
from .tableinfo import ColumnInfo, TableInfo
from .transpiler.binder import Binder
from .transpiler.scope import table_key
from .triggers import trigger_from_row, wants
from .viewcols import view_columns

_ALIAS = "tsqlb_vw{}"


def compile_error(number: int, view: str) -> TSqlError:
    """Msg 4403 / 4405 / 4406 / 4426 / 4436 / 404 / 334: SQL Server finds them when it compiles the batch, so nothing
    more of the batch runs (as Msg 271)."""
    err = tsql_error(number, view, cls=BindError)
    err.batch_abort = True  # type: ignore[attr-defined]
    return err


@dataclass(frozen=True)
class SetOp:
    """A view whose query is a UNION / EXCEPT / INTERSECT (SQL Server's refusals differ by
    action and by shape, as its messages and probes show)."""

    has_union: bool  # a UNION anywhere in it: writing a column is Msg 4406
    top: str  # the operator on top: 'union' or 'except' (INTERSECT reads as EXCEPT)
    first_joins: bool  # its first branch reads several tables (DELETE: Msg 4405)
    stored: str  # the view whose body it is, as the statement or the outer view names it
    # (Msg 4406 names it)
    partition: str | None = None  # 'db.schema.view' when SQL Server tries a partitioned view
    checks: bool = False  # a member table has CHECK constraints (a partitioned view maybe)


@dataclass
class FlatView:
    """A view flattened down to its base tables."""

    name: str  # as the statement wrote it (messages)
    first: exp.Expression  # the first FROM item (a base table under its new alias)
    joins: list[exp.Expression]
    tables: dict[str, TableInfo]  # new alias (lower) → base table
    nodes: dict[str, exp.Table]  # new alias (lower) → its table node
    columns: dict[str, exp.Expression]  # view column (lower) → expression over the aliases
    order: list[str]  # the view's column names in order
    where: exp.Expression | None = None
    check: exp.Expression | None = None  # what WITH CHECK OPTION asks of a written row
    has_check: bool = False
    aggregates: bool = False  # 4403 when modified
    # The actions an INSTEAD OF trigger of a view nested inside takes (refused: the
    # statement would have to become one on that view).
    instead: frozenset[str] = frozenset()
    problems: list[str] = field(default_factory=list)
    top: bool = False  # TOP / OFFSET in it or a view below (with CHECK OPTION: Msg 4427)
    setop: SetOp | None = None  # a UNION / EXCEPT view: how it is refused


def _view_object(ctx: ExecContext, key: tuple[str, str, str, str]) -> tuple[Any, int] | None:
    """The catalog row of the view ``key`` names and its database id (None: no view)."""
    if key[3]:
        return None
    catalog = Catalog.get(ctx.conn.store)
    db_id: int | None = ctx.db_id
    if key[0]:
        db_id = catalog.database_id(ctx.conn, key[0])
        if db_id is None:
            return None
    obj = catalog.find_object(ctx.conn, db_id, key[1] or None, key[2])
    if obj is None or obj.type != "V":
        return None
    return obj, db_id


def view_target(ctx: ExecContext, node: exp.Table) -> FlatView | None:
    """The flattened view a DML target names, None when it names no view."""
    found = _view_object(ctx, table_key(node))
    if found is None:
        return None
    obj, db_id = found
    return _flatten(ctx, obj, db_id, written_name(node), itertools.count(), 0)


def instead_view(ctx: ExecContext, node: exp.Table, action: str) -> TableInfo | None:
    """The view ``node`` names, as a table for its INSTEAD OF ``action`` trigger (its
    columns as the view's, its triggers), when it has such a trigger enabled and not running
    (inside it the view's DML is the plain one); None otherwise."""
    found = _view_object(ctx, table_key(node))
    if found is None:
        return None
    obj, db_id = found
    if obj.object_id in ctx.instead_active:
        return None
    catalog = Catalog.get(ctx.conn.store)
    triggers = [trigger_from_row(r) for r in catalog.objects(
        ctx.conn, db_id, {"TR"}, parent_id=obj.object_id)]
    if not any(t.instead_of and not t.disabled and action in t.events for t in triggers):
        return None
    source = Binder(ctx, {}).resolve(table_key(node))
    columns = [ColumnInfo(i, name, spec or "sql_variant", True)
               for i, (name, spec) in enumerate(source.columns, 1)]
    db = catalog.database(ctx.conn, db_id)
    info = TableInfo(obj.object_id, db_id, db.name if db else "?", obj.schema_name, obj.name,
                     "", columns, [], obj.modify_date, triggers=triggers)
    return info if wants(info, action, instead_of=True) else None


def written_name(node: exp.Table) -> str:
    """The target as the statement writes it (its alias, ``dbo.v``): SQL Server's messages
    name it so."""
    return node.alias or ".".join(p.name for p in node.parts)


def names_view(ctx: ExecContext, node: exp.Table) -> bool:
    """Whether ``node`` names a view."""
    return _view_object(ctx, table_key(node)) is not None


def _has_aggregate(select: exp.Select) -> bool:
    return select.args.get("group") is not None or select.args.get("distinct") is not None \
        or select.args.get("having") is not None or any(
            not isinstance(a.parent, exp.Window) for e in select.expressions
            for a in e.find_all(exp.AggFunc))


def _flatten(ctx: ExecContext, obj: Any, db_id: int, name: str, counter: Iterator[int],
             depth: int) -> FlatView:
    if depth >= 32:
        raise tsql_error(217)
    query, names = view_query(obj.definition or "")
    vctx = replace(ctx, db_id=db_id, view_depth=ctx.view_depth + 1)
    return _flatten_query(vctx, query, names, has_check_option(obj.definition or ""), name,
                          _View(obj, db_id, name, ctx.db_id), counter, depth, {})


@dataclass(frozen=True)
class _View:
    """The stored view a query being flattened belongs to."""

    obj: Any
    db_id: int
    name: str
    outer_db: int | None  # the database of the statement (or view) reading it
    cte: bool = False  # the query is a CTE of the view's


_Ctes = dict[str, tuple[exp.Expression, list[str] | None]]


def _flatten_query(ctx: ExecContext, query: exp.Expression, names: list[str] | None,
                   has_check: bool, name: str, stored: _View, counter: Iterator[int],
                   depth: int, ctes: _Ctes) -> FlatView:
    """Flatten one view (or CTE) query: ``ctx`` is in the view's database."""
    if isinstance(query, exp.SetOperation):
        return _set_operation(ctx, query, name, stored, ctes)
    if not isinstance(query, exp.Select):
        raise not_supported(f"Modifying the view '{name}' (not one SELECT)")
    with_ = query.args.get("with_")
    if with_ is not None:
        ctes = dict(ctes)
        for cte in with_.expressions:
            cols = [c.name for c in cte.args["alias"].columns] \
                if cte.args.get("alias") is not None and cte.args["alias"].columns else None
            ctes[cte.alias_or_name.lower()] = (cte.this, cols)
        query = query.copy()
        query.set("with_", None)
    from_ = query.args.get("from_")
    if from_ is None:
        raise compile_error(4406, name)
    joins = list(query.args.get("joins") or [])
    items = [from_.this, *(j.this for j in joins)]
    binder = Binder(ctx, {})
    # old alias (lower) → (new alias, its column names, the nested view or None)
    scope: dict[str, tuple[str, list[str], FlatView | None]] = {}
    tables: dict[str, TableInfo] = {}
    nodes: dict[str, exp.Table] = {}
    nested: FlatView | None = None
    new_items: list[exp.Expression] = []
    db_name = None
    if stored.db_id != stored.outer_db:
        row = Catalog.get(ctx.conn.store).database(ctx.conn, stored.db_id)
        db_name = row.name if row is not None else None
    for item in items:
        if not isinstance(item, exp.Table) or not item.name \
                or isinstance(item.this, (exp.Anonymous, exp.Parameter)):
            raise not_supported(f"Modifying the view '{name}' (a derived source)")
        key = table_key(item)
        old = (item.alias or item.name).lower()
        cte = ctes.get(item.name.lower()) if not key[0] and not key[1] else None
        if cte is not None:
            if len(items) > 1:
                raise not_supported(f"Modifying the view '{name}' (a CTE joined to others)")
            inner_ctes = {k: v for k, v in ctes.items() if k != item.name.lower()}
            nested = _flatten_query(ctx, cte[0], cte[1], False, name,
                                    replace(stored, cte=True), counter, depth + 1, inner_ctes)
            scope[old] = ("", list(nested.order), nested)
            tables.update(nested.tables)
            nodes.update(nested.nodes)
            continue
        source = binder.resolve(key)
        if source.kind == "view":
            found = _view_object(ctx, key)
            if found is None or len(items) > 1:
                raise not_supported(f"Modifying the view '{name}' (a view joined to others)")
            nested = _flatten(ctx, found[0], found[1], item.name, counter, depth + 1)
            nested.instead |= _instead_actions(ctx, found[0], found[1])
            scope[old] = ("", list(nested.order), nested)
            tables.update(nested.tables)
            nodes.update(nested.nodes)
            continue
        if source.table is None:
            raise not_supported(f"Modifying the view '{name}' (over '{item.name}')")
        alias = _ALIAS.format(next(counter))
        node = item.copy()
        node.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        if db_name is not None and not node.args.get("catalog"):
            node.set("catalog", exp.to_identifier(db_name))
            if not node.args.get("db"):
                node.set("db", exp.to_identifier("dbo"))
        scope[old] = (alias, [c.name for c in source.table.columns], None)
        tables[alias] = source.table
        plain = node.copy()
        plain.set("alias", None)
        nodes[alias] = plain
        new_items.append(node)
    if nested is not None and nested.setop is not None:
        # Over a UNION view: refused as it is (the outer view's name for DELETE).
        return replace(nested, name=name)
    rewrite = _rewriter(scope, query)
    # (name, expression) in select-list order: a column list names them by position, so
    # two same-named source columns (a.id, b.id) stay two view columns.
    pairs: list[tuple[str, exp.Expression]] = []
    for e in query.expressions:
        star = e.this if isinstance(e, exp.Column) and isinstance(e.this, exp.Star) else e
        if isinstance(star, exp.Star):
            owner = e.table.lower() if isinstance(e, exp.Column) and e.table else None
            for old, (alias, cols, inner) in scope.items():
                if owner is not None and owner != old:
                    continue
                pairs.extend((c, inner.columns[c.lower()].copy() if inner
                              else exp.column(c, table=alias, quoted=True)) for c in cols)
            continue
        inner_e = e.this if isinstance(e, exp.Alias) else e
        pairs.append((e.alias_or_name, rewrite(inner_e.copy())))
    if names is not None:
        pairs = [(n, expr) for n, (_o, expr) in zip(names, pairs, strict=False)]
    order = [n for n, _e in pairs]
    columns = {n.lower(): expr for n, expr in pairs}
    where = query.args.get("where")
    own_where = rewrite(where.this.copy()) if where is not None else None
    if nested is not None:
        first, new_joins = nested.first, list(nested.joins)
        combined = _and(nested.where, own_where)
    else:
        first = new_items[0]
        new_joins = []
        for join, node in zip(joins, new_items[1:], strict=True):
            j = join.copy()
            j.set("this", node)
            if j.args.get("on") is not None:
                j.set("on", rewrite(j.args["on"].copy()))
            new_joins.append(j)
        combined = own_where
    limited = query.args.get("limit") is not None or query.args.get("offset") is not None
    if limited:
        # TOP / OFFSET … FETCH: only the rows the view yields are written.
        combined = _and(combined, _limit_filter(ctx, query, names, name, stored, counter,
                                                depth, ctes, list(tables), columns))
    check = combined if has_check else (nested.check if nested is not None else None)
    return FlatView(name, first, new_joins, tables, nodes, columns, order, combined, check,
                    has_check or (nested is not None and nested.has_check),
                    _has_aggregate(query) or (nested is not None and nested.aggregates),
                    nested.instead if nested is not None else frozenset(),
                    top=limited or (nested is not None and nested.top))


def _limit_filter(ctx: ExecContext, query: exp.Select, names: list[str] | None, name: str,
                  stored: _View, counter: Iterator[int], depth: int, ctes: _Ctes,
                  aliases: list[str], columns: dict[str, exp.Expression]) -> exp.Expression:
    """``EXISTS (SELECT … FROM (SELECT TOP … <row ids> FROM <the view's FROM, fresh
    aliases> … ORDER BY …) WHERE <its row ids> = <the written row's>)``: the rows a TOP or
    OFFSET view yields, chosen as its query chooses them."""
    inner = query.copy()
    for arg in ("limit", "offset", "order"):
        inner.set(arg, None)
    ordered = list(query.args["order"].expressions) if query.args.get("order") else []
    extra = [exp.alias_(o.this.copy(), f"tsqlb_o{i}", quoted=True)
             for i, o in enumerate(ordered)]
    inner.set("expressions", [*inner.expressions, *extra])
    fresh = _flatten_query(ctx, inner, None if names is None else [
        *names, *(f"tsqlb_o{i}" for i in range(len(extra)))], False, name, stored, counter,
        depth + 1, ctes)
    order_by: list[exp.Expression] = []
    view_names = [n.lower() for n in (names or [])] or [
        e.alias_or_name.lower() for e in query.expressions]
    for i, o in enumerate(ordered):
        target = o.this
        expr = fresh.columns[f"tsqlb_o{i}"]
        if isinstance(target, exp.Column) and not target.table \
                and target.name.lower() in view_names and target.name.lower() in fresh.columns:
            expr = fresh.columns[target.name.lower()]  # a select-list alias
        elif isinstance(target, exp.Literal) and not target.is_string and target.name.isdigit() \
                and 0 < int(target.name) <= len(fresh.order):
            expr = fresh.columns[fresh.order[int(target.name) - 1].lower()]
        order_by.append(exp.Ordered(this=expr.copy(), desc=o.args.get("desc")))
    rid = ctx.conn.backend.rowid_column
    pairs = list(zip(aliases, fresh.tables, strict=True))
    first = fresh.first.copy()
    picks = exp.Select(expressions=[
        exp.alias_(exp.column(rid, table=f, quoted=True), f"r{i}", quoted=True)
        for i, (_a, f) in enumerate(pairs)]).from_(first)
    if fresh.joins:
        picks.set("joins", [j.copy() for j in fresh.joins])
    if fresh.where is not None:
        picks = picks.where(fresh.where.copy())
    if order_by:
        picks.set("order", exp.Order(expressions=order_by))
    for arg in ("limit", "offset"):
        if query.args.get(arg) is not None:
            picks.set(arg, query.args[arg].copy())
    label = f"tsqlb_top{next(counter)}"
    probe = exp.select(exp.Literal.number(1)).from_(picks.subquery(label)).where(
        exp.and_(*[exp.EQ(this=exp.column(f"r{i}", table=label, quoted=True),
                          expression=exp.column(rid, table=a, quoted=True))
                   for i, (a, _f) in enumerate(pairs)]))
    return exp.Exists(this=probe)


def _set_operation(ctx: ExecContext, query: exp.SetOperation, name: str, stored: _View,
                   ctes: _Ctes) -> FlatView:
    """A UNION / EXCEPT / INTERSECT view: a FlatView that only says how it is refused."""
    def branches(q: exp.Expression) -> list[exp.Expression]:
        if isinstance(q, exp.Union) and not q.args.get("distinct"):
            return [*branches(q.this), *branches(q.expression)]
        return [q]
    has_union = any(isinstance(n, exp.Union) for n in query.walk())
    top = "union" if isinstance(query, exp.Union) else "except"
    first = query
    while isinstance(first, exp.SetOperation):
        first = first.this
    first_joins = isinstance(first, exp.Select) and bool(first.args.get("joins"))
    partition = None
    checks = False
    members = branches(query) if isinstance(query, exp.Union) \
        and not query.args.get("distinct") and not stored.cte else []
    if members and all(_plain_member(m) for m in members):
        binder = Binder(ctx, {})
        infos = [binder.resolve(table_key(m.args["from_"].this)).table for m in members]
        if all(i is not None for i in infos):
            db = Catalog.get(ctx.conn.store).database(ctx.conn, stored.db_id)
            partition = f"{db.name if db else '?'}.{stored.obj.schema_name}.{stored.obj.name}"
            checks = any(k.kind == "C" for i in infos if i is not None for k in i.constraints)
    op = SetOp(has_union, top, first_joins, name, partition, checks)
    return FlatView(name, exp.Table(), [], {}, {}, {}, [], setop=op)


def _plain_member(q: exp.Expression) -> bool:
    """A UNION ALL branch SQL Server may take as a partitioned view's member: one table, no
    WHERE, plain columns."""
    if not isinstance(q, exp.Select) or q.args.get("joins") or q.args.get("where") \
            or q.args.get("group") or q.args.get("distinct") or q.args.get("limit"):
        return False
    from_ = q.args.get("from_")
    if from_ is None or not isinstance(from_.this, exp.Table):
        return False
    return all(isinstance(e.this if isinstance(e, exp.Alias) else e, (exp.Column, exp.Star))
               for e in q.expressions)


def _instead_actions(ctx: ExecContext, obj: Any, db_id: int) -> frozenset[str]:
    """The actions an enabled INSTEAD OF trigger of view ``obj`` takes (none while it runs)."""
    if obj.object_id in ctx.instead_active:
        return frozenset()
    rows = Catalog.get(ctx.conn.store).objects(ctx.conn, db_id, {"TR"},
                                               parent_id=obj.object_id)
    return frozenset(e for t in map(trigger_from_row, rows) if t.instead_of and not t.disabled
                     for e in t.events)


def _modifiable(view: FlatView, action: str) -> None:
    """4403 for a view with aggregates (before any column is looked at, as SQL Server);
    a UNION / EXCEPT view's refusal for ``action``; 4427 for TOP under WITH CHECK OPTION;
    a nested view's INSTEAD OF trigger for ``action`` is not taken through an outer view."""
    op = view.setop
    if op is not None:
        if op.partition is not None:
            if op.checks:
                raise not_supported(f"Modifying the partitioned view '{view.name}'")
            raise compile_error(4436, op.partition)
        if action != "DELETE":
            raise compile_error(4406 if op.has_union else 4403,
                                 op.stored if op.has_union else view.name)
        if op.top == "except":
            raise compile_error(4403, view.name)
        raise compile_error(4405 if op.first_joins else 4426, view.name)
    if view.aggregates:
        raise compile_error(4403, view.name)
    if view.top and view.has_check:
        raise compile_error(4427, view.name)
    if action in view.instead:
        raise not_supported(f"{action} through the view '{view.name}' over a view with an "
                            f"INSTEAD OF {action} trigger")


def _and(a: exp.Expression | None, b: exp.Expression | None) -> exp.Expression | None:
    if a is None:
        return b
    if b is None:
        return a
    return exp.and_(exp.paren(a), exp.paren(b))


def _rewriter(scope: dict[str, tuple[str, list[str], FlatView | None]], query: exp.Select
              ) -> Callable[[exp.Expression], exp.Expression]:
    """A function putting the view's column references on the new aliases (or the nested
    view's expressions)."""
    owners: dict[str, str] = {}
    for old, (_alias, cols, _inner) in scope.items():
        for c in cols:
            owners[c.lower()] = old if c.lower() not in owners else ""

    def one(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return node
        qualifier = node.table.lower() if node.table else None
        if qualifier is None:
            if node.find_ancestor(exp.Select) not in (None, query):
                return node  # a subquery's own column
            qualifier = owners.get(node.name.lower()) or None
        if qualifier is None or qualifier not in scope:
            return node
        alias, _cols, inner = scope[qualifier]
        if inner is not None:
            mapped = inner.columns.get(node.name.lower())
            return mapped.copy() if mapped is not None else node
        return exp.column(node.name, table=alias, quoted=True)

    def rewrite(expr: exp.Expression) -> exp.Expression:
        return expr.transform(one, copy=False)
    return rewrite


# -- the statements -----------------------------------------------------------------------------
def _base_column(view: FlatView, column: str) -> tuple[str, str]:
    """(alias, base column) a view column is; 207 unknown, 4406 derived or constant."""
    expr = view.columns.get(column.lower())
    if expr is None:
        raise tsql_error(207, column, cls=BindError)
    if not isinstance(expr, exp.Column) or expr.table.lower() not in view.tables:
        raise compile_error(4406, view.name)
    return expr.table.lower(), expr.name


def _one_table(view: FlatView, aliases: set[str]) -> str:
    """The one base table a modification touches (4405 for several, or none of a join)."""
    if view.aggregates:
        raise compile_error(4403, view.name)
    if len(aliases) > 1 or (not aliases and len(view.tables) > 1):
        raise compile_error(4405, view.name)
    return next(iter(aliases)) if aliases else next(iter(view.tables))


def _substitute(view: FlatView, names: set[str], unqualified: bool
                ) -> Callable[[exp.Expression], exp.Expression]:
    """Replace references to the view's columns (qualified by one of ``names``, or bare when
    ``unqualified``) by their expressions."""
    def one(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return node
        qualifier = node.table.lower() if node.table else None
        if qualifier is None and (not unqualified or node.find_ancestor(exp.Select) is not None):
            return node  # a subquery's bare column is its own table's first
        if qualifier is not None and qualifier not in names:
            return node
        mapped = view.columns.get(node.name.lower())
        return mapped.copy() if mapped is not None else node
    return lambda e: e.transform(one)


def _output_mapper(view: FlatView, alias: str
                   ) -> Callable[[exp.Expression], exp.Expression]:
    """OUTPUT's ``inserted.c`` / ``deleted.c`` of a view column: the base table's column."""
    def one(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star) \
                or node.table.lower() not in ("inserted", "deleted"):
            return node
        mapped = view.columns.get(node.name.lower())
        if mapped is None:
            return node
        pseudo = node.table
        others = {c.table.lower() for c in mapped.find_all(exp.Column)} - {alias}
        if others & set(view.tables):
            if pseudo.lower() == "inserted":
                raise compile_error(404, node.name)
            raise not_supported(f"OUTPUT deleted.{node.name} of a table of the view "
                                f"'{view.name}' the statement does not write")

        def requalify(n: exp.Expression) -> exp.Expression:
            if isinstance(n, exp.Column) and n.table.lower() == alias:
                return exp.column(n.name, table=pseudo, quoted=True)
            return n
        return mapped.copy().transform(requalify)
    def mapped(e: exp.Expression) -> exp.Expression:
        out = e.transform(one)
        if isinstance(e, exp.Column) and out is not e and not isinstance(e.this, exp.Star):
            return exp.alias_(out, e.name, quoted=True)  # the column keeps the view's name
        return out
    return mapped


def _rewritten(parsed: Parsed, tree: exp.Expression, view: FlatView, alias: str) -> Parsed:
    items: list[exp.Expression] = []
    for e in parsed.output or ():
        if isinstance(e, exp.Column) and isinstance(e.this, exp.Star) \
                and e.table.lower() in ("inserted", "deleted"):
            # inserted.* / deleted.* are the view's columns.
            items.extend(exp.column(c, table=e.table, quoted=True) for c in view.order)
        else:
            items.append(e)
    output = None if parsed.output is None else tuple(
        _output_mapper(view, alias)(e.copy()) for e in items)
    return replace(parsed, tree=tree, output=output,
                   text=f"{parsed.text}\x00view:{tree.sql('tsql')}")


def rewrite_insert(parsed: Parsed, view: FlatView) -> tuple[Parsed, str]:
    """``INSERT v [(cols)] …`` as an INSERT into the base table; returns it and the alias
    of the modified table."""
    _modifiable(view, "INSERT")
    tree = parsed.tree.copy()
    assert isinstance(tree, exp.Insert)
    target = tree.this
    written = [c.name for c in target.expressions] if isinstance(target, exp.Schema) \
        else None
    names = written if written is not None else (
        [] if tree.args.get("default") else list(view.order))
    mapped = [_base_column(view, n) for n in names]
    if written is None:
        # As for a table, a list-less INSERT leaves out identity and computed columns.
        mapped = [(a, c) for a, c in mapped if not _generated(view.tables[a], c)]
    alias = _one_table(view, {a for a, _c in mapped})
    base = view.nodes[alias].copy()
    if tree.args.get("default"):
        tree.set("this", base)
    else:
        tree.set("this", exp.Schema(this=base, expressions=[
            exp.to_identifier(c, quoted=True) for _a, c in mapped]))
    return _rewritten(parsed, tree, view, alias), alias


def _generated(info: TableInfo, column: str) -> bool:
    col = info.column(column)
    return col is not None and (col.identity is not None or bool(col.computed))


def _target_names(target: exp.Table) -> set[str]:
    return {n.lower() for n in (target.alias, target.name) if n}


def rewrite_update(parsed: Parsed, view: FlatView) -> tuple[Parsed, str]:
    """``UPDATE v SET … [FROM …] WHERE …`` as an UPDATE of the base table's alias over the
    view's FROM and WHERE."""
    _modifiable(view, "UPDATE")
    tree = parsed.tree.copy()
    assert isinstance(tree, exp.Update)
    target = tree.this
    assert isinstance(target, exp.Table)
    names = _target_names(target)
    from_ = tree.args.get("from_")
    stmt_joins: list[exp.Expression] = []
    if from_ is not None:
        first = from_.this
        if not (isinstance(first, exp.Table) and (first.alias or first.name).lower() in names):
            raise not_supported(f"UPDATE of the view '{view.name}' not first in its FROM")
        names |= _target_names(first)
        stmt_joins = list(first.args.get("joins") or [])
    sub = _substitute(view, names, True)
    aliases: set[str] = set()
    sets: list[exp.Expression] = []
    for item in tree.expressions:
        if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
            alias, column = _base_column(view, item.this.name)
            aliases.add(alias)
            sets.append(exp.EQ(this=exp.column(column, quoted=True),
                               expression=sub(item.expression)))
        elif isinstance(item, exp.EQ) and isinstance(item.expression, exp.EQ) \
                and isinstance(item.expression.this, exp.Column):
            alias, column = _base_column(view, item.expression.this.name)
            aliases.add(alias)
            sets.append(exp.EQ(this=item.this, expression=exp.EQ(
                this=exp.column(column, quoted=True),
                expression=sub(item.expression.expression))))
        else:
            sets.append(sub(item))
    alias = _one_table(view, aliases)
    tree.set("expressions", sets)
    tree.set("this", exp.Table(this=exp.to_identifier(alias)))
    first_item = view.first.copy()
    joins = [j.copy() for j in view.joins] + [sub(j) for j in stmt_joins]
    first_item.set("joins", joins or None)  # the engine reads a FROM's joins off its first item
    tree.set("from_", exp.From(this=first_item))
    where = tree.args.get("where")
    tree.set("where", _where(view, sub(where.this) if where is not None else None))
    return _rewritten(parsed, tree, view, alias), alias


def _where(view: FlatView, own: exp.Expression | None) -> exp.Where | None:
    combined = _and(view.where.copy() if view.where is not None else None, own)
    return exp.Where(this=combined) if combined is not None else None


def rewrite_delete(parsed: Parsed, view: FlatView, target: exp.Table,
                   from_node: exp.Expression | None) -> tuple[Parsed, str]:
    """``DELETE [FROM] v WHERE …`` as a DELETE of the view's one base table (4405 for a
    view over several)."""
    _modifiable(view, "DELETE")
    tree = parsed.tree.copy()
    assert isinstance(tree, exp.Delete)
    if len(view.tables) > 1:
        raise compile_error(4405, view.name)
    alias = next(iter(view.tables))
    names = _target_names(target)
    stmt_joins: list[exp.Expression] = []
    if from_node is not None:
        if not (isinstance(from_node, exp.Table)
                and (from_node.alias or from_node.name).lower() in names | {
                    n.lower() for n in (target.name,)}):
            raise not_supported(f"DELETE of the view '{view.name}' not first in its FROM")
        names |= _target_names(from_node)
        stmt_joins = list(from_node.args.get("joins") or [])
    sub = _substitute(view, names, True)
    first_item = view.first.copy()
    first_item.set("joins", [j.copy() for j in view.joins] + [sub(j) for j in stmt_joins]
                   or None)
    tree.set("tables", [exp.Table(this=exp.to_identifier(alias))])
    tree.set("this", first_item)
    where = tree.args.get("where")
    tree.set("where", _where(view, sub(where.this) if where is not None else None))
    return _rewritten(parsed, tree, view, alias), alias


def rewrite_merge(parsed: Parsed, view: FlatView) -> tuple[Parsed, str]:
    """``MERGE v [AS t] USING … ON …`` of a view: the target becomes the view's FROM (its
    base tables under their own aliases, joins included), the view's WHERE is added to ON
    (its rows are the only ones to match) and to each WHEN NOT MATCHED BY SOURCE, and the
    view's columns are mapped to the base tables'. The actions must write one base table:
    the one the SET and INSERT columns name, the first of the view's FROM for a DELETE
    (Msg 4405 when they name two). Returns the statement and the alias of that table."""
    tree = parsed.tree.copy()
    assert isinstance(tree, exp.Merge)
    target = tree.this
    assert isinstance(target, exp.Table)
    whens = list(tree.args["whens"].expressions)
    kinds = {type(w.args.get("then")) for w in whens}
    for action, kind in (("UPDATE", exp.Update), ("INSERT", exp.Insert), ("DELETE", exp.Var)):
        if kind in kinds:
            _modifiable(view, action)
    sub = _substitute(view, _target_names(target), False)
    aliases: set[str] = set()
    inserts: list[tuple[exp.Insert, list[tuple[str, str]]]] = []
    for when in whens:
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            aliases.update(_base_column(view, item.this.name)[0] for item in then.expressions
                           if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column))
        elif isinstance(then, exp.Insert):
            cols = then.this
            names = [c.name for c in cols.expressions] if isinstance(cols, exp.Tuple) else None
            mapped = [_base_column(view, n) for n in (names or view.order)]
            if names is None:
                mapped = [(a, c) for a, c in mapped if not _generated(view.tables[a], c)]
            aliases.update(a for a, _c in mapped)
            inserts.append((then, mapped))
    if len(aliases) > 1:
        raise compile_error(4405, view.name)
    # As SQL Server's: a DELETE action deletes the row of the table the other actions write,
    # alone the row of the first table of the view's FROM.
    alias = next(iter(aliases)) if aliases else view.first.alias_or_name.lower()
    base = view.first.copy()
    base.set("joins", [j.copy() for j in view.joins] or None)
    tree.set("this", base)
    tree.set("on", _and(view.where.copy() if view.where else None, sub(tree.args["on"])))
    for when in whens:
        if when.args.get("condition") is not None:
            when.set("condition", sub(when.args["condition"]))
        if not when.args.get("matched") and when.args.get("source") and view.where:
            when.set("condition", _and(view.where.copy(), when.args.get("condition")))
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            sets = []
            for item in then.expressions:
                if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
                    _a, column = _base_column(view, item.this.name)
                    item = exp.EQ(this=exp.column(column, quoted=True),
                                  expression=sub(item.expression))
                else:
                    item = sub(item)
                sets.append(item)
            then.set("expressions", sets)
    for then, mapped in inserts:
        then.set("this", exp.Tuple(expressions=[exp.column(c, quoted=True)
                                                for _a, c in mapped]))
    return _rewritten(parsed, tree, view, alias), alias


def check_option(ctx: ExecContext, view: FlatView, alias: str, rowids: list[Any]) -> None:
    """WITH CHECK OPTION: every written row must be seen through the view (Msg 550)."""
    if view.check is None or not rowids or any(r is None for r in rowids):
        return
    rid = exp.column(ctx.conn.backend.rowid_column, table=alias, quoted=True)
    first = view.first.copy()
    first.set("joins", None)
    select = exp.Select(expressions=[exp.Literal.number(1)]).from_(first)
    if view.joins:
        select.set("joins", [j.copy() for j in view.joins])
    select = select.where(exp.and_(exp.paren(view.check.copy()), exp.EQ(
        this=rid, expression=exp.Placeholder(this="__rid"))))
    binder = Binder(ctx, {})
    compiled = binder.compile(select, (select.sql("tsql"), "check option"))
    for r in rowids:
        if not run_query(binder, compiled, {"__rid": r}).rows:
            raise tsql_error(550)


def _describe(ctx: ExecContext, row: Any) -> list[dict[str, Any]]:
    """A view's columns for the catalog views (sys.columns …), bound in its database."""
    vctx = replace(ctx, db_id=row.database_id)
    return view_columns(Binder(vctx, {}).resolve, ctx.conn, row.database_id, row, 0)


register_view_describer(_describe)
