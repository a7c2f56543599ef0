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

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from ..storage.failures import backend_error
from ..storage.function_registry import register_functions
from . import ddl, tables
from .catalog import Catalog
from .context import (
    ExecContext,
    Params,
    SqlResult,
    VirtualTable,
    register_virtual_table,
)
from .ddl import alter_table, create_index, create_view, drop_index, drop_view
from .guard import guarded
from .merge import merge
from .modify import (
    delete_statement,
    deliver_output,
    insert_statement,
    run_modify_plan,
    target_table,
    update_statement,
)
from .parsing import Parsed, not_supported, parse_statement
from .plans import InsertPlan, InsertShape, ModifyPlan, PlanCache, new_plan
from .query import run_query_plan, select_statement
from .tableinfo import table_by_physical
from .tables import create_table, drop_table, truncate_table
from .transpiler.resolve import temp_table_object_id
from .transpiler.scope import table_key
from .triggers import TriggerEvent
from .viewdml import check_option, instead_view, names_view, rewrite_merge, view_target
from .writer import RowWriter

logging.getLogger("sqlglot").setLevel(logging.ERROR)

__all__ = [
    "ExecContext", "SqlResult", "VirtualTable", "declare_table_variable", "drop_table_variable",
    "drop_temp_tables", "execute_sql", "ident_current", "insert_rows", "register_functions",
    "register_virtual_table", "set_identity_insert", "temp_table_object_id",
]


def execute_sql(ctx: ExecContext, sql: str, params: Params) -> SqlResult:
    """Run one T-SQL statement; variables in ``params`` (``'@name'`` → (value, type spec))
    are bound, never spliced into the text."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    cache = PlanCache.get(ctx.conn.store)
    shape = cache.shape_known(sql)
    if isinstance(shape, InsertShape):
        return _planned_insert(ctx, cache, sql, shape, params)
    if shape is None:
        planned = _planned_query(ctx, cache, sql, params)
        if planned is not None:
            return planned
    try:
        parsed = parse_statement(sql)
    except TSqlError:
        raise
    except Exception as e:  # sqlglot internals on odd input: still a syntax error to the user
        raise tsql_error(102, sql.strip()[:40], cls=BindError) from e
    tree = parsed.tree
    if parsed.max_recursion is not None:
        ctx = replace(ctx, max_recursion=parsed.max_recursion)
    if shape is False:
        shape = cache.record_shape(sql, parsed)
        if shape is not None:
            return _planned_insert(ctx, cache, sql, shape, params)
    handler = _HANDLERS.get(type(tree))
    if handler is None:
        if isinstance(tree, exp.SetOperation):
            handler = select_statement
        else:
            raise not_supported(_statement_name(tree))
    writes = handler is not select_statement or tree.args.get("into") is not None
    return guarded(ctx, writes, lambda: handler(ctx, parsed, params))


def _planned_insert(ctx: ExecContext, cache: PlanCache, sql: str, shape: InsertShape,
                    params: Params) -> SqlResult:
    """INSERT … VALUES through its compiled plan (resolved on the first run per key)."""
    try:
        key = cache.key(ctx, sql, shape)
    except (DBAPIError, sqlite3.Error) as e:
        raise backend_error(e) from None
    plan = cache.lookup(key)
    if plan is not None:
        return guarded(ctx, True, lambda: _run_plan(ctx, plan, params),
                       savepoint_needed=not plan.single_write)

    def build_and_run() -> SqlResult:
        if names_view(ctx, shape.target):
            # Through a view: rewritten per run (the view may change), never planned.
            return insert_statement(ctx, parse_statement(sql), params)
        new = new_plan(ctx, shape, target_table(ctx, shape.target, "INSERT"))
        cache.store_plan(key, new)
        return _run_plan(ctx, new, params)
    return guarded(ctx, True, build_and_run)


def _planned_query(ctx: ExecContext, cache: PlanCache, sql: str, params: Params
                   ) -> SqlResult | None:
    """A query, UPDATE or DELETE through its compiled plan, or None when it has none for
    this key."""
    try:
        key = cache.query_key(ctx, sql, params)
    except (DBAPIError, sqlite3.Error) as e:
        raise backend_error(e) from None
    if key is None:
        return None
    plan = cache.lookup(key)
    if plan is None:
        return None
    if isinstance(plan, ModifyPlan):
        return guarded(ctx, True, lambda: run_modify_plan(ctx, plan, params))
    return guarded(ctx, False, lambda: run_query_plan(ctx, plan, params))


def _run_plan(ctx: ExecContext, plan: InsertPlan, params: Params) -> SqlResult:
    writer = RowWriter(ctx, plan.info, "INSERT", defaults=plan.defaults, checks=plan.checks)
    rows, sources = plan.shape.typed_values(params)
    rowids = writer.insert(plan.shape.columns, rows, from_values=True, sources=sources)
    return SqlResult([], len(rowids), identity=writer.last_identity)


def insert_rows(ctx: ExecContext, table: str, columns: list[str] | None,
                rows: list[tuple[Any, ...]]) -> int:
    """Insert Python rows (``INSERT … EXEC``, ``RECEIVE … INTO``) into ``table`` ('@t', '#t',
    't', 'db.schema.t'); returns the number of rows."""
    ctx.conn.backend.prepare_connection(ctx.conn)

    def run() -> SqlResult:
        info = target_table(ctx, _table_node(table), "INSERT")
        writer = RowWriter(ctx, info, "INSERT")
        writer.insert(columns, rows)
        return SqlResult(rowcount=len(rows), identity=writer.last_identity)

    return guarded(ctx, True, run).rowcount


def declare_table_variable(ctx: ExecContext, name: str, columns_sql: str) -> str:
    """``DECLARE @t TABLE (…)``: create the table variable, return its physical name (the
    interpreter maps ``'@t'`` to it in the frame and drops it at frame end)."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    physical: list[str] = []

    def run() -> SqlResult:
        physical.append(tables.declare_table_variable(ctx, name, columns_sql))
        return SqlResult()

    _outside_transaction(ctx, run)
    return physical[0]


