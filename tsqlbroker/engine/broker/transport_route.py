"""Which broker a message goes to: routing through ``sys.routes`` (reference §1.5, §7).

Local delivery (``delivery.py``) asks :func:`held_for_network` once it finds no local far
endpoint for a message. ``None`` means "deliver locally, as before"; a string means the
message belongs to another broker: it is held in the sender database's transmission queue with
that ``transmission_status`` text ('' = not yet attempted) until the transport
(``transport.py``) has it acknowledged by the far broker.

Route matching follows the reference (§7), stopping at the first step with matches:
(1) the conversation names a broker instance → routes with that service name and instance;
(2) routes with that service name and no instance; (3) no instance given → routes with that
service name and some instance (the first instance found, then only its routes); (5) routes
with neither name nor instance (AutoCreatedLocal). Among the matches: LOCAL when the service
exists here, then explicit ``TCP://`` addresses (round-robin), then TRANSPORT (the address is
taken from a service name of the form ``tcp://host:port/…``). Expired routes are ignored. A
route whose address is this instance's own endpoint delivers locally (the reference's advice
for loopback routes between two databases of one instance).
"""

from __future__ import annotations

import itertools
import re
import socket
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from ...errors import message_text
from ...storage.store import StoreConnection
from . import dialog_security
from .model import Endpoint, Outgoing, utcnow
from .state import BrokerState

_ADDRESS = re.compile(r"^TCP://(\[[^\]]+\]|[^:/\s]+):(\d{1,5})/?", re.IGNORECASE)
_turn = itertools.count()        # round-robin among equal routes (process-wide is enough)


class _Signal:
    """A generation counter to wait on: bumped when a message starts waiting for the
    transport, so senders look at once rather than at their next poll (one per process: a
    look for nothing costs one query)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.generation = 0

    def bump(self) -> None:
        """Wake every waiting sender."""
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Wait until the generation differs from ``seen`` (or ``timeout``); the new one."""
        with self._cond:
            self._cond.wait_for(lambda: self.generation != seen, timeout)
            return self.generation


PENDING = _Signal()


@dataclass(frozen=True)
class Hop:
    """Where a remote conversation's messages go next: ``host``/``port`` of the far broker,
    or — when it cannot go anywhere now — ``status``, the text for transmission_status."""

    host: str | None = None
    port: int | None = None
    status: str = ""


def parse_address(address: str) -> tuple[str, int] | None:
    """``TCP://host:port`` → (host, port); None for anything else."""
    m = _ADDRESS.match(address.strip())
    if m is None:
        return None
    return m.group(1).strip("[]"), int(m.group(2))


def match_routes(rows: list[dict[str, Any]], service: str, guid: str | None
                 ) -> list[dict[str, Any]]:
    """The routes (``sys.routes`` rows as dicts) that match ``service`` / broker ``guid``,
    per the matching steps of reference §7; expired routes are ignored."""
    now = utcnow()
    live = [r for r in rows if r["lifetime"] is None or r["lifetime"] > now]
    named = [r for r in live if r["remote_service_name"] == service]
    want = (guid or "").strip().upper()
    if want:
        found = [r for r in named if (r["broker_instance"] or "").upper() == want]
        if found:
            return found
    found = [r for r in named if not r["broker_instance"]]
    if found:
        return found
    if not want:
        pinned = [r for r in named if r["broker_instance"]]
        if pinned:
            first = pinned[0]["broker_instance"].upper()
            return [r for r in pinned if r["broker_instance"].upper() == first]
    return [r for r in live if not r["remote_service_name"] and not r["broker_instance"]]


def _local_dbs(broker: BrokerState, conn: StoreConnection) -> list[Any]:
    return broker.meta.all_loaded(conn)


def _is_local_guid(broker: BrokerState, conn: StoreConnection, guid: str | None) -> bool:
    g = (guid or "").strip().upper()
    return bool(g) and any(m.broker_guid.upper() == g for m in _local_dbs(broker, conn))


def _service_here(broker: BrokerState, conn: StoreConnection, service: str,
                  guid: str | None) -> bool:
    g = (guid or "").strip().upper()
    return any(service in m.services_by_name and (not g or m.broker_guid.upper() == g)
               for m in _local_dbs(broker, conn))


_LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0", ""}


def _is_self(broker: BrokerState, conn: StoreConnection, hop: Hop) -> bool:
    """Whether ``hop`` is this instance's own endpoint (its port, on a loopback address, this
    host's name or the endpoint's LISTENER_IP)."""
    ep = endpoint_started(broker, conn)
    if ep is None or hop.port != int(ep["port"]) or hop.host is None:
        return False
    host = hop.host.lower()
    own = {str(ep["ip"] or "").lower(), socket.gethostname().lower()}
    return host in _LOOPBACK or host in own or host.startswith("127.")


def _routes(broker: BrokerState, conn: StoreConnection, db_id: int) -> list[dict[str, Any]]:
    r = broker.t.routes
    return [dict(x) for x in conn.execute(select(r).where(r.c.database_id == db_id)
                                          .order_by(r.c.route_id)).mappings()]


