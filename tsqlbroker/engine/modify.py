"""INSERT, UPDATE and DELETE (with OUTPUT [INTO], TOP, FROM/joins) through the row writer.

Values and target rows are computed by backend queries (the transpiled VALUES / SELECT, or
``SELECT target.rowid, <new values> FROM … WHERE …`` for UPDATE and DELETE); the row writer
then applies them with SQL Server's constraint checks. OUTPUT is evaluated per affected row
with ``inserted`` as the row now and ``deleted`` as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from ..errors import BindError, tsql_error
from ..storage.stored_values import from_storage
from .context import ExecContext, Params, SqlResult
from .execsql import read_rows, run_sql
from .merge import output_rows
from .parsing import Parsed, not_supported, parse_statement
from .plans import ModifyPlan, PlanCache, query_binds
from .query import run_query
from .results import ResultSet
from .running_update import RID_ALIAS, SetStep, row_values, run_rows
from .shapes import constant_spec
from .tableinfo import TableInfo
from .transpiler.binder import Binder
from .transpiler.scope import Compiled, Source, table_key
from .triggers import TriggerEvent
from .viewdml import (
    check_option,
    compile_error,
    instead_view,
    rewrite_delete,
    rewrite_insert,
    rewrite_update,
    view_target,
    written_name,
)
from .writer import DEFAULT, RowWriter, physical_table_ref


def target_table(ctx: ExecContext, node: exp.Table, statement: str) -> TableInfo:
    source = Binder(ctx, {}).resolve(table_key(node))
    return writable(source, statement)


def writable(source: Source, statement: str) -> TableInfo:
    if source.table is not None:
        return source.table
    if source.virtual is not None and source.virtual.refuse_error is not None:
        raise source.virtual.refuse_error
    raise not_supported(f"{statement} on '{source.name}'")


def _simple_value(node: exp.Expression, params: Params) -> tuple[bool, Any]:
    """A VALUES item that needs no backend evaluation: literal, NULL or variable."""
    if isinstance(node, exp.Null):
        return True, None
    if isinstance(node, exp.National):
        return True, node.name
    if isinstance(node, exp.Literal):
        if node.is_string:
            return True, node.name
        text = node.name
        if text.isdigit():
            return True, int(text)
        return False, None
    if isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter):
        entry = {k.lower(): v for k, v in params.items()}.get("@" + node.name.lower())
        if entry is None:
            raise tsql_error(137, "@" + node.name, cls=BindError)
        return True, entry[0]
    return False, None


def insert_statement(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    """INSERT into a table, or through a view into its base table."""
    target = parsed.tree.this
    node = target.this if isinstance(target, exp.Schema) else target
    instead = instead_view(ctx, node, "INSERT") if isinstance(node, exp.Table) else None
    if instead is not None:
        # The rows go to the view's INSTEAD OF trigger (the row writer records them).
        _instead_output(parsed, node)
        result = _insert(ctx, parsed, params, instead, instead=True)[0]
        event = ctx.fired[-1] if ctx.fired else None
        if parsed.output is not None and event is not None and event.table is instead:
            _deliver_instead(ctx, parsed, params, instead, event)
        return result
    view = view_target(ctx, node) if isinstance(node, exp.Table) else None
    if view is None:
        return _insert(ctx, parsed, params)[0]
    rewritten, alias = rewrite_insert(parsed, view)
    result, rowids = _insert(ctx, rewritten, params)
    check_option(ctx, view, alias, rowids)
    return result


def _instead_output(parsed: Parsed, target: exp.Table) -> None:
    """OUTPUT without INTO on a view with an INSTEAD OF trigger: Msg 334 (the OUTPUT
    clause's page: the target of such a statement may have no enabled trigger)."""
    if parsed.output is not None and parsed.output_into is None:
        raise compile_error(334, written_name(target))


def _deliver_instead(ctx: ExecContext, parsed: Parsed, params: Params, view: TableInfo,
                     event: TriggerEvent) -> None:
    """OUTPUT … INTO of a statement an INSTEAD OF trigger takes: the rows as if the
    statement had run (the OUTPUT clause's page), ``inserted`` / ``deleted`` in the view's
    columns."""
    names = [c.name.lower() for c in view.columns]
    count = max(len(event.inserted), len(event.deleted))
    entries: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []
    for i in range(count):
        ins = dict(zip(names, event.inserted[i], strict=True)) \
            if i < len(event.inserted) else None
        dele = dict(zip(names, event.deleted[i], strict=True)) \
            if i < len(event.deleted) else None
        entries.append((event.action, ins, dele))
    out = output_rows(ctx, view, parsed, params, entries)
    deliver_output(ctx, parsed, out, SqlResult())


def _insert(ctx: ExecContext, parsed: Parsed, params: Params, info: TableInfo | None = None,
            instead: bool = False) -> tuple[SqlResult, list[Any]]:
    """INSERT into ``info`` (else the statement's target); ``instead``: a view's INSTEAD OF
    trigger takes the rows (its OUTPUT is the caller's)."""
    tree = parsed.tree
    assert isinstance(tree, exp.Insert)
    target = tree.this
    columns: list[str] | None = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
        target = target.this
    assert isinstance(target, exp.Table)
    if info is None:
        info = target_table(ctx, target, "INSERT")
    source = tree.expression
    rows: list[Sequence[Any]]
    sources: list[Sequence[str | None]] | None = None
    from_values = False
    if tree.args.get("default"):
        rows, columns = [()], []
    elif isinstance(source, exp.Values):
        from_values = True
        typed = [_values_row(ctx, tup, params) for tup in source.expressions]
        rows, sources = [r for r, _s in typed], [s for _r, s in typed]
    elif source is not None:
        with_ = tree.args.get("with_") or tree.args.get("with")
        if with_ is not None and isinstance(source, exp.Query):
            source.set("with_", with_)
        binder = Binder(ctx, params)
        compiled = binder.compile(source, (parsed.text, "insert-source"))
        read = run_query(binder, compiled)
        rows = read.rows
        sources = read.value_types() if all(
            len(r) == len(compiled.types) for r in rows) else None
    else:
        raise not_supported("This INSERT form")
    if parsed.top is not None:
        # INSERT TOP (n): the first n rows of the source (SQL Server takes any n).
        limit = _top_count(ctx, parsed.top, params)
        rows = list(rows)[:limit]
        sources = None if sources is None else list(sources)[:limit]
    writer = RowWriter(ctx, info, "INSERT")
    rowids = writer.insert(columns, rows, from_values=from_values, sources=sources)
    result = SqlResult([], len(rowids), identity=writer.last_identity)
    if parsed.output is not None and not instead:
        out = _output(ctx, info, parsed, params, rowids, {})
        deliver_output(ctx, parsed, out, result)
    return result, rowids


def _top_count(ctx: ExecContext, top: exp.Expression, params: Params) -> int:
    """The row count of a DML statement's TOP (n) (a constant, variable or expression):
    an integer (Msg 1060), not negative (Msg 127), as SQL Server checks UPDATE's and
    DELETE's (transpiler/rewrite.py)."""
    binder = Binder(ctx, params)
    compiled = binder.compile(exp.select(top.copy()), (top.sql("tsql"), "top"))
    row = run_sql(binder.conn, compiled.sql, binder.binds).fetchone()
    value = row[0] if row is not None else None
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise tsql_error(1060, cls=BindError)
    if value < 0:
        raise tsql_error(127, cls=BindError)
    return value


def _is_default(node: exp.Expression) -> bool:
    """The keyword DEFAULT as a VALUES item (sqlglot reads it as a Var)."""
    return isinstance(node, exp.Var) and node.name.upper() == "DEFAULT"


def _values_row(ctx: ExecContext, tup: exp.Expression, params: Params
                ) -> tuple[tuple[Any, ...], tuple[str | None, ...]]:
    """One VALUES row: its values and their type specs (None where not known)."""
    items = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
    simple = [(True, DEFAULT) if _is_default(i) else _simple_value(i, params) for i in items]
    if all(ok for ok, _v in simple):
        return tuple(v for _ok, v in simple), tuple(_simple_spec(i, params) for i in items)
    computed = [i for i in items if not _is_default(i)]
    binder = Binder(ctx, params)
    select = exp.select(*[i.copy() for i in computed])
    compiled = binder.compile(select, (tup.sql("tsql"), "values"))
    row = run_sql(binder.conn, compiled.sql, binder.binds).fetchone()
    assert row is not None
    values, specs = iter(row), iter(compiled.types)
    out = [(DEFAULT, None) if _is_default(i) else (next(values), _spec(i, next(specs, None)))
           for i in items]
    return tuple(v for v, _s in out), tuple(s for _v, s in out)


def _spec(node: exp.Expression, computed: str | None) -> str | None:
    """A computed VALUES item's type spec: a constant's own (``1.5`` numeric(2,1)), else
    the query's."""
    return constant_spec(node) or computed


def _simple_spec(node: exp.Expression, params: Params) -> str | None:
    """The type spec of a simple VALUES item: a variable's declared type, a constant's (a
    sql_variant column keeps it: ``N'abc'`` nvarchar(3)); None for NULL and DEFAULT."""
    if isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter):
        entry = {k.lower(): v for k, v in params.items()}.get("@" + node.name.lower())
        return None if entry is None else entry[1]
    return constant_spec(node)


