"""Conversation-group locks: one transaction at a time works on a conversation group (SEND,
END, RECEIVE …). In this process through the store's lock manager; towards other processes
through the group's row lock (PostgreSQL) or published claims (a shared SQLite file,
``claims.py``). Waiters on a queue wake when the locks of its groups go.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ...errors import broker_error
from ...storage.backends.postgres import notices
from ...storage.txn import Txn
from . import row_locks
from .state import BrokerState, TxnBrokerState

log = logging.getLogger(__name__)

# How long a statement waits for a conversation-group lock before Msg 1222.
LOCK_TIMEOUT_S = 60.0
# How long a transaction holding SQLite's write lock waits for a group lock before it is
# chosen as a deadlock victim.
DEADLOCK_WAIT_S = 2.0


def holds_single_writer_lock(txn: Txn | None) -> bool:
    """Whether ``txn`` holds the store's single write lock (SQLite's) for writes of its own (not only for group
    claims it can publish, see claims.py): no other session can commit meanwhile, so a wait
    for one of them could only end in a timeout while blocking everyone else."""
    return (txn is not None and txn.conn.in_write_txn and txn.conn.written
            and txn.conn.backend.single_writer)


class GroupLocks:
    """Conversation-group locks of one broker (a part of
    :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState) -> None:
        self.state = state

    # -- locks --------------------------------------------------------------------------------
    def lock(self, txn: Txn, db_id: int, group: str, queue_id: int,
             timeout: float | None = 0.0, cancelled: Callable[[], bool] | None = None, *,
             row_locked: bool = False, picked: bool = False) -> bool:
        """Lock conversation group ``group`` for ``txn`` (waiting up to ``timeout`` seconds;
        0 = do not wait). Registers the queue so its waiters wake when the lock goes.
        On PostgreSQL the group's row is locked too, so other processes respect the lock
        (``row_locked``: the caller already holds it); on a shared SQLite file see
        ``claims.lock`` (``picked``: the group was picked under the write lock, passing over
        other processes' claims)."""
        # The transaction's broker state first: its end hook runs before the locks' release.
        self.state.txn_state(txn)
        # (try_acquire and acquire take a lock the transaction holds already at once.)
        if row_locked:
            ok = self.state.locks.try_acquire((db_id, group), txn)
        elif txn.conn.backend.row_locks:
            ok = (self.state.locks.holder((db_id, group)) == txn.id
                  or self._lock_rows(txn, db_id, group, timeout, cancelled))
        elif self.state.claims is not None:
            ok = self.state.claims.lock(txn, db_id, group, queue_id, timeout, cancelled,
                                        DEADLOCK_WAIT_S, picked=picked)
        elif timeout == 0.0:
            ok = self.state.locks.try_acquire((db_id, group), txn)
        else:
            ok = self.state.locks.acquire((db_id, group), txn, timeout, cancelled)
        if ok:
            self.locking_on(txn, db_id, queue_id)
        return ok

    def locking_on(self, txn: Txn, db_id: int, queue_id: int) -> None:
        """``txn`` locks (or is about to lock) a group of queue ``queue_id``: the queue's
        waiters wake when the transaction ends, other processes' with its commit."""
        st = self.state.txn_state(txn)
        st.locked_queues.add((db_id, queue_id))
        if txn.conn.backend.commit_notices:
            # Other processes' waiters hear of the release with the commit's NOTIFY.
            notices.commit_notices(txn).locked.add((db_id, queue_id))
        if not st.wake_registered:
            # Registered after the lock manager's release hook (added by the first
            # acquire), so waiters wake when the groups are really free.
            st.wake_registered = True
            txn.after_end(lambda c, s=st, t=txn: self._wake_locked(s, t, c))

    def _lock_rows(self, txn: Txn, db_id: int, group: str, timeout: float | None,
                 cancelled: Callable[[], bool] | None) -> bool:
        """Row lock (other processes) and in-process lock (other sessions here), tried
        together until both are had or ``timeout`` passes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            # The in-process lock first: a session of this process holding the group would
            # make the row lock wait for nothing (its row lock is held too).
            if self.state.locks.try_acquire((db_id, group), txn):
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                if remaining == 0.0 and row_locks.try_row_lock(txn.conn, group):
                    return True
                if remaining != 0.0 and row_locks.row_lock(txn.conn, group, remaining, cancelled):
                    return True
                # Held in another process: local rivals may have it once that one is done.
                self.state.locks.release((db_id, group), txn)
                return False
            if cancelled is not None and cancelled():
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self.state.locks.wait_turn((db_id, group), txn, 0.02)    # 1205 if it closes a cycle

    def _wake_locked(self, st: TxnBrokerState, txn: Txn, committed: bool) -> None:
        for key in st.locked_queues:
            self.state.signals.bump(key)
        if txn.conn.backend.commit_notices and st.locked_queues:
            # Waiters of other processes may have skipped these groups. A commit told them
            # already (its NOTIFY); a rollback or a failed commit did not.
            sent = txn.state.get("pg_notices")
            if committed and sent is not None and sent.sent:
                return
            try:
                notices.send_notices(txn.conn, [("l", db_id, queue_id)
                                               for db_id, queue_id in sorted(st.locked_queues)])
            except Exception:
                log.warning("could not notify other processes of released locks",
                            exc_info=True)

    def lock_or_fail(self, txn: Txn, db_id: int, group: str, queue_id: int) -> None:
        """Lock a group a statement must have (BEGIN DIALOG, SEND, END …): waits as a lock
        would, up to 60 s (Msg 1222). On SQLite a transaction that holds the storage write
        lock and waits for a group lock is in a deadlock unless the holder rolls back (the
        holder's commit needs the write lock): it waits briefly, then is the victim (1205)."""
        if self.lock(txn, db_id, group, queue_id, timeout=0.0):
            return
        blocking = holds_single_writer_lock(txn)
        timeout = DEADLOCK_WAIT_S if blocking else LOCK_TIMEOUT_S
        if not self.lock(txn, db_id, group, queue_id, timeout=timeout):
            if blocking:
                raise broker_error(1205, txn.id, "lock")
            raise broker_error(1222)

