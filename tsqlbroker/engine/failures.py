"""Failures that are not a transaction's own doing.

A deadlock victim (SQL Server's Msg 1205: PostgreSQL's ``40P01``, and its serialization
failure ``40001``), a lock timeout (Msg 1222, ``55P03``), a lost storage connection and a
cancelled statement (Msg 3621) say nothing about the work itself: the same work may well
succeed when run again. A transaction that meets one is marked (``Txn.forced_rollback``), and
activation's poison-message counter does not count its rollback (docs/decisions.md).
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

from ..errors import TSqlError

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