# -- OUTPUT -----------------------------------------------------------------------------------
def _output(ctx: ExecContext, info: TableInfo, parsed: Parsed, params: Params,
            rowids: Sequence[Any], old: dict[Any, dict[str, Any]],
            deleted_only: bool = False) -> ResultSet:
    """Evaluate the OUTPUT list per affected row: ``inserted`` is the row as written now,
    ``deleted`` the row as it was (bound as parameters)."""
    assert parsed.output is not None
    exprs = [e.copy() for e in parsed.output]
    select = exp.select(*exprs)
    names = [c.name for c in info.columns]
    deleted = exp.select(*[exp.alias_(exp.Placeholder(this=f"__d{i}"), n, quoted=True)
                           for i, n in enumerate(names)]).subquery("deleted")
    if deleted_only:
        select = select.from_(deleted)
    else:
        select = select.from_(physical_table_ref(info, "inserted"))
        if old:
            select = select.join(deleted, join_type="cross")
        rid = exp.column(ctx.conn.backend.rowid_column, table="inserted")
        select = select.where(exp.EQ(this=rid, expression=exp.Placeholder(this="__rid")))
    key = (parsed.text, "output", deleted_only, bool(old), info.object_id)

    def compiled_with(extra: dict[str, Any]) -> tuple[Binder, Compiled]:
        binder = Binder(ctx, params)
        binder.sources["deleted"] = Source("table", "deleted",
                                           [(c.name, c.spec) for c in info.columns], table=info)
        binder.sources["inserted"] = binder.sources["deleted"]
        binder.binds.update(extra)
        return binder, binder.compile(select.copy(), key)
    # Without Python inside queries (PostgreSQL) a UDF call's values are looked up before
    # the query runs, over its rows: so once per affected row, that row's id bound.
    per_row = not ctx.conn.backend.python_functions and any(
        e.find(exp.Dot) is not None for e in exprs)
    binder, compiled = compiled_with(
        {"__rid": None, **{f"__d{i}": None for i in range(len(names))}} if per_row else {})
    rows: list[tuple[Any, ...]] = []
    names_out: list[str] = []
    types: list[str | None] = []
    for rid in rowids:
        extra: dict[str, Any] = {"__rid": rid}
        before = old.get(rid, {})
        for i, n in enumerate(names):
            extra[f"__d{i}"] = before.get(n.lower())
        if per_row:
            binder, compiled = compiled_with(extra)
        rs = run_query(binder, compiled, extra)
        names_out, types = rs.columns, rs.types
        rows.extend(rs.rows)
    if not rowids:
        names_out = compiled.names or []
        types = compiled.types
    return ResultSet(names_out, types, rows)


