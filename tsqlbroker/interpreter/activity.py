"""What the instance's sessions are doing: ``sp_who``, ``sp_who2``, ``KILL`` and the DMVs
``sys.dm_exec_sessions``, ``sys.dm_exec_requests`` and ``sys.dm_tran_locks``.

The sessions are this process's (:attr:`Instance.sessions`): the user's, the REPL's helper,
and one per running activated procedure (shown as background work, ``is_user_process`` 0).
A request is a running batch or activated procedure; it waits (``suspended``) in ``WAITFOR``
(wait type ``WAITFOR``), in ``WAITFOR (RECEIVE …)`` (``BROKER_RECEIVE_WAITFOR``), or for a
conversation-group lock another transaction holds (``LCK_M_X``, blocked by that session).
Conversation-group locks are the lock manager's (``sys.dm_tran_locks`` resource
``METADATA`` / ``CONVERSATION_GROUP``); other processes' sessions and their PostgreSQL row
locks are not seen. Columns are a subset of SQL Server's, named and typed as SQL Server names
them (docs/decisions.md lists them).
"""

from __future__ import annotations

import os
import socket
import time
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.context import ExecContext, VirtualTable, register_virtual_table
from tsqlbroker.engine.literal_rows import literal_rows
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.engine.visibility import require_server_state, sees_server_state
from tsqlbroker.errors import tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.storage.txn import LockManager

from ..values import types as T
from .compiler import Compiler, StmtFn, handler
from .frames import Frame
from .function_calls import LOGIN_NAME
from .procedures import SYSTEM_PROCEDURES

if TYPE_CHECKING:
    from .instance_protocol import InstanceLike
    from .session import Session

HOST_NAME = socket.gethostname()
FIRST_USER_SPID = 51


@dataclass(frozen=True)
class Activity:
    """One session as sp_who and the DMVs see it."""

    spid: int
    database_id: int
    database: str
    program: str
    is_user: bool
    request_status: str | None   # running | runnable | suspended | background; None: idle
    command: str
    blocked_by: int
    wait_type: str | None
    wait_ms: int
    wait_resource: str
    cpu_ms: int                  # the session's, the running request's included
    request_cpu_ms: int
    login_time: datetime
    last_request_start: datetime | None
    last_request_end: datetime | None
    request_start: datetime | None
    open_tran: int
    row_count: int
    error: int
    nest_level: int
    lock_timeout: int
    killed: bool

    @property
    def session_status(self) -> str:
        """sys.dm_exec_sessions.status: running while a request runs, else sleeping."""
        return "sleeping" if self.request_status is None else "running"


def lock_manager(instance: InstanceLike) -> LockManager | None:
    """The store's conversation-group lock manager, if the broker made one."""
    found: LockManager | None = instance.store.extensions.get("lock_manager")
    return found


def _txn_sessions(sessions: list[Session]) -> dict[int, Session]:
    out: dict[int, Session] = {}
    for s in sessions:
        for txn in (s.txn, s.stmt_txn):
            if txn is not None:
                out[txn.id] = s
    return out


def _lock_resource(resource: Any) -> tuple[int, str]:
    """(database id, description) of a conversation-group lock resource."""
    if isinstance(resource, tuple) and len(resource) == 2:
        return int(resource[0]), f"conversation_group_id = {str(resource[1]).upper()}"
    return 0, str(resource)


