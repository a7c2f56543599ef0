"""PostgreSQL: ``BEGIN`` sent together with the transaction's first statement.

A storage transaction opens at its first write (:meth:`~.store.StoreConnection.write`). On
PostgreSQL a ``BEGIN`` on its own costs a round trip — client and server each wake up for a
command that does nothing yet, twice per SEND/RECEIVE round of a broker loop. Instead the
connection is marked, and the first statement executed on it afterwards carries the
``BEGIN``: in one pipeline flush with a parameterised statement (which keeps its prepared
plan), or in front of a parameterless one in the same simple-query message. Every statement
of the store's connections goes through :class:`DeferredBeginCursor` (the connections'
cursor factory), whatever issues it — SQLAlchemy, the broker's hand-written SQL, transaction
control — so none can run outside the transaction it belongs to.
"""

from __future__ import annotations

from typing import Any

import psycopg

_PENDING = "_tsqlb_begin_pending"


def defer_begin(dbapi_connection: Any) -> None:
    """Open a transaction on ``dbapi_connection`` with its next statement."""
    setattr(dbapi_connection, _PENDING, True)


def begin_pending(dbapi_connection: Any) -> bool:
    """Whether ``dbapi_connection`` has a transaction opened but not yet begun on the
    server (no statement since :func:`defer_begin`)."""
    return bool(getattr(dbapi_connection, _PENDING, False))


def cancel_begin(dbapi_connection: Any) -> None:
    """Forget a deferred ``BEGIN`` (the transaction ended before any statement: nothing to
    send)."""
    setattr(dbapi_connection, _PENDING, False)


class DeferredBeginCursor(psycopg.Cursor[Any]):
    """A cursor that sends a deferred ``BEGIN`` with the statement it executes."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None,
                binary: bool | None = None) -> DeferredBeginCursor:
        """``psycopg.Cursor.execute``, preceded by the connection's deferred ``BEGIN``."""
        conn = self.connection
        if not getattr(conn, _PENDING, False):
            super().execute(query, params, prepare=prepare, binary=binary)
            return self
        setattr(conn, _PENDING, False)
        if params:
            # Extended protocol: both in one pipeline flush, one round trip.
            with conn.pipeline():
                conn.execute("BEGIN")
                super().execute(query, params, prepare=prepare, binary=binary)
        elif isinstance(query, (str, bytes)):
            # Maybe several statements (simple query protocol): BEGIN goes in front, and
            # the cursor moves past BEGIN's result to the caller's first.
            prefix: Any = "BEGIN; " if isinstance(query, str) else b"BEGIN; "
            # (``params`` passed on as given: None or empty decides whether %% is unescaped.)
            super().execute(prefix + query, params, prepare=False, binary=binary)
            self.nextset()
        else:
            super().execute("BEGIN")
            super().execute(query, params, prepare=prepare, binary=binary)
        return self

    def executemany(self, query: Any, params_seq: Any, *, returning: bool = False) -> None:
        """``psycopg.Cursor.executemany`` after the deferred ``BEGIN`` (sent on its own)."""
        conn = self.connection
        if getattr(conn, _PENDING, False):
            setattr(conn, _PENDING, False)
            conn.execute("BEGIN")
        super().executemany(query, params_seq, returning=returning)
