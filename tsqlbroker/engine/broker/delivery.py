"""SEND and message delivery: at commit each sent message is routed to the target service
(any database of the instance), checked against the *target* database's definitions and
enqueued — or held in the sender database's transmission queue with a status text and
delivered later (tick, ALTER QUEUE … STATUS = ON, ALTER DATABASE … ENABLE_BROKER, CREATE
SERVICE). Reference §5.5, §5.6, §5.10, §7.

Exactly-once-in-order: a conversation with held messages queues new ones behind them; held
messages of a conversation are retried in sequence order and the retry stops at the first one
that still cannot be delivered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, insert, select, update

from ...errors import BrokerError, broker_error, message_text
from ...storage.store import StoreConnection
from ...storage.txn import CommitRetreat, Txn
from .. import access, visibility
from ..security import SA_ID, Security
from .fastsql import (
    CLAIM_PEER,
    CLAIM_SEND_PG,
    DELIVER_GUARDED_PG,
    DELIVER_PARAM_INDEXES,
    INSERT_MESSAGE,
    LOCK_INITIATOR_PG,
    SELECT_ENDPOINT_CLAIM,
    SEND_DELIVER_GUARDED_PG,
    UNCLAIM_SEND,
    db_time,
    endpoint_from,
    fetch_peer,
    guarded_with_commit,
    run,
    run_with_commit,
)
from .group_locks import GroupLocks
from .meta import DbMeta
from .model import (
    ALWAYS_ALLOWED,
    CLOSED_KEEP,
    DIALOG_TIMER,
    END_DIALOG,
    ERROR,
    SENDABLE_STATES,
    Acceptance,
    Endpoint,
    Outgoing,
    ServiceRow,
    error_body,
    new_uid,
    uid,
    utcnow,
)
from .schema import PREFIX
from .state import BrokerState
from .transport_route import held_for_network
from .validation import valid_error, well_formed_error

# Peers kept in Delivery.peers (all forgotten at once beyond this: it is only a hint).
_PEERS_KEPT = 4096

# Who may begin a dialog from another broker: (connection, target database, target service)
# to a refusal status (the message is retried later) or None.
Authorize = Callable[[StoreConnection, DbMeta, str], str | None]


@dataclass(slots=True)
class DeliverOp:
    """Deferred delivery of one outgoing message (a :class:`~..txn.DeferredOp`)."""

    delivery: Delivery
    txn: Txn
    out: Outgoing
    retain: tuple[int, str, int] | None = None    # (queue id, group id, service id) for copies
    cancelled: bool = False

    def flush(self, conn: StoreConnection) -> None:
        """Deliver (or hold) the message inside the committing storage transaction."""
        if self.cancelled:
            return
        if self.retain is not None:
            self.delivery._retain_copy(conn, self.out, *self.retain)
        self.delivery._deliver(conn, self.txn, self.out, last=self.txn.flushing_last)


@dataclass(slots=True)
class SendWithCommitOp:
    """A SEND left whole to the COMMIT that follows it (:meth:`Delivery.send_with_commit`;
    a :class:`~..txn.DeferredOp`)."""

    delivery: Delivery
    txn: Txn
    out: Outgoing
    sender: Endpoint
    peer: Endpoint
    params: tuple[Any, ...]
    mark: Any               # Txn.position() before the SEND
    locked_here: bool       # the in-process group lock was taken by this SEND

    def flush(self, conn: StoreConnection) -> None:
        """Send the SEND's one statement with the COMMIT; should that COMMIT not be the one
        that followed the SEND (the batch stopped between them), the long way now."""
        txn, d = self.txn, self.delivery
        if txn.commit_follows and guarded_with_commit(txn, SEND_DELIVER_GUARDED_PG,
                                                      self.params, self._retreat):
            d.state.enqueued_after_commit(txn, self.peer.database_id, self.peer.queue_id)
            txn.after_commit(self._sent)
            return
        self._give_back()
        d.send(txn, self.out.db_id, [self.out.handle], self.out.message_type, self.out.body,
               False)

    def _give_back(self) -> None:
        """Release what the SEND took in this process: the group's in-process lock without
        its row lock would pass the long way's row lock by."""
        if self.locked_here:
            self.delivery.state.locks.release(
                (self.sender.database_id, self.sender.conversation_group_id), self.txn)
        self.delivery.senders.pop(self.out.handle, None)

    def _retreat(self, _conn: StoreConnection) -> None:
        """The check failed at commit: undo the SEND's engine-level work and forget both
        hints (the long way reads both endpoints again and leaves fresh ones)."""
        self.txn.retreat(self.mark)
        self._give_back()
        self.delivery.peers.pop((self.out.conversation_id, self.peer.is_initiator), None)
        raise CommitRetreat()

    def _sent(self) -> None:
        self.sender.send_sequence += 1      # as the statement left it in storage


@dataclass
class RetryOp:
    """Deferred retry of held messages (after ALTER QUEUE ON, CREATE SERVICE …)."""

    delivery: Delivery
    txn: Txn
    filters: dict[str, Any]

    def flush(self, conn: StoreConnection) -> None:
        """Retry the held messages inside the committing storage transaction."""
        self.delivery.retry_held(conn, self.txn, **self.filters)


UPDATE_SEND_SEQUENCE = (f"UPDATE {PREFIX}conversation_endpoints SET send_sequence = ?, "
                        "state = ? WHERE conversation_handle = ?")
UPDATE_RECEIVE_SEQUENCE = (f"UPDATE {PREFIX}conversation_endpoints SET receive_sequence = ?, "
                           "state = ? WHERE conversation_handle = ?")


def held_row(tq: Any, r: Any) -> Any:
    """The WHERE clause that finds transmission-queue row ``r`` (read earlier, perhaps in
    another transaction) and no other. The id alone is not enough: SQLite gives a new row the
    highest id + 1, so when END … WITH ERROR deletes the highest row while the transport is
    sending it and holds its Error, the Error takes that id — and the acknowledgement of the
    old row would delete the Error. A conversation never reuses a sequence number, so id,
    handle and sequence number together name one message."""
    return and_(tq.c.id == r["id"], tq.c.conversation_handle == r["conversation_handle"],
                tq.c.message_sequence_number == r["message_sequence_number"])


def _rank(message_type: str) -> int:
    return 0 if message_type == DIALOG_TIMER else 1 if message_type == ERROR else 2


