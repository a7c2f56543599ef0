"""DML triggers: ``CREATE / ALTER / DROP TRIGGER``, ``ENABLE / DISABLE TRIGGER``,
``UPDATE(column)``, ``COLUMNS_UPDATED()`` and running a table's triggers after a statement's writes.

The row writer records what each write did (``engine/triggers.py``); after the statement,
:func:`fire` runs the table's enabled triggers for it — AFTER triggers once per statement and
action, also when no row changed, an INSTEAD OF trigger in place of the write — with
``inserted`` and ``deleted`` as table variables lent to the trigger's frame. The trigger runs
in the statement's transaction (``@@TRANCOUNT`` is at least 1 inside it) with XACT_ABORT ON:
an error in it rolls back the transaction and ends the batch (dooms it under the caller's TRY),
and a ROLLBACK inside it ends the batch (Msg 3609).
Triggers nest (a trigger's writes fire other triggers, up to 32 levels, Msg 217); a trigger
does not fire itself again (the database option RECURSIVE_TRIGGERS is OFF).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.triggers import TriggerEvent, TriggerInfo, trigger_detail, trigger_from_row
from tsqlbroker.errors import BindError, TSqlError, tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.grammar.parser import parse_batch
from tsqlbroker.lazy import LazyModule

from ..values import types as T
from . import dml_stmts
from . import transactions as tx
from .compiler import CExpr, Compiler, StmtFn, expr_handler, handler
from .function_calls import special
from .impersonation import execute_as_principal, record_execute_as
from .procedures import Compiled, ParamInfo, collect_labels, invoke
from .schemas import ddl_statement, drop_objects
from .sequences import database_of, shown_name
from .statement_context import TRIGGERS
from .tabletypes import TABLE

# A view's definition is read with sqlglot: loaded by the first trigger made on a view.
engine_parsing = LazyModule("tsqlbroker.engine.parsing", globals(), "engine_parsing")

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session

_PSEUDO = ("inserted", "deleted")


@dataclass
class _Running:
    trigger_id: int
    table_id: int
    instead_of: bool
    columns: frozenset[str]
    # The table's column names in column_id order (COLUMNS_UPDATED's bit order).
    table_columns: tuple[str, ...] = ()


# The triggers each session is running, innermost last.
_running: weakref.WeakKeyDictionary[Any, list[_Running]] = weakref.WeakKeyDictionary()


def _stack(s: Session) -> list[_Running]:
    stack = _running.get(s)
    if stack is None:
        stack = _running[s] = []
    return stack


def instead_active(s: Session) -> frozenset[int]:
    """The tables whose INSTEAD OF trigger the session is running (their writes happen)."""
    return frozenset(r.table_id for r in _running.get(s, ()) if r.instead_of)


# -- CREATE / ALTER / DROP / ENABLE / DISABLE ----------------------------------------------------
def _table_of(s: Session, name: ast.ObjectName, *, view: bool = True) -> Any:
    """The catalog row of the trigger's table, or view when ``view`` (Msg 8197 when it is
    none)."""
    db_id = database_of(s, name)
    row = s.instance.catalog.find_object(s.conn, db_id, name.schema, name.name)
    if row is None or row.type not in (("U", "V") if view else ("U",)) \
            or row.session_id is not None:
        raise tsql_error(8197, shown_name(name), cls=BindError)
    return row


@handler(ast.CreateTrigger)
def compile_create_trigger(c: Compiler, node: ast.CreateTrigger) -> StmtFn:
    name, table = node.name, node.table
    definition = node.source.strip() or c.source(node)
    # Compiled now for its errors (Msg 137 …), as CREATE PROCEDURE does.
    _compile_body(c.text, node, name.name)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        # Only INSTEAD OF triggers go on views (AFTER on a view is Msg 8197).
        parent = _table_of(s, table, view=node.instead_of)
        if parent.type == "V" and engine_parsing.has_check_option(parent.definition or ""):
            raise tsql_error(2112, name.name, parent.name)
        s.txn_for_statement().write()
        existing = catalog.find_object(s.conn, parent.database_id, name.schema or
                                       parent.schema_name, name.name)
        detail = trigger_detail(list(node.events), node.instead_of)
        principal = execute_as_principal(f, parent.database_id, node.execute_as)
        if node.instead_of:
            for other in catalog.objects(s.conn, parent.database_id, {"TR"},
                                         parent_id=parent.object_id):
                if existing is not None and other.object_id == existing.object_id:
                    continue
                info = _info(other)
                if info.instead_of and info.events & set(node.events):
                    raise tsql_error(2111, "ALTER" if node.alter else "CREATE", name.name,
                                     "view" if parent.type == "V" else "table", parent.name,
                                     min(info.events & set(node.events)))
        if existing is not None and existing.type == "TR" and (node.alter or node.or_alter):
            catalog.update_object(s.conn, existing.object_id, definition=definition,
                                  detail=detail)
            object_id = int(existing.object_id)
        elif node.alter:
            raise tsql_error(8197, shown_name(name), cls=BindError)
        else:
            object_id = catalog.create_object(
                s.conn, parent.database_id, name.schema or parent.schema_name, name.name,
                "TR", definition=definition, parent_id=parent.object_id, detail=detail)
        record_execute_as(f, parent.database_id, object_id, principal,
                          altered=existing is not None)
        catalog.update_object(s.conn, parent.object_id)  # the table's triggers changed
        s.rowcount = 0
    return run


def _info(row: Any) -> TriggerInfo:
    return trigger_from_row(row)


@handler(ast.DropTrigger)
def compile_drop_trigger(c: Compiler, node: ast.DropTrigger) -> StmtFn:
    def drop(s: Session) -> None:
        def drop_one(row: Any) -> None:
            s.instance.catalog.drop_object(s.conn, row.object_id)
            s.instance.catalog.update_object(s.conn, row.parent_object_id)
        drop_objects(s, node.names, {"TR"}, "trigger", node.if_exists, drop_one)
    return ddl_statement(drop)


@handler(ast.EnableTrigger)
def compile_enable_trigger(c: Compiler, node: ast.EnableTrigger) -> StmtFn:
    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        parent = _table_of(s, node.table)
        mine = catalog.objects(s.conn, parent.database_id, {"TR"}, parent_id=parent.object_id)
        chosen = mine
        if node.names:
            chosen = []
            for name in node.names:
                found = next((r for r in mine if r.name.lower() == name.name.lower()), None)
                if found is None:
                    raise tsql_error(3701, "trigger", shown_name(name), cls=BindError)
                chosen.append(found)
        s.txn_for_statement().write()
        for row in chosen:
            info = _info(row)
            catalog.update_object(s.conn, row.object_id, detail=trigger_detail(
                sorted(info.events), info.instead_of, disabled=not node.enable))
        catalog.update_object(s.conn, parent.object_id)
        s.rowcount = 0
    return run


# -- UPDATE(column) -------------------------------------------------------------------------------
@expr_handler(ast.UpdateColumn)
def compile_update_column(c: Compiler, node: ast.UpdateColumn) -> CExpr:
    column = node.column.lower()

    def updated(f: Frame) -> bool:
        stack = _running.get(f.session)
        return bool(stack) and column in stack[-1].columns  # type: ignore[index]
    return CExpr(T.BIT, updated, predicate=True)


@special("columns_updated")
def compile_columns_updated(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``COLUMNS_UPDATED()``: a varbinary with one bit per column of the trigger's table, set
    for the columns the statement wrote; byte 1 holds columns 1-8 with column 1 in its lowest
    bit, as SQL Server lays it out. Outside a trigger it is NULL (SQL Server refuses it at
    CREATE time; a batch here has no trigger to ask)."""
    if node.args:
        raise c.bind_error(174, node, "columns_updated", 0)

    def columns_updated(f: Frame) -> bytes | None:
        stack = _running.get(f.session)
        if not stack:
            return None
        top = stack[-1]
        mask = bytearray((len(top.table_columns) + 7) // 8)
        for i, name in enumerate(top.table_columns):
            if name in top.columns:
                mask[i // 8] |= 1 << (i % 8)
        return bytes(mask)
    return CExpr(T.VARBINARY_MAX, columns_updated)


@special("rowcount_big")
def compile_rowcount_big(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``ROWCOUNT_BIG()``: ``@@ROWCOUNT`` as bigint."""
    if node.args:
        raise c.bind_error(174, node, "rowcount_big", 0)
    return CExpr(T.BIGINT, lambda f: f.session.rowcount)


# -- running triggers ------------------------------------------------------------------------------
def _compile_body(text: str, node: ast.CreateTrigger, name: str) -> Compiled:
    c = Compiler(text, proc_name=name, kind="procedure")
    params = []
    for pseudo in _PSEUDO:
        hidden = c.declare(pseudo + "\x00table", TABLE, node)
        params.append(ParamInfo(pseudo, hidden.slot, TABLE, False, True, None,
                                table_type="trigger"))
    collect_labels(c, node.body)
    run = c.block(node.body)
    return Compiled(run, c.scope.nslots, c.scope, name, params)


def _trigger_module(s: Session, trigger: TriggerInfo) -> Compiled:
    row = s.instance.catalog.object_by_id(s.conn, None, trigger.object_id)
    if row is None or not row.definition:
        raise tsql_error(8197, trigger.name, cls=BindError)
    key = (row.database_id, row.object_id)
    cached = s.instance.procedure_cache.get(key)
    if cached is not None and cached[0] == row.modify_date:
        return cached[1]  # type: ignore[no-any-return]
    batch = parse_batch(row.definition, 1)
    node = next(st for st in batch.statements if isinstance(st, ast.CreateTrigger))
    compiled = _compile_body(batch.text, node, row.name)
    compiled.execute_as = node.execute_as
    compiled.object_id = row.object_id
    compiled.db_id = row.database_id
    db_row = s.instance.catalog.database(s.conn, row.database_id)
    compiled.db_name = db_row.name if db_row is not None else None
    s.instance.procedure_cache[key] = (row.modify_date, compiled)
    return compiled


def fire(f: Frame, events: list[TriggerEvent]) -> None:
    """Run the triggers the statement's writes ``events`` call for."""
    s = f.session
    for event in events:
        for trigger in event.table.triggers:
            if trigger.disabled or event.action not in trigger.events \
                    or trigger.instead_of != event.instead_of:
                continue
            stack = _stack(s)
            if stack and stack[-1].trigger_id == trigger.object_id:
                continue  # RECURSIVE_TRIGGERS OFF: no direct recursion
            _run(f, trigger, event)


def _run(f: Frame, trigger: TriggerInfo, event: TriggerEvent) -> None:
    s = f.session
    compiled = _trigger_module(s, trigger)
    ctx = dml_stmts.exec_context(f)
    inserted, deleted = dml_stmts.engine_dml.trigger_tables(ctx, event)
    values = {compiled.params[0].slot: inserted, compiled.params[1].slot: deleted}
    promoted = s.txn is None
    if promoted:
        # The statement's own transaction holds the trigger's work too.
        s.txn, s.stmt_txn = s.txn_for_statement(), None
        s.trancount = 1
    # @@ROWCOUNT / ROWCOUNT_BIG() at the trigger's start: the rows of the statement.
    s.rowcount = max(len(event.inserted), len(event.deleted))
    stack = _stack(s)
    stack.append(_Running(trigger.object_id, event.table.object_id, trigger.instead_of,
                          event.columns,
                          tuple(col.name.lower() for col in event.table.columns)))
    # A trigger runs as if SET XACT_ABORT were ON ("ON is the default setting in a
    # trigger", SET XACT_ABORT's remarks): a run-time error or THROW in it rolls the
    # transaction back and ends the batch, or dooms the transaction under a caller's TRY.
    saved_abort, s.xact_abort = s.xact_abort, True
    doomed_before = s.doomed
    failed = False
    try:
        invoke(s, compiled, values)
    except TSqlError:
        failed = True
        raise
    finally:
        stack.pop()
        s.xact_abort = saved_abort
        ended = s.trancount == 0
        if promoted and not ended and not s.doomed:
            s.stmt_txn, s.txn = s.txn, None
            s.trancount = 0
        # A doomed statement transaction stays the session's (@@TRANCOUNT 1, XACT_STATE()
        # -1 in the caller's CATCH) until the caller rolls it back or the batch ends.
        if not ended:
            for physical in (inserted, deleted):
                dml_stmts.engine_dml.drop_table_variable(dml_stmts.exec_context(f), physical)
    if ended and not failed:
        err: TSqlError = tsql_error(3609)
        err.batch_abort = True  # type: ignore[attr-defined]
        raise err
    if s.doomed and not doomed_before and s.trancount > 0:
        # The trigger's own CATCH handled an error that doomed the transaction: SQL Server
        # rolls it back and ends the batch when the trigger returns.
        tx.rollback_all(s)
        err = tsql_error(3616)
        err.batch_abort = True  # type: ignore[attr-defined]
        raise err


TRIGGERS.fire = fire
TRIGGERS.instead_active = instead_active
