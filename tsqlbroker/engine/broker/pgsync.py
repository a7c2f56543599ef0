"""What several processes sharing one PostgreSQL store need from each other.

In one process the broker coordinates through memory (the lock manager, queue signals,
the metadata cache). Processes sharing a PostgreSQL store (several ``tsqlbroker serve`` and
clients) also coordinate through the server:

* **conversation-group locks** are row locks on the group's ``conversation_groups`` row, held
  to the end of the storage transaction: ``FOR UPDATE SKIP LOCKED`` for the readers that skip
  locked groups, a blocking ``FOR UPDATE`` for those that wait, so that PostgreSQL's deadlock
  detector sees the wait and a cycle across processes ends in Msg 1205 (bounded by the
  statement's lock timeout, and cancellable) — see :func:`try_row_lock`, :func:`row_lock`;
* **wake-ups** go through ``LISTEN``/``NOTIFY``: a transaction that enqueued messages or
  held group locks sends one ``NOTIFY`` inside its commit, naming every queue concerned (so
  it is delivered exactly when the messages are visible and the locks gone; a rolled-back
  one tells of its released locks afterwards) — only when some process waits on one of
  those queues (``pgwake``: a NOTIFY nobody needs would still queue every notifying commit
  of the server behind one lock); one that changed broker metadata sends one always; a
  :class:`Listener` thread per process feeds them to the in-memory signals (``WAITFOR`` wakes
  at once, activation monitors hear of messages other processes enqueued);
* **activation readers** across processes are capped by MAX_QUEUE_READERS with session-level
  advisory locks, one per reader slot (:class:`ReaderSlot`): a slot dies with its connection,
  so a killed process frees its slots at once;
* **the broker clock** runs in one process at a time (a transaction-level advisory lock), so
  a timer or a lifetime fires once.

The channel is per backend schema (tests and tenants can share a server), and every payload
carries this process's id so a process ignores its own echoes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import broker_error
from ...storage.backends.postgres import interest as pgwake
from ...storage.backends.postgres.advisory import connect_autocommit
from ...storage.store import Store, StoreConnection
from ...storage.txn import Txn
from .fastsql import MESSAGE_COLUMNS, run
from .schema import PREFIX

log = logging.getLogger(__name__)

PROCESS_TAG = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
Handler = Callable[[str, int, int], None]
# NOTIFY payloads must stay under 8000 bytes.
_PAYLOAD_MAX = 7000
# A blocking group-lock wait is cut into slices of this length (at least deadlock_timeout
# plus the margin), between which cancellation and the statement's timeout are checked.
_LOCK_SLICE_S = 2.0
_LOCK_SLICE_MARGIN_S = 0.5
_SLICE_SAVEPOINT = "tsqlb_row_lock"
_LOCK_NOT_AVAILABLE = "55P03"      # lock_timeout expired
_DEADLOCK_DETECTED = "40P01"
_notify_sql_cache: dict[tuple[str, bool, tuple[tuple[str, int, int], ...]], str | None] = {}
_NOTIFY_SQL_CACHE_MAX = 1024
# Ready messages of the top priority a pick looks at in queuing order before it looks group
# by group (_pick_top_priority, _group_pick).
_PICK_WINDOW = 32
# Events that only wake waiters: sent only when a process waits on the queue (pgwake).
_WAKE_KINDS = frozenset("el")


def is_postgres(conn: StoreConnection) -> bool:
    """Whether transactions of several processes write to ``conn``'s store at once (a
    PostgreSQL server): queuing orders may then commit out of order."""
    return not conn.backend.single_writer


def schema(conn: StoreConnection) -> str:
    """The backend schema the store of ``conn`` lives in (read once per store)."""
    cached: str | None = conn.store.extensions.get("pg_schema")
    if cached is None:
        cached = run(conn, "SELECT current_schema()").fetchone()[0] or "public"
        conn.store.extensions["pg_schema"] = cached
    return cached


def channel(conn: StoreConnection) -> str:
    """The NOTIFY channel of the store ``conn`` belongs to (one per backend schema)."""
    return f"tsqlb_{schema(conn)}"[:63]


def notify(conn: StoreConnection, kind: str, db_id: int, queue_id: int = 0) -> None:
    """Send ``kind`` ('e' enqueued, 'l' locks released, 'm' metadata changed) for a queue
    (or a database); inside a transaction it is delivered at commit, outside at once."""
    send_notices(conn, [(kind, db_id, queue_id)])


def send_notices(conn: StoreConnection, events: list[tuple[str, int, int]]) -> None:
    """Send several events now (after the change they tell of: a rollback's released locks,
    a metadata change inside its transaction), in as few ``pg_notify`` calls as the payload
    limit allows — one, in practice; wake-ups only when some process waits on a queue
    concerned (see ``pgwake``)."""
    sql = _notify_sql(conn, events, gate=False)
    if sql is not None:
        run(conn, sql)


def notices_sql(conn: StoreConnection, events: list[tuple[str, int, int]]) -> str | None:
    """The NOTIFY of :func:`send_notices` as parameterless SQL to travel with the COMMIT,
    behind the commit's gate (see ``pgwake``); None when there is nothing to send."""
    return _notify_sql(conn, events, gate=True)


