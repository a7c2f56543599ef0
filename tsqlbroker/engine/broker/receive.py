"""RECEIVE, GET CONVERSATION GROUP and the wait of ``WAITFOR (RECEIVE …)`` (reference §5.2–
§5.4, §5.10, §5.11).

A RECEIVE picks one conversation group — the highest-priority, earliest ready message whose
group is not locked by another transaction — locks it, and returns its ready messages:
conversation by conversation (priority, then queuing order), DialogTimer then Error then the
rest, by sequence. Received rows stay in the table until commit (deleted, or status 0 with
RETENTION); until then this transaction's *overlay* hides them from its own later RECEIVEs, and
a rollback (also to a savepoint) makes them receivable again.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import and_, select

from ...errors import BindError, broker_error, tsql_error
from ...storage.store import StoreConnection
from ...storage.txn import Txn
from ...values.dates import round_datetime
from ..results import ResultSet
from . import row_locks
from .claims import PASSED_OVER
from .fastsql import (
    MESSAGE_COLUMNS,
    py_time,
    run,
    run_with_commit,
)
from .group_locks import DEADLOCK_WAIT_S, LOCK_TIMEOUT_S, GroupLocks, holds_single_writer_lock
from .model import QueueRow, uid, utcnow
from .schema import PREFIX
from .state import BrokerState

# A group's ready rows through its endpoints (a conversation's messages are all in its
# endpoint's group, MOVE CONVERSATION moves both) and ix_…_msg_receive: no index on the
# messages' group column, which every SEND and RECEIVE would have to maintain. ``+queue_id``
# keeps SQLite's planner off the ready index (queue_id, status): without statistics it may
# pick it and scan every ready row of the queue.
SELECT_GROUP_ROWS = (f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM {PREFIX}messages "
                     f"WHERE conversation_handle IN (SELECT conversation_handle FROM "
                     f"{PREFIX}conversation_endpoints WHERE conversation_group_id = ?) "
                     "AND status = 1 AND +queue_id = ? AND conversation_group_id = ?")
# RECEIVE TOP (n): the group's conversations, each one's (priority, first queuing_order) among
# its ready rows, and its ready rows in RECEIVE order — an index walk on ix_…_msg_receive
# (the ``+`` keeps the planner off the ready index). A conversation's messages are all in its
# endpoint's group: the caller holds that group's lock, so no MOVE CONVERSATION can intervene.
SELECT_GROUP_HANDLES = (f"SELECT conversation_handle FROM {PREFIX}conversation_endpoints "
                        "WHERE conversation_group_id = ?")
SELECT_CONVERSATION_KEY = (f"SELECT MAX(priority), MIN(queuing_order) FROM {PREFIX}messages "
                           "WHERE conversation_handle = ? AND status = 1 AND +queue_id = ?")
# The same for a group of one conversation (the usual case), in one statement: the first
# column counts the group's conversations up to 2; the rows are right only when it is 1.
SELECT_LONE_CONVERSATION_ROWS = (
    f"SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM {PREFIX}conversation_endpoints WHERE "
    "conversation_group_id = ? LIMIT 2) AS c), "
    f"{', '.join('m.' + c for c in MESSAGE_COLUMNS)} FROM {PREFIX}messages m "
    f"WHERE m.conversation_handle = (SELECT conversation_handle FROM "
    f"{PREFIX}conversation_endpoints WHERE conversation_group_id = ? LIMIT 1) "
    "AND m.status = 1 AND +m.queue_id = ? "
    "ORDER BY m.rank, m.message_sequence_number, m.queuing_order LIMIT ?")
SELECT_CONVERSATION_ROWS = (f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM {PREFIX}messages "
                            "WHERE conversation_handle = ? AND status = 1 AND +queue_id = ? "
                            "ORDER BY rank, message_sequence_number, queuing_order LIMIT ?")


# PostgreSQL's forms of statements above whose plan must not depend on the planner's
# statistics. A conversation's ready rows in RECEIVE order: ``ORDER BY rank, sequence`` is
# the order of ix_…_msg_receive, so the server walks the index and stops after the rows
# wanted (WITH TIES: DialogTimer and Error messages share sequence number 0, queuing order
# decides among them, outside); with the full order inside, a planner that believes the
# conversation has one row (a burst before ANALYZE) reads and sorts all of them. May return
# more than the rows asked for (ties): the caller keeps the first.
PG_FORMS = {
    SELECT_LONE_CONVERSATION_ROWS: (
        f"SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM {PREFIX}conversation_endpoints WHERE "
        "conversation_group_id = ? LIMIT 2) AS c), "
        f"{', '.join('m.' + c for c in MESSAGE_COLUMNS)} FROM (SELECT "
        f"{', '.join(MESSAGE_COLUMNS)} FROM {PREFIX}messages "
        f"WHERE conversation_handle = (SELECT conversation_handle FROM "
        f"{PREFIX}conversation_endpoints WHERE conversation_group_id = ? LIMIT 1) "
        "AND status = 1 AND queue_id = ? ORDER BY rank, message_sequence_number "
        "FETCH FIRST ? ROWS WITH TIES) AS m "
        "ORDER BY m.rank, m.message_sequence_number, m.queuing_order"),
    SELECT_CONVERSATION_ROWS: (
        f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM (SELECT {', '.join(MESSAGE_COLUMNS)} "
        f"FROM {PREFIX}messages WHERE conversation_handle = ? AND status = 1 AND queue_id = ? "
        "ORDER BY rank, message_sequence_number FETCH FIRST ? ROWS WITH TIES) AS m "
        "ORDER BY rank, message_sequence_number, queuing_order"),
}


def _planned(conn: StoreConnection, sql: str) -> str:
    """``sql`` or, where plans follow table statistics, its form in :data:`PG_FORMS`."""
    return PG_FORMS.get(sql, sql) if conn.backend.plans_by_statistics else sql


QUEUE_COLUMNS: list[tuple[str, str]] = [
    ("status", "tinyint"), ("priority", "tinyint"), ("queuing_order", "bigint"),
    ("conversation_group_id", "uniqueidentifier"), ("conversation_handle", "uniqueidentifier"),
    ("message_sequence_number", "bigint"), ("service_name", "nvarchar(512)"),
    ("service_id", "int"), ("service_contract_name", "nvarchar(256)"),
    ("service_contract_id", "int"), ("message_type_name", "nvarchar(256)"),
    ("message_type_id", "int"), ("validation", "nchar(2)"),
    ("message_body", "varbinary(max)"), ("message_enqueue_time", "datetime"),
    ("message_id", "uniqueidentifier"),
]
# The pick reads its group's first rows in the same statement for RECEIVE TOP (n) up to this
# n: the rows then pass through a subquery, which costs SQLite ~0.9 µs a row (RECEIVE TOP
# (100) ~0.27 ms in two statements, ~0.36 ms in one); for a few rows the statement saved
# is worth more.
_FIRST_ROWS_WITH_PICK = 16
# A picked group, with its first ready rows when the pick read them.
Picked = tuple[str, list[dict[str, Any]] | None]
# Pre-release name of conversation_group_id, accepted wherever a column name is.
COLUMN_ALIASES = {"service_instance_id": "conversation_group_id"}


def empty_result() -> ResultSet:
    """A RECEIVE result with the queue's columns and no rows."""
    return ResultSet([c for c, _t in QUEUE_COLUMNS], [t for _c, t in QUEUE_COLUMNS], [])


