"""Running one T-SQL data statement against the store: the storage layer's entry point.

:func:`execute_sql` takes the T-SQL text of ONE statement (SELECT, INSERT, UPDATE, DELETE,
TRUNCATE, CREATE/ALTER/DROP TABLE / VIEW / INDEX) with the caller's variables as bound
parameters and returns result sets, ``@@ROWCOUNT`` and the last IDENTITY value. Queries run
in the backend as transpiled by ``transpile.py``; rows are written by ``tables.RowWriter`` so
that SQL Server's constraint semantics and error texts apply. Every writing statement runs
inside a storage savepoint: when it fails, its partial work is undone and the transaction
goes on (SQL Server's statement-level atomicity).
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from . import tables
from .catalog import Catalog
from .context import ExecContext, VirtualTable, register_virtual_table
from .ddl import alter_table, create_index, create_view, drop_index, drop_view
from .execsql import run_sql
from .merge import merge
from .results import ResultSet
from .sqlfuncs import (
    clear_pending_error,
    prepare_connection,
    register_functions,
    take_pending_error,
)
from .sqltypes import from_storage, spec_of_value
from .tableinfo import TableInfo
from .tables import (
    RowWriter,
    create_table,
    drop_table,
    physical_table_ref,
    rowid_column,
    truncate_table,
)
from .transpile import (
    Binder,
    Compiled,
    Parsed,
    Source,
    not_supported,
    parse_statement,
    table_key,
    temp_table_object_id,
)

logging.getLogger("sqlglot").setLevel(logging.ERROR)
_log = logging.getLogger(__name__)

__all__ = [
    "ExecContext", "SqlResult", "VirtualTable", "declare_table_variable", "drop_table_variable",
    "drop_temp_tables", "execute_sql", "insert_rows", "register_functions",
    "register_virtual_table", "temp_table_object_id",
]

_savepoint_ids = itertools.count(1)


@dataclass
class SqlResult:
    """What one statement produced."""

    resultsets: list[ResultSet] = field(default_factory=list)
    rowcount: int = 0
    identity: int | None = None
    # For ``SELECT @v = expr …``: (variable, operator) per select item; the result set's rows
    # hold the values and the interpreter assigns the last row's.
    assign_targets: list[tuple[str, str]] = field(default_factory=list)


Params = dict[str, tuple[Any, "str | None"]]


def execute_sql(ctx: ExecContext, sql: str, params: Params) -> SqlResult:
    """Run one T-SQL statement; variables in ``params`` (``'@name'`` → (value, type spec))
    are bound, never spliced into the text."""
    prepare_connection(ctx.conn)
    parsed = parse_statement(sql)
    tree = parsed.tree
    handler = _HANDLERS.get(type(tree))
    if handler is None:
        if isinstance(tree, exp.SetOperation):
            handler = _select
        else:
            raise not_supported(_statement_name(tree))
    writes = handler is not _select or tree.args.get("into") is not None
    return _guarded(ctx, writes, lambda: handler(ctx, parsed, params))


def insert_rows(ctx: ExecContext, table: str, columns: list[str] | None,
                rows: list[tuple[Any, ...]]) -> int:
    """Insert Python rows (``INSERT … EXEC``, ``RECEIVE … INTO``) into ``table`` ('@t', '#t',
    't', 'db.schema.t'); returns the number of rows."""
    prepare_connection(ctx.conn)

    def run() -> SqlResult:
        info = _target_table(ctx, _table_node(table), "INSERT")
        writer = RowWriter(ctx, info, "INSERT")
        writer.insert(columns, rows)
        return SqlResult(rowcount=len(rows), identity=writer.last_identity)

    return _guarded(ctx, True, run).rowcount


def declare_table_variable(ctx: ExecContext, name: str, columns_sql: str) -> str:
    """``DECLARE @t TABLE (…)``: create the table variable, return its physical name (the
    interpreter maps ``'@t'`` to it in the frame and drops it at frame end)."""
    prepare_connection(ctx.conn)
    physical: list[str] = []

    def run() -> SqlResult:
        physical.append(tables.declare_table_variable(ctx, name, columns_sql))
        return SqlResult()

    _outside_transaction(ctx, run)
    return physical[0]


def drop_table_variable(ctx: ExecContext, physical: str) -> None:
    """Drop a table variable (frame end)."""
    prepare_connection(ctx.conn)
    _outside_transaction(
        ctx, lambda: (tables.drop_table_variable(ctx, physical), SqlResult())[1])


def _outside_transaction(ctx: ExecContext, fn: Callable[[], SqlResult]) -> None:
    """Run DDL for a table variable. SQL Server's ROLLBACK does not undo table variables, so
    when no storage transaction is open the DDL commits on its own; inside one it joins it
    (a rollback then takes the table variable's rows and, if declared inside, the table)."""
    if ctx.conn.in_write_txn:
        _guarded(ctx, True, fn)
        return
    try:
        _guarded(ctx, True, fn)
    except BaseException:
        ctx.conn.rollback()
        raise
    ctx.conn.commit()


def drop_temp_tables(ctx: ExecContext) -> None:
    """Drop every temp table of the session (session end)."""
    prepare_connection(ctx.conn)
    _guarded(ctx, True, lambda: (tables.drop_temp_tables(ctx), SqlResult())[1])


def _table_node(name: str) -> exp.Table:
    node = parse_statement(f"SELECT 1 FROM {name}").tree.find(exp.Table)
    if node is None:
        raise tsql_error(208, name, cls=BindError)
    return node


# -- error mapping and statement atomicity ------------------------------------------------------
def _guarded(ctx: ExecContext, writes: bool, fn: Callable[[], SqlResult]) -> SqlResult:
    """Run one statement atomically and map every failure to a TSqlError.

    Writers get a storage savepoint, so a failing statement undoes only itself. On
    PostgreSQL a failing read inside a write transaction would abort the whole transaction,
    so reads there get a savepoint too (SQLite needs none for reads)."""
    clear_pending_error()
    savepoint = None
    undo_mark = len(ctx.txn.undo)
    try:
        if writes:
            ctx.txn.write()
        if writes or (ctx.conn.in_write_txn and ctx.conn.dialect != "sqlite"):
            savepoint = f"tsqlb_stmt_{next(_savepoint_ids)}"
            run_sql(ctx.conn, f'SAVEPOINT "{savepoint}"')
        result = fn()
        if savepoint is not None:
            run_sql(ctx.conn, f'RELEASE SAVEPOINT "{savepoint}"')
    except BaseException as e:
        if savepoint is not None and ctx.conn.in_write_txn:
            try:
                run_sql(ctx.conn, f'ROLLBACK TO SAVEPOINT "{savepoint}"')
                run_sql(ctx.conn, f'RELEASE SAVEPOINT "{savepoint}"')
            except (DBAPIError, sqlite3.Error):
                # The savepoint is gone (the backend ended the transaction): the caller's
                # rollback cleans up; report the statement's own error.
                _log.debug("statement savepoint lost", exc_info=True)
        extra = ctx.txn.undo[undo_mark:]
        del ctx.txn.undo[undo_mark:]
        for undo in reversed(extra):
            undo()
        if isinstance(e, (DBAPIError, sqlite3.Error)):
            raise _backend_error(e) from None
        if isinstance(e, Exception) and not isinstance(e, TSqlError):
            # No user input may surface as a Python traceback; keep the cause for debugging.
            _log.debug("storage layer failure", exc_info=True)
            raise TSqlError(50000, f"The storage layer could not run the statement "
                                   f"({type(e).__name__}: {e}).", 16) from e
        raise
    return result


def _backend_error(e: BaseException) -> TSqlError:
    pending = take_pending_error()
    if pending is not None:
        return pending
    text = str(getattr(e, "orig", e))
    low = text.lower()
    if low.startswith("no such column:"):
        name = text.split(":", 1)[1].strip().split(".")[-1].strip('"')
        return tsql_error(207, name, cls=BindError)
    if low.startswith("ambiguous column name:"):
        return tsql_error(209, text.split(":", 1)[1].strip(), cls=BindError)
    if low.startswith("no such table:"):
        return tsql_error(208, text.split(":", 1)[1].strip(), cls=BindError)
    if "incomplete input" in low:
        return tsql_error(102, "", cls=BindError)
    if "syntax error" in low:
        near = text.split('"')[1] if '"' in text else ""
        return tsql_error(102, near, cls=BindError)
    if "no such function" in low:
        name = text.split(":", 1)[1].strip()
        return tsql_error(195, name, "built-in function name", cls=BindError)
    if "database is locked" in low:
        return tsql_error(1222)
    return TSqlError(50000, f"The storage backend rejected the statement: {text}", 16)


def _statement_name(tree: exp.Expression) -> str:
    if isinstance(tree, exp.Merge):
        return "MERGE"
    if isinstance(tree, exp.Command):
        return f"The statement '{tree.name.upper()} …'"
    return f"The statement {type(tree).__name__.upper()}"


# -- queries ----------------------------------------------------------------------------------
def run_query(binder: Binder, compiled: Compiled, extra: dict[str, Any] | None = None
              ) -> ResultSet:
    """Execute compiled SQL, naming and converting the columns per their specs."""
    binds = dict(binder.binds)
    if extra:
        binds.update(extra)
    cursor = run_sql(binder.conn, compiled.sql, binds)
    keys = list(cursor.keys())
    raw = cursor.fetchall()
    names = compiled.names if compiled.names is not None and len(compiled.names) == len(
        keys) else keys
    types = compiled.types if len(compiled.types) == len(keys) else [
        _spec_by_name(binder, k) for k in keys]
    rows = [tuple(from_storage(v, t) for v, t in zip(row, types, strict=True)) for row in raw]
    return ResultSet(list(names), list(types), rows)


def _spec_by_name(binder: Binder, name: str) -> str | None:
    found = {s.spec_of(name) for s in binder.sources.values() if s.has_column(name)}
    return found.pop() if len(found) == 1 else None


def _assignments(select: exp.Expression) -> list[tuple[str, str]]:
    """Rewrite ``SELECT @v = expr`` and ``SELECT alias = expr`` items; return the
    assignment targets."""
    if not isinstance(select, exp.Select):
        return []
    targets: list[tuple[str, str]] = []
    items = []
    for proj in select.expressions:
        if isinstance(proj, exp.EQ) and isinstance(proj.this, exp.Parameter):
            name = "@" + proj.this.name
            targets.append((name, "="))
            items.append(exp.alias_(proj.expression, name.lstrip("@"), quoted=True))
        elif isinstance(proj, exp.EQ) and (
                isinstance(proj.this, exp.Column) and not proj.this.table
                or isinstance(proj.this, exp.Literal) and proj.this.is_string):
            items.append(exp.alias_(proj.expression, proj.this.name, quoted=True))
        else:
            items.append(proj)
    select.set("expressions", items)
    if targets and len(targets) != len(items):
        raise tsql_error(141)
    return targets


def _select(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    into = tree.args.get("into")
    if into is not None:
        tree.set("into", None)
    ops = dict(parsed.assign_ops)
    targets = [(name, ops.get(name.lower(), op)) for name, op in _assignments(tree)]
    binder = Binder(ctx, params)
    folds = _accumulations(binder, tree, targets) if targets else {}
    compiled = binder.compile(tree, (parsed.text, "select", tuple(sorted(folds))))
    rs = run_query(binder, compiled)
    if targets:
        rs.columns = [name for name, _op in targets]
        _fold(rs, folds, binder.params)
        return SqlResult([rs], len(rs.rows), assign_targets=targets)
    if into is not None:
        return _select_into(ctx, into, rs)
    return SqlResult([rs], len(rs.rows))


def _add_operands(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Add):
        return [*_add_operands(node.this), node.expression]
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.Add):
        return _add_operands(node.this)
    return [node]


def _accumulations(binder: Binder, select: exp.Expression, targets: list[tuple[str, str]]
                   ) -> dict[int, bool]:
    """``SELECT @s = @s + expr FROM …`` assigns once per row, each row seeing the previous
    assignment. Such items are rewritten to compute ``expr`` per row and folded afterwards;
    returns ``{item index: concatenates}``."""
    binder.collect(select)
    folds: dict[int, bool] = {}
    for i, ((name, op), item) in enumerate(zip(targets, select.expressions, strict=True)):
        if op != "=":
            continue  # the caller applies compound operators itself
        value = item.this if isinstance(item, exp.Alias) else item
        operands = _add_operands(value)
        first = operands[0]
        if len(operands) < 2 or not isinstance(first, exp.Parameter) \
                or isinstance(first.this, exp.Parameter) \
                or "@" + first.name.lower() != name.lower():
            continue
        concat = isinstance(value, exp.Add) and binder._concatenates(value)
        rest = operands[1]
        for operand in operands[2:]:
            rest = exp.Add(this=rest, expression=operand)
        if concat and len(operands) > 2 and not binder.is_string(rest):
            rest = exp.DPipe(this=rest.this, expression=rest.expression)
        if isinstance(item, exp.Alias):  # _assignments made every target item an alias
            item.set("this", rest)
            folds[i] = concat
    return folds


def _fold(rs: ResultSet, folds: dict[int, bool], params: dict[str, tuple[Any, str | None]]
          ) -> None:
    """Replace the per-row increments of accumulating assignments by running values."""
    if not folds:
        return
    acc: dict[int, Any] = {}
    for i in folds:
        value, spec = params.get(rs.columns[i].lower(), (None, None))
        acc[i] = value
        rs.types[i] = spec
    new_rows = []
    for row in rs.rows:
        values = list(row)
        for i, concat in folds.items():
            prev, step = acc[i], values[i]
            if prev is None or step is None:
                acc[i] = None
            elif concat:
                acc[i] = f"{prev}{step}"
            elif isinstance(prev, Decimal):
                acc[i] = prev + Decimal(str(step))
            elif isinstance(prev, (int, float)) and not isinstance(prev, bool):
                acc[i] = prev + type(prev)(step)
            else:
                acc[i] = prev + step
            values[i] = acc[i]
        new_rows.append(tuple(values))
    rs.rows = new_rows


def _select_into(ctx: ExecContext, into: exp.Expression, rs: ResultSet) -> SqlResult:
    target = into.this if isinstance(into, exp.Into) else into
    assert isinstance(target, exp.Table)
    columns = []
    for i, name in enumerate(rs.columns):
        if not name:
            raise tsql_error(1038)
        spec = rs.types[i] or next((spec_of_value(r[i]) for r in rs.rows
                                    if r[i] is not None), None) or "int"
        columns.append(f"[{name.replace(']', ']]')}] {spec} NULL")
    key = table_key(target)
    name = key[2] if key[3] == "#" else target.sql("tsql")
    create = parse_statement(f"CREATE TABLE {name} ({', '.join(columns)})").tree
    assert isinstance(create, exp.Create)
    info = create_table(ctx, create)
    RowWriter(ctx, info, "INSERT").insert(list(rs.columns), rs.rows)
    return SqlResult([], len(rs.rows))


# -- INSERT -----------------------------------------------------------------------------------
def _target_table(ctx: ExecContext, node: exp.Table, statement: str) -> TableInfo:
    source = Binder(ctx, {}).resolve(table_key(node))
    return _writable(source, statement)


def _writable(source: Source, statement: str) -> TableInfo:
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


def _insert(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Insert)
    target = tree.this
    columns: list[str] | None = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
        target = target.this
    assert isinstance(target, exp.Table)
    info = _target_table(ctx, target, "INSERT")
    source = tree.expression
    rows: list[Sequence[Any]]
    from_values = False
    if tree.args.get("default"):
        rows, columns = [()], []
    elif isinstance(source, exp.Values):
        from_values = True
        rows = [_values_row(ctx, tup, params) for tup in source.expressions]
    elif source is not None:
        with_ = tree.args.get("with_") or tree.args.get("with")
        if with_ is not None and isinstance(source, exp.Query):
            source.set("with_", with_)
        binder = Binder(ctx, params)
        compiled = binder.compile(source, (parsed.text, "insert-source"))
        rows = run_query(binder, compiled).rows
    else:
        raise not_supported("This INSERT form")
    writer = RowWriter(ctx, info, "INSERT")
    rowids = writer.insert(columns, rows, from_values=from_values)
    result = SqlResult([], len(rowids), identity=writer.last_identity)
    if parsed.output is not None:
        out = _output(ctx, info, parsed, params, rowids, {})
        _deliver_output(ctx, parsed, out, result)
    return result


def _values_row(ctx: ExecContext, tup: exp.Expression, params: Params) -> tuple[Any, ...]:
    items = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
    simple = [_simple_value(i, params) for i in items]
    if all(ok for ok, _v in simple):
        return tuple(v for _ok, v in simple)
    binder = Binder(ctx, params)
    select = exp.select(*[i.copy() for i in items])
    compiled = binder.compile(select, (tup.sql("tsql"), "values"))
    row = run_sql(binder.conn, compiled.sql, binder.binds).fetchone()
    assert row is not None
    return tuple(row)


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
        select = select.where(exp.EQ(this=exp.column(rowid_column(ctx.conn.dialect), table="inserted"),
                                     expression=exp.Placeholder(this="__rid")))
    binder = Binder(ctx, params)
    binder.sources["deleted"] = Source("table", "deleted", [(c.name, c.spec) for c in info.columns],
                                       table=info)
    binder.sources["inserted"] = binder.sources["deleted"]
    compiled = binder.compile(select, (parsed.text, "output", deleted_only, bool(old),
                                       info.object_id))
    rows: list[tuple[Any, ...]] = []
    names_out: list[str] = []
    types: list[str | None] = []
    for rid in rowids:
        extra: dict[str, Any] = {"__rid": rid}
        before = old.get(rid, {})
        for i, n in enumerate(names):
            extra[f"__d{i}"] = before.get(n.lower())
        rs = run_query(binder, compiled, extra)
        names_out, types = rs.columns, rs.types
        rows.extend(rs.rows)
    if not rowids:
        names_out = compiled.names or []
        types = compiled.types
    return ResultSet(names_out, types, rows)


def _deliver_output(ctx: ExecContext, parsed: Parsed, out: ResultSet, result: SqlResult) -> None:
    if parsed.output_into is None:
        result.resultsets.append(out)
        return
    target = parsed.output_into
    columns = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
        target = target.this
    assert isinstance(target, exp.Table)
    info = _target_table(ctx, target, "INSERT")
    RowWriter(ctx, info, "INSERT").insert(columns, out.rows)


# -- UPDATE / DELETE ----------------------------------------------------------------------------
def _target_select(ctx: ExecContext, tree: exp.Expression, target: exp.Table,
                   from_node: exp.Expression | None, parsed: Parsed,
                   values: list[exp.Expression]) -> tuple[exp.Select, str, TableInfo]:
    """Build ``SELECT target.rowid, <values> FROM … WHERE …`` for UPDATE / DELETE."""
    key = table_key(target)
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
    for item in items:
        if isinstance(item, exp.Table) and item.alias and not key[0] and not key[1] \
                and item.alias.lower() == key[2].lower():
            alias = item.alias
            tinfo = _writable(binder.resolve(table_key(item)), _verb(tree))
            break
    if alias is None:
        for item in items:
            if isinstance(item, exp.Table) and table_key(item)[2].lower() == key[2].lower() \
                    and table_key(item)[3] == key[3]:
                alias = item.alias or item.name
                tinfo = _writable(binder.resolve(table_key(item)), _verb(tree))
                break
    if alias is None:
        tinfo = _writable(binder.resolve(key), _verb(tree))
        alias = target.alias or target.name
        extra = target.copy()
        if not items:
            items = [extra]
        else:
            joins.append(exp.Join(this=extra, kind="CROSS"))
    assert tinfo is not None
    select = exp.Select(expressions=[exp.column(rowid_column(ctx.conn.dialect), table=alias, quoted=True)] + values)
    select.set("from_", exp.From(this=items[0]))
    if joins:
        select.set("joins", joins)
    where = tree.args.get("where")
    if where is not None:
        select.set("where", where)
    if parsed.top is not None:
        select.set("limit", exp.Limit(expression=parsed.top))
    return select, alias, tinfo


def _verb(tree: exp.Expression) -> str:
    return "UPDATE" if isinstance(tree, exp.Update) else "DELETE"


def _update(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Update)
    target = tree.this
    assert isinstance(target, exp.Table)
    sets: list[tuple[str, exp.Expression]] = []
    if not tree.expressions:
        raise tsql_error(102, "SET", cls=BindError)
    for item in tree.expressions:
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise not_supported(f"The SET item '{item.sql('tsql')}'")
        sets.append((item.this.name, item.expression))
    select, _alias, info = _target_select(ctx, tree, target, tree.args.get("from_"), parsed,
                                          [v for _n, v in sets])
    for name, _v in sets:
        if info.column(name) is None:
            raise tsql_error(207, name, cls=BindError)
    binder = Binder(ctx, params)
    compiled = binder.compile(select, (parsed.text, "update"))
    raw = run_sql(binder.conn, compiled.sql, binder.binds).fetchall()
    changes: dict[Any, dict[str, Any]] = {}
    for row in raw:
        if row[0] not in changes:
            changes[row[0]] = {name: value for (name, _e), value in zip(sets, row[1:],
                                                                        strict=True)}
    writer = RowWriter(ctx, info, "UPDATE")
    rowids = list(changes)
    old = writer.fetch(rowids) if parsed.output is not None else {}
    writer.update(list(changes.items()))
    result = SqlResult([], len(changes))
    if parsed.output is not None:
        _deliver_output(ctx, parsed, _output(ctx, info, parsed, params, rowids, old), result)
    return result


def _delete(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Delete)
    tables = tree.args.get("tables") or []
    if tables:
        target = tables[0]
        from_node = tree.this
    else:
        target = tree.this
        from_node = None
    assert isinstance(target, exp.Table)
    select, _alias, info = _target_select(ctx, tree, target, from_node, parsed, [])
    binder = Binder(ctx, params)
    compiled = binder.compile(select, (parsed.text, "delete"))
    rowids = list(dict.fromkeys(r[0] for r in run_sql(binder.conn, 
        compiled.sql, binder.binds)))
    writer = RowWriter(ctx, info, "DELETE")
    old = writer.fetch(rowids) if parsed.output is not None else {}
    writer.delete(rowids)
    result = SqlResult([], len(rowids))
    if parsed.output is not None:
        out = _output(ctx, info, parsed, params, rowids, old, deleted_only=True)
        _deliver_output(ctx, parsed, out, result)
    return result


# -- DDL ----------------------------------------------------------------------------------------
def _create(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Create)
    kind = (tree.args.get("kind") or "").upper()
    if kind == "TABLE":
        create_table(ctx, tree)
    elif kind == "INDEX":
        create_index(ctx, tree)
    elif kind == "VIEW":
        create_view(ctx, tree, parsed.text, replace=bool(tree.args.get("replace")))
    else:
        raise not_supported(f"CREATE {kind}")
    return SqlResult()


def _alter(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Alter)
    kind = (tree.args.get("kind") or "").upper()
    if kind == "TABLE":
        alter_table(ctx, tree)
    elif kind == "VIEW":
        create_view(ctx, tree, parsed.text, replace=True, alter=True)
    else:
        raise not_supported(f"ALTER {kind}")
    return SqlResult()


def _drop(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Drop)
    kind = (tree.args.get("kind") or "").upper()
    exists = bool(tree.args.get("exists"))
    for node in tree.args.get("tables") or [tree.this]:
        if kind == "TABLE":
            try:
                info = _target_table(ctx, node, "DROP")
            except TSqlError as e:
                if e.number in (208, 1087):
                    if exists:
                        continue
                    raise tsql_error(3701, "table", _display_name(node), cls=BindError) from None
                raise
            drop_table(ctx, info)
        elif kind == "VIEW":
            drop_view(ctx, node, exists)
        elif kind == "INDEX":
            drop_index(ctx, node, tree.args.get("cluster"), exists)
        else:
            raise not_supported(f"DROP {kind}")
    return SqlResult()


def _display_name(node: exp.Table) -> str:
    key = table_key(node)
    return key[2] if key[3] else node.sql("tsql")


def _truncate(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    for node in tree.expressions:
        truncate_table(ctx, _target_table(ctx, node, "TRUNCATE TABLE"))
    return SqlResult()


def _merge(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    count, identity = merge(ctx, parsed, params)
    return SqlResult([], count, identity=identity)


_HANDLERS: dict[type, Callable[[ExecContext, Parsed, Params], SqlResult]] = {
    exp.Merge: _merge,
    exp.Select: _select, exp.Insert: _insert, exp.Update: _update, exp.Delete: _delete,
    exp.Create: _create, exp.Alter: _alter, exp.Drop: _drop, exp.TruncateTable: _truncate,
}


def catalog_of(ctx: ExecContext) -> Catalog:
    """The catalog of the context's store."""
    return Catalog.get(ctx.conn.store)
