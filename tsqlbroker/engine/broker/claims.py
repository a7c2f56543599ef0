"""Conversation-group ownership across processes sharing one SQLite file.

In one process the lock manager (``storage/txn.LockManager``) says which transaction holds a
conversation group; PostgreSQL adds row locks (``row_locks``). SQLite has neither row locks nor
a way to show a row to other processes before the transaction that wrote it commits, and a
RECEIVE deletes what it took only at commit: before this module, two processes RECEIVE-ing
one queue each picked the same group (the pick was a plain read) and both got its messages.

The rule here (docs/decisions.md, "Exactly once across processes on SQLite"):

* every group lock on a shared file is taken under the file's write lock — RECEIVE and GET
  CONVERSATION GROUP open the write transaction (``BEGIN IMMEDIATE``) *before* they pick —
  so a pick and its lock are one step no other process can interleave with;
* a transaction then owns its groups by holding that write lock to its end (*pending*
  claims, nothing written for them), or — as soon as it pauses (its batch ends, it sleeps
  in WAITFOR, it waits for a lock) while it has written nothing else — by *publishing*
  them: a row per group in ``tsqlb_sb_group_claims`` naming the owner (process tag,
  transaction id), committed, after which the write lock goes and other processes skip
  those groups. A transaction that RECEIVEs and commits without pausing (the usual
  activated procedure) never writes a claim row: the claims cost nothing then;
* a published claim is deleted in the owner's commit (with the RECEIVEd rows), or just
  after its rollback; the other processes hear of it through the file's wake-ups;
* a claim whose owner process died (its ``owner-<tag>`` lock in the lock directory is
  free: ``filelocks``) counts for nothing and is deleted by the next RECEIVE that finds the
  queue otherwise empty, and by the broker clock of the hosting process.

Waits (docs/decisions.md, "Waiting for a group another process holds on SQLite"): SQL
Server's lock manager grants a released lock to a transaction already waiting for it, before
a newcomer. Here the holder's commit only wakes the waiter, and a holder that RECEIVEs again
at once (an activated procedure's loop) picked the group back before the waiter looked —
every time, on a busy machine. So:

* a transaction that starts waiting for a group another transaction holds (of another
  process, or of this one: the other processes' picks race it as well) writes a row in
  ``tsqlb_sb_group_waits`` (group, owner tag, transaction id, ``since``) — in the write
  transaction it opened to look at the claim, committed instead of rolled back: no extra
  write lock — and writes ``since`` again every ``_WAIT_REFRESH_S`` while it waits;
* a pick (RECEIVE / GET CONVERSATION GROUP without WHERE) passes over the groups of other
  transactions' wait rows younger than ``WAIT_PRECEDENCE_S``, as it passes over other
  processes' claims: one more subquery of :data:`PASSED_OVER`, on a table that is empty
  unless somebody waits — nothing else costs anything while nobody waits;
* the row goes with the wait: in the write transaction that takes the group, in one
  committed when the wait ends without it (timeout, cancel), at the transaction's commit or
  rollback otherwise (a deadlock victim); the other processes are woken when it goes
  without the group taken. A row left by a process that died is reaped with its claims
  (``lockdir.alive``); any other left-over row stops counting after ``WAIT_PRECEDENCE_S``
  (a waiter that went away never strands a group).

Being woken is not being granted: the waiter must still win the file's write lock and look
before the holder's next transaction, which a directed RECEIVE … WHERE (or a lock for SEND /
END: they pass over no waited group) or a lapsed 5 s window let the holder win. So the end
of a transaction that published claims *grants* each of its groups another process's live
transaction waits for (:data:`_GRANT`, in the same storage transaction as the end): the
claim row is rewritten to name the first waiter in line (rowid order: a new wait joins the
end of the line, a refresh keeps its place); every other transaction keeps off the group,
and the waiter finds its own claim at its next look and takes it. A grant never taken up
(a deadlock victim's) passes to the next waiter at its transaction's end, or goes with its
claims. A group owned only by the write lock (*pending*) needs none: no other process can
look at it before that transaction has ended.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import or_, select

from ...errors import broker_error
from ...storage.backends.sqlite.file_locks import LockDir
from ...storage.store import StoreConnection
from ...storage.txn import LockManager, Txn
from .fastsql import run
from .schema import PREFIX, BrokerTables
from .waits import QueueKey, QueueSignals

log = logging.getLogger(__name__)

CLAIMS = f"{PREFIX}group_claims"
WAITS = f"{PREFIX}group_waits"
# How often a wait for a group another process holds looks again, besides wake-ups.
_WAIT_STEP_S = 0.25
# How long after a waiter's last look picks of other transactions pass over its group: long
# enough to outlast a slow look (a busy write lock), short enough that a waiter that went away
# without deleting its row (it died: reaped sooner) delays nobody for long.
WAIT_PRECEDENCE_S = 5.0
# A live waiter writes ``since`` again this often (in a look it makes anyway).
_WAIT_REFRESH_S = WAIT_PRECEDENCE_S / 4
# SQL fragment: the groups a pick passes over — other processes' claims and other
# transactions' recent waits (parameters: :meth:`GroupClaims.passed_over_params`).
PASSED_OVER = (f"SELECT conversation_group_id FROM {CLAIMS} WHERE owner <> ? UNION ALL "
               f"SELECT conversation_group_id FROM {WAITS} WHERE since > ? "
               "AND (owner <> ? OR txn_id <> ?)")

GroupKey = tuple[int, str]          # (database_id, conversation_group_id)


@dataclass
class TxnClaims:
    """The groups one transaction owns through this module."""

    # Owned under the write lock this transaction holds, not in the claims table.
    pending: dict[str, tuple[int, int]] = field(default_factory=dict)
    # In the claims table: group -> (database_id, queue_id).
    published: dict[str, tuple[int, int]] = field(default_factory=dict)
    # The group its published claims say it waits for (claims.waiting_for).
    waiting_for: str | None = None
    # Its row in the waits table, as last written — (group, database_id, queue_id) —, and
    # when (time.time()); None: it has none, or its deletion is committed.
    wait: tuple[str, int, int] | None = None
    wait_written: float = 0.0
    # The row's deletion is in the write transaction open (its end deletes it again).
    wait_dropped: bool = False


class GroupClaims:
    """Group ownership of this process's transactions towards the other processes of one
    shared SQLite file."""

    def __init__(self, lockdir: LockDir, locks: LockManager, signals: QueueSignals,
                 released: Callable[[list[tuple[int, int]]], None]) -> None:
        """``released(queues)``: tell the other processes that claims on those queues'
        groups are gone (their waiters look again)."""
        self.lockdir = lockdir
        self.tag = lockdir.tag
        self.locks = locks
        self.signals = signals
        self.released = released
        # Transactions whose published claims could not be deleted after a rollback (the
        # store was busy): retried by the next publish or reap of this process.
        self._stale: set[int] = set()

    # -- taking a group -----------------------------------------------------------------------
    def lock(self, txn: Txn, db_id: int, group: str, queue_id: int, timeout: float | None,
             cancelled: Callable[[], bool] | None, deadlock_wait: float, *,
             picked: bool = False) -> bool:
        """Lock ``group`` for ``txn`` here and towards other processes, waiting up to
        ``timeout`` seconds (0: not at all) while another transaction holds it. A transaction
        that has written (it keeps the write lock: the holder could never commit) waits at
        most ``deadlock_wait``. Leaves the write transaction open on success. ``picked``: the
        group was just picked under the write lock still held, by a pick that passes over
        groups other processes claim — no claim needs looking up (one statement less)."""
        key = (db_id, group)
        try:
            return self._lock(txn, key, queue_id, timeout, cancelled, deadlock_wait, picked)
        finally:
            self.locks.end_wait(txn)

    def _lock(self, txn: Txn, key: GroupKey, queue_id: int, timeout: float | None,
              cancelled: Callable[[], bool] | None, deadlock_wait: float,
              picked: bool) -> bool:
        conn = txn.conn
        db_id, group = key
        deadline = None if timeout is None else time.monotonic() + timeout
        if conn.in_write_txn and conn.written:
            cap = time.monotonic() + deadlock_wait
            deadline = cap if deadline is None else min(deadline, cap)
        while True:
            if self.locks.holder(key) == txn.id:
                return True
            if self.locks.held_by_other(key, txn):
                # A session of this process holds it: the wait is the lock manager's to see
                # from its first moment (1205 here if it closes a cycle), not only once the
                # look below and its wait row are done — a member of the cycle already
                # waiting would find the cycle first and be chosen instead.
                self.locks.begin_wait(key, txn)
            opened = conn.begin_unwritten()
            unclaimed = picked and not opened
            picked = False              # a wait below may let other processes claim it
            local = self.locks.held_by_other(key, txn)
            claim = None if unclaimed else self._claim(conn, group)
            if not local and (claim is None or not self._blocks(claim)):
                self.locks.try_acquire(key, txn)
                if claim == (self.tag, txn.id):
                    # Granted by the holder's end (see _grant): the row is this one's now.
                    self._state(txn).published[group] = (db_id, queue_id)
                self.add_pending(txn, db_id, group, queue_id)
                self._drop_wait(txn.state["claims"], txn)   # with this write transaction
                return True
            ending = timeout == 0.0 or (deadline is not None and time.monotonic() >= deadline) \
                or (cancelled is not None and cancelled())
            st: TxnClaims | None = txn.state.get("claims")
            dropped = self._drop_wait(st, txn) if st is not None and opened and ending else None
            wrote = dropped is not None
            if not ending and conn.in_write_txn and not conn.written:
                # Committed below, or by the pause's publish (pending claims). Also when a
                # session of this process holds the group: its commit wakes this one, and
                # other processes' picks would race it just the same.
                wrote = self._note_wait(txn, db_id, group, queue_id)
            if opened:
                conn.end_unwritten(commit=wrote)
            if ending:
                if st is not None and dropped is not None:
                    st.wait = None                  # committed
                    self._wait_gone([dropped])
                self._mark_wait(txn, None)
                return False
            txn.pause()           # publish what it owns; the write lock goes if it can
            self._mark_wait(txn, group)
            self._wait(txn, key, queue_id, deadline)
            if self._deadlock_victim(txn, group):
                self._mark_wait(txn, None)
                spid = getattr(txn.owner, "id", None)
                raise broker_error(1205, spid if isinstance(spid, int) else txn.id, "lock")

    def _wait(self, txn: Txn, key: GroupKey, queue_id: int, deadline: float | None) -> None:
        """One step of waiting for ``key``: on the lock manager (its deadlock check sees an
        in-process holder), else for a wake-up from another process."""
        step = _WAIT_STEP_S if deadline is None else max(
            0.0, min(_WAIT_STEP_S, deadline - time.monotonic()))
        if self.locks.held_by_other(key, txn):
            self.locks.begin_wait(key, txn)         # ended by lock()
            self.locks.wait_turn(key, txn, step)    # 1205 if it closes a cycle
            return
        qkey = (key[0], queue_id)
        self.signals.wait_change(qkey, self.signals.generation(qkey),
                                 time.monotonic() + step, lambda: False)

    # -- waits --------------------------------------------------------------------------------
    def _note_wait(self, txn: Txn, db_id: int, group: str, queue_id: int) -> bool:
        """Write (or refresh) ``txn``'s wait row for ``group`` in the write transaction open
        and unwritten; False when the row is recent enough as it is. A refresh keeps the
        row's place in the group's line of waiters (its rowid: :data:`_GRANT`); a wait for
        another group goes to the end of that group's line."""
        st = self._state(txn)
        now = time.time()
        same = st.wait is not None and st.wait[0] == group and not st.wait_dropped
        if same and now - st.wait_written < _WAIT_REFRESH_S:
            return False
        run(txn.conn, _REFRESH_WAIT if same else _NEW_WAIT,
            (self.tag, txn.id, group, db_id, queue_id, now))
        st.wait, st.wait_written, st.wait_dropped = (group, db_id, queue_id), now, False
        return True

    def _drop_wait(self, st: TxnClaims, txn: Txn, *, again: bool = False) -> QueueKey | None:
        """Delete ``txn``'s wait row (if it may have one; ``again``: also if deleted in the
        write transaction already, which a rollback to a savepoint may have undone) in the
        write transaction open; its queue if it did. Until that commits, ``st.wait`` stays:
        the transaction's end deletes the row again."""
        if st.wait is None or (st.wait_dropped and not again):
            return None
        run(txn.conn, f"DELETE FROM {WAITS} WHERE owner = ? AND txn_id = ?", (self.tag, txn.id))
        st.wait_dropped = True
        return st.wait[1], st.wait[2]

    def _wait_gone(self, queues: list[QueueKey]) -> None:
        """Wait rows on ``queues`` were deleted without their groups taken: the picks that
        passed over those groups, here and in the other processes, look again."""
        for key in queues:
            self.signals.bump(key)
        self.released(queues)

    def passed_over_params(self, txn_id: int) -> tuple[object, ...]:
        """The parameters of :data:`PASSED_OVER` for a pick by transaction ``txn_id``."""
        return (self.tag, time.time() - WAIT_PRECEDENCE_S, self.tag, txn_id)

    def passed_over(self, t: BrokerTables, txn_id: int) -> Any:
        """:data:`PASSED_OVER` as a SQLAlchemy Core query on the tables ``t``."""
        c, w = t.claims, t.waits
        return select(c.c.conversation_group_id).where(c.c.owner != self.tag).union_all(
            select(w.c.conversation_group_id).where(
                w.c.since > time.time() - WAIT_PRECEDENCE_S,
                or_(w.c.owner != self.tag, w.c.txn_id != txn_id)))

    # -- deadlocks across processes -----------------------------------------------------------
    def _mark_wait(self, txn: Txn, group: str | None) -> None:
        """Say in the store which group ``txn`` waits for (None: no longer waits), so that
        the processes of a cycle of waits can see it. Only a transaction whose claims are
        published can be part of one (one that holds the write lock waits briefly, see
        :meth:`lock`)."""
        st: TxnClaims | None = txn.state.get("claims")
        conn = txn.conn
        if st is None or not st.published or st.waiting_for == group or conn.in_write_txn:
            return
        conn.begin_unwritten()
        run(conn, f"UPDATE {CLAIMS} SET waiting_for = ? WHERE owner = ? AND txn_id = ?",
            (group, self.tag, txn.id))
        conn.end_unwritten(commit=True)
        st.waiting_for = group

    def _deadlock_victim(self, txn: Txn, group: str) -> bool:
        """Whether ``txn``'s wait for ``group`` closes a cycle of waits through the claims
        table and ``txn`` is the cycle's victim: the member with the greatest (owner,
        transaction) — every member sees the same cycle, exactly one gives way."""
        st: TxnClaims | None = txn.state.get("claims")
        if st is None or st.waiting_for != group:
            return False          # holds no published claim: cannot close a cycle
        rows = run(txn.conn, f"SELECT conversation_group_id, owner, txn_id, waiting_for "
                   f"FROM {CLAIMS}").fetchall()
        holder = {g: (o, t) for g, o, t, _w in rows if self.lockdir.alive(o)}
        waits = {(o, t): w for _g, o, t, w in rows if w is not None}
        me = (self.tag, txn.id)
        members = [me]
        node = holder.get(group)
        while node is not None and node not in members:
            members.append(node)
            wanted = waits.get(node)
            node = None if wanted is None else holder.get(wanted)
        # A cycle within this process is the lock manager's to break (wait_turn): judging it
        # here too could pick a second victim.
        local = all(owner == self.tag for owner, _txn in members)
        return node == me and not local and max(members) == me

    def claimed_elsewhere(self, conn: StoreConnection, group: str) -> bool:
        """Whether a live process other than this one claims ``group``."""
        claim = self._claim(conn, group)
        return claim is not None and self._blocks(claim)

    def _claim(self, conn: StoreConnection, group: str) -> tuple[str, int] | None:
        """The (owner, transaction id) of ``group``'s claim row, if it has one."""
        row = run(conn, f"SELECT owner, txn_id FROM {CLAIMS} WHERE conversation_group_id = ?",
                  (group,)).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def _blocks(self, claim: tuple[str, int]) -> bool:
        """Whether a claim keeps this process's transactions off its group: one of a live
        other process (this process's own are the lock manager's to judge)."""
        return claim[0] != self.tag and self.lockdir.alive(claim[0])

    def add_pending(self, txn: Txn, db_id: int, group: str, queue_id: int) -> None:
        """``txn`` owns ``group`` by holding the write lock (just picked under it)."""
        st = self._state(txn)
        if group not in st.published:
            st.pending[group] = (db_id, queue_id)

    def _state(self, txn: Txn) -> TxnClaims:
        st: TxnClaims | None = txn.state.get("claims")
        if st is None:
            st = txn.state["claims"] = TxnClaims()
            txn.on_pause(lambda t=txn: self.publish(t))
            txn.before_commit(lambda t=txn, s=st: self._delete_at_commit(t, s))
            txn.after_end(lambda committed, t=txn, s=st: self._ended(t, s, committed))
        return st

    # -- pausing: publish ---------------------------------------------------------------------
    def publish(self, txn: Txn) -> None:
        """The session pauses: if its storage transaction holds only claims, write them
        (committed) and let the write lock go; else it keeps the write lock to its end."""
        st: TxnClaims | None = txn.state.get("claims")
        conn = txn.conn
        if not conn.in_write_txn or conn.written:
            return
        if st is not None and st.pending:
            run_many(conn, f"INSERT OR REPLACE INTO {CLAIMS} (conversation_group_id, "
                     "database_id, queue_id, owner, txn_id) VALUES (?, ?, ?, ?, ?)",
                     [(g, d, q, self.tag, txn.id) for g, (d, q) in st.pending.items()])
            self._delete_stale(conn)
        conn.end_unwritten(commit=True)
        if st is not None:
            st.published.update(st.pending)
            st.pending.clear()

    # -- ending -------------------------------------------------------------------------------
    def _delete_at_commit(self, txn: Txn, st: TxnClaims) -> None:
        if st.published or st.wait is not None:
            txn.conn.write()
            self._delete_rows(txn, st)
            self._delete_stale(txn.conn)

    def _delete_rows(self, txn: Txn, st: TxnClaims) -> None:
        """Grant ``txn``'s claimed groups other processes wait for to their first waiters,
        delete its other claim rows (and a claim granted to its wait it never took up) and
        its wait row (in the write transaction open)."""
        if st.published or st.wait is not None:
            run(txn.conn, _GRANT, (self.tag, txn.id, time.time() - WAIT_PRECEDENCE_S))
            run(txn.conn, f"DELETE FROM {CLAIMS} WHERE owner = ? AND txn_id = ?",
                (self.tag, txn.id))
        self._drop_wait(st, txn, again=True)

    def _ended(self, txn: Txn, st: TxnClaims, committed: bool) -> None:
        if not st.published and st.wait is None:
            return
        if not committed:
            conn = txn.conn
            try:
                conn.write()
                self._delete_rows(txn, st)
                conn.commit()
            except Exception:
                log.warning("could not delete the group claims or wait of a rolled-back "
                            "transaction; retried later", exc_info=True)
                conn.rollback()
                self._stale.add(txn.id)
        if st.wait is not None:
            self._wait_gone([(st.wait[1], st.wait[2])])
        if st.published:
            self.released(sorted(set(st.published.values())))

    def _delete_stale(self, conn: StoreConnection) -> None:
        if self._stale:
            stale = sorted(self._stale)
            for table in (CLAIMS, WAITS):
                run(conn, _delete_txns_sql(table, len(stale)), (self.tag, *stale))
            self._stale.difference_update(stale)

    # -- dead owners --------------------------------------------------------------------------
    def dead_owners(self, conn: StoreConnection, queue_id: int | None = None) -> list[str]:
        """Owners of claims or waits (of one queue, or all) whose process is gone."""
        if queue_id is None:
            owners = run(conn, _OWNERS, (self.tag, self.tag)).fetchall()
        else:
            owners = run(conn, _QUEUE_OWNERS, (self.tag, queue_id, self.tag, queue_id)
                         ).fetchall()
        return [o for (o,) in owners if not self.lockdir.alive(o)]

    def reap(self, conn: StoreConnection, owners: list[str]) -> list[tuple[int, int]]:
        """Delete the claims and waits of dead ``owners`` (in the caller's write
        transaction); the queues of their groups."""
        if not owners:
            return []
        marks = ", ".join("?" * len(owners))
        queues = run(conn, f"SELECT database_id, queue_id FROM {CLAIMS} WHERE owner IN "
                     f"({marks}) UNION SELECT database_id, queue_id FROM {WAITS} WHERE owner "
                     f"IN ({marks})", (*owners, *owners)).fetchall()
        for table in (CLAIMS, WAITS):
            run(conn, f"DELETE FROM {table} WHERE owner IN ({marks})", tuple(owners))
        return [(int(d), int(q)) for d, q in queues]