@dataclass
class ReceiveOp:
    """Deferred removal (or retention) of RECEIVEd rows at commit."""

    ids: list[int]
    retention: bool
    receiving: Receiving
    txn: Txn | None = None

    def flush(self, conn: StoreConnection) -> None:
        """Delete the received rows (or mark them status 0 under RETENTION)."""
        for start in range(0, len(self.ids), 500):
            chunk = tuple(self.ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            if self.retention:
                sql = f"UPDATE {PREFIX}messages SET status = 0 WHERE queuing_order IN ({marks})"
            else:
                sql = f"DELETE FROM {PREFIX}messages WHERE queuing_order IN ({marks})"
            last = start + 500 >= len(self.ids)
            if not (last and self.txn is not None and run_with_commit(self.txn, sql, chunk)):
                run(conn, sql, chunk)


class Receiving:
    """RECEIVE, GET CONVERSATION GROUP, WAITFOR support (a part of
    :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, group_locks: GroupLocks) -> None:
        self.state = state
        self.group_locks = group_locks

    # -- RECEIVE ------------------------------------------------------------------------------
    def receive(self, txn: Txn, db_id: int, queue_schema: str | None, queue_name: str,
                top: int | None = None, where_column: str | None = None, where_value: Any = None,
                *, lock_timeout: float | None = LOCK_TIMEOUT_S,
                cancelled: Callable[[], bool] | None = None,
                queuing_orders: Collection[int] | None = None,
                with_commit: bool = False,
                columns: Collection[str] | None = None) -> ResultSet:
        """``RECEIVE [TOP (n)] * FROM queue [WHERE conversation_handle|conversation_group_id
        = v]``: every queue column (reference §2 order) of one group's messages, status shown
        as 0. Empty result (with the columns) when nothing is available. Msg 9617 for a
        disabled queue; 8426 / 8436 for an unknown handle / group in WHERE.

        ``queuing_orders`` (with a WHERE only): receive just those of the group's ready
        messages — what a consumer that read them earlier (a Spark micro-batch) takes, with
        the group's lock, leaving the group's later messages ready.

        ``with_commit``: the COMMIT that ends the transaction follows directly and nothing
        of this RECEIVE's can fail once it has its rows (the caller's to say): on PostgreSQL
        a RECEIVE TOP (n) whose pick finds a group of one conversation takes, deletes and
        commits in one round trip (:meth:`_taken_with_commit`); anything else goes the
        usual way.

        ``columns``: the queue columns the caller reads; the costlier values of the others
        (``message_id``, ``message_enqueue_time``, ``message_body``) are left NULL in the
        rows. None: every column."""
        if queuing_orders is not None and where_column is None:
            raise ValueError("queuing_orders needs a WHERE on the group or conversation")
        conn = txn.conn
        q = self.state.queue(conn, db_id, queue_schema, queue_name)
        if not q.is_receive_enabled:
            raise broker_error(9617, q.name)
        if top is not None and top <= 0:
            return empty_result()
        group, handle = self._where(conn, db_id, q, where_column, where_value)
        st = self.state.txn_state(txn)
        key = (db_id, q.object_id)
        rows: list[Any] = []
        taken = False
        if group is not None:
            wait = lock_timeout or 0.0
            if self._would_deadlock(txn):
                wait = min(wait, DEADLOCK_WAIT_S)      # see _lock_group_or_fail
            if self.group_locks.lock(txn, db_id, group, q.object_id, wait, cancelled):
                if queuing_orders is None:
                    rows = self._group_rows(conn, q, group, handle, st.received, top)
                else:
                    wanted = set(queuing_orders)
                    rows = [r for r in self._group_rows(conn, q, group, handle, st.received)
                            if r["queuing_order"] in wanted]
        elif (with_commit and top is not None and not st.received
              and not q.is_retention_enabled and conn.backend.row_locks
              and (got := self._taken_with_commit(txn, q, top)) is not None):
            rows, taken = got, True
        elif conn.backend.row_locks:
            tried: set[str] = set()
            while True:
                first: list[tuple[Any, ...]] | None = None
                if top is not None and not st.received:
                    # Picks, row-locks and (one conversation) reads in one statement.
                    picked = row_locks.next_group_rows(conn, q.object_id, tried, top)
                    group, first = picked if picked is not None else (None, None)
                else:   # picks and row-locks in one statement
                    group = row_locks.next_group(conn, q.object_id, st.received, tried)
                if group is None:
                    break
                tried.add(group)
                if not self.group_locks.lock(txn, db_id, group, q.object_id, row_locked=True):
                    continue
                rows = ([dict(zip(MESSAGE_COLUMNS, r, strict=True)) for r in first]
                        if first is not None
                        else self._group_rows(conn, q, group, None, st.received, top))
                if rows:
                    break
        else:
            first_rows = top if top is not None and not st.received else None
            with self._picking(txn, q, first_rows) as pick:
                while (picked := pick()) is not None:
                    group, first = picked
                    rows = (first if first is not None
                            else self._group_rows(conn, q, group, None, st.received, top))
                    if rows:
                        break
        if not rows:
            self.state.signals.last_empty_rowset_time[key] = utcnow()
            self.state.notify("empty_receive", db_id, q.object_id)
            return empty_result()
        if top is not None:
            rows = rows[:top]
        ids = [r["queuing_order"] for r in rows]
        st.received.update(ids)
        st.received_queues.add(key)
        if not taken:           # else deleted and committed already
            txn.on_undo(lambda: st.received.difference_update(ids))
            txn.defer(ReceiveOp(ids, q.is_retention_enabled, self, txn))
        self.state.notify("received", db_id, q.object_id)
        return ResultSet([c for c, _t in QUEUE_COLUMNS], [t for _c, t in QUEUE_COLUMNS],
                         [_result_row(r, columns) for r in rows])

    @contextmanager
    def statement(self, txn: Txn) -> Iterator[None]:
        """One RECEIVE statement, from its pick to the last use of its rows (result set,
        variables, INTO table), with SQL Server's statement-level atomicity: when anything
        in it fails (a CAST of ``message_body``, a truncating INSERT …) the rows it received
        are given back — receivable again, this transaction's later RECEIVEs included, in
        their order, and no delete (or RETENTION update) is kept at commit. The
        conversation-group locks it took stay with the transaction, as a failed statement's
        locks do in SQL Server, and so does the queue among those the transaction received
        from: the statement's rollback is no transaction rollback, but the transaction's own
        counts for the poison-message counter (docs/decisions.md). Only the engine-level work
        is undone: a RECEIVE writes nothing to storage before commit."""
        mark = txn.position()
        try:
            yield
        except BaseException:
            txn.retreat(mark)
            raise

    def _taken_with_commit(self, txn: Txn, q: QueueRow, top: int
                           ) -> list[dict[str, Any]] | None:
        """PostgreSQL, RECEIVE TOP (``top``) directly followed by the COMMIT that ends the
        transaction, nothing received or deferred in it yet: the pick, its row lock, the
        group's first rows, their DELETE and the COMMIT in one round trip
        (``row_locks.received_with_commit``, ``Txn.commit_returning``). The rows, received
        and committed; None when the statement's check failed (an empty queue, a group of
        several conversations …): nothing of it stays, the transaction is still open and the
        caller receives the usual way. Groups other transactions of this process hold are
        passed over (their row locks may not be taken yet); the in-process lock is not
        taken — the group is free again once the statement's commit is done."""
        conn = txn.conn
        passed_over = {g for (d, g) in self.state.locks.locked_by_others(txn)
                       if d == q.database_id}
        sql, params = row_locks.received_with_commit(q.object_id, passed_over, top)
        # Before the commit's NOTIFY is written: it tells of the group's lock going.
        self.group_locks.locking_on(txn, q.database_id, q.object_id)
        got = txn.commit_returning(conn.backend.merged_text(conn, sql, params))
        if got is None:
            return None
        return [dict(zip(MESSAGE_COLUMNS, r[1:], strict=True)) for r in got]

    def _where(self, conn: StoreConnection, db_id: int, q: QueueRow, column: str | None,
               value: Any) -> tuple[str | None, str | None]:
        """(group, handle) named by a WHERE clause, checked against the queue."""
        if column is None:
            return None, None
        col = COLUMN_ALIASES.get(column.lower(), column.lower())
        if col == "conversation_handle":
            ep = self.state.endpoint(conn, db_id, value) if value is not None else None
            if ep is None or ep.queue_id != q.object_id:
                raise broker_error(8426, "" if value is None else str(value).upper())
            return ep.conversation_group_id, ep.conversation_handle
        if col == "conversation_group_id":
            try:
                group = uid(value)
            except (ValueError, TypeError):
                raise broker_error(8436, "" if value is None else str(value)) from None
            g = self.state.t.groups
            row = conn.execute(select(g.c.queue_id).where(
                g.c.conversation_group_id == group, g.c.database_id == db_id)).first()
            if row is None or row[0] != q.object_id:
                raise broker_error(8436, group)
            return group, None
        raise tsql_error(207, column, cls=BindError)

    def _next_group(self, conn: StoreConnection, txn: Txn, q: QueueRow, overlay: set[int],
                    tried: set[str], first_rows: int | None = None) -> Picked | None:
        """The group of the best ready message not locked by another transaction, and when
        ``first_rows`` is given, the transaction holds the write lock (nothing can change
        until it ends) and the group has one conversation, its first ``first_rows`` ready
        rows read in the same statement (else None: the caller reads them)."""
        excluded = {g for (d, g) in self.state.locks.locked_by_others(txn)
                    if d == q.database_id} | tried
        params: tuple[Any, ...] = (q.object_id, *sorted(excluded), *sorted(overlay))
        if self.state.claims is not None:
            params = (*params, *self.state.claims.passed_over_params(txn.id))
        sql = _next_group_sql(len(excluded), len(overlay), self.state.claims is not None)
        if first_rows is None or first_rows > _FIRST_ROWS_WITH_PICK or not conn.in_write_txn:
            row = run(conn, sql, (*params, *params)).fetchone()
            return None if row is None else (str(row[0]), None)
        rows = run(conn, _with_lone_conversation_rows(sql),
                   (*params, *params, q.object_id, first_rows)).fetchall()
        head = next((r for r in rows if r[0] is not None), None)
        if head is None:
            return None
        got = [dict(zip(MESSAGE_COLUMNS, r[2:], strict=True)) for r in rows if r[0] is None]
        if head[1] != 1 or not got:
            return str(head[0]), None
        # SQL does not promise the order of a UNION ALL's rows; they arrive in order, so
        # the sort is a single pass.
        got.sort(key=_receive_order)
        return str(head[0]), got

    def _group_rows(self, conn: StoreConnection, q: QueueRow, group: str, handle: str | None,
                    overlay: set[int], limit: int | None = None) -> list[dict[str, Any]]:
        """The ready rows of ``group`` (or of one conversation) in RECEIVE order; only the
        first ``limit`` of them when a limit is given."""
        if limit is not None and not overlay:
            return self._first_group_rows(conn, q, group, handle, limit)
        rows = [dict(zip(MESSAGE_COLUMNS, r, strict=True))
                for r in run(conn, SELECT_GROUP_ROWS, (group, q.object_id, group)).fetchall()]
        rows = [r for r in rows if r["queuing_order"] not in overlay
                and (handle is None or r["conversation_handle"] == handle)]
        first: dict[str, tuple[int, int]] = {}
        for r in rows:
            h = r["conversation_handle"]
            prio, order = first.get(h, (r["priority"], r["queuing_order"]))
            first[h] = (max(prio, r["priority"]), min(order, r["queuing_order"]))
        rows.sort(key=lambda r: (-first[r["conversation_handle"]][0],
                                 first[r["conversation_handle"]][1], r["rank"],
                                 r["message_sequence_number"], r["queuing_order"]))
        return rows if limit is None else rows[:limit]

    def _first_group_rows(self, conn: StoreConnection, q: QueueRow, group: str,
                          handle: str | None, limit: int) -> list[dict[str, Any]]:
        """:meth:`_group_rows` for ``RECEIVE TOP (n)`` with nothing received yet in the
        transaction: conversation by conversation, reading only the rows returned (an
        index walk), so that TOP (n) on a deep queue costs O(n), not O(queue)."""
        if handle is not None:
            handles = [handle]
        else:
            lone = run(conn, _planned(conn, SELECT_LONE_CONVERSATION_ROWS),
                       (group, group, q.object_id, limit)).fetchall()
            if lone and lone[0][0] == 1:
                return [dict(zip(MESSAGE_COLUMNS, r[1:], strict=True)) for r in lone]
            handles = [str(r[0]) for r in run(conn, SELECT_GROUP_HANDLES, (group,))]
        if len(handles) > 1:
            # Same conversation order as _group_rows: highest priority, then first queued.
            keys: dict[str, tuple[int, int]] = {}
            for h in handles:
                prio, first = run(conn, SELECT_CONVERSATION_KEY, (h, q.object_id)).fetchone()
                if first is not None:
                    keys[h] = (-prio, first)
            handles = sorted(keys, key=keys.__getitem__)
        rows: list[dict[str, Any]] = []
        for h in handles:
            if len(rows) >= limit:
                break
            rows.extend(dict(zip(MESSAGE_COLUMNS, r, strict=True)) for r in run(
                conn, _planned(conn, SELECT_CONVERSATION_ROWS),
                (h, q.object_id, limit - len(rows))))
        return rows

    # -- GET CONVERSATION GROUP ---------------------------------------------------------------
    def get_conversation_group(self, txn: Txn, db_id: int, queue_schema: str | None,
                               queue_name: str, *, only: Any = None) -> uuid.UUID | None:
        """``GET CONVERSATION GROUP @g FROM queue``: lock and return the next available group
        (same choice as RECEIVE), or None when there is none. Msg 9617 if disabled.

        ``only`` (a group id): the choice is confined to that group — locked and returned
        when it has a message ready for this transaction, else None (a Spark drain confines
        a queue's activation procedure to the group its task owns)."""
        conn = txn.conn
        q = self.state.queue(conn, db_id, queue_schema, queue_name)
        if not q.is_receive_enabled:
            raise broker_error(9617, q.name)
        if only is not None:
            return self._confined_group(txn, q, uid(only))
        with self._picking(txn, q) as pick:
            picked = pick()
        if picked is None:
            self.state.signals.last_empty_rowset_time[(db_id, q.object_id)] = utcnow()
            self.state.notify("empty_receive", db_id, q.object_id)
            return None
        self.state.notify("received", db_id, q.object_id)
        return uuid.UUID(picked[0])

    @contextmanager
    def _picking(self, txn: Txn, q: QueueRow, first_rows: int | None = None
                 ) -> Iterator[Callable[[], Picked | None]]:
        """Picks of RECEIVE / GET CONVERSATION GROUP (not PostgreSQL's, which pick and lock
        in one statement): yields ``pick()``, which locks the group of the best ready
        message no other transaction holds and returns it (None: nothing left), with its
        first ``first_rows`` rows when the pick could read them (:meth:`_next_group`). On a
        shared SQLite file the picks run under the write lock, taken first (claims.py): a
        pick and its lock are one step for every process; a dead process's claims in the
        way are removed once. The write transaction is ended again when it was opened here
        and nothing was locked."""
        conn = txn.conn
        claims = self.state.claims
        opened = claims is not None and conn.begin_unwritten()
        st = self.state.txn_state(txn)
        tried: set[str] = set()
        found: list[str] = []
        looked = reaped = False

        def pick() -> Picked | None:
            nonlocal looked, reaped
            while True:
                picked = self._next_group(conn, txn, q, st.received, tried, first_rows)
                if picked is None and claims is not None and not looked:
                    looked = True
                    dead = claims.dead_owners(conn, q.object_id)
                    if dead:
                        claims.reap(conn, dead)
                        reaped = True
                        picked = self._next_group(conn, txn, q, st.received, tried, first_rows)
                if picked is None:
                    return None
                group = picked[0]
                tried.add(group)
                # Picked under the file's write lock when claims are in use (see above).
                if self.group_locks.lock(txn, q.database_id, group, q.object_id,
                                         picked=claims is not None and conn.in_write_txn):
                    found.append(group)
                    return picked

        try:
            yield pick
        finally:
            if opened and not found and conn.in_write_txn and not conn.written:
                conn.end_unwritten(commit=reaped)

    def _confined_group(self, txn: Txn, q: QueueRow, group: str) -> uuid.UUID | None:
        """:meth:`get_conversation_group` confined to ``group``."""
        st = self.state.txn_state(txn)
        key = (q.database_id, q.object_id)
        if (self.group_locks.lock(txn, q.database_id, group, q.object_id)
                and self._group_rows(txn.conn, q, group, None, st.received, limit=1)):
            self.state.notify("received", *key)
            return uuid.UUID(group)
        self.state.signals.last_empty_rowset_time[key] = utcnow()
        self.state.notify("empty_receive", *key)
        return None

    # -- waiting ------------------------------------------------------------------------------
    def queue_has_ready_messages(self, conn: StoreConnection, db_id: int, queue_id: int,
                                 txn: Txn | None = None) -> bool:
        """Whether queue ``queue_id`` has a ready message (in a group not locked by another
        transaction than ``txn``, and not already received by ``txn``)."""
        self.state.ensure_schema(conn)
        if conn.backend.row_locks:
            # Groups other processes hold count as locked too (the row locks say which).
            st = txn.state.get("broker") if txn is not None else None
            return row_locks.ready_group_unlocked(conn, queue_id, st.received if st else set())
        m = self.state.t.messages
        conds = [m.c.queue_id == queue_id, m.c.status == 1]
        locked = {g for (d, g) in self.state.locks.locked_by_others(txn) if d == db_id}
        if locked:
            conds.append(m.c.conversation_group_id.not_in(sorted(locked)))
        if self.state.claims is not None:
            # As the pick: without the groups other processes claim or others wait for.
            conds.append(m.c.conversation_group_id.not_in(self.state.claims.passed_over(
                self.state.t, -1 if txn is None else txn.id)))
        if txn is not None:
            st = txn.state.get("broker")
            if st is not None and st.received:
                conds.append(m.c.queuing_order.not_in(sorted(st.received)))
        return conn.execute(select(m.c.queuing_order).where(and_(*conds)).limit(1)
                            ).first() is not None

    def wait_for_message(self, db_id: int, queue_schema: str | None, queue_name: str,
                         timeout_s: float | None, cancelled: Callable[[], bool],
                         txn: Txn | None = None, where: tuple[str, Any] | None = None,
                         conn: StoreConnection | None = None) -> bool:
        """Block, holding no storage lock, until a commit may have made a message receivable
        by ``txn`` on the queue (True), or ``timeout_s`` passes / ``cancelled()`` (False).
        ``where`` = (column, value) of a RECEIVE … WHERE. Raises 9617 if the queue is or
        becomes disabled, 208 if it is dropped. The caller retries its RECEIVE on True.
        Returns False at once when ``txn`` holds the SQLite write lock (nothing could arrive:
        SQL Server's "WAITFOR would deadlock" rule)."""
        own = None
        if conn is None:
            conn = txn.conn if txn is not None else None
        if conn is None:
            own = conn = self.state.store.connect()
        try:
            q = self.state.queue(conn, db_id, queue_schema, queue_name)
            key = (db_id, q.object_id)
            deadline = None if timeout_s is None else time.monotonic() + timeout_s
            if txn is not None:
                txn.pause()       # no group claim keeps SQLite's write lock while it waits
            self.state.signals.enter(key)
            try:
                if self.state.interest is not None:
                    # Before the first look at the queue: a commit of another process either
                    # sees this process waiting (and NOTIFYs) or is visible to that look.
                    self.state.interest.acquire(*key)
                while True:
                    seen = self.state.signals.generation(key)
                    q = self.state.queue(conn, db_id, queue_schema, queue_name)
                    if not q.is_receive_enabled:
                        raise broker_error(9617, q.name)
                    if self._ready_for(conn, txn, q, where):
                        return True
                    if self._would_deadlock(txn):
                        return False
                    if not self.state.signals.wait_change(key, seen, deadline, cancelled):
                        return False
            finally:
                if self.state.interest is not None:
                    self.state.interest.release(*key)
                self.state.signals.leave(key)
        finally:
            if own is not None:
                own.close()

    def _would_deadlock(self, txn: Txn | None) -> bool:
        """SQLite has one writer: while ``txn`` holds the storage write lock no other session
        can commit a message, so waiting could only end in a timeout while blocking everyone
        else. SQL Server returns an empty result when a WAITFOR would deadlock against locks
        its transaction holds; so do we."""
        return holds_single_writer_lock(txn)

    def _ready_for(self, conn: StoreConnection, txn: Txn | None, q: QueueRow,
                   where: tuple[str, Any] | None) -> bool:
        if where is None:
            return self.queue_has_ready_messages(conn, q.database_id, q.object_id, txn)
        group, handle = self._where(conn, q.database_id, q, where[0], where[1])
        if group is None or self.state.locks.held_by_other((q.database_id, group), txn):
            return False
        if self.state.claims is not None and self.state.claims.claimed_elsewhere(conn, group):
            return False
        if conn.backend.row_locks and not row_locks.group_unlocked(conn, group):
            return False
        st = txn.state.get("broker") if txn is not None else None
        return bool(self._group_rows(conn, q, group, handle, st.received if st else set(),
                                     limit=1))