def deliver_output(ctx: ExecContext, parsed: Parsed, out: ResultSet, result: SqlResult) -> None:
    """OUTPUT rows become a result set of ``result``, or rows of the OUTPUT INTO table."""
    if parsed.output_into is None:
        result.resultsets.append(out)
        return
    target = parsed.output_into
    columns = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
        target = target.this
    assert isinstance(target, exp.Table)
    info = target_table(ctx, target, "INSERT")
    RowWriter(ctx, info, "INSERT").insert(columns, out.rows)


# -- UPDATE / DELETE ----------------------------------------------------------------------------
def _target_select(ctx: ExecContext, tree: exp.Expression, target: exp.Table,
                   from_node: exp.Expression | None, parsed: Parsed,
                   values: list[exp.Expression]) -> tuple[exp.Select, str, TableInfo]:
    """Build ``SELECT target.rowid, <values> FROM … WHERE …`` for UPDATE / DELETE."""
    key = table_key(target)
    with_ = tree.args.get("with_")
    cte = _target_cte(with_, key)
    items: list[exp.Expression] = []
    joins: list[exp.Expression] = []
    if from_node is not None:
        first = from_node.this if isinstance(from_node, exp.From) else from_node
        joins = list(first.args.get("joins") or [])
        first.set("joins", None)
        items = [first] + [j.this for j in joins]
    alias = None
    tinfo: TableInfo | None = None
    binder = Binder(ctx, {})
    rid_name = ctx.conn.backend.rowid_column
    if cte is not None:
        # UPDATE / DELETE through a CTE: the rows of its one base table, addressed by a row
        # id column the CTE passes through.
        base = _cte_base(cte, rid_name)
        tinfo = writable(binder.resolve(table_key(base)), _verb(tree))
        rid_name = _CTE_RID
        alias = next((i.alias or i.name for i in items if isinstance(i, exp.Table)
                      and not i.args.get("db") and i.name.lower() == key[2].lower()), None)
        if alias is None:
            alias = target.alias or target.name
            extra = target.copy()
            if not items:
                items = [extra]
            else:
                joins.append(exp.Join(this=extra, kind="CROSS"))
    for item in items if alias is None else []:
        if isinstance(item, exp.Table) and item.alias and not key[0] and not key[1] \
                and item.alias.lower() == key[2].lower():
            alias = item.alias
            tinfo = writable(binder.resolve(table_key(item)), _verb(tree))
            break
    if alias is None:
        for item in items:
            if isinstance(item, exp.Table) and table_key(item)[2].lower() == key[2].lower() \
                    and table_key(item)[3] == key[3]:
                alias = item.alias or item.name
                tinfo = writable(binder.resolve(table_key(item)), _verb(tree))
                break
    if alias is None:
        tinfo = writable(binder.resolve(key), _verb(tree))
        # The binder aliases a table variable by its written name (@t), sqlglot's name is t.
        alias = target.alias or (key[2] if key[3] == "@" else target.name)
        extra = target.copy()
        if not items:
            items = [extra]
        else:
            joins.append(exp.Join(this=extra, kind="CROSS"))
    assert tinfo is not None
    rid = exp.column(rid_name, table=alias, quoted=True)
    select = exp.Select(expressions=[rid, *values])
    if with_ is not None:
        select.set("with_", with_)
    select.set("from_", exp.From(this=items[0]))
    if joins:
        select.set("joins", joins)
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where)
    if parsed.top is not None:
        select.set("limit", exp.Limit(expression=parsed.top))
    return select, alias, tinfo