def activity(instance: InstanceLike, caller_spid: int | None) -> list[Activity]:
    """Every session of the instance, by spid; ``caller_spid`` is the one asking."""
    sessions = sorted((s for s in list(instance.sessions.values()) if not s.closed),
                      key=lambda s: s.id)
    by_txn = _txn_sessions(sessions)
    manager = lock_manager(instance)
    granted, waiting = manager.snapshot() if manager is not None else ([], [])
    holders = dict(granted)
    blocked: dict[int, tuple[int, Any]] = {}
    for resource, waiter in waiting:
        s, holder = by_txn.get(waiter), by_txn.get(holders.get(resource, -1))
        if s is not None and holder is not None and holder is not s:
            blocked[s.id] = (holder.id, resource)
    now = time.monotonic()
    out = []
    for s in sessions:
        running = s.request_start is not None
        task = s.extensions.get("activation_task")
        block = blocked.get(s.id)
        wait_type = s.wait_type if running else None
        wait_ms = int((now - s.wait_started) * 1000) if wait_type else 0
        resource = ""
        if block is not None:
            db_id, description = _lock_resource(block[1])
            wait_type, resource = "LCK_M_X", f"METADATA: database_id = {db_id} {description}"
        if not running:
            status = None
        elif wait_type:
            status = "suspended"
        elif s.id == caller_spid:
            status = "running"
        else:
            status = "background" if task is not None else "runnable"
        request_cpu = s.request_cpu_ms() if running else 0
        out.append(Activity(
            spid=s.id, database_id=s.db_id, database=s.current_database,
            program=s.program_name if task is None else "Service Broker activation",
            is_user=task is None, request_status=status,
            command=s.command if running else "AWAITING COMMAND",
            blocked_by=block[0] if block is not None else 0, wait_type=wait_type,
            wait_ms=wait_ms, wait_resource=resource, cpu_ms=s.cpu_ms + request_cpu,
            request_cpu_ms=request_cpu, login_time=s.login_time,
            last_request_start=s.last_request_start, last_request_end=s.last_request_end,
            request_start=s.request_start, open_tran=s.trancount, row_count=s.rowcount,
            error=s.error, nest_level=s.nestlevel, lock_timeout=_lock_timeout(s),
            killed=s.killed))
    return out


def _lock_timeout(s: Session) -> int:
    try:
        return int(s.options.get("lock_timeout", "-1"))
    except ValueError:
        return -1


# -- sp_who / sp_who2 --------------------------------------------------------------------------
_WHO = (["spid", "ecid", "status", "loginame", "hostname", "blk", "dbname", "cmd",
         "request_id"],
        ["smallint", "smallint", "nchar(30)", "nchar(128)", "nchar(128)", "char(5)",
         "nchar(128)", "nchar(16)", "int"])
_WHO2 = (["SPID", "Status", "Login", "HostName", "BlkBy", "DBName", "Command", "CPUTime",
          "DiskIO", "LastBatch", "ProgramName", "SPID", "REQUESTID"],
         ["char(5)", "nvarchar(30)", "nvarchar(128)", "nvarchar(128)", "char(5)",
          "nvarchar(128)", "nvarchar(16)", "int", "int", "varchar(20)", "nvarchar(128)",
          "char(5)", "int"])


def _who_status(a: Activity, caller: int) -> str:
    """sp_who's status: sleeping when idle, the caller runnable (its request is the
    sp_who itself), else the request's."""
    if a.request_status is None:
        return "sleeping"
    if a.spid == caller and a.request_status == "running":
        return "runnable"
    return a.request_status


def _selected(rows: list[Activity], arg: Any) -> list[Activity]:
    """sp_who's filter: a session id, a login name, or 'ACTIVE' (not idle)."""
    if arg is None:
        return rows
    text = str(arg).strip()
    if text.isdigit():
        return [a for a in rows if a.spid == int(text)]
    if text.upper() == "ACTIVE":
        return [a for a in rows if a.request_status is not None]
    if text.lower() != LOGIN_NAME:
        raise tsql_error(15007, text)
    return rows


def _who_arg(c: Compiler, node: ast.ExecProc) -> Any:
    if not node.args:
        return None
    if len(node.args) > 1:
        raise c.bind_error(8144, node, node.proc.name)
    arg = node.args[0]
    if arg.name and arg.name.lower() != "@loginame":
        raise c.bind_error(8145, node, arg.name, node.proc.name)
    return c.expr(arg.value).fn if arg.value is not None else None


