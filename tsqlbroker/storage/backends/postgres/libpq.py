"""The broker's hot-path statements on PostgreSQL, straight through libpq.

A psycopg ``cursor.execute`` costs about 35 µs of client CPU per statement above the libpq
call it wraps (query conversion, the prepare manager, result set-up), and one SEND + RECEIVE
runs seven of them. Here the same statements go through the connection's ``pgconn``: a
statement text run a second time is prepared on the connection (``$n`` placeholders,
parameter types inferred by the server from the context — every ``?`` of the broker's SQL
has one) and run with ``PQexecPrepared``, parameters sent as text (bytes as binary),
results loaded by psycopg's own loaders — the same Python values the cursor would give,
the same exception classes (``psycopg.errors``) on failure. libpq releases the GIL while it
waits, as psycopg's wait does.

Only what the broker runs through :func:`.broker.fastsql.run`, and transaction control, come
here that way. The engine's other statements (transpiled DML, its hand-written SQL) come to
:func:`run_raw`: psycopg's ``RawCursor`` with ``$n`` placeholders, so their text reaches
the server unread (psycopg's default cursor reads ``%`` even inside literals) while
parameters keep psycopg's adaptation.

The statements prepared here live exactly as long as the server keeps them: they are kept
per psycopg connection (a replaced connection starts with none), PostgreSQL keeps them
across ROLLBACK (a PREPARE that fails — in an aborted transaction — is not recorded), and
nothing else on the connection may deallocate them: psycopg's own automatic preparing, which
sends ``DEALLOCATE ALL`` after any ROLLBACK or DROP it runs, is off on the store's
connections (``prepare_threshold=None``, see ``store.py``). Should a name still be found
missing (someone ran ``DEALLOCATE``), the connection's record is dropped at once, so only
that statement fails — or, outside a transaction, runs again unnamed — and the next use
prepares afresh.
"""

from __future__ import annotations

import re
import select
import uuid
import weakref
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import pq
from psycopg.adapt import Transformer
from sqlalchemy.exc import DBAPIError

# Prepared statements kept per connection: texts beyond this run unnamed (a statement with
# an IN list of every length would otherwise prepare without end).
MAX_PREPARED = 200
_NAME_PREFIX = b"tsqlb_"
# Bound of the caches of statement texts (texts with IN lists of every length).
_MAX_CACHED = 4096
_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_QMARK = re.compile(r"\?")
_NO_SUCH_STATEMENT = "26000"         # invalid_sql_statement_name
# What the driver raises (callers outside this module need not import psycopg).
DriverError = psycopg.Error


class _Prepared:
    """The statements prepared on one connection, by statement text."""

    def __init__(self) -> None:
        self.names: dict[str, bytes] = {}
        self.seen: dict[str, int] = {}          # texts run once, not prepared yet
        self.transformer: Transformer | None = None
        # Names are never reused on a connection: after :meth:`forget`, statements the
        # server may still hold under old names cannot clash with new ones.
        self.next_id = 0

    def forget(self) -> None:
        """The server lost (some of) these statements: prepare each anew at its next use."""
        self.names.clear()
        self.seen.clear()


_per_connection: weakref.WeakKeyDictionary[psycopg.Connection[Any], _Prepared] = (
    weakref.WeakKeyDictionary())


class Rows:
    """The rows of one statement, as a DBAPI cursor would give them."""

    __slots__ = ("_next", "_rows")

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows
        self._next = 0

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._rows[self._next:]
        self._next = len(self._rows)
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


def text_param(value: Any) -> bytes | None:
    """``value`` in PostgreSQL's text input form (what the server parses for the parameter's
    inferred type); bytes as they are (bytea's binary form). TypeError for a type the
    broker's statements do not use."""
    if value is None:
        return None
    if isinstance(value, bool):        # before int: bool is an int
        return b"t" if value else b"f"
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)        # sent in binary format (see execute)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat().encode()
    if isinstance(value, (float, Decimal)):
        return repr(value).encode() if isinstance(value, float) else str(value).encode()
    if isinstance(value, uuid.UUID):
        return str(value).encode()
    raise TypeError(f"no text form for a parameter of type {type(value).__name__}")


@lru_cache(maxsize=_MAX_CACHED)
def numbered(sql: str) -> bytes:
    """``sql`` with its ``?`` placeholders as ``$1, $2 …`` (the broker's hot SQL has no
    ``?`` inside literals)."""
    counter = iter(range(1, 1 << 16))
    return _QMARK.sub(lambda _m: f"${next(counter)}", sql).encode()


@lru_cache(maxsize=_MAX_CACHED)
def _parts(sql: str) -> list[str]:
    """``sql`` split at its ``?`` placeholders (not to be changed by the caller)."""
    return sql.split("?")


def _state(dbapi_conn: psycopg.Connection[Any]) -> _Prepared:
    state = _per_connection.get(dbapi_conn)
    if state is None:
        state = _per_connection[dbapi_conn] = _Prepared()
    return state