def _reads_assigned(assigns: list[tuple[str, exp.Expression]],
                    sets: list[tuple[str, exp.Expression]]) -> bool:
    """Whether a SET expression reads a variable the UPDATE assigns."""
    names = {n.lower() for n, _v in assigns}
    return any(("@" + p.name).lower() in names
               for _n, v in [*assigns, *sets] for p in v.find_all(exp.Parameter))


def _is_default_word(node: exp.Expression) -> bool:
    """``SET col = DEFAULT`` (sqlglot reads the keyword as a column named DEFAULT)."""
    return isinstance(node, exp.Column) and not node.table and not node.this.quoted \
        and node.name.upper() == "DEFAULT"


def _column_default(info: TableInfo | None, name: str) -> exp.Expression:
    """The column's default expression (NULL without one) for ``SET col = DEFAULT``."""
    col = info.column(name) if info is not None else None
    if col is None:
        if info is None:
            raise not_supported("SET … = DEFAULT through a CTE")
        raise tsql_error(207, name, cls=BindError)
    if col.default_sql is None:
        return exp.Null()
    return parse_statement(f"SELECT {col.default_sql}").tree.expressions[0]


_CTE_RID = "tsqlb_cte_rid"


def _target_cte(with_: exp.Expression | None, key: tuple[Any, ...]) -> exp.CTE | None:
    """The CTE of the statement's WITH that an unqualified target name denotes."""
    if with_ is None or key[0] or key[1] or key[3]:
        return None
    for cte in with_.expressions:
        if cte.alias_or_name.lower() == key[2].lower():
            return cte
    return None


