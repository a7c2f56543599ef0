"""The endpoint catalog views and the broker's network DMVs, as SQL Server shows them:
``sys.endpoints``, ``sys.tcp_endpoints``, ``sys.service_broker_endpoints``,
``sys.dm_broker_connections`` and ``sys.dm_broker_forwarded_messages``.

They are instance-wide (the same rows from every database). Besides the Service Broker
endpoint of CREATE ENDPOINT (id 65536), ``sys.endpoints`` lists the five built-in TSQL
endpoints every SQL Server instance has, and ``sys.tcp_endpoints`` the two of them that use
TCP (docs/decisions.md). Rows are computed in Python — the endpoint's stored option texts
become SQL Server's codes — and handed to the backend as literal rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ...storage.store import StoreConnection
from ..catalog import Catalog
from ..security import Security
from .transport_conns import COLUMNS as CONNECTION_COLUMNS
from .transport_conns import registry

Columns = list[tuple[str, str]]

ENDPOINT_COLUMNS: Columns = [
    ("name", "sysname"), ("endpoint_id", "int"), ("principal_id", "int"),
    ("protocol", "tinyint"), ("protocol_desc", "nvarchar(60)"), ("type", "tinyint"),
    ("type_desc", "nvarchar(60)"), ("state", "tinyint"), ("state_desc", "nvarchar(60)"),
    ("is_admin_endpoint", "bit")]
TCP_COLUMNS: Columns = [*ENDPOINT_COLUMNS, ("port", "int"), ("is_dynamic_port", "bit"),
                        ("ip_address", "nvarchar(45)")]
BROKER_COLUMNS: Columns = [
    *ENDPOINT_COLUMNS, ("is_message_forwarding_enabled", "bit"),
    ("message_forwarding_size", "int"), ("connection_auth", "tinyint"),
    ("connection_auth_desc", "nvarchar(60)"), ("certificate_id", "int"),
    ("encryption_algorithm", "tinyint"), ("encryption_algorithm_desc", "nvarchar(60)")]
FORWARDED_COLUMNS: Columns = [
    ("conversation_id", "uniqueidentifier"), ("is_initiator", "bit"),
    ("to_service_name", "nvarchar(512)"), ("to_broker_instance", "nvarchar(512)"),
    ("from_service_name", "nvarchar(512)"), ("from_broker_instance", "nvarchar(512)"),
    ("adjacent_broker_address", "nvarchar(512)"), ("message_sequence_number", "bigint"),
    ("message_fragment_number", "int"), ("hops_remaining", "tinyint"),
    ("time_to_live", "int"), ("time_consumed", "int"), ("message_id", "uniqueidentifier")]

PROTOCOLS = {1: "HTTP", 2: "TCP", 3: "NAMED_PIPES", 4: "SHARED_MEMORY", 5: "VIA"}
TYPES = {1: "SOAP", 2: "TSQL", 3: "SERVICE_BROKER", 4: "DATABASE_MIRRORING"}
STATES = {"STARTED": 0, "STOPPED": 1, "DISABLED": 2}

# The built-in endpoints of a SQL Server instance: (name, id, protocol, is_admin, tcp).
# All are owned by sa and STARTED; the TCP ones listen on a dynamically chosen port, shown
# as port 0 with is_dynamic_port = 1.
BUILTIN: list[tuple[str, int, int, bool, bool]] = [
    ("Dedicated Admin Connection", 1, 2, True, True),
    ("TSQL Local Machine", 2, 4, False, False),
    ("TSQL Named Pipes", 3, 3, False, False),
    ("TSQL Default TCP", 4, 2, False, True),
    ("TSQL Default VIA", 5, 5, False, False),
]

# connection_auth: SQL Server's code for each AUTHENTICATION choice.
AUTH_CODES = {"NTLM": 1, "KERBEROS": 2, "NEGOTIATE": 3, "CERTIFICATE": 4,
              "NTLM, CERTIFICATE": 5, "KERBEROS, CERTIFICATE": 6,
              "NEGOTIATE, CERTIFICATE": 7, "CERTIFICATE, NTLM": 8,
              "CERTIFICATE, KERBEROS": 9, "CERTIFICATE, NEGOTIATE": 10}
# encryption_algorithm: SQL Server's code for each ENCRYPTION choice.
ALGORITHM_CODES = {"NONE": 0, "RC4": 1, "AES": 2, "NONE, RC4": 3, "NONE, AES": 4,
                   "RC4, AES": 5, "AES, RC4": 6, "NONE, RC4, AES": 7, "NONE, AES, RC4": 8}


def auth_desc(text: str | None) -> tuple[str, str | None]:
    """``connection_auth_desc`` of a stored AUTHENTICATION text, and the certificate's name.

    ``WINDOWS`` alone means NEGOTIATE; the order of WINDOWS and CERTIFICATE is kept (it says
    which method is tried first)."""
    words = str(text or "WINDOWS").upper().split()
    parts: list[str] = []
    cert: str | None = None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "CERTIFICATE" and i + 1 < len(words):
            parts.append("CERTIFICATE")
            cert = words[i + 1]
            i += 2
            continue
        if word == "WINDOWS":
            method = words[i + 1] if i + 1 < len(words) else ""
            if method in ("NTLM", "KERBEROS", "NEGOTIATE"):
                parts.append(method)
                i += 2
                continue
            parts.append("NEGOTIATE")
        elif word in ("NTLM", "KERBEROS", "NEGOTIATE"):   # the stored default: NEGOTIATE
            parts.append(word)
        i += 1
    desc = ", ".join(parts) or "NEGOTIATE"
    return (desc if desc in AUTH_CODES else "NEGOTIATE"), cert


def algorithm_desc(encryption: str | None, algorithm: str | None) -> str:
    """``encryption_algorithm_desc`` of the stored ENCRYPTION text (``REQUIRED ALGORITHM
    AES RC4``…) and ALGORITHM column: NONE first when encryption is only SUPPORTED."""
    words = str(encryption or "REQUIRED").upper().split()
    if not words or words[0] == "DISABLED":
        return "NONE"
    algs = words[words.index("ALGORITHM") + 1:] if "ALGORITHM" in words else []
    if not algs:
        algs = str(algorithm or "RC4").upper().split()
    algs = [a for a in algs if a in ("AES", "RC4")] or ["RC4"]
    desc = ", ".join((["NONE"] if words[0] == "SUPPORTED" else []) + algs)
    return desc if desc in ALGORITHM_CODES else "RC4"


def _base(name: str, endpoint_id: int, protocol: int, kind: int, state: str,
          admin: bool, principal_id: int | None = 1) -> tuple[Any, ...]:
    return (name, endpoint_id, principal_id, protocol, PROTOCOLS[protocol], kind, TYPES[kind],
            STATES.get(state, 1), state, int(admin))


def _broker_endpoint(broker: Any, conn: StoreConnection) -> dict[str, Any] | None:
    broker.ensure_schema(conn)
    row = conn.execute(select(broker.t.endpoints_net)).mappings().first()
    return None if row is None else dict(row)


def _certificate_id(conn: StoreConnection, name: str | None) -> int:
    """The id of the endpoint's certificate in master (0: Windows authentication only)."""
    if name is None:
        return 0
    master = Catalog.get(conn.store).database_id(conn, "master")
    for cert in Security.get(conn.store).certificates(conn, master) if master else []:
        if str(cert["name"]).upper() == name.upper():
            return int(cert["certificate_id"])
    return 0


