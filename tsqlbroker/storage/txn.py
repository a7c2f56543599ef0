"""The engine-level transaction of one session: deferred work, savepoints, locks and hooks.

A T-SQL transaction (explicit ``BEGIN TRAN`` or the implicit one around a single statement)
maps to one :class:`Txn`. It owns:

* the session's :class:`~tsqlbroker.storage.store.StoreConnection` (storage transaction opened
  lazily at the first write);
* *deferred operations*: work SQL Server applies at commit (delivering SENDs, deleting RECEIVEd
  messages). They are flushed, in order, inside the storage transaction just before COMMIT, so
  user DML and broker effects commit atomically;
* *undo callbacks* for in-memory state changed during the transaction (run on rollback, newest
  first);
* *before-commit* hooks, run once after the deferred operations, still inside the storage
  transaction (e.g. one coalesced PostgreSQL ``NOTIFY`` for everything the commit publishes);
* *after-commit* / *after-end* hooks (waking ``WAITFOR`` waiters, the activation monitor …);
* the conversation-group locks it holds (released when it ends).

Savepoints mark positions in all of these so that ``ROLLBACK TRAN name`` undoes exactly the
work done after ``SAVE TRAN name`` and keeps the locks (as SQL Server does).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import broker_error
from .failures import is_transient
from .store import StoreConnection

_txn_ids = itertools.count(1)
# How often a lock waiter looks again (cancellation, deadline) between wake-ups.
_WAIT_STEP_S = 0.25


class DeferredOp(Protocol):
    """Work applied at commit, inside the storage transaction."""

    def flush(self, conn: StoreConnection) -> None: ...


class CommitRetreat(BaseException):
    """Raised by :meth:`Txn.commit` when the work a statement arranged to travel with the
    COMMIT (see :attr:`Txn.commit_follows`) found, at commit, that it cannot apply: that work
    is undone, the transaction is still open and nothing is committed; the statement is to
    run again the long way, then the COMMIT. Not an ``Exception``: statement wrappers pass
    it on to the one that runs the two statements."""


@dataclass
class _Mark:
    name: str
    ops: int
    undo: int
    after_commit: int
    storage_savepoint: str | None


@dataclass(slots=True)
class CommitGuard:
    """A final statement that may find, when it runs at commit, that it cannot apply (see
    :meth:`~.store.StoreConnection.commit_guarded`): ``sql`` (parameterless) travels with
    the COMMIT; when its check fails nothing of it stays, the transaction is still open and
    ``fallback(conn)`` does the same work the long way before the transaction commits."""

    sql: str
    fallback: Callable[[StoreConnection], None]


@dataclass(slots=True)
class Txn:
    """One engine transaction. Not thread-safe: a transaction belongs to one session."""

    conn: StoreConnection
    owner: Any = None
    id: int = field(default_factory=lambda: next(_txn_ids))
    ops: list[DeferredOp] = field(default_factory=list)
    undo: list[Callable[[], None]] = field(default_factory=list)
    before_commit_hooks: list[Callable[[], str | None]] = field(default_factory=list)
    after_commit_hooks: list[Callable[[], None]] = field(default_factory=list)
    after_end_hooks: list[Callable[[bool], None]] = field(default_factory=list)
    pause_hooks: list[Callable[[], None]] = field(default_factory=list)
    marks: list[_Mark] = field(default_factory=list)
    active: bool = True
    # While the deferred operations flush: whether the one flushing is the last so far (its
    # final statement may then travel with the COMMIT, see fastsql.run_with_commit).
    flushing_last: bool = False
    # Set by the last deferred operation instead of a final statement of its own: sent first
    # with the COMMIT, undone and replaced by its fallback when its check fails.
    commit_guard: CommitGuard | None = None
    # Set while a statement directly followed by COMMIT runs, and while that COMMIT runs:
    # the statement may leave all its work to the COMMIT's round trip, checked there (see
    # :class:`CommitRetreat`).
    commit_follows: bool = False
    # The storage transaction committed with the transaction's last statement, whose rows
    # it returned (:meth:`commit_returning`): the COMMIT that follows only finishes.
    stored: bool = False
    # Free-form per-transaction state for engine modules (e.g. received queues for the
    # poison-message counter), keyed by module.
    state: dict[str, Any] = field(default_factory=dict)
    # The transaction met a failure not of its own making (deadlock victim, lock timeout,
    # lost connection, cancellation; storage/failures.py): its rollback is no sign of a
    # poison message.
    forced_rollback: bool = False

    # -- registration -------------------------------------------------------------------------
    def defer(self, op: DeferredOp) -> None:
        """Apply ``op`` at commit (dropped on rollback or rollback to an earlier savepoint)."""
        self.ops.append(op)

    def on_undo(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` if the work done so far is rolled back."""
        self.undo.append(fn)

    def before_commit(self, fn: Callable[[], str | None]) -> None:
        """Call ``fn`` at commit after every deferred operation has been flushed, inside the
        storage transaction. Unlike deferred operations these are kept by a rollback to a
        savepoint: they look at the transaction's state when it commits. ``fn`` may return
        parameterless SQL to be sent together with the COMMIT (one round trip; see
        :meth:`~.store.StoreConnection.commit`)."""
        self.before_commit_hooks.append(fn)

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` once the transaction has committed."""
        self.after_commit_hooks.append(fn)

    def after_end(self, fn: Callable[[bool], None]) -> None:
        """Call ``fn(committed)`` when the transaction ends either way (after locks are freed)."""
        self.after_end_hooks.append(fn)

    def write(self) -> None:
        """Open the storage transaction before a write."""
        self.conn.write()

    def on_pause(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` whenever the session pauses with this transaction open (see
        :meth:`pause`); kept until the transaction ends."""
        self.pause_hooks.append(fn)

    def pause(self) -> None:
        """The session stops running statements for a while with this transaction open —
        its batch ended, or it sleeps or waits (WAITFOR, a lock): engine modules give up
        what they need not hold meanwhile (the broker publishes its group claims and lets
        SQLite's write lock go when nothing was written yet)."""
        for fn in list(self.pause_hooks):
            fn()

    # -- savepoints ---------------------------------------------------------------------------
    def save(self, name: str) -> None:
        """``SAVE TRANSACTION name``: mark the current position (a storage savepoint, set
        when the write transaction begins if none is open yet)."""
        sp = f"tsqlb_sp_{self.id}_{len(self.marks)}"
        self.conn.savepoint(sp)
        # Savepoint names are case-sensitive, whatever the collation (SAVE TRANSACTION).
        self.marks.append(_Mark(name, len(self.ops), len(self.undo),
                                len(self.after_commit_hooks), sp))

    def has_savepoint(self, name: str) -> bool:
        return any(m.name == name for m in self.marks)

    def rollback_to(self, name: str) -> None:
        """``ROLLBACK TRANSACTION name``: undo the work after the savepoint, keep locks."""
        idx = max(i for i, m in enumerate(self.marks) if m.name == name)
        mark = self.marks[idx]
        del self.marks[idx + 1:]
        self._undo_after(mark)
        if mark.storage_savepoint is not None:
            # Keeps the storage transaction (and SQLite's write lock, which may be what
            # keeps this transaction's conversation groups its own: broker/claims.py).
            self.conn.rollback_to(mark.storage_savepoint)

    def position(self) -> _Mark:
        """The transaction's engine-level state now (deferred operations, undo callbacks,
        after-commit hooks), for :meth:`retreat`; no storage savepoint."""
        return _Mark("", len(self.ops), len(self.undo), len(self.after_commit_hooks), None)

    def retreat(self, mark: _Mark) -> None:
        """Undo the engine-level work registered since :meth:`position` gave ``mark``: the
        storage work of the retreating statement is the caller's to undo."""
        self._undo_after(mark)

    def _undo_after(self, mark: _Mark) -> None:
        del self.ops[mark.ops:]
        undo = self.undo[mark.undo:]
        del self.undo[mark.undo:]
        for fn in reversed(undo):
            fn()
        del self.after_commit_hooks[mark.after_commit:]

    # -- ending -------------------------------------------------------------------------------
    def commit_returning(self, sql: str) -> list[tuple[Any, ...]] | None:
        """PostgreSQL, a statement the COMMIT follows directly (:attr:`commit_follows`), with
        nothing deferred: run ``sql`` (parameterless, a check that may fail as
        :meth:`~.store.StoreConnection.commit_guarded` describes) and commit the storage
        transaction in the same round trip, the before-commit hooks' SQL between. Its rows
        once committed (:attr:`stored`: the COMMIT statement then only finishes, see
        :meth:`commit`); None when its check failed: nothing of it stays and the
        transaction is still open. A failure of the text rolls the transaction back."""
        # Not after SAVE TRANSACTION: a savepoint set before the first write waits for the
        # BEGIN, which this text would send without it.
        if (not self.active or self.ops or self.commit_guard is not None or self.marks
                or not self.conn.sends_with_commit):
            return None
        self.conn.write()
        try:
            along = [text for hook in self.before_commit_hooks if (text := hook())]
            rows = self.conn.commit_guarded_rows(sql, "; ".join(along) if along else None)
        except BaseException as e:
            if is_transient(e):
                self.forced_rollback = True
            self.rollback()
            raise
        if rows is not None:
            self.stored = True
        return rows

    def commit(self) -> None:
        """Flush deferred work, commit storage, then run hooks and free locks."""
        if not self.active:
            return
        if self.stored:
            self._finish_stored()
            return
        try:
            if self.ops:
                self.conn.write()
                self._flush(0, last_may_travel=True)
            guard, self.commit_guard = self.commit_guard, None
            along = [sql for hook in self.before_commit_hooks if (sql := hook())]
            if guard is not None and not self.conn.commit_guarded(guard.sql, "; ".join(along)):
                done = len(self.ops)
                guard.fallback(self.conn)
                self._flush(done, last_may_travel=False)   # what the fallback deferred
                # The hooks look again: the fallback may have changed what they publish.
                along = [sql for hook in self.before_commit_hooks if (sql := hook())]
                self.conn.commit("; ".join(along) if along else None)
            elif guard is None:
                self.conn.commit("; ".join(along) if along else None)
        except CommitRetreat:
            raise           # still open: the retreating statement runs again, then COMMIT
        except BaseException as e:
            if is_transient(e):
                self.forced_rollback = True
            self.rollback()
            raise
        self.active = False
        for fn in self.after_commit_hooks:
            fn()
        self._end(True)

    def _flush(self, start: int, *, last_may_travel: bool) -> None:
        """Flush the deferred operations from ``start`` on (an op may defer more while it
        flushes); ``last_may_travel``: the last one may send its final statement with the
        COMMIT (:attr:`flushing_last`)."""
        i = start
        try:
            while i < len(self.ops):
                self.flushing_last = last_may_travel and i == len(self.ops) - 1
                self.ops[i].flush(self.conn)
                i += 1
        finally:
            self.flushing_last = False

    def _finish_stored(self) -> None:
        """End a transaction whose storage committed already (:attr:`stored`): its commit
        hooks, then its locks freed."""
        self.active = False
        for fn in self.after_commit_hooks:
            fn()
        self._end(True)

    def rollback(self) -> None:
        """Undo everything: storage, deferred work and in-memory state; free locks. A
        transaction whose storage committed already (:attr:`stored`) cannot be undone: it
        ends as committed."""
        if not self.active:
            return
        if self.stored:
            self._finish_stored()
            return
        self.active = False
        try:
            self.conn.rollback()
        finally:
            for fn in reversed(self.undo):
                fn()
            self._end(False)

    def _end(self, committed: bool) -> None:
        self.commit_guard = None
        self.ops.clear()
        self.undo.clear()
        self.before_commit_hooks.clear()
        self.pause_hooks.clear()
        self.marks.clear()
        hooks = list(self.after_end_hooks)
        self.after_end_hooks.clear()
        for fn in hooks:
            fn(committed)


class LockManager:
    """Exclusive locks on named resources (conversation groups), owned by transactions.

    Locks are not counted: taking a lock the transaction already holds is a no-op. They are
    released together when the transaction ends. One manager per store (per process); the
    PostgreSQL backend adds row locks for several processes. Waiters are kept in a wait-for
    graph: a wait that would close a cycle ends in Msg 1205 (deadlock victim) instead of
    waiting out its timeout. Cycles through other processes' row locks are PostgreSQL's to
    find (see ``engine/broker/row_locks.py``).
    """

    def __init__(self) -> None:
        self._owners: dict[Any, int] = {}
        self._held: dict[int, set[Any]] = {}
        # The wait-for graph: transaction id → the resource it is waiting for.
        self._waiting: dict[int, Any] = {}
        self._cond = threading.Condition()

    def try_acquire(self, resource: Any, txn: Txn) -> bool:
        """Take ``resource`` for ``txn`` if it is free or already ``txn``'s; never waits."""
        with self._cond:
            owner = self._owners.get(resource)
            if owner is not None and owner != txn.id:
                return False
            if owner is None:
                self._owners[resource] = txn.id
                if txn.id not in self._held:
                    self._held[txn.id] = set()
                    txn.after_end(lambda _c, t=txn.id: self.release_all(t))
                self._held[txn.id].add(resource)
            return True

    def acquire(self, resource: Any, txn: Txn, timeout: float | None = None,
                cancelled: Callable[[], bool] | None = None) -> bool:
        """Take ``resource``, waiting (up to ``timeout`` seconds) while another holds it.
        Raises Msg 1205 when the wait would close a cycle of transactions waiting for each
        other: ``txn`` is the deadlock victim and is to be rolled back."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._waiting[txn.id] = resource
            try:
                while not self.try_acquire(resource, txn):
                    self._check_deadlock(txn)
                    if cancelled is not None and cancelled():
                        return False
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self._cond.wait(_WAIT_STEP_S if remaining is None
                                    else min(remaining, _WAIT_STEP_S))
                return True
            finally:
                self._waiting.pop(txn.id, None)

    def wait_turn(self, resource: Any, txn: Txn, seconds: float) -> None:
        """Wait up to ``seconds`` for another transaction to release ``resource``, as a
        waiter the deadlock check sees (Msg 1205 as in :meth:`acquire`): for callers that
        poll :meth:`try_acquire` together with another lock (the row lock of PostgreSQL)."""
        with self._cond:
            if not self.held_by_other(resource, txn):
                return
            marked = self._waiting.get(txn.id) == resource   # by begin_wait: stays
            self._waiting[txn.id] = resource
            try:
                self._check_deadlock(txn)
                self._cond.wait(seconds)
            finally:
                if not marked:
                    self._waiting.pop(txn.id, None)

    def begin_wait(self, resource: Any, txn: Txn) -> None:
        """``txn`` waits for ``resource`` from now until :meth:`end_wait`, between the steps
        of a polled wait too (:meth:`wait_turn`): a transaction that closes a cycle with it
        later finds the cycle and is the victim, not this one when it comes back. Raises
        Msg 1205 when this wait closes a cycle: checked here, in the step that makes the
        wait visible, or a member of the cycle already waiting could find it first (its next
        :meth:`wait_turn`) and be chosen instead."""
        with self._cond:
            self._waiting[txn.id] = resource
            self._check_deadlock(txn)

    def end_wait(self, txn: Txn) -> None:
        """``txn`` no longer waits (see :meth:`begin_wait`)."""
        with self._cond:
            self._waiting.pop(txn.id, None)

    def _check_deadlock(self, txn: Txn) -> None:
        """Follow the wait-for graph from ``txn`` (what it waits for, who holds that, what
        that one waits for …); back at ``txn`` it is a cycle no wait can end. The transaction
        that closes a cycle finds it at once and is the victim (SQL Server picks the cheapest
        to roll back; any one of them breaks the cycle). Caller holds ``_cond``."""
        seen = {txn.id}
        resource = self._waiting.get(txn.id)
        while resource is not None:
            holder = self._owners.get(resource)
            if holder is None:
                return
            if holder == txn.id:
                self._waiting.pop(txn.id, None)
                spid = getattr(txn.owner, "id", None)
                raise broker_error(1205, spid if isinstance(spid, int) else txn.id, "lock")
            if holder in seen:
                return          # a cycle that does not pass through txn: its members see it
            seen.add(holder)
            resource = self._waiting.get(holder)

    def held_by_other(self, resource: Any, txn: Txn | None) -> bool:
        """Whether a transaction other than ``txn`` holds ``resource``."""
        with self._cond:
            owner = self._owners.get(resource)
            return owner is not None and (txn is None or owner != txn.id)

    def holder(self, resource: Any) -> int | None:
        with self._cond:
            return self._owners.get(resource)

    def locked_by_others(self, txn: Txn | None) -> set[Any]:
        """Every resource held by some transaction other than ``txn``."""
        with self._cond:
            tid = None if txn is None else txn.id
            return {r for r, o in self._owners.items() if o != tid}

    def snapshot(self) -> tuple[list[tuple[Any, int]], list[tuple[Any, int]]]:
        """(granted, waiting): ``(resource, transaction id)`` of every lock held and of
        every transaction waiting for one (sys.dm_tran_locks, sp_who's blk)."""
        with self._cond:
            return list(self._owners.items()), [(r, t) for t, r in self._waiting.items()]

    def release(self, resource: Any, txn: Txn) -> None:
        """Give back one resource ``txn`` took in this transaction (a lock it could not
        complete, e.g. a group whose row another process holds)."""
        with self._cond:
            if self._owners.get(resource) == txn.id:
                del self._owners[resource]
                self._held.get(txn.id, set()).discard(resource)
                self._cond.notify_all()

    def release_all(self, txn_id: int) -> None:
        with self._cond:
            for resource in self._held.pop(txn_id, set()):
                if self._owners.get(resource) == txn_id:
                    del self._owners[resource]
            if self._waiting:       # only waiters (acquire / wait_turn) need waking
                self._cond.notify_all()