def _cte_base(cte: exp.CTE, rid_name: str) -> exp.Table:
    """The one base table of an updatable CTE; its SELECT passes the row id through.
    SQL Server refuses a CTE over several tables (Msg 4405) or with aggregates (4403)."""
    body = cte.this
    if not isinstance(body, exp.Select):
        raise not_supported("UPDATE / DELETE through a CTE that is not one SELECT")
    base = body.args.get("from_")
    base = base.this if isinstance(base, exp.From) else None
    if not isinstance(base, exp.Table) or body.args.get("joins"):
        if isinstance(cte.parent and cte.parent.parent, exp.Update):
            # SQL Server updates one base table of a join; the row-id pass-through cannot.
            raise not_supported("UPDATE through a CTE over several tables")
        raise tsql_error(4405, cte.alias_or_name)
    if body.args.get("group") is not None or body.args.get("distinct") is not None \
            or any(not isinstance(a.parent, exp.Window) for a in body.find_all(exp.AggFunc)):
        raise tsql_error(4403, cte.alias_or_name)
    if not any(e.alias_or_name == _CTE_RID for e in body.expressions):
        rid = exp.column(rid_name, table=base.alias_or_name, quoted=True)
        body.set("expressions", [*body.expressions, exp.alias_(rid, _CTE_RID)])
    return base


def _cte_columns(tree: exp.Expression, target: exp.Table) -> dict[str, str]:
    """``{CTE column: base column}`` for the plain columns an updatable CTE exposes."""
    cte = _target_cte(tree.args.get("with_"), table_key(target))
    if cte is None or not isinstance(cte.this, exp.Select):
        return {}
    out: dict[str, str] = {}
    for item in cte.this.expressions:
        inner = item.this if isinstance(item, exp.Alias) else item
        if isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star):
            out[item.alias_or_name.lower()] = inner.name
    return out


def _verb(tree: exp.Expression) -> str:
    return "UPDATE" if isinstance(tree, exp.Update) else "DELETE"