def run_many(conn: StoreConnection, sql: str, rows: list[tuple[object, ...]]) -> None:
    """``sql`` once per row, on the session's DBAPI connection."""
    cursor = conn.conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(sql, rows)
    finally:
        cursor.close()


# A wait row: a new wait joins the end of its group's line (a new rowid: REPLACE deletes
# the transaction's old row first); a refresh keeps its place (an upsert updates in place).
_NEW_WAIT = (f"INSERT OR REPLACE INTO {WAITS} (owner, txn_id, conversation_group_id, "
             "database_id, queue_id, since) VALUES (?, ?, ?, ?, ?, ?)")
_REFRESH_WAIT = (f"INSERT INTO {WAITS} (owner, txn_id, conversation_group_id, database_id, "
                 "queue_id, since) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner, txn_id) "
                 "DO UPDATE SET since = excluded.since")
# At the end of a transaction that claimed groups (parameters: its owner tag, its id, the
# oldest ``since`` that counts): each of its claims that another
# process's live transaction waits for becomes the claim of the first of them in line (the
# smallest rowid), as SQL Server's lock manager grants a released lock to the first waiter.
# The grantee finds its own claim at its next look and takes the group; until then every
# other transaction — the holder's next pick or directed RECEIVE included — keeps off it.
_GRANT = (f"INSERT OR REPLACE INTO {CLAIMS} (conversation_group_id, database_id, queue_id, "
          f"owner, txn_id) SELECT w.conversation_group_id, w.database_id, w.queue_id, "
          f"w.owner, w.txn_id FROM {WAITS} w WHERE w.rowid IN (SELECT (SELECT w2.rowid "
          f"FROM {WAITS} w2 WHERE w2.conversation_group_id = c.conversation_group_id "
          "AND w2.owner <> c.owner AND w2.since > ?3 ORDER BY w2.rowid LIMIT 1) "
          f"FROM {CLAIMS} c WHERE c.owner = ?1 AND c.txn_id = ?2)")
_OWNERS = (f"SELECT owner FROM {CLAIMS} WHERE owner <> ? "
           f"UNION SELECT owner FROM {WAITS} WHERE owner <> ?")
_QUEUE_OWNERS = (f"SELECT owner FROM {CLAIMS} WHERE owner <> ? AND queue_id = ? "
                 f"UNION SELECT owner FROM {WAITS} WHERE owner <> ? AND queue_id = ?")


@lru_cache(maxsize=64)
def _delete_txns_sql(table: str, n: int) -> str:
    return (f"DELETE FROM {table} WHERE owner = ? AND txn_id IN "
            f"({', '.join('?' * n)})")