def compile_sp_who(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_who [login | session_id | 'ACTIVE']`` and ``sp_who2`` (same argument)."""
    argf = _who_arg(c, node)
    two = node.proc.name.lower() == "sp_who2"
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        s = f.session
        rows = _selected(activity(s.instance, s.id), argf(f) if argf is not None else None)
        if two:
            s.sink.resultset(ResultSet(*_WHO2, [_who2_row(a, s.id) for a in rows]))
        else:
            s.sink.resultset(ResultSet(*_WHO, [
                (a.spid, 0, _who_status(a, s.id), LOGIN_NAME, HOST_NAME, str(a.blocked_by),
                 a.database, a.command, 0) for a in rows]))
        if ret is not None:
            ret(f, 0)
    return run


def _who2_row(a: Activity, caller: int) -> tuple[Any, ...]:
    status = _who_status(a, caller)
    when = a.request_start or a.last_request_start or a.login_time
    return (str(a.spid), status if status == "sleeping" else status.upper(), LOGIN_NAME,
            HOST_NAME, str(a.blocked_by) if a.blocked_by else "  .", a.database, a.command,
            a.cpu_ms, 0, when.strftime("%m/%d %H:%M:%S"), a.program, str(a.spid), 0)


SYSTEM_PROCEDURES.update({"sp_who": compile_sp_who, "sp_who2": compile_sp_who})


# -- KILL ----------------------------------------------------------------------------------------
@handler(ast.Kill)
def compile_kill(c: Compiler, node: ast.Kill) -> StmtFn:
    """``KILL spid``: ends another session's request (its transaction rolls back) — an
    activated procedure, or a session of this process; Msg 6104 for one's own, 6106 for no
    such session, 6107 below the user range, 6115 inside a transaction."""
    target = node.target
    if isinstance(target, str):
        raise c.bind_error(40000, node, "KILL of a distributed unit of work (UOW)")

    def run(f: Frame) -> None:
        s = f.session
        if s.trancount > 0:
            raise tsql_error(6115)
        if target == s.id:
            raise tsql_error(6104)
        victim = s.instance.sessions.get(target)
        if victim is None or victim.closed:
            raise tsql_error(6107 if 0 < target < FIRST_USER_SPID else 6106, target)
        if node.status_only:
            if not (victim.killed and victim.request_start is not None):
                raise tsql_error(6120, target)
            s.sink.message(f"SPID {target}: transaction rollback in progress. Estimated "
                           "rollback completion: 100%. Estimated time remaining: 0 seconds.")
            return
        task = victim.extensions.get("activation_task")
        victim.kill()
        if task is not None and task.cancel is not None:
            task.cancel()  # wakes a WAITFOR (RECEIVE) of the activated procedure at once
        s.rowcount = 0
    return run


# -- the DMVs ------------------------------------------------------------------------------------
_SESSIONS = [
    ("session_id", "smallint"), ("login_time", "datetime"), ("host_name", "nvarchar(128)"),
    ("program_name", "nvarchar(128)"), ("host_process_id", "int"),
    ("client_interface_name", "nvarchar(32)"), ("login_name", "nvarchar(128)"),
    ("status", "nvarchar(30)"), ("cpu_time", "int"), ("memory_usage", "int"),
    ("total_scheduled_time", "int"), ("total_elapsed_time", "int"),
    ("last_request_start_time", "datetime"), ("last_request_end_time", "datetime"),
    ("reads", "bigint"), ("writes", "bigint"), ("logical_reads", "bigint"),
    ("is_user_process", "bit"), ("transaction_isolation_level", "smallint"),
    ("lock_timeout", "int"), ("deadlock_priority", "int"), ("row_count", "bigint"),
    ("prev_error", "int"), ("original_login_name", "nvarchar(128)"),
    ("database_id", "smallint"), ("open_transaction_count", "int")]
_REQUESTS = [
    ("session_id", "smallint"), ("request_id", "int"), ("start_time", "datetime"),
    ("status", "nvarchar(30)"), ("command", "nvarchar(32)"), ("database_id", "smallint"),
    ("blocking_session_id", "smallint"), ("wait_type", "nvarchar(60)"), ("wait_time", "int"),
    ("last_wait_type", "nvarchar(60)"), ("wait_resource", "nvarchar(256)"),
    ("open_transaction_count", "int"), ("cpu_time", "int"), ("total_elapsed_time", "int"),
    ("reads", "bigint"), ("writes", "bigint"), ("logical_reads", "bigint"),
    ("row_count", "bigint"), ("nest_level", "int"), ("transaction_isolation_level", "smallint"),
    ("lock_timeout", "int")]
_LOCKS = [
    ("resource_type", "nvarchar(60)"), ("resource_subtype", "nvarchar(60)"),
    ("resource_database_id", "int"), ("resource_description", "nvarchar(256)"),
    ("resource_associated_entity_id", "bigint"), ("resource_lock_partition", "int"),
    ("request_mode", "nvarchar(60)"), ("request_type", "nvarchar(60)"),
    ("request_status", "nvarchar(60)"), ("request_reference_count", "smallint"),
    ("request_session_id", "int"), ("request_exec_context_id", "int"),
    ("request_request_id", "int"), ("request_owner_type", "nvarchar(60)"),
    ("request_owner_id", "bigint")]
_READ_COMMITTED = 2


def _ms_since(when: datetime | None) -> int:
    return 0 if when is None else max(int((datetime.now() - when).total_seconds() * 1000), 0)


def _session_rows(acts: list[Activity]) -> list[tuple[Any, ...]]:
    pid = os.getpid()
    return [(a.spid, a.login_time, HOST_NAME, a.program, pid, "tsqlbroker", LOGIN_NAME,
             a.session_status, a.cpu_ms, 0, a.cpu_ms, _ms_since(a.login_time),
             a.last_request_start or a.login_time, a.last_request_end or a.login_time,
             0, 0, 0, a.is_user, _READ_COMMITTED, a.lock_timeout, 0, a.row_count, a.error,
             LOGIN_NAME, a.database_id, a.open_tran) for a in acts]


def _request_rows(acts: list[Activity]) -> list[tuple[Any, ...]]:
    return [(a.spid, 0, a.request_start, a.request_status, a.command, a.database_id,
             a.blocked_by, a.wait_type, a.wait_ms, a.wait_type, a.wait_resource, a.open_tran,
             a.request_cpu_ms, _ms_since(a.request_start), 0, 0, 0, a.row_count, a.nest_level,
             _READ_COMMITTED, a.lock_timeout)
            for a in acts if a.request_status is not None]


def _lock_rows(instance: InstanceLike) -> list[tuple[Any, ...]]:
    manager = lock_manager(instance)
    if manager is None:
        return []
    by_txn = _txn_sessions(list(instance.sessions.values()))
    granted, waiting = manager.snapshot()
    rows = []
    for status, entries in (("GRANT", granted), ("WAIT", waiting)):
        for resource, txn_id in entries:
            s = by_txn.get(txn_id)
            db_id, description = _lock_resource(resource)
            rows.append(("METADATA", "CONVERSATION_GROUP", db_id, description, 0, 0, "X",
                         "LOCK", status, 1, s.id if s is not None else -1, 0, 0,
                         "TRANSACTION", txn_id))
    return rows


def _resolver(instance_ref: weakref.ref[InstanceLike]) -> Any:
    def resolve(ctx: ExecContext, _database: str | None, schema: str | None, name: str
                ) -> VirtualTable | None:
        if schema is None or schema.lower() != "sys":
            return None
        key = name.lower()
        instance = instance_ref()
        if instance is None or key not in ("dm_exec_sessions", "dm_exec_requests",
                                           "dm_tran_locks"):
            return None
        if key == "dm_tran_locks":
            require_server_state(ctx)
            columns, rows = _LOCKS, _lock_rows(instance)
        else:
            acts = activity(instance, ctx.session_id)
            if not sees_server_state(ctx):
                # without VIEW SERVER STATE a session sees only itself, as documented
                acts = [a for a in acts if a.spid == ctx.session_id]
            columns, rows = ((_SESSIONS, _session_rows(acts)) if key == "dm_exec_sessions"
                             else (_REQUESTS, _request_rows(acts)))
        cols: list[tuple[str, str | None]] = list(columns)
        return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols,
                            refuse_error=tsql_error(259))
    return resolve


def install(instance: InstanceLike) -> None:
    """Register the DMVs of sessions, requests and locks for ``instance``'s store."""
    register_virtual_table(instance.store, _resolver(weakref.ref(instance)))