def update_statement(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    """UPDATE of a table, or through a view of its base table."""
    target = parsed.tree.this
    named = _aliased(parsed.tree.args.get("from_"), target) if isinstance(target, exp.Table) \
        and _target_cte(parsed.tree.args.get("with_"), table_key(target)) is None else None
    instead = instead_view(ctx, named, "UPDATE") if named is not None else None
    if instead is not None:
        return _instead_of(ctx, parsed, params, instead, target, parsed.tree.args.get("from_"))
    view = view_target(ctx, named) if named is not None else None
    if view is None:
        return _update(ctx, parsed, params)[0]
    rewritten, alias = rewrite_update(parsed, view)
    result, rowids = _update(ctx, rewritten, params)
    check_option(ctx, view, alias, rowids)
    return result


def _instead_of(ctx: ExecContext, parsed: Parsed, params: Params, view: TableInfo,
               target: exp.Table, from_node: exp.Expression | None) -> SqlResult:
    """UPDATE / DELETE of a view with an INSTEAD OF trigger: the view's rows the statement
    selects (``deleted``) and, for UPDATE, those rows with the SET values (``inserted``) go
    to the trigger; nothing is written."""
    tree = parsed.tree
    _instead_output(parsed, target)
    first = from_node.this if isinstance(from_node, exp.From) else from_node
    if first is None:
        first = target.copy()
    elif not isinstance(first, exp.Table) or first.args.get("joins") or {
            n.lower() for n in (first.alias, first.name) if n}.isdisjoint(
                {n.lower() for n in (target.alias, target.name) if n}):
        # Msg 414 / 415: a view with an INSTEAD OF trigger takes no joined UPDATE / DELETE
        # (its FROM naming another source), named as the FROM clause writes it.
        named = first if isinstance(first, exp.Table) and not {
            n.lower() for n in (first.alias, first.name) if n}.isdisjoint(
                {n.lower() for n in (target.alias, target.name) if n}) else target
        shown = ".".join(p.name for p in named.parts)
        raise compile_error(414 if isinstance(tree, exp.Update) else 415, shown)
    qualifier = first.alias_or_name
    items: list[exp.Expression] = [exp.Column(this=exp.Star(), table=exp.to_identifier(
        qualifier, quoted=True))]
    positions: list[int] = []
    if isinstance(tree, exp.Update):
        for item in tree.expressions:
            if not (isinstance(item, exp.EQ) and isinstance(item.this, exp.Column)):
                raise not_supported(f"This SET item on the view '{view.name}' with an "
                                    "INSTEAD OF trigger")
            column = view.column(item.this.name)
            if column is None:
                raise tsql_error(207, item.this.name, cls=BindError)
            positions.append(column.column_id - 1)
            items.append(item.expression.copy())
    source = first.copy()
    joins = source.args.get("joins")
    source.set("joins", None)  # a statement's FROM keeps them on its first item
    select = exp.Select(expressions=items).from_(source)
    if joins:
        select.set("joins", joins)
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where.copy())
    if parsed.top is not None:
        select.set("limit", exp.Limit(expression=parsed.top.copy()))
    binder = Binder(ctx, params)
    compiled = binder.compile(select, (parsed.text, "instead-of"))
    width = len(view.columns)
    deleted: list[tuple[Any, ...]] = []
    inserted: list[tuple[Any, ...]] = []
    for row in run_query(binder, compiled).rows:
        before = tuple(row[:width])
        deleted.append(before)
        if positions:
            after = list(before)
            for pos, value in zip(positions, row[width:], strict=True):
                after[pos] = value
            inserted.append(tuple(after))
    action = "UPDATE" if isinstance(tree, exp.Update) else "DELETE"
    ctx.txn.write()
    event = TriggerEvent(view, action, inserted, deleted, frozenset(
        view.columns[p].name.lower() for p in positions), instead_of=True)
    ctx.fired.append(event)
    if parsed.output is not None:
        _deliver_instead(ctx, parsed, params, view, event)
    return SqlResult([], len(deleted))


def _aliased(from_node: exp.Expression | None, target: exp.Table) -> exp.Table:
    """The FROM item an UPDATE / DELETE target names by its alias (else the target)."""
    first = from_node.this if isinstance(from_node, exp.From) else from_node
    if isinstance(first, exp.Table) and first.alias and not target.db \
            and first.alias.lower() == target.name.lower():
        return first
    return target


