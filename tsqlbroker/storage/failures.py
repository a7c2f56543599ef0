"""Failures that are not a transaction's own doing.

A deadlock victim (SQL Server's Msg 1205: PostgreSQL's ``40P01``, and its serialization
failure ``40001``), a lock timeout (Msg 1222, ``55P03``), a lost storage connection and a
cancelled statement (Msg 3621) say nothing about the work itself: the same work may well
succeed when run again. A transaction that meets one is marked (``Txn.forced_rollback``), and
activation's poison-message counter does not count its rollback (docs/decisions.md).

Also here: every storage failure mapped to the error SQL Server reports for it
(:func:`backend_error`), kept apart from the statement guard so that reporting one does not
load the DML engine.
"""

from __future__ import annotations

import logging
import sqlite3

from sqlalchemy.exc import DBAPIError

from ..errors import MESSAGES, BindError, CancelledError, TSqlError, tsql_error
from .backends import take_pending_error

_log = logging.getLogger(__name__)

# Deadlock victim, lock request timeout, statement cancelled.
TRANSIENT_NUMBERS: frozenset[int] = frozenset({1205, 1222, 3621})
# PostgreSQL's SQLSTATEs for the same conditions, and the SQL Server error each becomes.
TRANSIENT_STATES: dict[str, int] = {"40P01": 1205, "40001": 1205, "55P03": 1222}


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a PostgreSQL error, raised by the driver or wrapped by SQLAlchemy."""
    return getattr(getattr(exc, "orig", exc), "sqlstate", None)


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` is the storage connection going away (the transaction went with it)."""
    if isinstance(exc, TSqlError):
        return bool(getattr(exc, "storage_lost", False))
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure that running the same work again may not meet."""
    if connection_lost(exc):
        return True
    if isinstance(exc, TSqlError):
        return exc.number in TRANSIENT_NUMBERS
    return sqlstate(exc) in TRANSIENT_STATES


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


# PostgreSQL's integer overflow texts (SQLSTATE 22003) and the type SQL Server names.
_PG_INTEGER_RANGES = {"integer out of range": "int", "bigint out of range": "bigint",
                      "smallint out of range": "smallint",
                      "tinyint out of range": "tinyint"}  # tsqlb_tinyint's


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
    if number == 8115 and first_line in _PG_INTEGER_RANGES:
        return tsql_error(8115, "expression", _PG_INTEGER_RANGES[first_line])
    if number == 1205:
        return tsql_error(1205, pid or 0, "lock")
    return TSqlError(number, first_line, 16)
