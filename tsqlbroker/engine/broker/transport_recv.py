"""The receiving side of the transport: a message frame from another broker is checked and
committed into the target queue by :meth:`~.delivery.Delivery.accept`, which shares its last
step with local delivery (reference §5.5, §5.6), then answered. The answer is sent only
after the commit, so an acknowledged message is in the queue; a resent message (the
acknowledgement was lost) is recognised by its conversation and sequence number and
acknowledged again without a second copy (exactly once).

Also here: the table of remote dialogs, ``tsqlb_sb_remote_dialogs`` — one row per endpoint
whose far side is on another broker, so that when this side closes (its END CONVERSATION
answers the far side's EndDialog, or ends after it) the far side, waiting in DISCONNECTED_OUTBOUND,
can be told and close too — what SQL Server's dialog protocol does with its own system
messages.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Integer, String, Table, delete, insert, select, update

from ...storage.txn import Txn
from .dialog_security import DialogKeys, Undeliverable, key_table
from .model import Acceptance, Endpoint, Outgoing, utcnow
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
    """Create the remote-dialogs and dialog session keys tables if they do not exist yet."""
    conn = broker.store.connect()
    try:
        broker.ensure_schema(conn)
        conn.write()
        # Processes starting together take turns creating tables (as ensure_schema).
        conn.backend.xact_lock(conn, "tsqlb_schema")
        broker.store.metadata.create_all(
            conn.conn, tables=[remote_dialogs(broker), key_table(broker.store.metadata)],
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
    txn.conn.backend.xact_lock(txn.conn, "tsqlb_sb_conv:" + conversation_id,
                               schema_scoped=False)


class Receiver:
    """Applies incoming frames to one broker's store."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.keys = DialogKeys(broker.state)

    def handle(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Apply one ``msg`` or ``close`` frame in its own transaction; the answer frame."""
        return self.handle_all([frame])[0]

    def handle_all(self, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Apply ``msg`` and ``close`` frames in order in one transaction (one commit for
        the messages a sender had in flight); their answer frames, in the same order. Every
        frame is checked before anything is applied."""
        for frame in frames:
            op = frame.get("op")
            if op not in ("msg", "close"):
                raise WireError(f"unexpected frame {op!r}")
            (check_message if op == "msg" else check_close)(frame)
        conn = self.broker.store.connect()
        txn = Txn(conn, owner="broker-transport")
        try:
            self.broker.ensure_schema(conn)
            txn.write()
            replies = [self._message(txn, frame) if frame["op"] == "msg"
                       else self._close_notice(txn, frame) for frame in frames]
            txn.commit()
            return replies
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

    def _message(self, txn: Txn, frame: dict[str, Any]) -> dict[str, Any]:
        out = self._incoming(frame)
        from_broker = str(frame.get("from_broker") or "").upper()
        _serialize(txn, out.conversation_id)
        try:
            # Dialog security: the body decrypted, the first message's key exchange checked.
            out.body, pending = self.keys.incoming(txn, frame)
        except Undeliverable as exc:
            return {"op": "nack", "status": str(exc)}
        # An unsecured dialog's initiator acts as public in the target database.
        done = self.broker.delivery.accept(
            txn, out, from_broker=from_broker,
            authorize=None if frame.get("enc") else self.keys.public_refusal)
        if pending is not None and done.created is not None and done.outcome == "ack":
            self.keys.established(txn, pending)
        if done.created is not None:
            # (Also when the message was refused: the far side then hears of the close.)
            ep = done.created
            meta = self.broker.meta.get(txn.conn, ep.database_id)
            svc = meta.services_by_id.get(ep.service_id) if meta is not None else None
            remember_dialog(self.broker, txn, ep, svc.name if svc else "", from_broker)
        if done.closed is not None:
            self._forget(txn, done.closed)
        return _answer(done)

    # -- close notices ------------------------------------------------------------------------
    def _close_notice(self, txn: Txn, frame: dict[str, Any]) -> dict[str, Any]:
        """The far side closed its endpoint: ours, waiting in DO for that, closes too."""
        try:
            cid, init = str(frame["cid"]).upper(), 1 if frame["init"] else 0
        except (KeyError, TypeError) as exc:
            raise WireError(f"bad close frame: {exc}") from None
        _serialize(txn, cid)
        closed = self.broker.delivery.accept_close(txn, cid, init)
        if closed is not None:
            self._forget(txn, closed)
        return {"op": "ack"}

    def _forget(self, txn: Txn, ep: Endpoint) -> None:
        """The far side knows ``ep`` is closed: no close notice is needed."""
        rd = remote_dialogs(self.broker)
        txn.conn.execute(delete(rd).where(rd.c.conversation_id == ep.conversation_id,
                                          rd.c.is_initiator == ep.is_initiator))
        self.keys.forget(txn.conn, ep.conversation_id, ep.is_initiator)


def _answer(done: Acceptance) -> dict[str, Any]:
    """The answer frame for what the target side did with a message."""
    if done.outcome == "nack":
        reply: dict[str, Any] = {"op": "nack", "status": done.status}
        if done.expect is not None:
            reply["expect"] = done.expect
        return reply
    if done.outcome == "error":
        return {"op": "error", "code": done.code, "text": done.text, "broker": done.broker}
    reply = {"op": "ack"}
    if done.broker is not None:
        reply["broker"] = done.broker
    if done.duplicate:
        reply["duplicate"] = True
    return reply


def pin(broker: Broker, txn: Txn, ep: Endpoint, far_broker: str | None) -> None:
    """After the far broker's first acknowledgement the initiator is pinned to it."""
    if far_broker and not ep.far_broker_instance:
        c = broker.t.conversations
        txn.conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                         .values(far_broker_instance=far_broker.upper()))
        ep.far_broker_instance = far_broker.upper()