@lru_cache(maxsize=256)
def _next_group_sql(excluded: int, overlay: int, claims: bool) -> str:
    """:meth:`Receiving._next_group`'s statement for so many excluded groups and already
    received rows, and with ``claims`` without the groups other processes claim or other
    transactions wait for (claims.py) (parameters: queue id, the groups, the rows,
    ``passed_over_params`` — twice)."""
    where = f"FROM {PREFIX}messages WHERE queue_id = ? AND status = 1"
    if excluded:
        where += f" AND conversation_group_id NOT IN ({', '.join('?' * excluded)})"
    if overlay:
        where += f" AND queuing_order NOT IN ({', '.join('?' * overlay)})"
    if claims:
        where += f" AND conversation_group_id NOT IN ({PASSED_OVER})"
    # Two index walks in one statement instead of ORDER BY priority DESC, queuing_order: the
    # ready index is (queue_id, status, priority, queuing_order) ascending, so that
    # mixed-direction ORDER BY sorted every ready row of the queue on each RECEIVE.
    return (f"SELECT conversation_group_id {where} AND priority = (SELECT priority {where} "
            "ORDER BY priority DESC LIMIT 1) ORDER BY queuing_order LIMIT 1")


@lru_cache(maxsize=64)
def _with_lone_conversation_rows(pick: str) -> str:
    """A pick of :func:`_next_group_sql` that also reads its group's first ready rows, as
    :data:`SELECT_LONE_CONVERSATION_ROWS` does (parameters: the pick's, the queue id, the
    number of rows): first a row with the group and its conversations counted up to 2, then
    the rows (group and count NULL). The rows are an index walk on ix_…_msg_receive that
    stops after the rows wanted; a join of the group and the rows would sort them all."""
    endpoints = f"{PREFIX}conversation_endpoints"
    nulls = ", ".join("NULL" for _ in MESSAGE_COLUMNS)
    return (f"WITH g AS MATERIALIZED (SELECT conversation_group_id, (SELECT COUNT(*) FROM "
            f"(SELECT 1 FROM {endpoints} e WHERE e.conversation_group_id = "
            "p.conversation_group_id LIMIT 2) AS c) AS n, (SELECT conversation_handle FROM "
            f"{endpoints} e WHERE e.conversation_group_id = p.conversation_group_id LIMIT 1) "
            f"AS h FROM ({pick}) AS p) "
            f"SELECT conversation_group_id, n, {nulls} FROM g UNION ALL "
            f"SELECT * FROM (SELECT NULL, NULL, {', '.join(MESSAGE_COLUMNS)} FROM "
            f"{PREFIX}messages WHERE conversation_handle = (SELECT h FROM g) AND status = 1 "
            "AND +queue_id = ? ORDER BY rank, message_sequence_number, queuing_order LIMIT ?)")