def endpoints(broker: Any, conn: StoreConnection) -> tuple[Columns, list[tuple[Any, ...]]]:
    """``sys.endpoints``: the built-in TSQL endpoints, then the broker endpoint."""
    rows = [_base(n, i, p, 2, "STARTED", admin) for n, i, p, admin, _tcp in BUILTIN]
    ep = _broker_endpoint(broker, conn)
    if ep is not None:
        rows.append(_base(ep["name"], ep["endpoint_id"], 2, 3, str(ep["state"]).upper(),
                          False, ep["principal_id"]))
    return ENDPOINT_COLUMNS, rows


def tcp_endpoints(broker: Any, conn: StoreConnection
                  ) -> tuple[Columns, list[tuple[Any, ...]]]:
    """``sys.tcp_endpoints``: the TCP ones of ``sys.endpoints`` with port and address
    (LISTENER_IP = ALL shows NULL)."""
    rows = [(*_base(n, i, p, 2, "STARTED", admin), 0, 1, None)
            for n, i, p, admin, tcp in BUILTIN if tcp]
    ep = _broker_endpoint(broker, conn)
    if ep is not None:
        ip = ep["ip"]
        rows.append((*_base(ep["name"], ep["endpoint_id"], 2, 3, str(ep["state"]).upper(),
                            False, ep["principal_id"]),
                     ep["port"] or 0, 0, None if ip is None or str(ip).upper() == "ALL"
                     else str(ip)))
    return TCP_COLUMNS, rows


def service_broker_endpoints(broker: Any, conn: StoreConnection
                             ) -> tuple[Columns, list[tuple[Any, ...]]]:
    """``sys.service_broker_endpoints``: the broker endpoint with its options as codes."""
    ep = _broker_endpoint(broker, conn)
    if ep is None:
        return BROKER_COLUMNS, []
    auth, cert = auth_desc(ep["authentication"])
    alg = algorithm_desc(ep["encryption"], ep["encryption_algorithm"])
    row = (*_base(ep["name"], ep["endpoint_id"], 2, 3, str(ep["state"]).upper(), False,
                  ep["principal_id"]),
           int(bool(ep["message_forwarding"])), int(ep["message_forward_size"] or 10),
           AUTH_CODES[auth], auth, _certificate_id(conn, cert), ALGORITHM_CODES[alg], alg)
    return BROKER_COLUMNS, [row]


def broker_connections(broker: Any, _conn: StoreConnection
                       ) -> tuple[Columns, list[tuple[Any, ...]]]:
    """``sys.dm_broker_connections``: this process's live transport connections."""
    return CONNECTION_COLUMNS, registry(broker.store).rows()


def forwarded_messages(_broker: Any, _conn: StoreConnection
                       ) -> tuple[Columns, list[tuple[Any, ...]]]:
    """``sys.dm_broker_forwarded_messages``: always empty — tsqlbroker does not forward
    messages (MESSAGE_FORWARDING is stored only; docs/transport.md)."""
    return FORWARDED_COLUMNS, []


VIEWS = {"endpoints": endpoints, "tcp_endpoints": tcp_endpoints,
         "service_broker_endpoints": service_broker_endpoints,
         "dm_broker_connections": broker_connections,
         "dm_broker_forwarded_messages": forwarded_messages}
# the catalog views among them, filtered by metadata visibility (the DMVs need VIEW SERVER
# STATE instead)
CATALOG = frozenset({"endpoints", "tcp_endpoints", "service_broker_endpoints"})
