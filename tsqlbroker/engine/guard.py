"""Statement atomicity and error mapping for everything the storage layer runs.

Every writing statement runs inside a storage savepoint: when it fails, its partial work and
the in-memory changes it registered are undone and the transaction goes on (SQL Server's
statement-level atomicity). Backend exceptions become TSqlErrors with SQL Server's numbers;
nothing the user types surfaces as a Python traceback.
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError

from ..errors import MESSAGES, BindError, CancelledError, TSqlError, tsql_error
from .context import ExecContext, SqlResult
from .execsql import run_sql
from .failures import TRANSIENT_STATES, connection_lost
from .sqlfuncs import clear_pending_error, take_pending_error

_log = logging.getLogger(__name__)
_savepoint_ids = itertools.count(1)


def guarded(ctx: ExecContext, writes: bool, fn: Callable[[], SqlResult], *,
            savepoint_needed: bool = True) -> SqlResult:
    """Run one statement atomically and map every failure to a TSqlError.

    Writers get a storage savepoint, so a failing statement undoes only itself. On
    PostgreSQL a failing read inside a write transaction would abort the whole transaction,
    so reads there get a savepoint too (SQLite needs none for reads). A caller whose
    statement makes at most one backend write on SQLite (which applies it whole or not at
    all) passes ``savepoint_needed=False``: there is nothing partial to undo."""
    clear_pending_error()
    savepoint = None
    undo_mark = len(ctx.txn.undo)
    try:
        if writes:
            ctx.txn.write()
        if savepoint_needed and (
                writes or (ctx.conn.in_write_txn and ctx.conn.dialect != "sqlite")):
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
            raise backend_error(e) from None
        if isinstance(e, RecursionError):
            raise tsql_error(191) from None  # nested deeper than the engine can follow
        if isinstance(e, Exception) and not isinstance(e, TSqlError):
            # No user input may surface as a Python traceback; keep the cause for debugging.
            _log.debug("storage layer failure", exc_info=True)
            raise TSqlError(50000, f"The storage layer could not run the statement "
                                   f"({type(e).__name__}: {e}).", 16) from e
        raise
    return result


def storage_error(e: BaseException) -> TSqlError | None:
    """A storage failure that reached a statement's end unmapped (the broker's statements,
    transaction control and catalog reads run outside :func:`guarded`) as the error SQL
    Server would report; None for anything that is not a storage failure."""
    if isinstance(e, (DBAPIError, sqlite3.Error)):
        return backend_error(e)
    return None


def backend_error(e: BaseException) -> TSqlError:
    pending = take_pending_error()
    if pending is not None:
        return pending
    if connection_lost(e):
        _log.warning("storage connection lost: %s", getattr(e, "orig", e))
        return lost_connection_error()
    text = str(getattr(e, "orig", e))
    low = text.lower()
    mapped = _postgres_error(getattr(e, "orig", e), text, getattr(e, "backend_pid", 0))
    if mapped is not None:
        return mapped
    if low == "interrupted":  # StoreConnection.interruptible: a cancel stopped the query
        return CancelledError()
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
    if "expression tree is too large" in low or "parser stack overflow" in low:
        return tsql_error(191)
    return TSqlError(50000, f"The storage backend rejected the statement: {text}", 16)


_PG_STATES = {"42703": 207, "42P01": 208, "42702": 209, "42601": 102, "42883": 195,
              "22P02": 245, "22007": 241, "22008": 241, "22003": 8115, "22012": 8134,
              "54001": 191, **TRANSIENT_STATES}


def lost_connection_error() -> TSqlError:
    """The storage connection went away mid-statement: SQL Server's text for a session's
    broken command (Msg 0, severity 20). The batch stops and its transaction is gone."""
    err = TSqlError(0, "A severe error occurred on the current command.  The results, if "
                       "any, should be discarded.", 20)
    err.storage_lost = True  # type: ignore[attr-defined]
    err.batch_abort = True  # type: ignore[attr-defined]
    return err


def _postgres_error(orig: BaseException, text: str, pid: int) -> TSqlError | None:
    """PostgreSQL errors by SQLSTATE (psycopg exposes ``sqlstate``)."""
    state = getattr(orig, "sqlstate", None)
    if state == "TSQLE":  # raised by the engine's PL/pgSQL: SQL Server's text, number in detail
        detail = getattr(getattr(orig, "diag", None), "message_detail", None) or "50000"
        severity = MESSAGES.get(int(detail), (16, ""))[0] if detail.isdigit() else 16
        return TSqlError(int(detail) if detail.isdigit() else 50000,
                         text.splitlines()[0] if text else "", severity)
    if state == "57014":  # query_canceled: StoreConnection.interrupt stopped the query
        return CancelledError()
    number = _PG_STATES.get(state or "")
    if number is None:
        return None
    quoted = text.split('"')[1] if text.count('"') >= 2 else ""
    first_line = text.splitlines()[0] if text else ""
    if number in (207, 208, 209):
        return tsql_error(number, quoted, cls=BindError)
    if number == 102:
        return tsql_error(102, quoted, cls=BindError)
    if number == 195:
        name = first_line.split("function ", 1)[-1].split("(")[0].strip()
        return tsql_error(195, name, "built-in function name", cls=BindError)
    if number in (241, 8134, 1222, 191):
        return tsql_error(number)
    if number == 1205:
        return tsql_error(1205, pid or 0, "lock")
    return TSqlError(number, first_line, 16)
