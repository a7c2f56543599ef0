"""The activation manager's view of the broker (what
:class:`~tsqlbroker.engine.activation.ActivationManager` calls through ``BrokerQueues``):
queue events and receive outcomes, each activated queue's settings, whether a queue has a
message ready, interest in other processes' messages, poison-message handling.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select, update

from ...storage.txn import Txn
from ..activation import QueueSettings
from .notifications import Notifications
from .objects import Objects
from .receive import Receiving
from .state import BrokerState


class ActivationLink:
    """The broker's activation API (a part of :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, receiving: Receiving, objects: Objects,
                 notifications: Notifications) -> None:
        self.state = state
        self.receiving = receiving
        self.objects = objects
        self.notifications = notifications
        self._watched: set[tuple[int, int]] = set()    # see watch_queue

    def attach_activation(self, manager: Any) -> None:
        """Connect an :class:`~tsqlbroker.engine.activation.ActivationManager`: queue events
        go to ``manager.notify``, ends of receiving transactions to
        ``manager.receive_outcome`` (the poison-message counter); the dm_broker_* views read
        its monitors and tasks; new timers wake its clock (``manager.wake`` if it has one)."""
        self.state.activation = manager

        def forward(event: str, db_id: int, queue_id: int) -> None:
            if event in ("rollback_receive", "commit_receive", "forced_rollback_receive"):
                manager.receive_outcome(db_id, queue_id, event == "commit_receive",
                                        forced=event == "forced_rollback_receive")
            else:
                manager.notify(event, db_id, queue_id)
        self.state.add_queue_listener(forward)

    def activation_queue_settings(self, db_id: int, queue_id: int) -> Any:
        """QueueSettings of a queue (None if it is gone), for the activation manager."""
        conn = self.state.store.connect()
        try:
            meta = self.state.db(conn, db_id)
            q = meta.queues_by_id.get(queue_id)
            if q is None:
                return None
            return QueueSettings(
                db_id=db_id, queue_id=queue_id,
                name=f"[{meta.name}].[{q.schema_name}].[{q.name}]",
                procedure=q.activation_procedure, max_readers=q.max_readers,
                activation_enabled=q.is_activation_enabled,
                receive_enabled=q.is_receive_enabled, execute_as=q.execute_as,
                poison_message_handling=q.is_poison_message_handling_enabled,
                notification=self.notifications.queue_notified(conn, db_id, queue_id,
                                                               "QUEUE_ACTIVATION"))
        finally:
            conn.close()

    def watch_queue(self, db_id: int, queue_id: int, watching: bool) -> None:
        """Whether the activation manager must hear of messages other processes enqueue on
        the queue (PostgreSQL: declared as interest, see ``pgwake``; returns once in effect,
        so a look at the queue afterwards misses nothing)."""
        if self.state.interest is None:
            return
        key = (db_id, queue_id)
        with self.state.init_lock:
            if (key in self._watched) == watching:
                return
            if watching:
                self._watched.add(key)
            else:
                self._watched.discard(key)
        if watching:
            self.state.interest.acquire(db_id, queue_id)
        else:
            self.state.interest.release(db_id, queue_id)

    def activation_queues(self) -> list[tuple[int, int]]:
        """(db_id, queue_id) of every queue with activation enabled or a QUEUE_ACTIVATION
        event notification."""
        conn = self.state.store.connect()
        try:
            keys = [(q.database_id, q.object_id) for q in self.objects.queues(conn)
                    if q.is_activation_enabled]
            return keys + [k for k in self.notifications.notified_queues(conn) if k not in keys]
        finally:
            conn.close()

    def queue_ready(self, db_id: int, queue_id: int) -> bool:
        """Whether the queue has a message some session could RECEIVE now.

        On PostgreSQL a plain read, not the row-lock probe WAITFOR uses: FOR UPDATE SKIP
        LOCKED locks the rows for the probe's moment, and a WAITFOR (RECEIVE) checking just
        then skips them and sleeps through the message (nothing wakes it when a probe ends);
        the monitor probes often (``wait_idle`` polls it). Groups other processes hold are
        not seen here: a reader launched for them finds nothing and ends."""
        conn = self.state.store.connect()
        try:
            if not conn.backend.row_locks:
                return self.receiving.queue_has_ready_messages(conn, db_id, queue_id)
            self.state.ensure_schema(conn)
            m = self.state.t.messages
            conds = [m.c.queue_id == queue_id, m.c.status == 1]
            locked = {g for (d, g) in self.state.locks.locked_by_others(None) if d == db_id}
            if locked:
                conds.append(m.c.conversation_group_id.not_in(sorted(locked)))
            return conn.execute(select(m.c.queuing_order).where(and_(*conds)).limit(1)
                                ).first() is not None
        finally:
            conn.close()

    def disable_queue(self, db_id: int, queue_id: int) -> None:
        """Poison-message handling: STATUS = OFF on the queue (committed at once)."""
        conn = self.state.store.connect()
        txn = Txn(conn, owner="poison-message")
        try:
            self.state.db(conn, db_id)
            txn.write()
            self.state.meta.changed(txn, db_id)
            qt = self.state.t.queues
            conn.execute(update(qt).where(qt.c.object_id == queue_id).values(
                is_receive_enabled=False, is_enqueue_enabled=False))
            txn.after_commit(lambda: (self.state.signals.bump((db_id, queue_id)),
                                      self.state.notify("altered", db_id, queue_id)))
            txn.commit()
        except BaseException:
            txn.rollback()
            raise
        finally:
            conn.close()
