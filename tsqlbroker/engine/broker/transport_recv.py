"""The receiving side of the transport: a message frame from another broker is checked and
committed into the target queue the way local delivery does it (reference §5.5, §5.6), then
answered. The answer is sent only after the commit, so an acknowledged message is in the
queue; a resent message (the acknowledgement was lost) is recognised by its conversation and
sequence number and acknowledged again without a second copy (exactly once).

Also here: the table of remote dialogs, ``tsqlb_sb_remote_dialogs`` — one row per endpoint
whose far side is on another broker, so that when this side closes (its END CONVERSATION
answers the far side's EndDialog, or ends after it) the far side, waiting in DISCONNECTED_OUTBOUND,
can be told and close too — what SQL Server's dialog protocol does with its own system
messages.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Integer, String, Table, delete, insert, select, text, update

from ...errors import message_text
from ..txn import Txn
from .delivery import UPDATE_RECEIVE_SEQUENCE
from .fastsql import fetch_peer, run
from .meta import DbMeta
from .model import Endpoint, Outgoing, new_uid, utcnow
from .schema import PREFIX
from .transport_wire import WireError, check_close, check_message, time_in

if TYPE_CHECKING:
    from . import Broker

_table_lock = threading.Lock()


def remote_dialogs(broker: Broker) -> Table:
    """The remote-dialogs table of the broker's store (defined on first use)."""
    name = PREFIX + "remote_dialogs"
    with _table_lock:
        table = broker.store.metadata.tables.get(name)
        if table is None:
            table = Table(
                name, broker.store.metadata,
                Column("conversation_id", String(36), primary_key=True),
                Column("is_initiator", Integer, primary_key=True, autoincrement=False),
                Column("database_id", Integer, nullable=False),
                Column("local_service", String(256), nullable=False),
                Column("far_service", String(256), nullable=False),
                Column("far_broker", String(128), nullable=False),
            )
        return table


def ensure_remote_dialogs(broker: Broker) -> None:
    """Create the remote-dialogs table if it does not exist yet."""
    conn = broker.store.connect()
    try:
        broker.ensure_schema(conn)
        conn.write()
        if conn.dialect == "postgresql":
            # Processes starting together take turns creating tables (as ensure_schema).
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtext("
                                 "current_schema() || ':tsqlb_schema'))")
        broker.store.metadata.create_all(conn.conn, tables=[remote_dialogs(broker)],
                                         checkfirst=True)
        conn.commit()
    finally:
        conn.close()


def remember_dialog(broker: Broker, txn: Txn, ep: Endpoint, local_service: str,
                    far_broker: str) -> None:
    """Record that ``ep``'s far side is on broker instance ``far_broker`` (idempotent)."""
    rd = remote_dialogs(broker)
    conn = txn.conn
    if conn.execute(select(rd.c.database_id).where(
            rd.c.conversation_id == ep.conversation_id,
            rd.c.is_initiator == ep.is_initiator)).first() is None:
        conn.execute(insert(rd).values(
            conversation_id=ep.conversation_id, is_initiator=ep.is_initiator,
            database_id=ep.database_id, local_service=local_service,
            far_service=ep.far_service, far_broker=far_broker))


def _serialize(txn: Txn, conversation_id: str) -> None:
    """One frame of a conversation at a time. SQLite's write lock (taken before anything is
    read) already does it; on PostgreSQL a resend racing the original on another connection
    would otherwise read the same receive_sequence and queue the message twice."""
    if txn.conn.dialect == "postgresql":
        txn.conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"),
                         {"k": "tsqlb_sb_conv:" + conversation_id})