def trigger_tables(ctx: ExecContext, event: TriggerEvent) -> tuple[str, str]:
    """The physical names of new table variables holding ``event``'s inserted and deleted
    rows (the table's columns, plain: no IDENTITY, no constraints), in the statement's
    transaction."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    names: list[str] = []
    columns = ", ".join(f"[{c.name.replace(']', ']]')}] {c.spec} NULL"
                        for c in event.table.columns)

    def run() -> SqlResult:
        for label, rows in (("@inserted", event.inserted), ("@deleted", event.deleted)):
            physical = tables.declare_table_variable(ctx, label, columns)
            names.append(physical)
            info = table_by_physical(ctx.conn, physical)
            if rows and info is not None:
                RowWriter(ctx, info, "INSERT").insert(None, rows)
        return SqlResult()
    guarded(ctx, True, run)
    return names[0], names[1]


def drop_table_variable(ctx: ExecContext, physical: str) -> None:
    """Drop a table variable (frame end)."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    _outside_transaction(
        ctx, lambda: (tables.drop_table_variable(ctx, physical), SqlResult())[1])


def set_constraint_checking(ctx: ExecContext, table: str, name: str | None,
                            enabled: bool) -> None:
    """``ALTER TABLE table CHECK | NOCHECK CONSTRAINT name | ALL`` (None: ALL)."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    def run() -> SqlResult:
        ddl.set_constraint_checking(ctx, _table_node(table), name, enabled)
        return SqlResult()

    guarded(ctx, True, run)


def save_table_variable(ctx: ExecContext, physical: str) -> tables.SavedRows | None:
    """The rows of a table variable before a ROLLBACK (None when its table is gone)."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    return tables.save_rows(ctx, physical)


def restore_table_variable(ctx: ExecContext, saved: tables.SavedRows) -> None:
    """After a ROLLBACK: the table variable holds the rows it held before."""
    guarded(ctx, True, lambda: (tables.restore_rows(ctx, saved), SqlResult())[1])


def _outside_transaction(ctx: ExecContext, fn: Callable[[], SqlResult]) -> None:
    """Run DDL for a table variable. SQL Server's ROLLBACK does not undo table variables, so
    when no storage transaction is open the DDL commits on its own; inside one it joins it
    (a rollback then takes the table variable's rows and, if declared inside, the table)."""
    if ctx.conn.in_write_txn:
        guarded(ctx, True, fn)
        return
    try:
        guarded(ctx, True, fn)
    except BaseException:
        ctx.conn.rollback()
        raise
    ctx.conn.commit()


def drop_temp_tables(ctx: ExecContext) -> None:
    """Drop every temp table of the session (session end)."""
    ctx.conn.backend.prepare_connection(ctx.conn)
    guarded(ctx, True, lambda: (tables.drop_temp_tables(ctx), SqlResult())[1])