def _prepared_name(dbapi_conn: psycopg.Connection[Any], state: _Prepared, sql: str
                   ) -> bytes | None:
    """The name ``sql`` is prepared under on the connection — prepared now if this is its
    second use and there is room — or None (run it unnamed)."""
    name = state.names.get(sql)
    if name is not None or len(state.names) >= MAX_PREPARED:
        return name
    # Prepared from the second use: texts met once (an IN list of an odd length) do not
    # take the room of the ones that run again and again.
    if state.seen.get(sql, 0) >= 1:
        name = _NAME_PREFIX + str(state.next_id).encode()
        _check(dbapi_conn, dbapi_conn.pgconn.prepare(name, numbered(sql)))
        state.next_id += 1
        state.names[sql] = name
        state.seen.pop(sql, None)
        return name
    if len(state.seen) >= _MAX_CACHED:
        state.seen.clear()
    state.seen[sql] = 1
    return None


def execute(dbapi_conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> Rows:
    """Run ``sql`` (``?`` placeholders) with ``params`` on ``dbapi_conn``; its rows."""
    try:
        return _execute(dbapi_conn, sql, params)
    except psycopg.errors.InvalidSqlStatementName:
        # Our statement was deallocated behind our back (_check forgot them all).
        # Outside a transaction nothing was harmed: run it again (unnamed, prepared anew
        # from its next use); inside one the transaction is aborted and the caller sees it.
        if dbapi_conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
            raise
        return _execute(dbapi_conn, sql, params)


def _execute(dbapi_conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> Rows:
    state = _state(dbapi_conn)
    pgconn = dbapi_conn.pgconn
    values = [text_param(v) for v in params]
    name = _prepared_name(dbapi_conn, state, sql)
    # Bytes go in binary form (no hex doubling of a message body); the rest as text.
    formats: list[int] | None = [
        1 if isinstance(v, (bytes, bytearray, memoryview)) else 0 for v in params]
    if 1 not in formats:
        formats = None
    if name is None:
        res = pgconn.exec_params(numbered(sql), values, param_formats=formats)
    else:
        res = pgconn.exec_prepared(name, values, param_formats=formats)
    return _rows(dbapi_conn, state, res)


def execute_after_begin(dbapi_conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]
                        ) -> Rows:
    """``BEGIN`` and then :func:`execute`'s statement in one round trip: a simple query of
    both, the parameters written in as literals (:func:`merged`; ``EXECUTE name(…)`` once
    the statement is prepared). Its rows; an error of either as from :func:`execute`."""
    text = "BEGIN; " + merged(dbapi_conn, sql, params)
    # libpq returns the last statement's result (or the first error) of a simple query.
    return _rows(dbapi_conn, _state(dbapi_conn), dbapi_conn.pgconn.exec_(text.encode()))


def _rows(dbapi_conn: psycopg.Connection[Any], state: _Prepared, res: pq.abc.PGresult
          ) -> Rows:
    _check(dbapi_conn, res)
    if res.ntuples == 0:
        return Rows([])
    tx = state.transformer
    if tx is None:
        tx = state.transformer = Transformer(dbapi_conn)
    tx.set_pgresult(res)
    return Rows(tx.load_rows(0, res.ntuples, tuple))


def merged(dbapi_conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> str:
    """``sql`` with its ``?`` placeholders replaced by ``params`` as SQL literals, for a
    statement sent as text together with others (the COMMIT) — as ``EXECUTE name(…)`` once
    the text is prepared on the connection (from its second use). Strings are quoted the
    standard way (quotes doubled), which is exact only while the session has
    ``standard_conforming_strings`` on (PostgreSQL's default); otherwise, and for values of
    other types, psycopg renders the literals."""
    parts = _parts(sql)
    if len(parts) != len(params) + 1:
        raise TypeError(f"{len(parts) - 1} placeholders, {len(params)} parameters")
    if dbapi_conn.pgconn.parameter_status(b"standard_conforming_strings") == b"on":
        try:
            literals = [_literal(value) for value in params]
        except _NoLiteral:
            pass
        else:
            # A statement prepared on the connection runs by name: the server does not
            # parse and plan it again.
            name = _prepared_name(dbapi_conn, _state(dbapi_conn), sql)
            if name is not None:
                return (f"EXECUTE {name.decode()}({', '.join(literals)})" if literals
                        else f"EXECUTE {name.decode()}")
            out = [parts[0]]
            for literal, part in zip(literals, parts[1:], strict=True):
                out.append(literal)
                out.append(part)
            return "".join(out)
    return psycopg.ClientCursor(dbapi_conn).mogrify(sql.replace("%", "%%").replace("?", "%s"),
                                                    params)


class _NoLiteral(Exception):
    """A value :func:`_literal` leaves to psycopg."""


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if "\0" in value:
            raise psycopg.DataError("PostgreSQL text cannot contain NUL (0x00) characters")
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "'\\x" + bytes(value).hex() + "'::bytea"
    if isinstance(value, datetime) and value.tzinfo is None:
        return "'" + value.isoformat() + "'::timestamp"
    if isinstance(value, float):
        return f"'{value!r}'::float8"
    if isinstance(value, Decimal):
        return f"'{value}'::numeric"
    raise _NoLiteral


def execute_text(dbapi_conn: psycopg.Connection[Any], sql: str) -> None:
    """Run parameterless SQL (one or several statements: BEGIN, ``…; COMMIT``)."""
    _check(dbapi_conn, dbapi_conn.pgconn.exec_(sql.encode()))


def execute_text_rows(dbapi_conn: psycopg.Connection[Any], sql: str, index: int,
                      cancelled: Callable[[], bool] | None = None
                      ) -> list[tuple[Any, ...]]:
    """Run parameterless SQL of several statements in one round trip (the simple query
    protocol, as :func:`execute_text`) and return the rows of the statement at ``index``
    (0 = the first), loaded as :func:`execute` loads them. The first error stops the text
    (the server skips the rest) and is raised. The GIL is released while the answer is
    awaited (``select`` on the socket; libpq's own wait would keep it); ``cancelled()``
    true meanwhile (a KILL, an attention) asks the server to stop the text — the answer is
    still awaited: a text that committed before the cancel came stays committed."""
    pgconn = dbapi_conn.pgconn
    pgconn.send_query(sql.encode())
    results: list[pq.abc.PGresult] = []
    cancel_sent = False
    while True:
        while pgconn.is_busy():
            if not _wait_readable(pgconn.socket, _CANCEL_CHECK_S):
                if not cancel_sent and cancelled is not None and cancelled():
                    cancel_sent = True
                    dbapi_conn.cancel_safe(timeout=5.0)
                continue
            pgconn.consume_input()
        res = pgconn.get_result()
        if res is None:
            break
        results.append(res)
    for res in results:
        _check(dbapi_conn, res)
    if index >= len(results):
        raise psycopg.ProgrammingError(f"no statement {index} in the text")
    return _rows(dbapi_conn, _state(dbapi_conn), results[index]).fetchall()


# How often a wait for the server's answer looks for a cancel (seconds).
_CANCEL_CHECK_S = 0.1


def _wait_readable(fd: int, timeout_s: float) -> bool:
    """Whether the socket ``fd`` has something to read within ``timeout_s`` (``poll``: any
    descriptor number)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(timeout_s * 1000))


def prepared_names(dbapi_conn: psycopg.Connection[Any]) -> dict[str, bytes]:
    """The statements this module holds prepared on ``dbapi_conn``: text → name (a copy)."""
    state = _per_connection.get(dbapi_conn)
    return {} if state is None else dict(state.names)


def dbapi_error(dbapi_conn: psycopg.Connection[Any], exc: BaseException,
                statement: str | None) -> BaseException:
    """``exc`` (raised by this module) as SQLAlchemy raises the driver's errors on its own
    path: a :class:`DBAPIError` of the matching class, flagged ``connection_invalidated`` when
    the connection is gone. Anything not from the driver is returned as it is."""
    if not isinstance(exc, psycopg.Error):
        return exc
    lost = dbapi_conn.closed or dbapi_conn.pgconn.status == pq.ConnStatus.BAD
    return DBAPIError.instance(statement, None, exc, psycopg.Error,
                               connection_invalidated=lost)


def _check(dbapi_conn: psycopg.Connection[Any], res: pq.abc.PGresult) -> None:
    if res.status in _OK:
        return
    if dbapi_conn.pgconn.status == pq.ConnStatus.BAD:
        raise psycopg.OperationalError(
            "the connection is lost: "
            + (res.error_message or b"").decode(errors="replace").strip())
    if (res.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode() == _NO_SUCH_STATEMENT:
        # The server no longer has (some of) our statements: forget them all, so the next
        # use of each prepares it again instead of failing the same way for ever.
        state = _per_connection.get(dbapi_conn)
        if state is not None:
            state.forget()
    raise psycopg.errors.error_from_result(res, encoding=dbapi_conn.info.encoding)


class RawRows(Rows):
    """The result of :func:`run_raw`: rows fetched at once, with the column names and row
    count (what the engine reads of a SQLAlchemy ``CursorResult``)."""

    __slots__ = ("_names", "rowcount")

    def __init__(self, names: list[str], rows: list[tuple[Any, ...]], rowcount: int) -> None:
        super().__init__(rows)
        self._names = names
        self.rowcount = rowcount

    def keys(self) -> list[str]:
        return list(self._names)

    def first(self) -> tuple[Any, ...] | None:
        row = self.fetchone()
        self.fetchall()
        return row

    def scalar(self) -> Any:
        row = self.first()
        return None if row is None else row[0]


def run_raw(dbapi_conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> RawRows:
    """Run ``sql`` (``$n`` placeholders) as it is, with ``params`` adapted by psycopg.
    Failures are SQLAlchemy's ``DBAPIError`` classes around psycopg's, as from a
    SQLAlchemy execution."""
    cursor = psycopg.RawCursor(dbapi_conn)
    try:
        cursor.execute(sql, params or None)
        names = [c.name for c in cursor.description or ()]
        rows = cursor.fetchall() if cursor.description is not None else []
        return RawRows(names, rows, cursor.rowcount)
    except psycopg.Error as e:
        raise DBAPIError.instance(sql, params, e, psycopg.Error) from e
    finally:
        cursor.close()
