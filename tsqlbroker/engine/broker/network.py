"""Routing and instance objects: routes, remote service bindings, the broker endpoint, broker
priorities, and the broker options of ALTER DATABASE (reference §1.5–§1.9).

Routes, bindings and endpoints are stored and shown in the catalog views. A message whose
route names another broker (``TCP://host:port``, ``TRANSPORT``) waits in the transmission queue
and is carried by the broker-to-broker transport (``transport*.py``, docs/transport.md); every
other message is delivered locally (every database of the instance is reachable, as the
AutoCreatedLocal route says).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from ...errors import BindError, broker_error, cannot, tsql_error
from ...storage.store import StoreConnection
from ...storage.txn import Txn
from .conversations import Conversations
from .delivery import Delivery
from .endpoint_tls import check_authentication
from .model import MAX_LIFETIME, lifetime_expiry, utcnow
from .state import BrokerState

_TCP = re.compile(r"^TCP://[^:/\s]+:(\d{1,5})/?$", re.IGNORECASE)


def _norm(options: dict[str, Any]) -> dict[str, Any]:
    return {k.lower(): v for k, v in options.items()}


def _endpoint_options(options: dict[str, Any]) -> dict[str, Any]:
    """Endpoint options with the AS TCP clause's names (``listener_port``, ``listener_ip``,
    as the grammar keys them) mapped to the stored columns' (``port``, ``ip``); the IP loses
    the parentheses and quotes of ``LISTENER_IP = (127.0.0.1)``."""
    o = _norm(options)
    if o.get("listener_port") is not None:
        o["port"] = o.pop("listener_port")
    if o.get("listener_ip") is not None:
        o["ip"] = o.pop("listener_ip")
    if o.get("ip") is not None:
        o["ip"] = str(o["ip"]).strip().strip("()").strip().strip("'\"").upper()
    if o.get("port") is not None:
        o["port"] = str(o["port"]).strip()
    return o


class Routing:
    """Routes, bindings, endpoints, priorities, database broker options (a part of
    :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, conversations: Conversations, delivery: Delivery
                 ) -> None:
        self.state = state
        self.conversations = conversations
        self.delivery = delivery

    # -- routes -------------------------------------------------------------------------------
    def _check_route(self, name: str, o: dict[str, Any]) -> None:
        address = o.get("address")
        if not address:
            raise broker_error(9659, name)
        kind = str(address).upper()
        if kind not in ("LOCAL", "TRANSPORT") and not _TCP.match(str(address)):
            raise broker_error(9744, address)
        if o.get("broker_instance") and not o.get("service_name"):
            raise broker_error(9662)
        if kind == "TRANSPORT" and o.get("service_name"):
            raise broker_error(9745)
        mirror = o.get("mirror_address")
        if mirror:
            if not (o.get("service_name") and o.get("broker_instance")) or kind in (
                    "LOCAL", "TRANSPORT"):
                raise broker_error(9661)
            if not _TCP.match(str(mirror)):
                raise broker_error(9744, mirror)
            if str(mirror).upper() == kind:
                raise broker_error(9747)
        life = o.get("lifetime")
        if life is not None:
            try:
                ok = 1 <= int(life) <= MAX_LIFETIME
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise broker_error(9746, life)
        broker = o.get("broker_instance")
        if broker:
            try:
                uuid.UUID(str(broker))
            except ValueError:
                raise broker_error(9743, broker) from None

    def _route_row(self, txn: Txn, db_id: int, name: str) -> dict[str, Any] | None:
        r = self.state.t.routes
        row = txn.conn.execute(select(r).where(r.c.database_id == db_id,
                                               func.lower(r.c.name) == name.lower())
                               ).mappings().first()
        return None if row is None else dict(row)

    def create_route(self, txn: Txn, db_id: int, name: str, options: dict[str, Any],
                     owner: int | None = None) -> int:
        """``CREATE ROUTE name [AUTHORIZATION owner] WITH SERVICE_NAME=…, BROKER_INSTANCE=…,
        LIFETIME=…, ADDRESS=…, MIRROR_ADDRESS=…`` (option keys case-insensitive; ``owner``
        a principal id, dbo when None)."""
        self.state.db(txn.conn, db_id)
        o = _norm(options)
        self._check_route(name, o)
        if self._route_row(txn, db_id, name) is not None:
            raise tsql_error(2714, name)
        txn.write()
        r = self.state.t.routes
        rid = max(int(txn.conn.execute(select(func.max(r.c.route_id)).where(
            r.c.database_id == db_id)).scalar() or 0) + 1, 65537)
        life = o.get("lifetime")
        txn.conn.execute(insert(r).values(
            database_id=db_id, route_id=rid, name=name, principal_id=owner or 1,
            remote_service_name=o.get("service_name"),
            broker_instance=str(o["broker_instance"]).upper() if o.get("broker_instance")
            else None,
            lifetime=None if life is None else lifetime_expiry(utcnow(), int(life)),
            address=o["address"], mirror_address=o.get("mirror_address")))
        return rid

    def alter_route(self, txn: Txn, db_id: int, name: str, options: dict[str, Any]) -> None:
        """``ALTER ROUTE``: clauses not given stay as they are."""
        self.state.db(txn.conn, db_id)
        row = self._route_row(txn, db_id, name)
        if row is None:
            raise cannot("alter", "route", name)
        o = _norm(options)
        merged = {"service_name": row["remote_service_name"],
                  "broker_instance": row["broker_instance"], "lifetime": None,
                  "address": row["address"], "mirror_address": row["mirror_address"], **o}
        self._check_route(name, merged)
        values: dict[str, Any] = {}
        if "service_name" in o:
            values["remote_service_name"] = o["service_name"]
        if "broker_instance" in o:
            values["broker_instance"] = str(o["broker_instance"]).upper()
        if "lifetime" in o and o["lifetime"] is not None:
            values["lifetime"] = lifetime_expiry(utcnow(), int(o["lifetime"]))
        if "address" in o:
            values["address"] = o["address"]
        if "mirror_address" in o:
            values["mirror_address"] = o["mirror_address"]
        if values:
            txn.write()
            r = self.state.t.routes
            txn.conn.execute(update(r).where(r.c.database_id == db_id,
                                             r.c.route_id == row["route_id"]).values(**values))

    def drop_route(self, txn: Txn, db_id: int, name: str, options: dict[str, Any] | None = None
                   ) -> None:
        """``DROP ROUTE name``."""
        self.state.db(txn.conn, db_id)
        row = self._route_row(txn, db_id, name)
        if row is None:
            raise cannot("drop", "route", name)
        txn.write()
        r = self.state.t.routes
        txn.conn.execute(delete(r).where(r.c.database_id == db_id,
                                         r.c.route_id == row["route_id"]))

    # -- remote service bindings --------------------------------------------------------------
    def create_remote_service_binding(self, txn: Txn, db_id: int, name: str, to_service: str,
                                      user: str | None = None, anonymous: bool = False,
                                      owner: int | None = None) -> int:
        """``CREATE REMOTE SERVICE BINDING … [AUTHORIZATION owner] TO SERVICE 's' WITH USER
        = u, ANONYMOUS = …`` (Msg 9619 if the service already has one; ``owner`` a
        principal id, dbo when None)."""
        self.state.db(txn.conn, db_id)
        b = self.state.t.bindings
        conn = txn.conn
        rows = conn.execute(select(b).where(b.c.database_id == db_id)).mappings().all()
        if any(r["name"].lower() == name.lower() for r in rows):
            raise tsql_error(2714, name)
        if any(r["remote_service_name"] == to_service for r in rows):
            raise broker_error(9619, to_service)
        txn.write()
        bid = max([r["remote_service_binding_id"] for r in rows] + [65535]) + 1
        conn.execute(insert(b).values(
            database_id=db_id, remote_service_binding_id=bid, name=name, principal_id=owner or 1,
            remote_service_name=to_service, service_contract_id=0, remote_principal_id=1,
            remote_user=user, is_anonymous_on=bool(anonymous)))
        return bid

    def _binding(self, txn: Txn, db_id: int, name: str, verb: str) -> dict[str, Any]:
        b = self.state.t.bindings
        row = txn.conn.execute(select(b).where(b.c.database_id == db_id,
                                               func.lower(b.c.name) == name.lower())
                               ).mappings().first()
        if row is None:
            raise cannot(verb, "remote service binding", name)
        return dict(row)

    def alter_remote_service_binding(self, txn: Txn, db_id: int, name: str,
                                     user: str | None = None, anonymous: bool | None = None
                                     ) -> None:
        """``ALTER REMOTE SERVICE BINDING … WITH USER = …, ANONYMOUS = …``."""
        self.state.db(txn.conn, db_id)
        row = self._binding(txn, db_id, name, "alter")
        values: dict[str, Any] = {}
        if user is not None:
            values["remote_user"] = user
        if anonymous is not None:
            values["is_anonymous_on"] = bool(anonymous)
        if values:
            txn.write()
            b = self.state.t.bindings
            txn.conn.execute(update(b).where(
                b.c.database_id == db_id,
                b.c.remote_service_binding_id == row["remote_service_binding_id"])
                .values(**values))

    def drop_remote_service_binding(self, txn: Txn, db_id: int, name: str) -> None:
        """``DROP REMOTE SERVICE BINDING name``."""
        self.state.db(txn.conn, db_id)
        row = self._binding(txn, db_id, name, "drop")
        txn.write()
        b = self.state.t.bindings
        txn.conn.execute(delete(b).where(
            b.c.database_id == db_id,
            b.c.remote_service_binding_id == row["remote_service_binding_id"]))

    # -- the broker endpoint (instance-wide) --------------------------------------------------
    def create_endpoint(self, txn: Txn, name: str, options: dict[str, Any], owner_id: int = 1
                        ) -> int:
        """``CREATE ENDPOINT … FOR SERVICE_BROKER`` (one per instance: Msg 7862), owned by
        the login ``owner_id``. Options: state, port, ip, authentication, encryption,
        algorithm, message_forwarding, message_forward_size."""
        self.state.ensure_schema(txn.conn)
        e = self.state.t.endpoints_net
        conn = txn.conn
        if conn.execute(select(e.c.endpoint_id)).first() is not None:
            raise tsql_error(7862)
        o = _endpoint_options(options)
        check_authentication(o.get("authentication"))
        port = o.get("port")
        if port is not None and not (str(port).isdigit() and 1024 <= int(port) <= 32767):
            raise tsql_error(102, str(port), cls=BindError)
        txn.write()
        conn.execute(insert(e).values(
            endpoint_id=65536, name=name, principal_id=owner_id,
            state=str(o.get("state") or "STOPPED").upper(),
            port=None if port is None else int(port), ip=o.get("ip"),
            authentication=str(o.get("authentication") or "NEGOTIATE").upper(),
            encryption=str(o.get("encryption") or "REQUIRED").upper(),
            encryption_algorithm=str(o.get("algorithm") or "RC4").upper(),
            message_forwarding=str(o.get("message_forwarding") or "DISABLED").upper()
            == "ENABLED",
            message_forward_size=o.get("message_forward_size") or 10))
        return 65536

    def alter_endpoint(self, txn: Txn, name: str, options: dict[str, Any]) -> None:
        """``ALTER ENDPOINT name STATE = …`` (and the other options)."""
        self.state.ensure_schema(txn.conn)
        e = self.state.t.endpoints_net
        row = txn.conn.execute(select(e).where(func.lower(e.c.name) == name.lower())).first()
        if row is None:
            raise cannot("alter", "endpoint", name)
        o = _endpoint_options(options)
        if o.get("authentication") is not None:
            check_authentication(o["authentication"])
        values: dict[str, Any] = {}
        for key, col in (("state", "state"), ("port", "port"), ("ip", "ip"),
                         ("authentication", "authentication"), ("encryption", "encryption"),
                         ("algorithm", "encryption_algorithm")):
            if o.get(key) is not None:
                if col == "port" and not str(o[key]).isdigit():
                    raise tsql_error(102, str(o[key]), cls=BindError)
                values[col] = str(o[key]).upper() if col != "port" else int(o[key])
        if values:
            txn.write()
            txn.conn.execute(update(e).where(func.lower(e.c.name) == name.lower())
                             .values(**values))

    def endpoint_owner(self, conn: StoreConnection, name: str) -> tuple[int, int] | None:
        """(endpoint_id, owning login's principal_id) of endpoint ``name``, or None."""
        self.state.ensure_schema(conn)
        e = self.state.t.endpoints_net
        row = conn.execute(select(e.c.endpoint_id, e.c.principal_id).where(
            func.lower(e.c.name) == name.lower())).first()
        return None if row is None else (int(row[0]), int(row[1] or 1))

    def endpoints_owned_by(self, conn: StoreConnection, principal_id: int) -> int:
        """How many endpoints the login ``principal_id`` owns (DROP LOGIN refuses those)."""
        self.state.ensure_schema(conn)
        e = self.state.t.endpoints_net
        return int(conn.execute(select(func.count()).select_from(e).where(
            e.c.principal_id == principal_id)).scalar() or 0)

    def drop_endpoint(self, txn: Txn, name: str) -> int:
        """``DROP ENDPOINT name``: the dropped endpoint's id."""
        self.state.ensure_schema(txn.conn)
        e = self.state.t.endpoints_net
        row = txn.conn.execute(select(e).where(func.lower(e.c.name) == name.lower())).first()
        if row is None:
            raise cannot("drop", "endpoint", name)
        txn.write()
        txn.conn.execute(delete(e).where(func.lower(e.c.name) == name.lower()))
        return int(row.endpoint_id)

    # -- broker priorities --------------------------------------------------------------------
    def _priority_values(self, txn: Txn, db_id: int, o: dict[str, Any]) -> dict[str, Any]:
        meta = self.state.db(txn.conn, db_id)
        values: dict[str, Any] = {}

        def is_any(v: Any) -> bool:
            return v is None or str(v).upper() == "ANY"
        if "contract_name" in o:
            c = o["contract_name"]
            if is_any(c):
                values["service_contract_id"] = None
            else:
                row = meta.contracts_by_name.get(c)
                if row is None:
                    raise tsql_error(15151, "contract", c, cls=BindError)
                values["service_contract_id"] = row.service_contract_id
        if "local_service_name" in o:
            s = o["local_service_name"]
            if is_any(s):
                values["local_service_id"] = None
            else:
                svc = meta.services_by_name.get(s)
                if svc is None:
                    raise tsql_error(15151, "service", s, cls=BindError)
                values["local_service_id"] = svc.service_id
        if "remote_service_name" in o:
            r = o["remote_service_name"]
            values["remote_service_name"] = None if is_any(r) else r
        if "priority_level" in o:
            given = o["priority_level"]
            if given is None or str(given).upper() == "DEFAULT":
                level = 5
            elif isinstance(given, int) or str(given).isdigit():
                level = int(given)
            else:
                level = 0  # 'x', 1.5 …: no integer literal, as out of range
            if not 1 <= level <= 10:
                raise tsql_error(102, str(given), cls=BindError)
            values["priority"] = level
        return values

    def create_broker_priority(self, txn: Txn, db_id: int, name: str,
                               options: dict[str, Any]) -> int:
        """``CREATE BROKER PRIORITY name FOR CONVERSATION SET (CONTRACT_NAME = …,
        LOCAL_SERVICE_NAME = …, REMOTE_SERVICE_NAME = …, PRIORITY_LEVEL = …)``; applies to
        conversations begun afterwards."""
        o = _norm(options)
        values = {"service_contract_id": None, "local_service_id": None,
                  "remote_service_name": None, "priority": 5,
                  **self._priority_values(txn, db_id, o)}
        p = self.state.t.priorities
        conn = txn.conn
        if conn.execute(select(p.c.priority_id).where(
                p.c.database_id == db_id, func.lower(p.c.name) == name.lower())).first():
            raise tsql_error(2714, name)
        txn.write()
        pid = max(int(conn.execute(select(func.max(p.c.priority_id)).where(
            p.c.database_id == db_id)).scalar() or 0) + 1, 65536)
        conn.execute(insert(p).values(database_id=db_id, priority_id=pid, name=name, **values))
        return pid

    def alter_broker_priority(self, txn: Txn, db_id: int, name: str,
                              options: dict[str, Any]) -> None:
        """``ALTER BROKER PRIORITY``: options not given stay."""
        values = self._priority_values(txn, db_id, _norm(options))
        p = self.state.t.priorities
        cond = (p.c.database_id == db_id) & (func.lower(p.c.name) == name.lower())
        if txn.conn.execute(select(p.c.priority_id).where(cond)).first() is None:
            raise tsql_error(15151, "broker priority", name, cls=BindError)
        if values:
            txn.write()
            txn.conn.execute(update(p).where(cond).values(**values))

    def drop_broker_priority(self, txn: Txn, db_id: int, name: str) -> None:
        """``DROP BROKER PRIORITY name``."""
        self.state.db(txn.conn, db_id)
        p = self.state.t.priorities
        cond = (p.c.database_id == db_id) & (func.lower(p.c.name) == name.lower())
        if txn.conn.execute(select(p.c.priority_id).where(cond)).first() is None:
            raise tsql_error(15151, "broker priority", name, cls=BindError)
        txn.write()
        txn.conn.execute(delete(p).where(cond))

    # -- ALTER DATABASE -----------------------------------------------------------------------
    def set_database_broker_option(self, txn: Txn, db_id: int, option: str,
                                   value: Any = None) -> None:
        """``ALTER DATABASE … SET ENABLE_BROKER | DISABLE_BROKER | NEW_BROKER |
        ERROR_BROKER_CONVERSATIONS | HONOR_BROKER_PRIORITY {ON|OFF}`` (reference §1.9)."""
        self.state.db(txn.conn, db_id)
        opt = option.lower()
        conn = txn.conn
        txn.write()
        self.state.meta.changed(txn, db_id)
        if opt == "enable_broker":
            self.state.catalog.set_database_option(conn, db_id, is_broker_enabled=True)
            self.delivery.defer_retry(txn)
        elif opt == "disable_broker":
            self.state.catalog.set_database_option(conn, db_id, is_broker_enabled=False)
        elif opt == "new_broker":
            self.state.catalog.set_database_option(conn, db_id, is_broker_enabled=True,
                                                   service_broker_guid=uuid.uuid4())
            self.conversations.end_all(txn, db_id, None)
        elif opt == "error_broker_conversations":
            self.state.catalog.set_database_option(conn, db_id, is_broker_enabled=True)
            self.conversations.end_all(txn, db_id, -9719)
            self.delivery.defer_retry(txn)
        elif opt == "honor_broker_priority":
            on = value if isinstance(value, bool) else str(value).upper() in ("ON", "1", "TRUE")
            self.state.catalog.set_database_option(conn, db_id, is_honor_broker_priority_on=on)
        else:
            raise tsql_error(102, option, cls=BindError)