def set_identity_insert(ctx: ExecContext, table: str, on: bool) -> None:
    """``SET IDENTITY_INSERT table ON|OFF`` for the session whose set of tables is
    ``ctx.identity_insert`` (Msg 8106 without an identity column, 8107 when another table
    of the session already has it ON)."""
    ctx.conn.backend.prepare_connection(ctx.conn)

    def run() -> SqlResult:
        info = target_table(ctx, _table_node(table), "SET IDENTITY_INSERT")
        if info.identity_column is None:
            raise tsql_error(8106, table)
        if on:
            others = ctx.identity_insert - {info.object_id}
            if others:
                other = Catalog.get(ctx.conn.store).object_by_id(ctx.conn, None, min(others))
                name = f"{other.schema_name}.{other.name}" if other else "?"
                raise tsql_error(8107, name, table)
            ctx.identity_insert.add(info.object_id)
        else:
            ctx.identity_insert.discard(info.object_id)
        return SqlResult()

    guarded(ctx, False, run)


def ident_current(ctx: ExecContext, table: str) -> int | None:
    """``IDENT_CURRENT('table')``: the last identity value generated for the table (by any
    session), its seed before the first insert, NULL for a table without an identity
    column or a name that is no table."""
    found = _identity_of(ctx, table, "IDENT_CURRENT", True)
    return None if found is None else found[2]


def identity_definition(ctx: ExecContext, table: str) -> tuple[int, int] | None:
    """``IDENT_SEED`` / ``IDENT_INCR``: the table's identity (seed, increment), None for a
    table without an identity column or a name that is no table."""
    found = _identity_of(ctx, table, "IDENT_SEED", False)
    return None if found is None else (found[0], found[1])


def _identity_of(ctx: ExecContext, table: str, what: str,
                 current: bool) -> tuple[int, int, int | None] | None:
    """(seed, increment, last value generated when ``current`` is asked for) of the table's
    identity column, None without one."""
    ctx.conn.backend.prepare_connection(ctx.conn)

    def run() -> SqlResult:
        try:
            info = target_table(ctx, _table_node(table), what)
        except TSqlError:
            return SqlResult(identity=None)
        col = info.identity_column
        if col is None or col.identity is None:
            return SqlResult(identity=None)
        seed, step = col.identity
        last = None
        if current:
            c = Catalog.get(ctx.conn.store).t.columns
            nxt = ctx.conn.execute(select(c.c.identity_next).where(
                c.c.object_id == info.object_id, c.c.column_id == col.column_id)).scalar()
            last = seed if nxt is None else int(nxt) - step
        return SqlResult(identity=(seed, step, last))

    found: tuple[int, int, int | None] | None = guarded(ctx, False, run).identity
    return found


def _table_node(name: str) -> exp.Table:
    node = parse_statement(f"SELECT 1 FROM {name}").tree.find(exp.Table)
    if node is None:
        raise tsql_error(208, name, cls=BindError)
    return node


def _statement_name(tree: exp.Expression) -> str:
    if isinstance(tree, exp.Merge):
        return "MERGE"
    if isinstance(tree, exp.Command):
        return f"The statement '{tree.name.upper()} …'"
    return f"The statement {type(tree).__name__.upper()}"


# -- DDL ----------------------------------------------------------------------------------------
def _create(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    assert isinstance(tree, exp.Create)
    kind = (tree.args.get("kind") or "").upper()
    # sqlglot reads [NON]CLUSTERED INDEX as one word; the storage keeps no clustered order.
    kind = kind.removeprefix("NONCLUSTERED ").removeprefix("CLUSTERED ")
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
                info = target_table(ctx, node, "DROP")
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
        truncate_table(ctx, target_table(ctx, node, "TRUNCATE TABLE"))
    return SqlResult()


def _merge(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    target = parsed.tree.this
    if isinstance(target, exp.Table) and any(
            instead_view(ctx, target, a) for a in ("INSERT", "UPDATE", "DELETE")):
        raise not_supported(f"MERGE into the view '{target.name}' with an INSTEAD OF trigger")
    view = view_target(ctx, target) if isinstance(target, exp.Table) else None
    alias = None
    if view is not None:
        parsed, alias = rewrite_merge(parsed, view)
    count, identity, out, written = merge(ctx, parsed, params, alias)
    if view is not None and alias is not None:
        check_option(ctx, view, alias, written)
    result = SqlResult([], count, identity=identity)
    if out is not None:
        deliver_output(ctx, parsed, out, result)
    return result


_HANDLERS: dict[type, Callable[[ExecContext, Parsed, Params], SqlResult]] = {
    exp.Select: select_statement, exp.Insert: insert_statement, exp.Update: update_statement,
    exp.Delete: delete_statement, exp.Merge: _merge, exp.Create: _create, exp.Alter: _alter,
    exp.Drop: _drop, exp.TruncateTable: _truncate,
}


def catalog_of(ctx: ExecContext) -> Catalog:
    """The catalog of the context's store."""
    return Catalog.get(ctx.conn.store)