class Receiver:
    """Applies incoming frames to one broker's store."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker

    def handle(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Apply one ``msg`` or ``close`` frame in its own transaction; the answer frame."""
        op = frame.get("op")
        if op not in ("msg", "close"):
            raise WireError(f"unexpected frame {op!r}")
        (check_message if op == "msg" else check_close)(frame)
        conn = self.broker.store.connect()
        txn = Txn(conn, owner="broker-transport")
        try:
            self.broker.ensure_schema(conn)
            txn.write()
            reply = self._message(txn, frame) if op == "msg" else self._close_notice(txn, frame)
            txn.commit()
            return reply
        except BaseException:
            txn.rollback()
            raise
        finally:
            conn.close()

    # -- message frames -----------------------------------------------------------------------
    def _incoming(self, frame: dict[str, Any]) -> Outgoing:
        try:
            return Outgoing(
                db_id=0, handle="", conversation_id=str(frame["cid"]).upper(),
                is_initiator=1 if frame["init"] else 0,
                from_service=str(frame["from_service"]), to_service=str(frame["to_service"]),
                target_broker=frame.get("to_broker"), contract_name=str(frame["contract"]),
                seq=int(frame["seq"]), message_type=str(frame["type"]),
                body=frame.get("body"), priority=int(frame.get("priority") or 5),
                lifetime=time_in(frame["lifetime"]) or utcnow(),
                enqueue_time=time_in(frame.get("enqueue_time")) or utcnow())
        except (KeyError, TypeError, ValueError) as exc:
            raise WireError(f"bad message frame: {exc}") from None

    def _target_db(self, txn: Txn, out: Outgoing) -> DbMeta | str | None:
        """The database holding the target service; a status text to retry later; None when
        no database here has it."""
        b = self.broker
        want = (out.target_broker or "").strip().upper()
        found: DbMeta | None = None
        for meta in b.meta.all_loaded(txn.conn):
            if want and meta.broker_guid.upper() != want:
                continue
            if meta.database_id not in b.state.initialised_dbs:
                meta = b.state.db(txn.conn, meta.database_id)
            if out.to_service in meta.services_by_name:
                if meta.is_broker_enabled:
                    return meta
                found = found or meta
        return message_text(9793) if found is not None else None

    def _message(self, txn: Txn, frame: dict[str, Any]) -> dict[str, Any]:
        b = self.broker
        conn = txn.conn
        out = self._incoming(frame)
        from_broker = str(frame.get("from_broker") or "").upper()
        _serialize(txn, out.conversation_id)
        peer = fetch_peer(conn, out.conversation_id, 0 if out.is_initiator else 1)
        created = False
        if peer is None:
            if not out.is_initiator or out.is_end or out.is_error:
                return {"op": "ack"}       # nobody to tell: the endpoint is gone
            target = self._target_db(txn, out)
            if target is None:
                return self._error(-8490, message_text(8490, out.to_service))
            if isinstance(target, str):
                return {"op": "nack", "status": target}
            meta = target
            svc = meta.services_by_name[out.to_service]
            queue = meta.queues_by_id.get(svc.service_queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return {"op": "nack", "status": message_text(9617, queue.name if queue
                                                                 else svc.name)}
            contract = meta.contracts_by_name.get(out.contract_name)
            if contract is None:
                return self._error(-8425, message_text(8425, out.contract_name))
            if contract.service_contract_id not in svc.contract_ids:
                return self._error(-8408, message_text(8408, svc.name, out.contract_name))
            peer = self._create_target(txn, out, meta, svc, contract.service_contract_id,
                                       from_broker)
            created = True
        else:
            loaded = b.meta.get(conn, peer.database_id)
            if loaded is None:
                return {"op": "ack"}
            meta = loaded
            if out.seq < peer.receive_sequence:
                return {"op": "ack", "broker": meta.broker_guid, "duplicate": True}
            if out.seq > peer.receive_sequence and not out.is_error:
                # The sender sends in order and waits for each ack: a gap means an earlier
                # message is still on its way; it is asked to resend later. (END … WITH
                # ERROR drops the messages not yet sent: its Error may follow a gap.)
                return {"op": "nack", "status": "Out of order message; waiting for message "
                        f"{peer.receive_sequence}."}
            if not meta.is_broker_enabled:
                return {"op": "nack", "status": message_text(9793)}
            queue = meta.queues_by_id.get(peer.queue_id)
            if queue is None or not queue.is_enqueue_enabled:
                return {"op": "nack", "status": message_text(9617, queue.name if queue
                                                                 else "")}
            if peer.state in ("DO", "CD"):
                if out.is_end or out.is_error:
                    # Both sides ended at the same time: ours closes, and its close notice
                    # (the remote-dialogs row stays) closes the far side.
                    b.delivery.close(conn, peer)
                return {"op": "ack", "broker": meta.broker_guid}
            if peer.state == "ER":
                return {"op": "ack", "broker": meta.broker_guid}
        problem = b.delivery.check_incoming(conn, meta, peer, out)
        if problem is not None:
            code, text = problem
            if created:
                b.delivery.delete_endpoint(conn, peer)
            else:
                b.delivery.close(conn, peer)
                self._forget(txn, peer)
            return self._error(code, text, meta.broker_guid)
        b.delivery.enqueue(conn, txn, meta, peer, out.message_type, out.body, out.seq,
                           out.enqueue_time)
        state = peer.state
        if out.is_end and state in ("SO", "SI", "CO"):
            state = "DI"
        elif out.is_error and state in ("SO", "SI", "CO", "DI"):
            state = "ER"
        run(conn, UPDATE_RECEIVE_SEQUENCE, (out.seq + 1, state, peer.conversation_handle))
        return {"op": "ack", "broker": meta.broker_guid}

    @staticmethod
    def _error(code: int, text: str, broker: str | None = None) -> dict[str, Any]:
        return {"op": "error", "code": code, "text": text, "broker": broker}

    def _create_target(self, txn: Txn, out: Outgoing, meta: DbMeta, svc: Any,
                       contract_id: int, from_broker: str) -> Endpoint:
        """The target endpoint and its new conversation group, made by the first message.
        ``target_broker`` keeps the initiator's broker instance: replies are routed there."""
        b = self.broker
        conn = txn.conn
        group = new_uid()
        values = {
            "conversation_handle": new_uid(), "database_id": meta.database_id,
            "conversation_id": out.conversation_id, "is_initiator": 0,
            "service_contract_id": contract_id, "conversation_group_id": group,
            "service_id": svc.service_id, "queue_id": svc.service_queue_id,
            "lifetime": out.lifetime, "state": "CO", "far_service": out.from_service,
            "far_broker_instance": from_broker or None, "target_broker": from_broker or None,
            "security_timestamp": None, "dialog_timer": None, "send_sequence": 0,
            "end_dialog_sequence": -1, "receive_sequence": 0, "system_sequence": 0,
            "priority": b.delivery.priority_for(conn, meta.database_id, contract_id,
                                                svc.service_id, out.from_service),
            "encryption": False, "create_date": utcnow()}
        conn.execute(insert(b.t.conversations).values(**values))
        conn.execute(insert(b.t.groups).values(
            conversation_group_id=group, database_id=meta.database_id,
            service_id=svc.service_id, queue_id=svc.service_queue_id))
        ep = Endpoint(**values)  # type: ignore[arg-type]
        remember_dialog(b, txn, ep, svc.name, from_broker)
        return ep

    # -- close notices ------------------------------------------------------------------------
    def _close_notice(self, txn: Txn, frame: dict[str, Any]) -> dict[str, Any]:
        """The far side closed its endpoint: ours, waiting in DO for that, closes too."""
        try:
            cid, init = str(frame["cid"]).upper(), 1 if frame["init"] else 0
        except (KeyError, TypeError) as exc:
            raise WireError(f"bad close frame: {exc}") from None
        _serialize(txn, cid)
        peer = fetch_peer(txn.conn, cid, 0 if init else 1)
        if peer is not None and peer.state == "DO":
            self.broker.delivery.close(txn.conn, peer)
        if peer is not None and peer.state in ("DO", "CD"):
            self._forget(txn, peer)
        return {"op": "ack"}

    def _forget(self, txn: Txn, ep: Endpoint) -> None:
        """The far side knows ``ep`` is closed: no close notice is needed."""
        rd = remote_dialogs(self.broker)
        txn.conn.execute(delete(rd).where(rd.c.conversation_id == ep.conversation_id,
                                          rd.c.is_initiator == ep.is_initiator))


def pin(broker: Broker, txn: Txn, ep: Endpoint, far_broker: str | None) -> None:
    """After the far broker's first acknowledgement the initiator is pinned to it."""
    if far_broker and not ep.far_broker_instance:
        c = broker.t.conversations
        txn.conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                         .values(far_broker_instance=far_broker.upper()))
        ep.far_broker_instance = far_broker.upper()