def _notify_sql(conn: StoreConnection, events: list[tuple[str, int, int]], *, gate: bool
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


def _build_notify_sql(conn: StoreConnection, events: list[tuple[str, int, int]], *, gate: bool
                      ) -> str | None:
    payloads = _payloads(events)
    if not payloads:
        return None
    chan = _literal(channel(conn))
    sql = "SELECT " + ", ".join(f"pg_notify({chan}, {_literal(p)})" for p in payloads)
    if any(kind not in _WAKE_KINDS for kind, _db, _queue in events):
        return sql
    queues = sorted({(db, queue) for _kind, db, queue in events})
    sql += " WHERE " + pgwake.waiter_condition(schema(conn), queues)
    return f"{pgwake.gate_sql(schema(conn), queues)}; {sql}" if gate else sql


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

    def sql(self, conn: StoreConnection) -> str | None:
        """The NOTIFY of everything collected, as SQL for the COMMIT to carry (None when
        there is nothing to say). Asked again — a commit that took the long way after all
        (``Txn.commit_guard``) — it tells everything collected by then."""
        events = self.events + [("l", db, queue) for db, queue in sorted(self.locked)]
        self.sent = True
        return notices_sql(conn, events)


def commit_notices(txn: Txn) -> CommitNotices:
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

    def flush(self, conn: StoreConnection) -> None:
        if self.notices is not None:
            self.notices.events.append((self.kind, self.db_id, self.queue_id))
        else:
            notify(conn, self.kind, self.db_id, self.queue_id)


def try_row_lock(conn: StoreConnection, group: str) -> bool:
    """Lock the row of conversation group ``group`` for the storage transaction of ``conn``
    (opened if needed) unless another transaction holds it. A group without a row (new in
    this transaction, or gone) has nothing to contend for: True."""
    conn.write()
    row = run(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE conversation_group_id "
                    "= ? FOR UPDATE SKIP LOCKED", (group,)).fetchone()
    if row is not None:
        return True
    exists = run(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE "
                       "conversation_group_id = ?", (group,)).fetchone()
    return exists is None


def row_lock(conn: StoreConnection, group: str, timeout: float | None,
             cancelled: Callable[[], bool] | None) -> bool:
    """Lock group ``group``'s row like :func:`try_row_lock`, waiting while another
    transaction holds it: True once had, False when ``timeout`` seconds pass or
    ``cancelled()`` turns true. Msg 1205 when PostgreSQL picks this transaction as the victim
    of a deadlock (the caller rolls the transaction back, as SQL Server does).

    The wait is a real row-lock wait (``SELECT … FOR UPDATE``), so PostgreSQL's deadlock
    detector sees it — also in cycles that mix group locks with user-table row locks, across
    processes. It is cut into slices (``lock_timeout``) so cancellation and the statement's
    own timeout are honoured between slices; each slice runs in a savepoint, so the
    ``lock_timeout`` error of a slice leaves the transaction usable."""
    if try_row_lock(conn, group):
        return True
    deadline = None if timeout is None else time.monotonic() + timeout
    floor = _deadlock_timeout(conn) + _LOCK_SLICE_MARGIN_S
    previous = run(conn, "SELECT current_setting('lock_timeout')").fetchone()[0]
    while True:
        if cancelled is not None and cancelled():
            return False
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            return False
        # A slice shorter than deadlock_timeout would end before PostgreSQL looks for a
        # cycle (the check runs once a wait has lasted that long), except the last one.
        step = max(_LOCK_SLICE_S, floor)
        if remaining is not None:
            step = min(step, remaining)
        outcome = _row_lock_slice(conn, group, previous, step)
        if outcome is not None:
            return outcome


def _row_lock_slice(conn: StoreConnection, group: str, previous: str, seconds: float
                    ) -> bool | None:
    """One blocking attempt at group ``group``'s row, for at most ``seconds``: True (locked,
    or the row is gone: nothing to contend for), None (still held when the slice ended)."""
    run(conn, f"SAVEPOINT {_SLICE_SAVEPOINT}")
    try:
        slice_ms = max(1, int(seconds * 1000))     # 0 would mean "wait forever"
        run(conn, "SELECT set_config('lock_timeout', ?, true)", (f"{slice_ms}ms",))
        row = run(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE "
                        "conversation_group_id = ? FOR UPDATE", (group,)).fetchone()
        # SET LOCAL outlives RELEASE SAVEPOINT: put the caller's value back first.
        run(conn, "SELECT set_config('lock_timeout', ?, true)", (previous,))
    except Exception as exc:
        state = getattr(getattr(exc, "orig", exc), "sqlstate", None)  # DBAPIError's driver error
        # The savepoint takes the slice's lock_timeout setting with it.
        run(conn, f"ROLLBACK TO SAVEPOINT {_SLICE_SAVEPOINT}")
        run(conn, f"RELEASE SAVEPOINT {_SLICE_SAVEPOINT}")
        if state == _LOCK_NOT_AVAILABLE:
            return None
        if state == _DEADLOCK_DETECTED:
            raise broker_error(1205, _backend_pid(conn), "lock") from None
        raise
    run(conn, f"RELEASE SAVEPOINT {_SLICE_SAVEPOINT}")
    # No row: the group is new in this transaction or was deleted by the holder (whose
    # commit ended the wait); there is nothing left to lock either way.
    return True if row is not None or _group_gone(conn, group) else None


def _group_gone(conn: StoreConnection, group: str) -> bool:
    return run(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE "
                     "conversation_group_id = ?", (group,)).fetchone() is None


def _deadlock_timeout(conn: StoreConnection) -> float:
    """The server's ``deadlock_timeout`` in seconds (read once per store)."""
    cached: float | None = conn.store.extensions.get("pg_deadlock_timeout")
    if cached is None:
        value = run(conn, "SELECT EXTRACT(EPOCH FROM current_setting('deadlock_timeout')"
                          "::interval)").fetchone()[0]
        cached = float(value)
        conn.store.extensions["pg_deadlock_timeout"] = cached
    return cached


def _backend_pid(conn: StoreConnection) -> int:
    """The server process of ``conn`` (SQL Server's message names the victim's process)."""
    dbapi = conn.conn.connection.dbapi_connection
    info = getattr(dbapi, "info", None)
    return int(getattr(info, "backend_pid", 0) or 0)


def next_group(conn: StoreConnection, queue_id: int, received: set[int], tried: set[str]
               ) -> str | None:
    """Pick the group of the best ready message (highest priority, then queuing order)
    whose group no other transaction holds, and row-lock it — one statement: the locking
    clause with SKIP LOCKED makes the scan pass over held groups. ``received`` (rows this
    transaction already took) and ``tried`` (groups to pass over) are left out."""
    conn.write()
    sql, params = _pick(queue_id, received, tried)
    row = run(conn, sql, params).fetchone()
    return None if row is None else str(row[0])


def next_group_rows(conn: StoreConnection, queue_id: int, tried: set[str], limit: int
                    ) -> tuple[str, list[tuple[Any, ...]] | None] | None:
    """:func:`next_group` for a transaction that has received nothing yet, reading in the
    same statement the group's first ``limit`` ready rows (``MESSAGE_COLUMNS``) when it has
    one conversation (the usual case; else the rows are None and the caller reads them):
    one round trip instead of two. None when no group is free.

    The statement's snapshot is older than the group lock it takes: the group's last holder
    may have committed in between, having received (deleted), or moved, some of those rows.
    So the rows are read ``FOR UPDATE``, which sees their latest committed state (gone rows
    are skipped, moved ones fail the group test), and when none is left the caller reads
    the group again in a statement of its own. (A conversation moved *into* the group in
    that moment is not counted yet: its rows come with the next RECEIVE.)"""
    conn.write()
    pick, params = _pick(queue_id, set(), tried)
    endpoints = f"{PREFIX}conversation_endpoints"
    rows = run(conn, (
        f"WITH p AS ({pick}) "
        f"SELECT p.conversation_group_id, (SELECT COUNT(*) FROM (SELECT 1 FROM {endpoints} e "
        "WHERE e.conversation_group_id = p.conversation_group_id LIMIT 2) AS c), "
        f"{', '.join('r.' + c for c in MESSAGE_COLUMNS)} FROM p LEFT JOIN LATERAL (SELECT "
        f"{', '.join('m.' + c for c in MESSAGE_COLUMNS)} FROM {PREFIX}messages m "
        f"WHERE m.conversation_handle = (SELECT conversation_handle FROM {endpoints} "
        "WHERE conversation_group_id = p.conversation_group_id LIMIT 1) "
        "AND m.status = 1 AND m.queue_id = ? AND m.conversation_group_id = "
        "p.conversation_group_id ORDER BY m.rank, m.message_sequence_number "
        "FETCH FIRST ? ROWS WITH TIES FOR UPDATE OF m) r ON true "
        # The index's order inside (see fastsql._PG_FORMS), ties by queuing order here.
        "ORDER BY r.rank, r.message_sequence_number, r.queuing_order"),
        (*params, queue_id, limit)).fetchall()
    if not rows:
        return None
    if rows[0][1] != 1 or rows[0][2] is None:
        return str(rows[0][0]), None
    return str(rows[0][0]), [r[2:] for r in rows]


def _ready_where(queue_id: int, received: set[int], tried: set[str]
                 ) -> tuple[str, list[Any]]:
    where = "m.queue_id = ? AND m.status = 1"
    params: list[Any] = [queue_id]
    if tried:
        where += f" AND m.conversation_group_id NOT IN ({', '.join('?' * len(tried))})"
        params.extend(sorted(tried))
    if received:
        where += f" AND m.queuing_order NOT IN ({', '.join('?' * len(received))})"
        params.extend(sorted(received))
    return where, params


def _pick(queue_id: int, received: set[int], tried: set[str]) -> tuple[str, tuple[Any, ...]]:
    """The pick of :func:`next_group` as one statement (and its parameters): the window of
    :func:`_pick_top_priority` first; only when it finds no free group, the group by group
    look of :func:`_group_pick` (the executor stops at the first row)."""
    where, params = _ready_where(queue_id, received, tried)
    by_group, group_params = _group_pick(queue_id, received, tried)
    return ((f"WITH a AS ({_pick_top_priority(where)}), b AS ({by_group}) "
             "SELECT conversation_group_id FROM a UNION ALL "
             "(SELECT conversation_group_id FROM b) LIMIT 1"),
            (*params, *params, *group_params))


def _pick_top_priority(where: str) -> str:
    # The first _PICK_WINDOW ready messages of the top priority, in queuing order (the ready
    # index (queue_id, status, priority, queuing_order) walked, whatever the statistics say),
    # and the first of their groups no other transaction holds. A window full of held
    # groups' messages leaves the pick to _group_pick, which looks group by group instead of
    # trying every message of those groups. Parameters: those of ``where``, twice.
    return (f"WITH w AS (SELECT m.conversation_group_id, m.queuing_order FROM "
            f"{PREFIX}messages m WHERE {where} AND m.priority = (SELECT m.priority FROM "
            f"{PREFIX}messages m WHERE {where} ORDER BY m.priority DESC LIMIT 1) "
            f"ORDER BY m.queuing_order LIMIT {_PICK_WINDOW}) "
            f"SELECT w.conversation_group_id FROM w JOIN {PREFIX}conversation_groups g "
            "ON g.conversation_group_id = w.conversation_group_id ORDER BY w.queuing_order "
            "LIMIT 1 FOR UPDATE OF g SKIP LOCKED")


def _group_pick(queue_id: int, received: set[int], tried: set[str]
                ) -> tuple[str, tuple[Any, ...]]:
    """The pick when the window of :func:`_pick_top_priority` found no free group: every
    group of the queue that has a ready message, each ranked by its best ready message
    (highest priority, then earliest queuing order) and row-locked with SKIP LOCKED — a
    held group is passed over once, however many messages it has. A conversation's first
    ready message by queuing order is found with at most two index probes: ordinary
    messages and EndDialog (rank 2) are enqueued in sequence order, so the first of them by
    sequence number is the earliest; DialogTimer and Error messages (ranks 0 and 1) are
    few. No row when no group is free (or nothing is ready)."""
    # A conversation's messages are all in its endpoint's queue: the probes name no queue,
    # which leaves the planner ix_…_msg_receive (handle, status, rank, sequence) alone.
    ready = "status = 1"
    params: list[Any] = []
    if received:
        ready += f" AND queuing_order NOT IN ({', '.join('?' * len(received))})"
        params.extend(sorted(received))
    first = (f"SELECT f.priority, f.queuing_order FROM ((SELECT priority, queuing_order FROM "
             f"{PREFIX}messages WHERE conversation_handle = e.conversation_handle AND {ready} "
             f"AND rank < 2) UNION ALL (SELECT priority, queuing_order FROM {PREFIX}messages "
             f"WHERE conversation_handle = e.conversation_handle AND {ready} AND rank = 2 "
             "ORDER BY message_sequence_number LIMIT 1)) AS f "
             "ORDER BY f.priority DESC, f.queuing_order LIMIT 1")
    groups = "g.queue_id = ?"
    if tried:
        groups += f" AND g.conversation_group_id NOT IN ({', '.join('?' * len(tried))})"
    sql = (f"SELECT g.conversation_group_id FROM {PREFIX}conversation_groups g "
           f"JOIN LATERAL (SELECT c.priority, c.queuing_order FROM "
           f"{PREFIX}conversation_endpoints e CROSS JOIN LATERAL ({first}) AS c "
           "WHERE e.conversation_group_id = g.conversation_group_id "
           "ORDER BY c.priority DESC, c.queuing_order LIMIT 1) AS k ON true "
           # Evaluated once, first: an empty queue costs one index probe, not a look at
           # every group.
           f"WHERE EXISTS (SELECT 1 FROM {PREFIX}messages WHERE queue_id = ? AND {ready}) "
           f"AND {groups} ORDER BY k.priority DESC, k.queuing_order LIMIT 1 "
           "FOR UPDATE OF g SKIP LOCKED")
    return sql, (*params, *params, queue_id, *params, queue_id, *sorted(tried))


def _probe(conn: StoreConnection, sql: str, params: tuple[Any, ...]) -> bool:
    """Whether locking ``sql``'s rows (``FOR UPDATE SKIP LOCKED``) finds one, holding none
    afterwards: outside a transaction the statement's locks end with it; inside one it runs
    in a savepoint that is rolled back (row locks taken there go with it)."""
    if not conn.in_write_txn:
        return run(conn, sql, params).fetchone() is not None
    run(conn, "SAVEPOINT tsqlb_probe")
    try:
        return run(conn, sql, params).fetchone() is not None
    finally:
        run(conn, "ROLLBACK TO SAVEPOINT tsqlb_probe")
        run(conn, "RELEASE SAVEPOINT tsqlb_probe")


def ready_group_unlocked(conn: StoreConnection, queue_id: int, received: set[int]) -> bool:
    """Whether queue ``queue_id`` has a ready message (not among ``received``) in a group no
    other transaction — of any process — has locked."""
    where = "queue_id = ? AND status = 1"
    params: list[Any] = [queue_id]
    if received:
        where += f" AND queuing_order NOT IN ({', '.join('?' * len(received))})"
        params.extend(sorted(received))
    return _probe(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE "
                        f"conversation_group_id IN (SELECT conversation_group_id FROM "
                        f"{PREFIX}messages WHERE {where}) LIMIT 1 FOR UPDATE SKIP LOCKED",
                  tuple(params))


def group_unlocked(conn: StoreConnection, group: str) -> bool:
    """Whether no other transaction of any process holds conversation group ``group``."""
    if _probe(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE conversation_group_id"
                    " = ? FOR UPDATE SKIP LOCKED", (group,)):
        return True
    return run(conn, f"SELECT 1 FROM {PREFIX}conversation_groups WHERE conversation_group_id"
                     " = ?", (group,)).fetchone() is None


def clock_lock(conn: StoreConnection) -> None:
    """Serialise the broker clock of every process on this store, until the transaction of
    ``conn`` ends (the second process then sees what the first did, and fires nothing twice).
    """
    conn.write()
    run(conn, "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':tsqlb_clock'))")


class Listener:
    """A thread that LISTENs on the store's channel and hands other processes' events to
    ``handler(kind, db_id, queue_id)``."""

    # How long one wait for notifications lasts; stop() wakes the wait, it does not end it.
    POLL_SECONDS = 0.5

    def __init__(self, store: Store, handler: Handler,
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
                run(conn, "SELECT pg_notify(?, ?)", (channel, PROCESS_TAG + "|"))
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


def wait_for_enqueuers(conn: StoreConnection, snapshot: str, timeout: float) -> bool:
    """Wait until no transaction that was in progress at ``snapshot`` (the text of
    ``pg_current_snapshot()``) still writes to the message table. Queuing orders come from a
    sequence when a commit flushes its messages, so a slow commit can show a lower queuing
    order after a faster one: once these transactions are over, every message below the
    highest queuing order seen at ``snapshot`` is visible (or gone). True when none is left,
    False after ``timeout`` seconds."""
    table = f'"{schema(conn)}".{PREFIX}messages'
    sql = ("SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid "
           "WHERE l.locktype = 'relation' AND l.relation = to_regclass(?) AND l.granted "
           "AND l.mode = 'RowExclusiveLock' AND a.pid <> pg_backend_pid() "
           "AND a.backend_xid IS NOT NULL AND a.backend_xid::text::bigint IN ("
           "SELECT x::text::bigint % 4294967296 FROM pg_snapshot_xip(?::pg_snapshot) AS x)")
    deadline = time.monotonic() + timeout
    while run(conn, sql, (table, snapshot)).fetchone()[0]:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True
