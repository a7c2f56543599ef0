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

from ..errors import TSqlError, tsql_error
from ..storage.failures import backend_error
from .context import ExecContext, SqlResult
from .execsql import run_sql

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
    ctx.conn.backend.clear_pending_error()
    savepoint = None
    undo_mark = len(ctx.txn.undo)
    try:
        if writes:
            ctx.txn.write()
        if savepoint_needed and (
                writes or (ctx.conn.in_write_txn and ctx.conn.backend.errors_abort_transaction)):
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