class Delivery:
    """SEND, routing, receiver-side validation, the transmission queue (a part of
    :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, group_locks: GroupLocks) -> None:
        self.state = state
        self.group_locks = group_locks
        # PostgreSQL: the peer endpoint last seen by a delivery, by (conversation id, side):
        # what the next delivery on the conversation checks its message against
        # (_deliver_guarded).
        self.peers: dict[tuple[str, int], Endpoint] = {}
        # PostgreSQL: a sender endpoint as a SEND this process committed left it, by handle
        # (send_with_commit's check).
        self.senders: dict[str, Endpoint] = {}

    # -- SEND ---------------------------------------------------------------------------------
    def send(self, txn: Txn, db_id: int, handles: list[Any], message_type: str | None,
             body: bytes | None, body_given: bool) -> None:
        """``SEND ON CONVERSATION (h [, …]) [MESSAGE TYPE t] [(body)]``.

        Every handle is checked before anything is sent (multicast is atomic): 8426 unknown
        handle (also — a choice, SQL Server's number is undocumented — for a handle listed
        twice), 8429 state, 8428 unknown type, 8431/8432/8434 contract, 8433 NULL body, 9618
        own queue disabled with retention. Delivery happens at commit."""
        conn = txn.conn
        meta = self.state.db(conn, db_id)
        if body_given and body is None:
            raise broker_error(8433)
        # Endpoint states are read under the storage write lock SEND needs anyway, so a
        # delivery committed meanwhile (an EndDialog making it DI …) is seen.
        txn.write()
        if not body:
            body = None
        type_name = "DEFAULT" if message_type is None else message_type
        if len(handles) == 1 and (
                (txn.commit_follows and self.send_with_commit(txn, meta, db_id, handles[0],
                                                              type_name, body))
                or self._send_claimed(txn, meta, db_id, handles[0], type_name, body)):
            return
        endpoints: list[Endpoint] = []
        seen: set[str] = set()
        for handle in handles:
            if handle is None:
                raise broker_error(8418)
            ep = self.state.endpoint(conn, db_id, handle)
            if ep is None:
                raise broker_error(8426, str(handle).upper())
            if ep.conversation_handle in seen:
                raise broker_error(8426, ep.conversation_handle)
            seen.add(ep.conversation_handle)
            self._check_sendable(meta, ep, type_name)
            endpoints.append(ep)
        for ep in endpoints:
            self.group_locks.lock_or_fail(txn, db_id, ep.conversation_group_id, ep.queue_id)
        # Locks in the one order (groups, initiator endpoints, target endpoints), then the
        # checks again on what a commit waited for may have changed, then the sends.
        locked: list[Endpoint] = []
        for ep in endpoints:
            fresh = self.lock_initiator_first(txn, ep)
            if fresh is None:
                raise broker_error(8426, ep.conversation_handle)
            if fresh is not ep:
                self._check_sendable(meta, fresh, type_name)
            locked.append(fresh)
        for ep in locked:
            self.queue_outgoing(txn, meta, ep, type_name, body)

    def _check_sendable(self, meta: DbMeta, ep: Endpoint, type_name: str) -> None:
        """SEND's checks of one endpoint: 8429 state, 8428 type, 8431/8432/8434 contract,
        9618 own queue disabled with retention."""
        if ep.state not in SENDABLE_STATES:
            raise broker_error(8429, ep.state)
        mt = meta.types_by_name.get(type_name)
        if mt is None:
            raise broker_error(8428, type_name)
        if type_name not in ALWAYS_ALLOWED:
            contract = meta.contracts_by_id.get(ep.service_contract_id)
            usage = contract.usages.get(mt.message_type_id) if contract else None
            if usage is None:
                raise broker_error(8431, type_name)
            if ep.is_initiator and not usage[0]:
                raise broker_error(8432, type_name)
            if not ep.is_initiator and not usage[1]:
                raise broker_error(8434, type_name)
        queue = meta.queues_by_id.get(ep.queue_id)
        if queue is not None and queue.is_retention_enabled and not queue.is_enqueue_enabled:
            raise broker_error(9618, queue.name)

    def _send_claimed(self, txn: Txn, meta: DbMeta, db_id: int, handle: Any, type_name: str,
                      body: bytes | None) -> bool:
        """PostgreSQL: SEND on one conversation in one statement when nothing stands in the
        way — the group's row lock, the endpoint's read and its sequence number are one
        UPDATE … RETURNING (three round trips on the full path). A shared SQLite file: the
        endpoint's read brings the owner of any claim another process published on its
        group, so that the group lock needs no look-up (:meth:`_send_unclaimed`). False,
        with nothing changed, whenever the full path must decide (unknown handle, state, a
        group lock to wait for …). On PostgreSQL a contract check failing after the claim
        leaves the group's row locked until the transaction ends (the full path checks
        before locking)."""
        conn = txn.conn
        if handle is None or type_name not in meta.types_by_name:
            return False
        try:
            key = uid(handle)
        except (ValueError, TypeError):
            return False
        if not conn.backend.row_locks:
            return self._send_unclaimed(txn, meta, db_id, key, type_name, body)
        rows = run(conn, CLAIM_SEND_PG, (key, db_id, key, db_id)).fetchall()
        if not rows:
            return False
        ep = endpoint_from(rows[0])
        ep.send_sequence -= 1          # the row came back with the number already taken
        try:
            self._check_sendable(meta, ep, type_name)
        except BrokerError:
            run(conn, UNCLAIM_SEND, (ep.send_sequence, key))
            raise
        # The in-process lock after the checks, as on the full path; the row lock came with
        # the claim.
        if not self.group_locks.lock(txn, db_id, ep.conversation_group_id, ep.queue_id,
                                     timeout=0.0, row_locked=True):
            run(conn, UNCLAIM_SEND, (ep.send_sequence, key))
            return False
        self.queue_outgoing(txn, meta, ep, type_name, body, claimed=True)
        txn.after_commit(lambda: self._remember_sender(key, ep))
        return True

    def _remember_sender(self, key: str, ep: Endpoint) -> None:
        if len(self.senders) >= _PEERS_KEPT:
            self.senders.clear()
        self.senders[key] = ep

    def send_with_commit(self, txn: Txn, meta: DbMeta, db_id: int, handle: Any,
                         type_name: str, body: bytes | None) -> bool:
        """PostgreSQL, a SEND the COMMIT follows directly (``txn.commit_follows``) on a
        conversation this process sent on before, to a local peer a delivery saw: no round
        trip now — the sender's claim, the peer's and the message are one statement sent
        with the COMMIT (``SEND_DELIVER_GUARDED_PG``), checked there against the sender
        endpoint the previous SEND left and the peer the previous delivery saw (the checks
        SEND makes in Python are made now, on those). Should either have changed, or the
        group be held elsewhere, the COMMIT retreats (``CommitRetreat``): nothing of the
        SEND stays and it runs again the long way, which reports its errors as SEND's.
        False, with nothing arranged, when the long way must decide now."""
        conn = txn.conn
        if (txn.ops or txn.commit_guard is not None or not conn.sends_with_commit
                or not conn.backend.row_locks or handle is None):
            return False
        try:
            key = uid(handle)
        except (ValueError, TypeError):
            return False
        ep = self.senders.get(key)
        if (ep is None or ep.database_id != db_id or ep.state not in ("SI", "CO")
                or key in self.state.held_handles or not meta.is_broker_enabled):
            return False
        try:
            self._check_sendable(meta, ep, type_name)
        except BrokerError:
            return False        # the long way reads the endpoint and says so
        queue = meta.queues_by_id.get(ep.queue_id)
        if queue is None or queue.is_retention_enabled:
            return False
        out = self._outgoing(meta, ep, type_name, body)
        hint = self._peer_hint(conn, out)
        if hint is None:
            return False
        peer, deliver = hint
        group = (db_id, ep.conversation_group_id)
        holder = self.state.locks.holder(group)
        if holder not in (None, txn.id):
            return False
        mark = txn.position()
        # The in-process lock now; the row lock comes with the statement.
        if not self.group_locks.lock(txn, db_id, ep.conversation_group_id, ep.queue_id,
                                     timeout=0.0, row_locked=True):
            return False
        params = (ep.conversation_group_id, ep.conversation_id, ep.is_initiator,
                  ep.send_sequence + 1, key, db_id, ep.send_sequence, ep.state, ep.queue_id,
                  ep.service_id, ep.service_contract_id, *deliver)
        txn.defer(SendWithCommitOp(self, txn, out, ep, peer, params, mark, holder is None))
        return True

    def _send_unclaimed(self, txn: Txn, meta: DbMeta, db_id: int, key: str, type_name: str,
                        body: bytes | None) -> bool:
        """:meth:`_send_claimed` on a shared SQLite file (under the write lock SEND took):
        the endpoint and the owner of a claim on its group in one statement; a group no
        other process claims is locked without a second look, as a pick's is (claims.py).
        Elsewhere, or when the group is claimed or held, False: the full path decides."""
        claims = self.state.claims
        if claims is None:
            return False
        row = run(txn.conn, SELECT_ENDPOINT_CLAIM, (key, db_id)).fetchone()
        if row is None or row[-1] not in (None, claims.tag):
            return False
        ep = endpoint_from(row[:-1])
        self._check_sendable(meta, ep, type_name)
        if not self.group_locks.lock(txn, db_id, ep.conversation_group_id, ep.queue_id,
                                     timeout=0.0, picked=True):
            return False
        self.queue_outgoing(txn, meta, ep, type_name, body)
        return True

    def queue_outgoing(self, txn: Txn, meta: DbMeta, ep: Endpoint, type_name: str,
                       body: bytes | None, *, claimed: bool = False) -> DeliverOp:
        """Take the next sequence number of ``ep`` (``claimed``: already taken in storage)
        and defer the delivery of one message."""
        conn = txn.conn
        txn.write()
        if not claimed or ep.state == "SO":
            run(conn, UPDATE_SEND_SEQUENCE, (ep.send_sequence + 1, "CO" if ep.state == "SO"
                                             else ep.state, ep.conversation_handle))
        out = self._outgoing(meta, ep, type_name, body)
        queue = meta.queues_by_id.get(ep.queue_id)
        retain = None
        if queue is not None and queue.is_retention_enabled and type_name not in (
                END_DIALOG, ERROR):
            retain = (ep.queue_id, ep.conversation_group_id, ep.service_id)
        op = DeliverOp(self, txn, out, retain)
        txn.defer(op)
        pending = self.state.txn_state(txn).pending_ops.setdefault(ep.conversation_handle, [])
        pending.append(op)
        ep.send_sequence += 1
        if ep.state == "SO":
            ep.state = "CO"
        return op

    @staticmethod
    def _outgoing(meta: DbMeta, ep: Endpoint, type_name: str, body: bytes | None
                  ) -> Outgoing:
        """The message ``ep`` sends next."""
        contract = meta.contracts_by_id.get(ep.service_contract_id)
        svc = meta.services_by_id.get(ep.service_id)
        return Outgoing(
            db_id=ep.database_id, handle=ep.conversation_handle,
            conversation_id=ep.conversation_id, is_initiator=ep.is_initiator,
            from_service=svc.name if svc else "", to_service=ep.far_service,
            target_broker=ep.target_broker,
            contract_name=contract.name if contract else "DEFAULT", seq=ep.send_sequence,
            message_type=type_name, body=body, priority=ep.priority, lifetime=ep.lifetime)

    def lock_initiator_first(self, txn: Txn, ep: Endpoint) -> Endpoint | None:
        """PostgreSQL, before target endpoint ``ep``'s row is changed: lock the row of its
        conversation's initiator endpoint first (waiting for it if need be), then read ``ep``
        again — a commit waited for may have changed it (None: it is gone). Delivery at commit
        changes the peer's row, so without one order two transactions working on the two
        ends of a conversation would each hold their own row and wait for the other's; with
        it they queue. Once per conversation and transaction; elsewhere ``ep`` as it is."""
        conn = txn.conn
        if not conn.backend.row_locks or ep.is_initiator:
            return ep
        done = self.state.txn_state(txn).initiators_locked
        if ep.conversation_id in done:
            return ep
        run(conn, LOCK_INITIATOR_PG, (ep.conversation_id,))
        done.add(ep.conversation_id)
        # A rollback to an earlier savepoint releases the lock again.
        txn.on_undo(lambda: done.discard(ep.conversation_id))
        return self.state.endpoint(conn, ep.database_id, ep.conversation_handle)

    def _retain_copy(self, conn: StoreConnection, out: Outgoing, queue_id: int, group: str,
                     service_id: int) -> None:
        """RETENTION = ON: a status-3 copy of a sent message in the sender's own queue."""
        meta = self.state.meta.get(conn, out.db_id)
        if meta is None:
            return
        contract = meta.contracts_by_name.get(out.contract_name)
        mt = meta.types_by_name.get(out.message_type)
        conn.execute(insert(self.state.t.messages).values(
            database_id=out.db_id, queue_id=queue_id, status=3, priority=out.priority,
            conversation_group_id=group, conversation_handle=out.handle,
            message_sequence_number=out.seq, service_name=out.from_service,
            service_id=service_id,
            service_contract_name=out.contract_name,
            service_contract_id=contract.service_contract_id if contract else 0,
            message_type_name=out.message_type,
            message_type_id=mt.message_type_id if mt else 0,
            validation=mt.validation if mt else "N", message_body=out.body,
            message_enqueue_time=out.enqueue_time, message_id=new_uid(),
            rank=_rank(out.message_type)))

    # -- delivery -----------------------------------------------------------------------------
    def _deliver(self, conn: StoreConnection, txn: Txn | None, out: Outgoing, *,
                 last: bool = False) -> None:
        """Deliver ``out`` now (inside the storage transaction) or hold it. ``last``: the
        transaction's last deferred operation is flushing (the final statement may travel
        with the COMMIT; on PostgreSQL the whole delivery may, see :meth:`_deliver_guarded`)."""
        sender = self.state.meta.get(conn, out.db_id)
        if sender is None:
            return
        if not sender.is_broker_enabled:
            self._hold(conn, out, message_text(9791))
            return
        if out.handle in self.state.held_handles and self._has_held(conn, out.handle):
            self._hold(conn, out, "")
            self.retry_held(conn, txn, handle=out.handle)
            return
        if last and self._deliver_guarded(conn, txn, out):
            return
        status = self._try_deliver(conn, txn, out, last=last)
        if status is not None:
            self._hold(conn, out, status)

    def _deliver_guarded(self, conn: StoreConnection, txn: Txn | None, out: Outgoing
                         ) -> bool:
        """PostgreSQL, the transaction's last deferred operation: an ordinary message to the
        local peer last seen on this conversation, checked here against that peer's
        definitions, claimed and enqueued by one statement that travels with the COMMIT
        (``DELIVER_GUARDED_PG``: no round trip of its own). Should the peer have changed
        meanwhile (moved, ended, another sequence number …), the statement writes nothing
        and the commit delivers the long way (:meth:`_try_deliver`) first. False, with
        nothing arranged, when the long way must decide now."""
        if txn is None or txn.commit_guard is not None:
            return False
        hint = self._peer_hint(conn, out)
        if hint is None:
            return False
        peer, params = hint

        def long_way(c: StoreConnection) -> None:
            self.peers.pop((out.conversation_id, peer.is_initiator), None)
            status = self._try_deliver(c, txn, out)
            if status is not None:
                self._hold(c, out, status)
        if not guarded_with_commit(txn, DELIVER_GUARDED_PG, params, long_way):
            return False
        self.state.enqueued_after_commit(txn, peer.database_id, peer.queue_id)
        return True

    def _peer_hint(self, conn: StoreConnection, out: Outgoing
                   ) -> tuple[Endpoint, tuple[Any, ...]] | None:
        """The peer a delivery last saw on ``out``'s conversation (only PostgreSQL's claims
        leave them: _deliver_claimed) when ``out``, an ordinary message, passes its checks
        there: with ``DELIVER_GUARDED_PG``'s parameters for it. Else None."""
        if out.is_end or out.is_error:
            return None
        peer = self.peers.get((out.conversation_id, 0 if out.is_initiator else 1))
        if peer is None:
            return None
        meta = self.state.meta.get(conn, peer.database_id)
        queue = meta.queues_by_id.get(peer.queue_id) if meta is not None else None
        if (meta is None or not meta.is_broker_enabled or queue is None
                or not queue.is_enqueue_enabled
                or self.check_incoming(conn, meta, peer, out) is not None):
            return None
        values = self._message_values(conn, meta, peer, out.message_type, out.body, out.seq,
                                      out.enqueue_time)
        return peer, (out.seq + 1, out.conversation_id, peer.is_initiator, out.seq,
                      peer.database_id, peer.queue_id, peer.service_id,
                      peer.service_contract_id, *(values[i] for i in DELIVER_PARAM_INDEXES))

    def _has_held(self, conn: StoreConnection, handle: str) -> bool:
        tq = self.state.t.transmission
        if conn.execute(select(tq.c.id).where(tq.c.conversation_handle == handle).limit(1)
                        ).first() is not None:
            return True
        self.state.held_handles.discard(handle)
        return False

    def _hold(self, conn: StoreConnection, out: Outgoing, status: str) -> None:
        target = out.target_broker
        if target is not None and target.strip().upper() == "CURRENT DATABASE":
            # sys.transmission_queue shows the broker instance the dialog was pinned to.
            sender = self.state.meta.get(conn, out.db_id)
            target = sender.broker_guid if sender else None
        conn.execute(insert(self.state.t.transmission).values(
            database_id=out.db_id, conversation_handle=out.handle,
            to_service_name=out.to_service, to_broker_instance=target,
            from_service_name=out.from_service, service_contract_name=out.contract_name,
            enqueue_time=out.enqueue_time, message_sequence_number=out.seq,
            message_type_name=out.message_type, is_conversation_error=out.is_error,
            is_end_of_dialog=out.is_end, message_body=out.body, transmission_status=status,
            priority=out.priority))
        self.state.held_handles.add(out.handle)

    def _route(self, conn: StoreConnection, out: Outgoing
               ) -> tuple[DbMeta, ServiceRow] | str:
        """The target database and service of a conversation's first message, or the
        transmission status explaining why there is none (reference §7, LOCAL routes)."""
        candidates: list[DbMeta] = []
        sender = self.state.meta.get(conn, out.db_id)
        tb = (out.target_broker or "").strip()
        if tb.upper() == "CURRENT DATABASE":
            candidates = [sender] if sender else []
        elif tb:
            candidates = [m for m in self.state.meta.all_loaded(conn)
                          if m.broker_guid == tb.upper()]
        else:
            others = [m for m in self.state.meta.all_loaded(conn) if m.database_id != out.db_id]
            candidates = ([sender] if sender else []) + others
        for meta in candidates:
            if meta.database_id not in self.state.initialised_dbs:
                meta = self.state.db(conn, meta.database_id)
            svc = meta.services_by_name.get(out.to_service)
            if svc is not None and meta.is_broker_enabled:
                return meta, svc
        return message_text(9793)

    def _try_deliver(self, conn: StoreConnection, txn: Txn | None, out: Outgoing, *,
                     last: bool = False) -> str | None:
        """Put ``out`` into its target queue; None when done (delivered, rejected with an
        Error back to the sender, or discarded), else the transmission status."""
        if self._deliver_claimed(conn, txn, out, last=last):
            return None
        peer = self._peer_of(conn, out)
        created = False
        if peer is None:
            remote = held_for_network(self.state, conn, out)   # another broker's (transport.py)
            if remote is not None:
                return remote
            if not out.is_initiator or out.is_end or out.is_error:
                return None          # nobody to tell: the far endpoint never existed / is gone
            routed = self._route(conn, out)
            if isinstance(routed, str):
                return routed
            meta, svc = routed
            queue = meta.queues_by_id.get(svc.service_queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return message_text(9617, queue.name if queue else svc.name)
            contract = meta.contracts_by_name.get(out.contract_name)
            if contract is None:
                self._reject(conn, txn, out, -8425, message_text(8425, out.contract_name))
                return None
            if contract.service_contract_id not in svc.contract_ids:
                self._reject(conn, txn, out, -8408,
                             message_text(8408, svc.name, out.contract_name))
                return None
            refused = self._send_refused(conn, out, meta, svc)
            if refused is not None:
                return refused
            peer = self._create_target(conn, out, meta, svc, contract.service_contract_id)
            created = True
        else:
            meta = self.state.meta.get(conn, peer.database_id)
            if meta is None:
                return None
            if not meta.is_broker_enabled:
                return message_text(9793)
            queue = meta.queues_by_id.get(peer.queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return message_text(9617, queue.name if queue else "")
            if peer.state in ("DO", "CD"):
                if out.is_end or out.is_error:
                    # Both sides ended at the same time: each end answers the other.
                    self.close(conn, peer)
                    sender = self.state.endpoint(conn, out.db_id, out.handle)
                    if sender is not None and sender.state == "DO":
                        self.close(conn, sender)
                return None
            if peer.state == "ER":
                return None
        problem = self._admit(conn, txn, meta, peer, out, created)
        if problem is not None:
            self._reject(conn, txn, out, *problem)
        return None

    def _admit(self, conn: StoreConnection, txn: Txn | None, meta: DbMeta, peer: Endpoint,
               out: Outgoing, created: bool) -> tuple[int, str] | None:
        """The target side's last step for a message the far endpoint ``peer`` (of database
        ``meta``) may take: checked with the target database's definitions, then enqueued and
        the endpoint's receive sequence (and state: DI after an EndDialog, ER after an Error)
        moved on. A refused message deletes an endpoint it ``created`` or closes the one
        there; the refusal, ``(code, text)`` of the Error for the sender, is returned."""
        problem = self.check_incoming(conn, meta, peer, out)
        if problem is not None:
            if created:
                self.delete_endpoint(conn, peer)
            else:
                self.close(conn, peer)
            return problem
        self.enqueue(conn, txn, meta, peer, out.message_type, out.body, out.seq,
                     out.enqueue_time)
        state = peer.state
        if out.is_end and state in ("SO", "SI", "CO"):
            state = "DI"
        elif out.is_error and state in ("SO", "SI", "CO", "DI"):
            state = "ER"
        run(conn, UPDATE_RECEIVE_SEQUENCE, (out.seq + 1, state, peer.conversation_handle))
        return None

    # -- messages from other brokers (the transport's receiver) -------------------------------
    def accept(self, txn: Txn, out: Outgoing, *, from_broker: str,
               authorize: Authorize | None = None) -> Acceptance:
        """Take a message another broker (instance ``from_broker``) sent, the way local
        delivery does (reference §5.5, §5.6), inside ``txn``: a first message makes the
        target endpoint — once ``authorize`` (given for unsecured dialogs) answers None for
        its target database and service; a resent one (its sequence number already
        received) is acknowledged again without a second copy; one ahead of the next
        expected number, or one the target cannot take now, is refused for a later retry
        (nack). The caller serialises the frames of one conversation."""
        conn = txn.conn
        peer = fetch_peer(conn, out.conversation_id, 0 if out.is_initiator else 1)
        created = False
        if peer is None:
            if not out.is_initiator or out.is_end or out.is_error:
                return Acceptance("ack")       # nobody to tell: the endpoint is gone
            target = self._remote_target(conn, out)
            if target is None:
                return Acceptance("error", code=-8490,
                                  text=message_text(8490, out.to_service))
            if isinstance(target, str):
                return Acceptance("nack", status=target)
            meta = target
            refused = authorize(conn, meta, out.to_service) if authorize else None
            if refused is not None:
                return Acceptance("nack", status=refused)
            svc = meta.services_by_name[out.to_service]
            queue = meta.queues_by_id.get(svc.service_queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return Acceptance("nack", status=message_text(
                    9617, queue.name if queue else svc.name))
            contract = meta.contracts_by_name.get(out.contract_name)
            if contract is None:
                return Acceptance("error", code=-8425,
                                  text=message_text(8425, out.contract_name))
            if contract.service_contract_id not in svc.contract_ids:
                return Acceptance("error", code=-8408,
                                  text=message_text(8408, svc.name, out.contract_name))
            peer = self._create_target(conn, out, meta, svc, contract.service_contract_id,
                                       from_broker=from_broker)
            created = True
        else:
            loaded = self.state.meta.get(conn, peer.database_id)
            if loaded is None:
                return Acceptance("ack")
            meta = loaded
            if out.seq < peer.receive_sequence:
                return Acceptance("ack", broker=meta.broker_guid, duplicate=True)
            if out.seq > peer.receive_sequence and not out.is_error:
                # The sender sends in order: a gap means an earlier message was lost on
                # the way (a frame dropped as corrupted); ``expect`` names it, so that the
                # sender resends from there at once. (END … WITH ERROR drops the messages
                # not yet sent: its Error may follow a gap.)
                return Acceptance("nack", status="Out of order message; waiting for "
                                  f"message {peer.receive_sequence}.",
                                  expect=peer.receive_sequence)
            if not meta.is_broker_enabled:
                return Acceptance("nack", status=message_text(9793))
            queue = meta.queues_by_id.get(peer.queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return Acceptance("nack", status=message_text(
                    9617, queue.name if queue else ""))
            if peer.state in ("DO", "CD"):
                if out.is_end or out.is_error:
                    # Both sides ended at the same time: ours closes, and its close notice
                    # (the remote-dialogs row stays) closes the far side.
                    self.close(conn, peer)
                return Acceptance("ack", broker=meta.broker_guid)
            if peer.state == "ER":
                return Acceptance("ack", broker=meta.broker_guid)
        problem = self._admit(conn, txn, meta, peer, out, created)
        made = peer if created else None
        if problem is not None:
            return Acceptance("error", code=problem[0], text=problem[1],
                              broker=meta.broker_guid, created=made,
                              closed=None if created else peer)
        return Acceptance("ack", broker=meta.broker_guid, created=made)

    def accept_close(self, txn: Txn, conversation_id: str, is_initiator: int
                     ) -> Endpoint | None:
        """The far side (on another broker) of the conversation closed its endpoint: ours,
        waiting in DISCONNECTED_OUTBOUND (DO) for that, closes too. The endpoint if it is
        closed now (the far side needs no close notice of it), else None."""
        peer = fetch_peer(txn.conn, conversation_id, 0 if is_initiator else 1)
        if peer is not None and peer.state == "DO":
            self.close(txn.conn, peer)
        return peer if peer is not None and peer.state in ("DO", "CD") else None

    def _remote_target(self, conn: StoreConnection, out: Outgoing) -> DbMeta | str | None:
        """The database holding the target service of a first message from another broker;
        a status text to retry later; None when no database here has it."""
        want = (out.target_broker or "").strip().upper()
        found: DbMeta | None = None
        for meta in self.state.meta.all_loaded(conn):
            if want and meta.broker_guid.upper() != want:
                continue
            if meta.database_id not in self.state.initialised_dbs:
                meta = self.state.db(conn, meta.database_id)
            if out.to_service in meta.services_by_name:
                if meta.is_broker_enabled:
                    return meta
                found = found or meta
        return message_text(9793) if found is not None else None

    def _deliver_claimed(self, conn: StoreConnection, txn: Txn | None, out: Outgoing, *,
                         last: bool = False) -> bool:
        """PostgreSQL: the common case of :meth:`_try_deliver` in two round trips instead of
        three — an ordinary message for an existing local peer in a conversing state that
        expects exactly ``out.seq`` (the peer's read and its sequence update are one UPDATE …
        RETURNING; ``last``: the INSERT, the transaction's final statement, travels with the
        COMMIT). False, with nothing changed, for anything else: the full path decides (on
        SQLite always: see fastsql's note on UPDATE … RETURNING there)."""
        if out.is_end or out.is_error or not conn.backend.row_locks:
            return False
        row = run(conn, CLAIM_PEER, (out.seq + 1, out.conversation_id,
                                     0 if out.is_initiator else 1, out.seq)).fetchall()
        if not row:
            return False
        peer = endpoint_from(row[0])
        if len(self.peers) >= _PEERS_KEPT:
            self.peers.clear()
        self.peers[(out.conversation_id, peer.is_initiator)] = peer
        meta = self.state.meta.get(conn, peer.database_id)
        queue = meta.queues_by_id.get(peer.queue_id) if meta is not None else None
        if (meta is None or not meta.is_broker_enabled or queue is None
                or not queue.is_enqueue_enabled
                or self.check_incoming(conn, meta, peer, out) is not None):
            # Held, discarded or rejected: give the number back for the full path.
            run(conn, UPDATE_RECEIVE_SEQUENCE, (out.seq, peer.state, peer.conversation_handle))
            return False
        self.enqueue(conn, txn, meta, peer, out.message_type, out.body, out.seq,
                     out.enqueue_time, with_commit=last)
        return True

    def _send_refused(self, conn: StoreConnection, out: Outgoing, meta: DbMeta,
                      svc: ServiceRow) -> str | None:
        """The transmission status holding a dialog's first message when the owner of the
        initiating service lacks SEND on the target service (SQL Server checks it at
        delivery), else None. dbo, db_owner members and the target's own owner pass. For a
        target in another database of the instance the owner is impersonated there
        (:func:`access.user_elsewhere`): only out of a TRUSTWORTHY database (else Error
        916, as SQL Server holds such a message), as the user its login maps to there. A
        service owned by dbo of a database sa owns passes everywhere (docs/decisions.md: the
        chapter's cross-database dialogs set no TRUSTWORTHY)."""
        sender = self.state.meta.get(conn, out.db_id)
        initiating = sender.services_by_name.get(out.from_service) if sender else None
        if initiating is None:
            return None
        sec = Security.get(self.state.store)
        owner: int | None = initiating.principal_id
        if owner == access.DBO and (meta.database_id == out.db_id
                                    or sec.database_owner(conn, out.db_id) == SA_ID):
            return None  # sa's dbo: a database another login owns goes the way of users
        if meta.database_id != out.db_id:
            owner = access.user_elsewhere(sec, conn, out.db_id, initiating.principal_id,
                                          meta.database_id)
            if owner is None:
                who = _server_principal(sec, conn, out.db_id, initiating.principal_id)
                return _enqueue_failed(916, 3, message_text(916, who, meta.name))
        if owner in (access.DBO, svc.principal_id):
            return None
        assert owner is not None
        principals = access.principal_set(sec, conn, meta.database_id, owner)
        if access.holds(sec, conn, meta.database_id, principals, "SEND",
                        [(visibility.SERVICE, svc.service_id), (visibility.DATABASE, 0)]):
            return None
        return _enqueue_failed(300, 1, message_text(300, "SEND", svc.name, meta.name))

    def _peer_of(self, conn: StoreConnection, out: Outgoing) -> Endpoint | None:
        return fetch_peer(conn, out.conversation_id, 0 if out.is_initiator else 1)

    def _create_target(self, conn: StoreConnection, out: Outgoing, meta: DbMeta,
                       svc: ServiceRow, contract_id: int, *, from_broker: str | None = None
                       ) -> Endpoint:
        """The target endpoint and its new conversation group, made by the first message.
        From another broker (``from_broker``, its instance): ``target_broker`` keeps the
        initiator's broker instance, so replies are routed there; locally the initiator
        learns the target's broker instance."""
        remote = from_broker is not None
        sender = None if remote else self.state.meta.get(conn, out.db_id)
        far = (from_broker or None) if remote else (sender.broker_guid if sender else None)
        now = utcnow()
        group = new_uid()
        priority = self.priority_for(conn, meta.database_id, contract_id, svc.service_id,
                                     out.from_service)
        values = {
            "conversation_handle": new_uid(), "database_id": meta.database_id,
            "conversation_id": out.conversation_id, "is_initiator": 0,
            "service_contract_id": contract_id, "conversation_group_id": group,
            "service_id": svc.service_id, "queue_id": svc.service_queue_id,
            "lifetime": out.lifetime, "state": "CO", "far_service": out.from_service,
            "far_broker_instance": far, "target_broker": far if remote else None,
            "security_timestamp": None, "dialog_timer": None,
            "send_sequence": 0, "end_dialog_sequence": -1, "receive_sequence": 0,
            "system_sequence": 0, "priority": priority, "encryption": False,
            "create_date": now}
        conn.execute(insert(self.state.t.conversations).values(**values))
        conn.execute(insert(self.state.t.groups).values(
            conversation_group_id=group, database_id=meta.database_id,
            service_id=svc.service_id, queue_id=svc.service_queue_id))
        if not remote:
            c = self.state.t.conversations
            conn.execute(update(c).where(c.c.conversation_handle == out.handle)
                         .values(far_broker_instance=meta.broker_guid))
        return Endpoint(**values)  # type: ignore[arg-type]

    def check_incoming(self, conn: StoreConnection, meta: DbMeta, peer: Endpoint,
                       out: Outgoing) -> tuple[int, str] | None:
        """Receiver-side validation with the target database's definitions (§5.6)."""
        name = out.message_type
        mt = meta.types_by_name.get(name)
        if mt is None:
            return -8428, message_text(8428, name)
        if name not in ALWAYS_ALLOWED:
            contract = meta.contracts_by_id.get(peer.service_contract_id)
            usage = contract.usages.get(mt.message_type_id) if contract else None
            if usage is None:
                return -8498, message_text(8498, name)
            if out.is_initiator and not usage[0]:
                return -8457, message_text(8457, name)
            if not out.is_initiator and not usage[1]:
                return -8437, message_text(8437, name)
        body = out.body
        if mt.validation == "E" and body:
            return -8430, message_text(8430)
        if mt.validation == "X" and body:
            if mt.xml_collection_id is not None or mt.schema_namespace:
                texts = self.state.schema_texts(conn, meta.database_id, mt.xml_collection_id,
                                                mt.schema_namespace)
                why = valid_error(body, texts) if texts else well_formed_error(body)
            else:
                why = well_formed_error(body)
            if why is not None:
                return -9615, message_text(9615, name, why, out.conversation_id,
                                           out.is_initiator, out.seq)
        return None

    def _reject(self, conn: StoreConnection, txn: Txn | None, out: Outgoing, code: int,
                text: str) -> None:
        """The target refused ``out``: the sender's endpoint errors (Error message)."""
        sender = self.state.endpoint(conn, out.db_id, out.handle)
        if sender is not None:
            self.error_endpoint(conn, txn, sender, code, text)

    # -- local enqueue and endpoint state changes -------------------------------------------
    def enqueue(self, conn: StoreConnection, txn: Txn | None, meta: DbMeta, ep: Endpoint,
                type_name: str, body: bytes | None, seq: int,
                when: datetime | None = None, *, with_commit: bool = False) -> None:
        """Insert a ready message for endpoint ``ep`` into its queue (``with_commit``: as the
        transaction's final statement, sent with its COMMIT when the backend allows)."""
        values = self._message_values(conn, meta, ep, type_name, body, seq, when)
        if not (with_commit and txn is not None
                and run_with_commit(txn, INSERT_MESSAGE, values)):
            run(conn, INSERT_MESSAGE, values)
        if txn is not None:
            self.state.enqueued_after_commit(txn, ep.database_id, ep.queue_id)

    def _message_values(self, conn: StoreConnection, meta: DbMeta, ep: Endpoint, type_name: str,
                        body: bytes | None, seq: int, when: datetime | None
                        ) -> tuple[Any, ...]:
        """A ready message's row for endpoint ``ep`` (``MESSAGE_INSERT_COLUMNS`` order)."""
        mt = meta.types_by_name.get(type_name)
        svc = meta.services_by_id.get(ep.service_id)
        contract = meta.contracts_by_id.get(ep.service_contract_id)
        return (
            ep.database_id, ep.queue_id, 1, ep.priority, ep.conversation_group_id,
            ep.conversation_handle, seq, svc.name if svc else "", ep.service_id,
            contract.name if contract else "", ep.service_contract_id, type_name,
            mt.message_type_id if mt else 0, mt.validation if mt else "N", body,
            db_time(conn, when or utcnow()), new_uid(), _rank(type_name))

    def error_endpoint(self, conn: StoreConnection, txn: Txn | None, ep: Endpoint, code: int,
                       text: str) -> None:
        """A broker-generated Error for endpoint ``ep``: state ER and an Error message on its
        queue — or, for an endpoint that already ended (DO), just closed (§5.7.5)."""
        if ep.state in ("DO", "CD"):
            self.close(conn, ep)
            return
        meta = self.state.meta.get(conn, ep.database_id)
        if meta is None:
            return
        c = self.state.t.conversations
        conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                     .values(state="ER", dialog_timer=None))
        self.enqueue(conn, txn, meta, ep, ERROR, error_body(code, text), 0)
        ep.state = "ER"

    def close(self, conn: StoreConnection, ep: Endpoint) -> None:
        """Endpoint ``ep`` reaches CLOSED: an initiator goes at once; a target is kept as CD
        for replay protection until its security timestamp (+30 min), then purged by tick."""
        if ep.is_initiator:
            self.delete_endpoint(conn, ep)
            return
        c = self.state.t.conversations
        conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                     .values(state="CD", dialog_timer=None,
                             security_timestamp=utcnow() + CLOSED_KEEP))
        m = self.state.t.messages
        conn.execute(delete(m).where(m.c.conversation_handle == ep.conversation_handle))
        ep.state = "CD"

    def delete_endpoint(self, conn: StoreConnection, ep: Endpoint) -> None:
        """Remove an endpoint, its queued / held messages, and its group if now empty."""
        c, m, tq, g = (self.state.t.conversations, self.state.t.messages, self.state.t.transmission,
                       self.state.t.groups)
        conn.execute(delete(m).where(m.c.conversation_handle == ep.conversation_handle))
        conn.execute(delete(tq).where(tq.c.conversation_handle == ep.conversation_handle))
        conn.execute(delete(c).where(c.c.conversation_handle == ep.conversation_handle))
        left = conn.execute(select(c.c.conversation_handle).where(
            c.c.conversation_group_id == ep.conversation_group_id).limit(1)).first()
        if left is None:
            conn.execute(delete(g).where(g.c.conversation_group_id == ep.conversation_group_id))
        ep.state = "CD"

    def priority_for(self, conn: StoreConnection, db_id: int, contract_id: int,
                     service_id: int, far_service: str) -> int:
        """The conversation priority (1..10, default 5): best-matching broker priority,
        contract before local service before remote service (§1.8)."""
        p = self.state.t.priorities
        best: tuple[int, int] | None = None
        for r in conn.execute(select(p).where(p.c.database_id == db_id)).mappings():
            if r["service_contract_id"] not in (None, contract_id):
                continue
            if r["local_service_id"] not in (None, service_id):
                continue
            if r["remote_service_name"] not in (None, far_service):
                continue
            score = ((r["service_contract_id"] is not None) * 4
                     + (r["local_service_id"] is not None) * 2
                     + (r["remote_service_name"] is not None))
            if best is None or score > best[0]:
                best = (score, int(r["priority"]))
        return 5 if best is None else best[1]

    # -- the transmission queue ---------------------------------------------------------------
    def defer_retry(self, txn: Txn, *, queue_key: tuple[int, int] | None = None,
                    to_service: str | None = None, db_id: int | None = None) -> None:
        """Retry held messages at commit (optionally only some)."""
        filters: dict[str, Any] = {}
        if to_service is not None:
            filters["to_service"] = to_service
        if db_id is not None:
            filters["db_id"] = db_id
        txn.defer(RetryOp(self, txn, filters))

    def retry_held(self, conn: StoreConnection, txn: Txn | None, *, handle: str | None = None,
                   to_service: str | None = None, db_id: int | None = None) -> int:
        """Try to deliver held messages, per conversation in sequence order; returns how many
        were delivered."""
        tq = self.state.t.transmission
        stmt = select(tq).order_by(tq.c.conversation_handle, tq.c.message_sequence_number,
                                   tq.c.id)
        if handle is not None:
            return self._retry_conversation(conn, txn, stmt.where(
                tq.c.conversation_handle == handle))
        if db_id is not None:
            stmt = stmt.where(tq.c.database_id == db_id)
        rows = list(conn.execute(stmt).mappings())
        if to_service is not None:
            wanted = {r["conversation_handle"] for r in rows
                      if r["to_service_name"] == to_service}
            rows = [r for r in rows if r["conversation_handle"] in wanted]
        delivered = 0
        blocked: set[str] = set()
        for r in rows:
            if r["conversation_handle"] in blocked:
                continue
            outcome = self._retry_row(conn, txn, r)
            if outcome is True:
                delivered += 1
            elif outcome is False:
                blocked.add(r["conversation_handle"])
        return delivered

    def _retry_conversation(self, conn: StoreConnection, txn: Txn | None, stmt: Any) -> int:
        """:meth:`retry_held` for one conversation: its oldest held row, then the next,
        until one stays. Read one at a time: a conversation held for another broker may
        hold thousands of rows (and large bodies), and each SEND on it comes here."""
        delivered = 0
        seen: set[int] = set()
        while (found := conn.execute(stmt.limit(1)).mappings().first()) is not None:
            r = dict(found)
            if r["id"] in seen:
                break                   # kept (no sender meta): the next SEND tries again
            seen.add(r["id"])
            outcome = self._retry_row(conn, txn, r)
            if outcome is False:
                break
            delivered += outcome is True
        return delivered

    def _retry_row(self, conn: StoreConnection, txn: Txn | None, r: Any) -> bool | None:
        """Try to deliver held row ``r``: True delivered (deleted), False still held (its
        status set), None dropped (its endpoint is gone) or left as it is."""
        tq = self.state.t.transmission
        h = r["conversation_handle"]
        ep = self.state.endpoint(conn, r["database_id"], h)
        if ep is None:
            conn.execute(delete(tq).where(held_row(tq, r)))
            return None
        sender = self.state.meta.get(conn, r["database_id"])
        if sender is None:
            return None
        if not sender.is_broker_enabled:
            status: str | None = message_text(9791)
        else:
            out = Outgoing(
                db_id=r["database_id"], handle=h, conversation_id=ep.conversation_id,
                is_initiator=ep.is_initiator, from_service=r["from_service_name"],
                to_service=r["to_service_name"], target_broker=r["to_broker_instance"],
                contract_name=r["service_contract_name"],
                seq=r["message_sequence_number"], message_type=r["message_type_name"],
                body=r["message_body"], priority=r["priority"], lifetime=ep.lifetime,
                enqueue_time=r["enqueue_time"])
            status = self._try_deliver(conn, txn, out)
        if status is None:
            conn.execute(delete(tq).where(held_row(tq, r)))
            return True
        conn.execute(update(tq).where(held_row(tq, r)).values(transmission_status=status))
        return False

    def get_transmission_status(self, conn: StoreConnection, db_id: int, handle: Any) -> str:
        """``GET_TRANSMISSION_STATUS(h)``: the status text of the conversation's oldest held
        message; '' if none is held, the last attempt worked, or the handle is unknown."""
        self.state.ensure_schema(conn)
        tq = self.state.t.transmission
        try:
            key = uid(handle)
        except (ValueError, TypeError):
            return ""
        row = conn.execute(select(tq.c.transmission_status).where(
            tq.c.database_id == db_id, tq.c.conversation_handle == key)
            .order_by(tq.c.message_sequence_number, tq.c.id).limit(1)).first()
        return "" if row is None else str(row[0] or "")


def _enqueue_failed(number: int, state: int, text: str) -> str:
    """The transmission_status SQL Server gives a message its target queue refused."""
    return ("An exception occurred while enqueueing a message in the target queue. "
            f"Error: {number}, State: {state}. {text}")


def _server_principal(sec: Security, conn: StoreConnection, db_id: int, user_id: int
                      ) -> str:
    """The server principal Msg 916 names for user ``user_id`` (not dbo) of ``db_id``: its
    login, else the user's own name (SQL Server prints a SID there)."""
    user = sec.user_by_id(conn, db_id, user_id)
    if user is None:
        return str(user_id)
    login = sec.login_of(conn, user)
    return login.name if login is not None else user.name
