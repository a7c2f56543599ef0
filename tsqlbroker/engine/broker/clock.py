"""The broker's clock: conversation timers, dialog lifetimes, closed-endpoint clean-up and
transmission-queue retries (reference §5.8, §5.9, §7). :meth:`Clock.tick` is called by
whoever owns the background thread (the activation manager) and by tests with a given time.
"""

from __future__ import annotations

import time
from datetime import datetime

from sqlalchemy import and_, func, select, update

from ...errors import message_text
from ...storage.store import StoreConnection
from ...storage.txn import Txn
from .delivery import Delivery
from .model import DIALOG_TIMER, Endpoint, utcnow
from .state import BrokerState

# Retry interval of held messages (SQL Server backs off from a few seconds to a minute).
RETRY_SECONDS = 4.0
_ACTIVE = ("SO", "SI", "CO", "DI")


class Clock:
    """Time-driven broker work (a part of :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, delivery: Delivery) -> None:
        self.state = state
        self.delivery = delivery
        self._next_retry = 0.0          # monotonic time of the next held-message retry

    def tick(self, now: datetime | None = None) -> float | None:
        """Fire due conversation timers (a DialogTimer message on the local queue), expire
        dialogs past their LIFETIME (Error -8489 on each side), purge closed endpoints past
        their security timestamp and retry held messages. Runs in its own transaction.
        Returns the seconds until the next due event (None: nothing scheduled)."""
        now = now or utcnow()
        conn = self.state.store.connect()
        txn = Txn(conn, owner="broker-clock")
        try:
            self.state.ensure_schema(conn)
            if not conn.backend.single_writer:
                # One process's clock at a time (a single writer is alone anyway); the next
                # one sees what it did.
                conn.write()
                conn.backend.xact_lock(conn, "tsqlb_clock")
            c = self.state.t.conversations
            due_timers = conn.execute(select(c).where(c.c.dialog_timer <= now)).mappings().all()
            expired = conn.execute(select(c).where(
                c.c.lifetime <= now, c.c.state.in_(_ACTIVE))).mappings().all()
            # Closed targets past their replay window, and ended endpoints whose peer never
            # answered before the dialog's lifetime ran out, are cleaned up.
            closed = conn.execute(select(c).where(
                ((c.c.state == "CD") & (c.c.security_timestamp <= now))
                | ((c.c.state == "DO") & (c.c.lifetime <= now)))).mappings().all()
            retry = bool(self.state.held_handles) and time.monotonic() >= self._next_retry
            dead = self.state.claims.dead_owners(conn) if self.state.claims is not None else []
            if due_timers or expired or closed or retry or dead:
                txn.write()
            if dead and self.state.claims is not None:
                # Groups claimed by processes that died: free again, here and elsewhere.
                freed = self.state.claims.reap(conn, dead)
                txn.after_commit(lambda: self._claims_freed(freed))
            for r in due_timers:
                ep = Endpoint.from_row(r)
                conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                             .values(dialog_timer=None))
                meta = self.state.meta.get(conn, ep.database_id)
                if meta is not None and ep.state not in ("DO", "CD"):
                    self.delivery.enqueue(conn, txn, meta, ep, DIALOG_TIMER, None, 0, now)
            for r in expired:
                ep = Endpoint.from_row(r)
                self.delivery.error_endpoint(conn, txn, ep, -8489, message_text(8489))
            for r in closed:
                self.delivery.delete_endpoint(conn, Endpoint.from_row(r))
            if retry:
                # Statement-driven retries (ALTER QUEUE, CREATE SERVICE …) happen at once;
                # the clock's own retries are spaced, as SQL Server backs off.
                self._next_retry = time.monotonic() + RETRY_SECONDS
                self.delivery.retry_held(conn, txn)
                self._prune_held(conn)
            txn.commit()
            return self._next_due(conn, now)
        except BaseException:
            txn.rollback()
            raise
        finally:
            conn.close()

    def _claims_freed(self, queues: list[tuple[int, int]]) -> None:
        for key in queues:
            self.state.signals.bump(key)
        self.state.claims_released(queues)

    def _prune_held(self, conn: StoreConnection) -> None:
        """Forget handles with nothing held any more. Exact only while this transaction holds
        the store's single write lock (no other writer can be holding a message meanwhile)."""
        if not conn.backend.single_writer:
            return
        tq = self.state.t.transmission
        present = set(conn.execute(
            select(tq.c.conversation_handle).distinct()).scalars())
        for handle in list(self.state.held_handles):
            if handle not in present:
                self.state.held_handles.discard(handle)

    def _next_due(self, conn: object, now: datetime) -> float | None:
        c = self.state.t.conversations
        timer = conn.execute(select(func.min(c.c.dialog_timer))).scalar()  # type: ignore
        life = conn.execute(select(func.min(c.c.lifetime)).where(  # type: ignore
            c.c.state.in_((*_ACTIVE, "DO")))).scalar()
        closed = conn.execute(select(func.min(c.c.security_timestamp)).where(  # type: ignore
            and_(c.c.state == "CD"))).scalar()
        times = [t for t in (timer, life, closed) if t is not None]
        due = [max((t - now).total_seconds(), 0.0) for t in times if isinstance(t, datetime)]
        if self.state.held_handles:
            due.append(RETRY_SECONDS)
        return min(due) if due else None