def choose(broker: BrokerState, conn: StoreConnection, rows: list[dict[str, Any]],
           service: str, guid: str | None, *, remote_side: bool) -> Hop | None:
    """The next hop among the matching routes; None = deliver locally. ``remote_side``: the
    conversation's far endpoint is known to be on another broker (a target answering), so
    LOCAL is only right when that broker instance is a database here."""
    matches = match_routes(rows, service, guid)
    local = [r for r in matches if str(r["address"]).upper() == "LOCAL"]
    if local and _service_here(broker, conn, service, guid):
        return None
    hops: list[Hop] = []
    for r in matches:
        parsed = parse_address(str(r["address"]))
        if parsed is not None:
            hops.append(Hop(parsed[0], parsed[1]))
    if not hops and any(str(r["address"]).upper() == "TRANSPORT" for r in matches):
        parsed = parse_address(service)
        if parsed is not None:
            hops.append(Hop(parsed[0], parsed[1]))
    if hops:
        hop = hops[next(_turn) % len(hops)]
        if _is_self(broker, conn, hop) and _service_here(broker, conn, service, guid):
            return None          # a route to this instance's own endpoint: the hop is local
        return hop
    if not remote_side:
        return None              # local delivery explains it (9793)
    if local:
        return Hop(status=message_text(9796))
    return Hop(status=message_text(9750))


def next_hop(broker: BrokerState, conn: StoreConnection, ep: Endpoint,
             routes: list[dict[str, Any]] | None = None) -> Hop | None:
    """Where endpoint ``ep``'s messages go; None when its far endpoint is (to be) local.

    A target endpoint is remote when the transport created it (``target_broker`` holds the
    initiator's broker instance, not one of this instance's databases). An initiator is
    remote when its routes say so; once the far broker acknowledged, the conversation is
    pinned to that broker (``far_broker_instance``). ``routes``: the database's routes if
    the caller has read them already."""
    if not ep.is_initiator:
        if not ep.target_broker or _is_local_guid(broker, conn, ep.target_broker):
            return None
        return choose(broker, conn, _routes(broker, conn, ep.database_id), ep.far_service,
                      ep.target_broker, remote_side=True)
    guid = ep.far_broker_instance or ep.target_broker
    if guid and guid.strip().upper() == "CURRENT DATABASE":
        return None
    rows = routes if routes is not None else _routes(broker, conn, ep.database_id)
    if all(str(r["address"]).upper() == "LOCAL" for r in rows):
        return None              # the common case: one cheap read, then local delivery
    if _is_local_guid(broker, conn, guid):
        return None
    return choose(broker, conn, rows, ep.far_service, guid,
                  remote_side=bool(ep.far_broker_instance))


def endpoint_started(broker: BrokerState, conn: StoreConnection) -> dict[str, Any] | None:
    """The instance's Service Broker endpoint if it is STARTED with a port, else None."""
    e = broker.t.endpoints_net
    row = conn.execute(select(e)).mappings().first()
    if row is None or str(row["state"]).upper() != "STARTED" or row["port"] is None:
        return None
    return dict(row)


def security_status(broker: BrokerState, conn: StoreConnection, ep: Endpoint) -> str:
    """Why an initiator's dialog-secured messages cannot leave this instance ('' if they
    can, or the dialog is not secured): Msg 9727's text for ENCRYPTION = ON without a remote
    service binding, Msg 28050's without a database master key the service master key opens,
    and the missing certificate's (``dialog_security.plan``)."""
    return dialog_security.status(broker, conn, ep)


def held_for_network(broker: BrokerState, conn: StoreConnection, out: Outgoing
                     ) -> str | None:
    """Called by local delivery when ``out`` has no local far endpoint: None to go on with
    local delivery, else the transmission_status under which the message waits for the
    transport (the status already recorded for it, so a local retry does not erase it)."""
    if not out.is_initiator and not out.target_broker:
        return None              # a target made by local delivery: its initiator is local
    rows = _routes(broker, conn, out.db_id) if out.is_initiator else None
    if rows is not None and all(str(r["address"]).upper() == "LOCAL" for r in rows):
        return None              # the common case: one cheap read, then local delivery
    ep = broker.endpoint(conn, out.db_id, out.handle)
    if ep is None:
        return None
    hop = next_hop(broker, conn, ep, rows)
    if hop is None:
        return None
    tq = broker.t.transmission
    row = conn.execute(select(tq.c.transmission_status).where(
        tq.c.conversation_handle == out.handle, tq.c.message_sequence_number == out.seq)
        .order_by(tq.c.id).limit(1)).first()
    if row is not None:
        return str(row[0] or "")
    PENDING.bump()               # a new message for the transport: it looks soon
    if endpoint_started(broker, conn) is None:
        return message_text(9666, "Service Broker")
    return security_status(broker, conn, ep) or hop.status
