"""Commit notices between processes sharing one PostgreSQL store: ``LISTEN``/``NOTIFY``.

In one process the broker coordinates through memory (queue signals, the metadata cache).
Processes sharing a PostgreSQL store (several ``tsqlbroker serve`` and clients) hear of each
other's commits here: a transaction that enqueued messages or held group locks sends one
``NOTIFY`` inside its commit, naming every queue concerned (so it is delivered exactly when
the messages are visible and the locks gone; a rolled-back one tells of its released locks
afterwards) — only when some process waits on one of those queues (:mod:`.interest`: a NOTIFY
nobody needs would still queue every notifying commit of the server behind one lock); one
that changed broker metadata sends one always; a :class:`Listener` thread per process feeds
them to the in-memory signals (``WAITFOR`` wakes at once, activation monitors hear of
messages other processes enqueued).

The channel is per backend schema (tests and tenants can share a server), and every payload
carries this process's id so a process ignores its own echoes. The broker's group locks and
picks on its own tables are in ``engine/broker/row_locks.py``.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..base import BackendConnection, BackendStore
from . import interest
from .advisory import connect_autocommit

log = logging.getLogger(__name__)

PROCESS_TAG = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
Handler = Callable[[str, int, int], None]
# NOTIFY payloads must stay under 8000 bytes.
_PAYLOAD_MAX = 7000
_notify_sql_cache: dict[tuple[str, bool, tuple[tuple[str, int, int], ...]], str | None] = {}
_NOTIFY_SQL_CACHE_MAX = 1024
# Events that only wake waiters: sent only when a process waits on the queue (interest.py).
_WAKE_KINDS = frozenset("el")


class NoticeTxn(Protocol):
    """What :func:`commit_notices` uses of an engine transaction (``Txn``)."""

    conn: Any
    state: dict[str, Any]

    def before_commit(self, fn: Callable[[], str | None]) -> None: ...


def execute(conn: BackendConnection, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """Run ``sql`` (``?`` placeholders) on ``conn``'s driver connection, in its transaction."""
    return conn.execute_fast(sql, params)


def schema(conn: BackendConnection) -> str:
    """The backend schema the store of ``conn`` lives in (read once per store)."""
    cached: str | None = conn.store.extensions.get("pg_schema")
    if cached is None:
        cached = execute(conn, "SELECT current_schema()").fetchone()[0] or "public"
        conn.store.extensions["pg_schema"] = cached
    return cached


def channel(conn: BackendConnection) -> str:
    """The NOTIFY channel of the store ``conn`` belongs to (one per backend schema)."""
    return f"tsqlb_{schema(conn)}"[:63]


def notify(conn: BackendConnection, kind: str, db_id: int, queue_id: int = 0) -> None:
    """Send ``kind`` ('e' enqueued, 'l' locks released, 'm' metadata changed) for a queue
    (or a database); inside a transaction it is delivered at commit, outside at once."""
    send_notices(conn, [(kind, db_id, queue_id)])


def send_notices(conn: BackendConnection, events: list[tuple[str, int, int]]) -> None:
    """Send several events now (after the change they tell of: a rollback's released locks,
    a metadata change inside its transaction), in as few ``pg_notify`` calls as the payload
    limit allows — one, in practice; wake-ups only when some process waits on a queue
    concerned (see ``interest.py``)."""
    sql = _notify_sql(conn, events, gate=False)
    if sql is not None:
        execute(conn, sql)


def notices_sql(conn: BackendConnection, events: list[tuple[str, int, int]]) -> str | None:
    """The NOTIFY of :func:`send_notices` as parameterless SQL to travel with the COMMIT,
    behind the commit's gate (see ``interest.py``); None when there is nothing to send."""
    return _notify_sql(conn, events, gate=True)


def _notify_sql(conn: BackendConnection, events: list[tuple[str, int, int]], *, gate: bool
                ) -> str | None:
    if not events:
        return None
    # The same few event lists come back on every commit of a SEND/RECEIVE loop: built once.
    key = (schema(conn), gate, tuple(events))
    sql = _notify_sql_cache.get(key)
    if sql is None:
        if len(_notify_sql_cache) >= _NOTIFY_SQL_CACHE_MAX:
            _notify_sql_cache.clear()
        sql = _notify_sql_cache[key] = _build_notify_sql(conn, events, gate=gate)
    return sql


def _build_notify_sql(conn: BackendConnection, events: list[tuple[str, int, int]], *, gate: bool
                      ) -> str | None:
    payloads = _payloads(events)
    if not payloads:
        return None
    chan = _literal(channel(conn))
    sql = "SELECT " + ", ".join(f"pg_notify({chan}, {_literal(p)})" for p in payloads)
    if any(kind not in _WAKE_KINDS for kind, _db, _queue in events):
        return sql
    queues = sorted({(db, queue) for _kind, db, queue in events})
    sql += " WHERE " + interest.waiter_condition(schema(conn), queues)
    return f"{interest.gate_sql(schema(conn), queues)}; {sql}" if gate else sql


def _payloads(events: list[tuple[str, int, int]]) -> list[str]:
    """``tag|kind|db|queue;kind|db|queue…`` payloads under the size limit, duplicates out."""
    items = [f"{kind}|{db}|{queue}" for kind, db, queue in dict.fromkeys(events)]
    payloads: list[str] = []
    while items:
        size, count = len(PROCESS_TAG), 0
        while count < len(items) and (count == 0 or size + len(items[count]) < _PAYLOAD_MAX):
            size += len(items[count]) + 1
            count += 1
        payloads.append(PROCESS_TAG + "|" + ";".join(items[:count]))
        del items[:count]
    return payloads