def _update(ctx: ExecContext, parsed: Parsed, params: Params
            ) -> tuple[SqlResult, list[Any]]:
    tree = parsed.tree
    assert isinstance(tree, exp.Update)
    target = tree.this
    assert isinstance(target, exp.Table)
    sets: list[tuple[str, exp.Expression]] = []
    # SET @v = col = expr (the new value) and SET @v = expr: (variable, expression).
    assigns: list[tuple[str, exp.Expression]] = []
    if not tree.expressions:
        raise tsql_error(102, "SET", cls=BindError)
    steps: list[SetStep] = []  # the items in written order (a running UPDATE's)
    for item in tree.expressions:
        if isinstance(item, exp.EQ) and isinstance(item.this, exp.Parameter) \
                and not isinstance(item.this.this, exp.Parameter):
            value = item.expression
            column = None
            if isinstance(value, exp.EQ) and isinstance(value.this, exp.Column):
                column = value.this.name
                sets.append((column, value.expression))
                value = value.expression
            assigns.append(("@" + item.this.name, value))
            steps.append(SetStep(column, "@" + item.this.name, value))
            continue
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise not_supported(f"The SET item '{item.sql('tsql')}'")
        sets.append((item.this.name, item.expression))
        steps.append(SetStep(item.this.name, None, item.expression))
    renames = _cte_columns(tree, target)
    sets = [(renames.get(name.lower(), name), value) for name, value in sets]
    if any(_is_default_word(v) for _n, v in sets):
        info0 = writable(Binder(ctx, {}).resolve(table_key(target)), "UPDATE") \
            if _target_cte(tree.args.get("with_"), table_key(target)) is None else None
        sets = [(n, _column_default(info0, n) if _is_default_word(v) else v)
                for n, v in sets]
    carries = _reads_assigned(assigns, sets)  # before binding rewrites the expressions
    if carries:
        # The variables go from row to row (running totals): see running_update.py.
        set_values, assign_values = row_values(steps, params)
        sets = [(n, v) for (n, _v), v in zip(sets, set_values, strict=True)]
        assigns = [(n, v) for (n, _v), v in zip(assigns, assign_values, strict=True)]
    select, alias, info = _target_select(
        ctx, tree, target, tree.args.get("from_"), parsed,
        [v for _n, v in sets] + [exp.alias_(v.copy(), f"tsqlb_v{i}")
                                  for i, (_n, v) in enumerate(assigns)])
    for name, _v in sets:
        if info.column(name) is None:
            raise tsql_error(207, name, cls=BindError)
    names = tuple(name for name, _e in sets)
    width = 1 + len(sets)
    binder = Binder(ctx, params)
    if assigns:
        # The variables are assigned row by row (the last row's stay): in clustered order.
        rid = select.expressions[0]
        select.set("order", exp.Order(expressions=[
            *(exp.Ordered(this=exp.column(c, table=alias, quoted=True))
              for c in _clustered_key(info, rid)), exp.Ordered(this=rid.copy())]))
    if carries:
        select.expressions[0] = exp.alias_(select.expressions[0], RID_ALIAS)
        compiled = binder.compile(select, (parsed.text, "update running"))
        raw = run_rows(binder.conn, compiled, binder.binds, params,
                       [n for n, _v in assigns], width, ctx.conn.backend.native_decimal)
    else:
        compiled = binder.compile(select, (parsed.text, "update"))
        raw = read_rows(binder.conn, compiled.sql, binder.binds)[1]
    set_types = _set_types(compiled.types, width)
    assigned = [tuple(r[width:]) for r in raw]
    changes = _changes(names, [tuple(r[:width]) for r in raw])
    if parsed.output is None and not assigns:
        PlanCache.get(ctx.conn.store).record_query(
            ctx, parsed.text, params, binder.resolved, binder.signature()[-1],
            ModifyPlan("UPDATE", compiled.sql, compiled.param_keys, info, names, set_types))
    writer = RowWriter(ctx, info, "UPDATE")
    before = writer.fetch(list(changes)) if parsed.output is not None else {}
    rowids = writer.update(list(changes.items()), dict(zip(names, set_types, strict=True)))
    # OUTPUT's deleted.* by the rows' ids after the update (they move on PostgreSQL).
    old = {new: before[orig] for orig, new in zip(changes, rowids, strict=True)
           if orig in before}
    result = SqlResult([], len(changes))
    if assigns:
        # The interpreter assigns the variables from the last row (none: they keep theirs).
        types = (compiled.types or [])[width:]
        result.assign_targets = [(name, "=") for name, _v in assigns]
        result.resultsets.append(ResultSet(
            [n.lstrip("@") for n, _v in assigns],
            list(types) if len(types) == len(assigns) else [None] * len(assigns),
            [tuple(from_storage(v, t) for v, t in zip(
                assigned[-1], types if len(types) == len(assigns) else [None] * len(assigns),
                strict=True))] if assigned else []))
    if parsed.output is not None:
        deliver_output(ctx, parsed, _output(ctx, info, parsed, params, rowids, old), result)
    return result, rowids