def _receive_order(r: dict[str, Any]) -> tuple[int, int, int]:
    """A conversation's rows in RECEIVE order."""
    return r["rank"], r["message_sequence_number"], r["queuing_order"]


@lru_cache(maxsize=4096)
def _conversation_uuid(text: str) -> uuid.UUID:
    """A stored conversation handle or group id as ``UUID`` (immutable, so shared): the same
    few conversations come back message after message, and parsing was the costliest step
    of building a RECEIVE row."""
    return uuid.UUID(text)


def _result_row(r: Any, columns: Collection[str] | None = None) -> tuple[Any, ...]:
    """A RECEIVE result row (:data:`QUEUE_COLUMNS`) of stored row ``r``; with ``columns``,
    the message id, enqueue time and body only when named there: parsing every message's
    id was most of a wide RECEIVE's per-row cost, for a column few RECEIVEs select."""
    validation = (r["validation"] or "").ljust(2)
    body = r["message_body"]
    every = columns is None
    return (0, r["priority"], r["queuing_order"], _conversation_uuid(r["conversation_group_id"]),
            _conversation_uuid(r["conversation_handle"]), r["message_sequence_number"],
            r["service_name"], r["service_id"], r["service_contract_name"],
            r["service_contract_id"], r["message_type_name"], r["message_type_id"], validation,
            None if body is None or not (every or "message_body" in columns) else bytes(body),
            # a datetime column: SQL Server's 1/300 s steps (stored with microseconds)
            round_datetime(py_time(r["message_enqueue_time"]))
            if every or "message_enqueue_time" in columns else None,
            uuid.UUID(r["message_id"]) if every or "message_id" in columns else None)