def _literal(text: str) -> str:
    """A PostgreSQL string literal (standard_conforming_strings, the default since 9.1)."""
    return "'" + text.replace("'", "''") + "'"


class CommitNotices:
    """The events one transaction publishes at its commit, sent as one NOTIFY together with
    the storage COMMIT (a :meth:`~..txn.Txn.before_commit` hook: one round trip for both,
    and every notifying commit queues behind PostgreSQL's notify lock once): the enqueues of
    its flushed deferred operations, and 'l' for every queue whose groups it locked (the row
    locks go with the commit, which is exactly when the NOTIFY is delivered)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, int]] = []
        self.locked: set[tuple[int, int]] = set()
        self.sent = False

    def sql(self, conn: BackendConnection) -> str | None:
        """The NOTIFY of everything collected, as SQL for the COMMIT to carry (None when
        there is nothing to say). Asked again — a commit that took the long way after all
        (``Txn.commit_guard``) — it tells everything collected by then."""
        events = self.events + [("l", db, queue) for db, queue in sorted(self.locked)]
        self.sent = True
        return notices_sql(conn, events)


def commit_notices(txn: NoticeTxn) -> CommitNotices:
    """The :class:`CommitNotices` of ``txn``, registered for its commit on first use."""
    notices: CommitNotices | None = txn.state.get("pg_notices")
    if notices is None:
        notices = CommitNotices()
        txn.state["pg_notices"] = notices
        txn.before_commit(lambda: notices.sql(txn.conn))
    return notices


@dataclass
class NotifyOp:
    """A deferred :func:`notify`: flushed inside the committing transaction — into the
    transaction's :class:`CommitNotices` when given (one NOTIFY for the whole commit), else
    as a NOTIFY of its own. A rollback to a savepoint drops it like any deferred work."""

    kind: str
    db_id: int
    queue_id: int = 0
    notices: CommitNotices | None = None

    def flush(self, conn: BackendConnection) -> None:
        if self.notices is not None:
            self.notices.events.append((self.kind, self.db_id, self.queue_id))
        else:
            notify(conn, self.kind, self.db_id, self.queue_id)


class Listener:
    """A thread that LISTENs on the store's channel and hands other processes' events to
    ``handler(kind, db_id, queue_id)``."""

    # How long one wait for notifications lasts; stop() wakes the wait, it does not end it.
    POLL_SECONDS = 0.5

    def __init__(self, store: BackendStore, handler: Handler,
                 on_reconnect: Callable[[], None] | None = None) -> None:
        """``on_reconnect()`` runs when listening again after a lost connection (events of
        the outage are lost: waiters should look again)."""
        self.store = store
        self.handler = handler
        self.on_reconnect = on_reconnect
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._channel: str | None = None  # once listening
        self._thread = threading.Thread(target=self._run, name="tsqlbroker-pg-listener",
                                        daemon=True)

    def start(self) -> None:
        """Start listening; returns once LISTEN is in effect (or after 10 s)."""
        self._thread.start()
        self._ready.wait(10.0)

    def stop(self) -> None:
        """Stop the thread and close its connection: a notification of our own wakes it
        from its wait at once (an exit does not wait out the poll)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._wake()
            self._thread.join(5.0)

    def _wake(self) -> None:
        channel = self._channel
        if channel is None:
            return
        try:
            conn = self.store.connect()
            try:
                # No events, tagged as this process's: every listener ignores it.
                execute(conn, "SELECT pg_notify(?, ?)", (channel, PROCESS_TAG + "|"))
            finally:
                conn.close()
        except Exception:  # the poll notices the stop anyway
            log.debug("could not wake the listener", exc_info=True)

    def _connect(self) -> Any:
        return connect_autocommit(self.store)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                with self._connect() as pg:
                    name = pg.execute("SELECT current_schema()").fetchone()[0] or "public"
                    chan = f"tsqlb_{name}"[:63]
                    pg.execute(f'LISTEN "{chan}"')
                    self._channel = chan
                    self._ready.set()
                    if failures and self.on_reconnect is not None:
                        self.on_reconnect()
                    failures = 0
                    while not self._stop.is_set():
                        for note in pg.notifies(timeout=self.POLL_SECONDS):
                            if self._stop.is_set():
                                break  # woken by stop(): the wait does not run out first
                            self._dispatch(note.payload)
            except Exception as exc:  # noqa: BLE001 - the server went away: reconnect
                # Said once per outage; retried every second (quietly) until it is back.
                failures += 1
                level = logging.WARNING if failures == 1 else logging.DEBUG
                log.log(level, "broker listener lost its connection (%s); reconnecting",
                        str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                self._ready.set()
                self._stop.wait(1.0)

    def _dispatch(self, payload: str) -> None:
        try:
            tag, events = payload.split("|", 1)
            if tag == PROCESS_TAG or not events:  # our own, or a listener's wake-up call
                return
            for event in events.split(";"):
                kind, db, queue = event.split("|")
                self.handler(kind, int(db), int(queue))
        except Exception:
            log.exception("broker listener: cannot handle %r", payload)
