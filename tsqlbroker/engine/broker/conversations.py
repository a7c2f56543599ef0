"""Conversation life cycle: BEGIN DIALOG, END CONVERSATION, BEGIN CONVERSATION TIMER and
MOVE CONVERSATION (reference §1.10, §5.7–§5.9, §5.14).

Endpoint changes are written at once in the caller's storage transaction (so its own
``sys.conversation_endpoints`` reads see them and a rollback undoes them); messages to the far
side go through the deferred delivery of :mod:`.delivery`.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import delete, insert, select, update

from ...errors import broker_error, message_text
from ...storage.txn import Txn
from .delivery import Delivery
from .group_locks import GroupLocks
from .model import (
    END_DIALOG,
    ERROR,
    MAX_LIFETIME,
    Endpoint,
    error_body,
    lifetime_expiry,
    new_uid,
    uid,
    utcnow,
)
from .state import BrokerState


class Conversations:
    """Dialog statements (a part of :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, group_locks: GroupLocks, delivery: Delivery
                 ) -> None:
        self.state = state
        self.group_locks = group_locks
        self.delivery = delivery

    def begin_dialog(self, txn: Txn, db_id: int, from_service: str, to_service: str | None,
                     to_broker: str | None = None, contract: str | None = None,
                     related_conversation: Any = None, related_group: Any = None,
                     lifetime: int | None = None, encryption: bool | None = None, *,
                     lifetime_given: bool = False) -> uuid.UUID:
        """``BEGIN DIALOG``: a new initiator endpoint (state SO) in a new — or the related —
        conversation group, which it locks. Nothing reaches the target before the first SEND.
        ``lifetime_given`` with ``lifetime`` None is ``LIFETIME = NULL`` (Msg 8406)."""
        conn = txn.conn
        meta = self.state.db(conn, db_id)
        svc = meta.services_by_name.get(from_service) if from_service is not None else None
        if svc is None:
            raise broker_error(8423, from_service or "")
        if to_service is None:
            raise broker_error(8421)
        contract_name = "DEFAULT" if contract is None else contract
        crow = meta.contracts_by_name.get(contract_name)
        if crow is None:
            raise broker_error(8425, contract_name)
        if lifetime is None and lifetime_given:
            raise broker_error(8406, 1, MAX_LIFETIME)
        if lifetime is not None and not 1 <= int(lifetime) <= MAX_LIFETIME:
            raise broker_error(8411, lifetime, 1, MAX_LIFETIME)
        group: str
        new_group = True
        if related_conversation is not None:
            rel = self.state.endpoint(conn, db_id, related_conversation)
            if rel is None:
                raise broker_error(8426, str(related_conversation).upper())
            if rel.service_id != svc.service_id:
                rel_svc = meta.services_by_id.get(rel.service_id)
                raise broker_error(9610, from_service, rel_svc.name if rel_svc else "",
                                   "RELATED_CONVERSATION", rel.conversation_handle)
            group, new_group = rel.conversation_group_id, False
        elif related_group is not None:
            try:
                group = uid(related_group)
            except (ValueError, TypeError):
                raise broker_error(8436, str(related_group)) from None
            g = self.state.t.groups
            row = conn.execute(select(g).where(g.c.conversation_group_id == group,
                                               g.c.database_id == db_id)).mappings().first()
            if row is not None:
                new_group = False
                if row["service_id"] != svc.service_id:
                    other = meta.services_by_id.get(row["service_id"])
                    raise broker_error(9610, from_service, other.name if other else "",
                                       "RELATED_CONVERSATION_GROUP", group)
        else:
            group = new_uid()
        if new_group:
            self.group_locks.lock(txn, db_id, group, svc.service_queue_id)
        else:
            self.group_locks.lock_or_fail(txn, db_id, group, svc.service_queue_id)
        txn.write()
        if new_group:
            conn.execute(insert(self.state.t.groups).values(
                conversation_group_id=group, database_id=db_id, service_id=svc.service_id,
                queue_id=svc.service_queue_id))
        now = utcnow()
        handle = new_uid()
        conn.execute(insert(self.state.t.conversations).values(
            conversation_handle=handle, database_id=db_id, conversation_id=new_uid(),
            is_initiator=1, service_contract_id=crow.service_contract_id,
            conversation_group_id=group, service_id=svc.service_id,
            queue_id=svc.service_queue_id,
            lifetime=lifetime_expiry(now, MAX_LIFETIME if lifetime is None else int(lifetime)),
            state="SO", far_service=to_service, far_broker_instance=None,
            target_broker=to_broker, security_timestamp=None, dialog_timer=None,
            send_sequence=0, end_dialog_sequence=-1, receive_sequence=0, system_sequence=0,
            priority=self.delivery.priority_for(conn, db_id, crow.service_contract_id,
                                                svc.service_id, to_service),
            encryption=True if encryption is None else bool(encryption), create_date=now))
        self._clock_changed()
        return uuid.UUID(handle)

    def endpoint_create_dates(self, conn: Any, db_id: int) -> dict[uuid.UUID, Any]:
        """When each endpoint of a database was created (UTC), by conversation handle.

        sys.conversation_endpoints has no such column; the REPL shows conversations' ages."""
        c = self.state.t.conversations
        rows = conn.execute(select(c.c.conversation_handle, c.c.create_date)
                            .where(c.c.database_id == db_id))
        return {uuid.UUID(str(h)): created for h, created in rows}

    def end_conversation(self, txn: Txn, db_id: int, handle: Any,
                         error_code: int | None = None, description: str | None = None,
                         cleanup: bool = False, *, with_error: bool = False) -> None:
        """``END CONVERSATION h [WITH ERROR = n DESCRIPTION = 'text' | WITH CLEANUP]``.

        Removes the conversation's messages from the local queue; sends EndDialog after the
        pending messages — or, WITH ERROR, an Error (reference §5.15) after dropping them —
        unless the far side already ended (DI/ER: the endpoint closes). ``with_error`` marks
        the WITH ERROR form when both values may be NULL (Msg 8419). Msg 8426 for an unknown
        or closed handle, 8427 when already ended (DO)."""
        conn = txn.conn
        meta = self.state.db(conn, db_id)
        if handle is None:
            raise broker_error(8418)
        erroring = with_error or error_code is not None or description is not None
        if erroring and (error_code is None or description is None):
            raise broker_error(8419)
        if erroring and int(error_code) <= 0:  # type: ignore[arg-type]
            raise broker_error(8440, error_code)
        txn.write()          # read the state under the write lock (see send)
        ep = self.state.endpoint(conn, db_id, handle)
        if ep is None or (ep.state == "CD" and not cleanup):
            raise broker_error(8426, str(handle).upper())
        self.group_locks.lock_or_fail(txn, db_id, ep.conversation_group_id, ep.queue_id)
        txn.write()
        ep = self.delivery.lock_initiator_first(txn, ep)
        if ep is None or (ep.state == "CD" and not cleanup):
            raise broker_error(8426, str(handle).upper())
        if cleanup:
            self._cancel_pending(txn, ep.conversation_handle)
            self.delivery.delete_endpoint(conn, ep)
            return
        if ep.state == "DO":
            raise broker_error(8427, ep.state)
        m = self.state.t.messages
        conn.execute(delete(m).where(m.c.conversation_handle == ep.conversation_handle))
        if ep.state in ("DI", "ER"):
            peer = self.state.peer(conn, ep)
            self.delivery.close(conn, ep)
            if peer is not None and peer.state == "DO":
                self.delivery.close(conn, peer)
            return
        if ep.state == "SO":
            # Nothing was ever sent: there is no far endpoint to tell.
            self.delivery.delete_endpoint(conn, ep)
            return
        if erroring:
            self._cancel_pending(txn, ep.conversation_handle)
            tq = self.state.t.transmission
            conn.execute(delete(tq).where(tq.c.conversation_handle == ep.conversation_handle))
            body = error_body(int(error_code), str(description))  # type: ignore
            self.delivery.queue_outgoing(txn, meta, ep, ERROR, body)
        else:
            self.delivery.queue_outgoing(txn, meta, ep, END_DIALOG, None)
        c = self.state.t.conversations
        conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                     .values(state="DO", dialog_timer=None,
                             end_dialog_sequence=ep.send_sequence - 1))

    def _cancel_pending(self, txn: Txn, handle: str) -> None:
        """Drop this transaction's not-yet-delivered messages of ``handle``."""
        ops = self.state.txn_state(txn).pending_ops.get(handle, [])
        live = [op for op in ops if not op.cancelled]
        for op in live:
            op.cancelled = True

        def restore() -> None:
            for op in live:
                op.cancelled = False
        txn.on_undo(restore)

    def begin_conversation_timer(self, txn: Txn, db_id: int, handle: Any, timeout_s: int
                                 ) -> None:
        """``BEGIN CONVERSATION TIMER (h) TIMEOUT = s``: a DialogTimer message arrives on the
        local queue after ``s`` seconds (re-issuing replaces the timer). Msg 8426 unknown
        handle, 8458 ended endpoint, 8410 beyond the lifetime."""
        conn = txn.conn
        self.state.db(conn, db_id)
        if handle is None:
            raise broker_error(8418)
        ep = self.state.endpoint(conn, db_id, handle)
        if ep is None:
            raise broker_error(8426, str(handle).upper())
        if ep.state in ("DO", "CD", "ER"):
            raise broker_error(8458, ep.state)
        fire = lifetime_expiry(utcnow(), max(int(timeout_s or 0), 0))
        if fire > ep.lifetime:
            raise broker_error(8410)
        self.group_locks.lock_or_fail(txn, db_id, ep.conversation_group_id, ep.queue_id)
        txn.write()
        ep = self.delivery.lock_initiator_first(txn, ep)
        if ep is None:
            raise broker_error(8426, str(handle).upper())
        if ep.state in ("DO", "CD", "ER"):
            raise broker_error(8458, ep.state)
        c = self.state.t.conversations
        conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                     .values(dialog_timer=fire))
        txn.after_commit(self._clock_changed)

    def move_conversation(self, txn: Txn, db_id: int, handle: Any, group: Any) -> None:
        """``MOVE CONVERSATION h TO g``: into another group of the same queue, which must
        exist (8439); both groups are locked; 8438 for an ended endpoint."""
        conn = txn.conn
        self.state.db(conn, db_id)
        if handle is None:
            raise broker_error(8418)
        if group is None:
            raise broker_error(8420)
        ep = self.state.endpoint(conn, db_id, handle)
        if ep is None:
            raise broker_error(8426, str(handle).upper())
        if ep.state in ("DO", "CD"):
            raise broker_error(8438, ep.state)
        try:
            target = uid(group)
        except (ValueError, TypeError):
            raise broker_error(8439, str(group)) from None
        g = self.state.t.groups
        row = conn.execute(select(g).where(g.c.conversation_group_id == target,
                                           g.c.database_id == db_id)).mappings().first()
        if row is None or row["queue_id"] != ep.queue_id:
            raise broker_error(8439, target)
        if target == ep.conversation_group_id:
            return
        self.group_locks.lock_or_fail(txn, db_id, ep.conversation_group_id, ep.queue_id)
        self.group_locks.lock_or_fail(txn, db_id, target, ep.queue_id)
        txn.write()
        if self.delivery.lock_initiator_first(txn, ep) is None:
            raise broker_error(8426, str(handle).upper())
        c, m = self.state.t.conversations, self.state.t.messages
        conn.execute(update(c).where(c.c.conversation_handle == ep.conversation_handle)
                     .values(conversation_group_id=target))
        conn.execute(update(m).where(m.c.conversation_handle == ep.conversation_handle)
                     .values(conversation_group_id=target))
        left = conn.execute(select(c.c.conversation_handle).where(
            c.c.conversation_group_id == ep.conversation_group_id).limit(1)).first()
        if left is None:
            conn.execute(delete(g).where(g.c.conversation_group_id == ep.conversation_group_id))

    # -- bulk endings (DROP SERVICE, ALTER DATABASE) ------------------------------------------
    def drop_service_conversations(self, txn: Txn, db_id: int, service_id: int) -> None:
        """DROP SERVICE: the far side of each open conversation gets Error -8470; the
        service's endpoints and messages go."""
        c = self.state.t.conversations
        self._drop_conversations(txn, db_id, c.c.service_id == service_id, 8470)

    def drop_contract_conversations(self, txn: Txn, db_id: int, contract_id: int) -> None:
        """DROP CONTRACT: conversations on it end; the far side gets Error -8487 ("The
        remote service contract has been dropped.")."""
        c = self.state.t.conversations
        self._drop_conversations(txn, db_id, c.c.service_contract_id == contract_id, 8487)

    def _drop_conversations(self, txn: Txn, db_id: int, cond: Any, number: int) -> None:
        conn = txn.conn
        c = self.state.t.conversations
        rows = conn.execute(select(c).where(c.c.database_id == db_id, cond)).mappings().all()
        for r in rows:
            ep = Endpoint.from_row(r)
            peer = self.state.peer(conn, ep)
            if peer is not None and peer.state != "CD":
                self.delivery.error_endpoint(conn, txn, peer, -number, message_text(number))
            self.delivery.delete_endpoint(conn, ep)

    def end_all(self, txn: Txn, db_id: int, code: int | None) -> None:
        """NEW_BROKER (``code`` None: remove every conversation silently) or
        ERROR_BROKER_CONVERSATIONS (each endpoint and its far side get Error ``code``)."""
        conn = txn.conn
        c = self.state.t.conversations
        rows = conn.execute(select(c).where(c.c.database_id == db_id)).mappings().all()
        for r in rows:
            ep = Endpoint.from_row(r)
            if code is None:
                self.delivery.delete_endpoint(conn, ep)
                continue
            if ep.state == "CD":
                continue
            text = message_text(-code)
            peer = self.state.peer(conn, ep)
            self.delivery.error_endpoint(conn, txn, ep, code, text)
            if peer is not None and peer.database_id != db_id and peer.state != "CD":
                self.delivery.error_endpoint(conn, txn, peer, code, text)
        if code is None:
            for table in (self.state.t.groups, self.state.t.messages, self.state.t.transmission):
                conn.execute(delete(table).where(table.c.database_id == db_id))

    def _clock_changed(self) -> None:
        """A timer or lifetime may now be due sooner: let the clock thread know."""
        wake = getattr(self.state.activation, "wake", None)
        if callable(wake):
            wake()
