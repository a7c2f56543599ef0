"""Conversation-group locks and picks as PostgreSQL row locks, seen by every process.

Processes sharing a PostgreSQL store (``Backend.row_locks``) lock a conversation group as a
row lock on the group's ``conversation_groups`` row, held to the end of the storage
transaction: ``FOR UPDATE SKIP LOCKED`` for the readers that skip locked groups, a blocking
``FOR UPDATE`` for those that wait, so that PostgreSQL's deadlock detector sees the wait and a
cycle across processes ends in Msg 1205 (bounded by the statement's lock timeout, and
cancellable) — see :func:`try_row_lock`, :func:`row_lock`. RECEIVE's pick of the next group
locks it in the same statement (:func:`next_group`, :func:`next_group_rows`). The commit
notices that go with these locks are in ``storage/backends/postgres/notices.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...errors import broker_error
from ...storage.backends.postgres.notices import schema
from ...storage.store import GUARD_FAILED, StoreConnection
from .fastsql import MESSAGE_COLUMNS, run
from .schema import PREFIX

# A blocking group-lock wait is cut into slices of this length (at least deadlock_timeout
# plus the margin), between which cancellation and the statement's timeout are checked.
_LOCK_SLICE_S = 2.0
_LOCK_SLICE_MARGIN_S = 0.5
_SLICE_SAVEPOINT = "tsqlb_row_lock"
_LOCK_NOT_AVAILABLE = "55P03"      # lock_timeout expired
_DEADLOCK_DETECTED = "40P01"
# Ready messages of the top priority a pick looks at in queuing order before it looks group
# by group (_pick_top_priority, _group_pick).
_PICK_WINDOW = 32


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
    sql, params = _group_rows_sql(queue_id, tried, limit)
    rows = run(conn, sql, params).fetchall()
    if not rows:
        return None
    if rows[0][1] != 1 or rows[0][2] is None:
        return str(rows[0][0]), None
    return str(rows[0][0]), [r[2:] for r in rows]


def _group_rows_sql(queue_id: int, tried: set[str], limit: int
                    ) -> tuple[str, tuple[Any, ...]]:
    """:func:`next_group_rows`'s statement and parameters: a row per message read (the
    group, its conversations counted up to 2, then ``MESSAGE_COLUMNS``; one row of NULL
    columns when the group's first conversation had no ready row left)."""
    pick, params = _pick(queue_id, set(), tried)
    endpoints = f"{PREFIX}conversation_endpoints"
    return ((
        f"WITH p AS ({pick}) "
        f"SELECT p.conversation_group_id AS g, (SELECT COUNT(*) FROM (SELECT 1 FROM "
        f"{endpoints} e WHERE e.conversation_group_id = p.conversation_group_id LIMIT 2) "
        f"AS c) AS n, {', '.join('r.' + c for c in MESSAGE_COLUMNS)} FROM p LEFT JOIN "
        f"LATERAL (SELECT {', '.join('m.' + c for c in MESSAGE_COLUMNS)} FROM "
        f"{PREFIX}messages m WHERE m.conversation_handle = (SELECT conversation_handle FROM "
        f"{endpoints} WHERE conversation_group_id = p.conversation_group_id LIMIT 1) "
        "AND m.status = 1 AND m.queue_id = ? AND m.conversation_group_id = "
        "p.conversation_group_id ORDER BY m.rank, m.message_sequence_number "
        "FETCH FIRST ? ROWS WITH TIES FOR UPDATE OF m) r ON true "
        # The index's order inside (see receive.PG_FORMS), ties by queuing order here.
        "ORDER BY r.rank, r.message_sequence_number, r.queuing_order"),
        (*params, queue_id, limit))


def received_with_commit(queue_id: int, passed_over: set[str], limit: int
                         ) -> tuple[str, tuple[Any, ...]]:
    """RECEIVE TOP (``limit``) whole, to travel with the COMMIT that follows it (see
    ``Txn.commit_returning``): :func:`next_group_rows`'s pick, row lock and read, trimmed to
    the first ``limit`` rows, and their DELETE, in one statement returning the rows (0,
    then ``MESSAGE_COLUMNS``, in RECEIVE order). ``passed_over``: groups other transactions of
    this process hold. Its check fails — nothing of it stays, the caller takes the long way
    — unless it picked a group of one conversation and deleted every row it read: so an
    empty queue, a group of several conversations, or a group whose rows its last holder
    took meanwhile go the long way, as their reads differ there."""
    rows, params = _group_rows_sql(queue_id, passed_over, limit)
    cols = ", ".join("r." + c for c in MESSAGE_COLUMNS)
    return ((
        f"WITH r AS MATERIALIZED ({rows} LIMIT ?), "
        f"d AS (DELETE FROM {PREFIX}messages m USING r WHERE m.queuing_order = "
        "r.queuing_order AND r.n = 1 RETURNING 1), "
        "k AS (SELECT (SELECT count(*) FROM d) AS deleted, (SELECT count(*) FROM r) AS read) "
        # The check is an output column of the one row of c, so it is evaluated whatever r
        # holds (OFFSET 0 keeps the subquery from being pulled up into the join).
        f"SELECT c.ok, {cols} FROM (SELECT CASE WHEN k.deleted > 0 AND k.deleted = k.read "
        f"THEN 0 ELSE ('{GUARD_FAILED}:' || k.deleted || '/' || k.read)::integer END AS ok "
        "FROM k OFFSET 0) AS c LEFT JOIN r ON c.ok = 0 "
        "ORDER BY r.rank, r.message_sequence_number, r.queuing_order"),
        (*params, limit))


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
    # and the first of their groups no other transaction holds — each group of the window
    # tried once, by its first message there (a window of one held group's messages is one
    # lock attempt, not one per message). A window full of held groups' messages leaves the
    # pick to _group_pick, which looks group by group. Parameters: those of ``where``, twice.
    return (f"WITH w AS (SELECT m.conversation_group_id, m.queuing_order FROM "
            f"{PREFIX}messages m WHERE {where} AND m.priority = (SELECT m.priority FROM "
            f"{PREFIX}messages m WHERE {where} ORDER BY m.priority DESC LIMIT 1) "
            f"ORDER BY m.queuing_order LIMIT {_PICK_WINDOW}) "
            "SELECT f.conversation_group_id FROM (SELECT conversation_group_id, "
            "min(queuing_order) AS queuing_order FROM w GROUP BY conversation_group_id) f "
            f"JOIN {PREFIX}conversation_groups g ON g.conversation_group_id = "
            "f.conversation_group_id ORDER BY f.queuing_order LIMIT 1 FOR UPDATE OF g "
            "SKIP LOCKED")


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