def _clustered_key(info: TableInfo, rid: exp.Expression) -> tuple[str, ...]:
    """The columns of the target's PRIMARY KEY (its clustered index unless declared
    NONCLUSTERED, which the storage does not keep), none when the row id is not the
    table's own (an UPDATE through a CTE)."""
    if isinstance(rid, exp.Column) and rid.name == _CTE_RID:
        return ()
    return next((k.columns for k in info.constraints if k.kind == "PK"), ())


def _set_types(types: Sequence[str | None] | None, width: int) -> tuple[str | None, ...]:
    """The type specs of an UPDATE's new values: the target query's columns after the row
    id (None each when the query does not say)."""
    known = list(types or [])
    return tuple(known[1:width]) if len(known) >= width else (None,) * (width - 1)


def _changes(names: tuple[str, ...], raw: Sequence[Sequence[Any]]
             ) -> dict[Any, dict[str, Any]]:
    """``{rowid: {column: new value}}`` from ``SELECT rowid, <new values>`` rows (the first
    row of a target row wins, as SQL Server takes one when a join repeats it)."""
    changes: dict[Any, dict[str, Any]] = {}
    for row in raw:
        if row[0] not in changes:
            changes[row[0]] = dict(zip(names, row[1:], strict=True))
    return changes


def run_modify_plan(ctx: ExecContext, plan: ModifyPlan, params: Params) -> SqlResult:
    """UPDATE / DELETE through its compiled plan: one backend query for the target rows,
    then the row writer (constraints, cascades) as on the first run."""
    raw = read_rows(ctx.conn, plan.sql, query_binds(plan, params, ctx.conn.backend.native_decimal))[1]
    if plan.kind == "UPDATE":
        changes = _changes(plan.set_names, raw)
        RowWriter(ctx, plan.info, "UPDATE").update(
            list(changes.items()), dict(zip(plan.set_names, plan.set_types, strict=False)))
        return SqlResult([], len(changes))
    rowids = list(dict.fromkeys(r[0] for r in raw))
    RowWriter(ctx, plan.info, "DELETE").delete(rowids)
    return SqlResult([], len(rowids))


def delete_statement(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Delete)
    tables = tree.args.get("tables") or []
    if tables:
        target = tables[0]
        # DELETE t WHERE … (no FROM at all) leaves sqlglot's `this` False.
        from_node = tree.this if isinstance(tree.this, exp.Expression) else None
    else:
        target = tree.this
        from_node = None
    assert isinstance(target, exp.Table)
    if _target_cte(tree.args.get("with_"), table_key(target)) is None:
        instead = instead_view(ctx, _aliased(from_node, target), "DELETE")
        if instead is not None:
            return _instead_of(ctx, parsed, params, instead, target, from_node)
        view = view_target(ctx, _aliased(from_node, target))
        if view is not None:
            parsed, _alias = rewrite_delete(parsed, view, target, from_node)
            return delete_statement(ctx, parsed, params)
    select, _alias, info = _target_select(ctx, tree, target, from_node, parsed, [])
    binder = Binder(ctx, params)
    compiled = binder.compile(select, (parsed.text, "delete"))
    rowids = list(dict.fromkeys(
        r[0] for r in read_rows(binder.conn, compiled.sql, binder.binds)[1]))
    if parsed.output is None:
        PlanCache.get(ctx.conn.store).record_query(
            ctx, parsed.text, params, binder.resolved, binder.signature()[-1],
            ModifyPlan("DELETE", compiled.sql, compiled.param_keys, info))
    writer = RowWriter(ctx, info, "DELETE")
    old = writer.fetch(rowids) if parsed.output is not None else {}
    writer.delete(rowids)
    result = SqlResult([], len(rowids))
    if parsed.output is not None:
        out = _output(ctx, info, parsed, params, rowids, old, deleted_only=True)
        deliver_output(ctx, parsed, out, result)
    return result
