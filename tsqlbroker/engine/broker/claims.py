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
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from ...errors import broker_error
from ...storage.backends.sqlite.file_locks import LockDir
from ...storage.store import StoreConnection
from ...storage.txn import LockManager, Txn
from .fastsql import run
from .schema import PREFIX
from .waits import QueueSignals

log = logging.getLogger(__name__)

CLAIMS = f"{PREFIX}group_claims"
# How often a wait for a group another process holds looks again, besides wake-ups.
_WAIT_STEP_S = 0.25
# SQL fragment: the groups other processes claim (one parameter: this process's tag).
FOREIGN_CLAIMED = f"SELECT conversation_group_id FROM {CLAIMS} WHERE owner <> ?"

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
            opened = conn.begin_unwritten()
            unclaimed = picked and not opened
            picked = False              # a wait below may let other processes claim it
            if not self.locks.held_by_other(key, txn) and (
                    unclaimed or not self.claimed_elsewhere(conn, group)):
                self.locks.try_acquire(key, txn)
                self.add_pending(txn, db_id, group, queue_id)
                return True
            if opened:
                conn.end_unwritten(commit=False)
            if timeout == 0.0 or (deadline is not None and time.monotonic() >= deadline) \
                    or (cancelled is not None and cancelled()):
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
        row = run(conn, f"SELECT owner FROM {CLAIMS} WHERE conversation_group_id = ?",
                  (group,)).fetchone()
        return row is not None and row[0] != self.tag and self.lockdir.alive(row[0])

    def add_pending(self, txn: Txn, db_id: int, group: str, queue_id: int) -> None:
        """``txn`` owns ``group`` by holding the write lock (just picked under it)."""
        st = txn.state.get("claims")
        if st is None:
            st = txn.state["claims"] = TxnClaims()
            txn.on_pause(lambda t=txn: self.publish(t))
            txn.before_commit(lambda t=txn, s=st: self._delete_at_commit(t, s))
            txn.after_end(lambda committed, t=txn, s=st: self._ended(t, s, committed))
        if group not in st.published:
            st.pending[group] = (db_id, queue_id)

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
        if st.published:
            txn.conn.write()
            run(txn.conn, f"DELETE FROM {CLAIMS} WHERE owner = ? AND txn_id = ?",
                (self.tag, txn.id))
            self._delete_stale(txn.conn)

    def _ended(self, txn: Txn, st: TxnClaims, committed: bool) -> None:
        if not st.published:
            return
        if not committed:
            conn = txn.conn
            try:
                conn.write()
                run(conn, f"DELETE FROM {CLAIMS} WHERE owner = ? AND txn_id = ?",
                    (self.tag, txn.id))
                conn.commit()
            except Exception:
                log.warning("could not delete the group claims of a rolled-back "
                            "transaction; retried later", exc_info=True)
                conn.rollback()
                self._stale.add(txn.id)
        self.released(sorted(set(st.published.values())))

    def _delete_stale(self, conn: StoreConnection) -> None:
        if self._stale:
            stale = sorted(self._stale)
            run(conn, _delete_txns_sql(len(stale)), (self.tag, *stale))
            self._stale.difference_update(stale)

    # -- dead owners --------------------------------------------------------------------------
    def dead_owners(self, conn: StoreConnection, queue_id: int | None = None) -> list[str]:
        """Owners of claims (of one queue, or all) whose process is gone."""
        if queue_id is None:
            owners = run(conn, f"SELECT DISTINCT owner FROM {CLAIMS} WHERE owner <> ?",
                         (self.tag,)).fetchall()
        else:
            owners = run(conn, f"SELECT DISTINCT owner FROM {CLAIMS} WHERE owner <> ? "
                         "AND queue_id = ?", (self.tag, queue_id)).fetchall()
        return [o for (o,) in owners if not self.lockdir.alive(o)]

    def reap(self, conn: StoreConnection, owners: list[str]) -> list[tuple[int, int]]:
        """Delete the claims of dead ``owners`` (in the caller's write transaction); the
        queues whose groups they held."""
        if not owners:
            return []
        marks = ", ".join("?" * len(owners))
        queues = run(conn, f"SELECT DISTINCT database_id, queue_id FROM {CLAIMS} "
                     f"WHERE owner IN ({marks})", tuple(owners)).fetchall()
        run(conn, f"DELETE FROM {CLAIMS} WHERE owner IN ({marks})", tuple(owners))
        return [(int(d), int(q)) for d, q in queues]


def run_many(conn: StoreConnection, sql: str, rows: list[tuple[object, ...]]) -> None:
    """``sql`` once per row, on the session's DBAPI connection."""
    cursor = conn.conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(sql, rows)
    finally:
        cursor.close()


@lru_cache(maxsize=64)
def _delete_txns_sql(n: int) -> str:
    return (f"DELETE FROM {CLAIMS} WHERE owner = ? AND txn_id IN "
            f"({', '.join('?' * n)})")
