"""The live broker-to-broker connections of one store, for ``sys.dm_broker_connections``.

The transport (``transport.py``) opens a :class:`ConnStats` for every TCP connection it
accepts or makes, moves it through SQL Server's connection and login states, and the frame
functions of ``transport_wire`` count bytes, network sends and receives and message fragments
on it. The registry is shared by every thread of the process (listener, connection threads,
sender) and by the sessions that read the DMV, so every change happens under one lock.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .model import utcnow

# sys.dm_broker_connections.state
NEW, CONNECTING, CONNECTED, LOGGED_IN, CLOSED = 1, 2, 3, 4, 5
STATE_DESC = {NEW: "NEW", CONNECTING: "CONNECTING", CONNECTED: "CONNECTED",
              LOGGED_IN: "LOGGED_IN", CLOSED: "CLOSED"}
# sys.dm_broker_connections.login_state (the codes SQL Server documents; tsqlbroker's
# handshake is one hello each way, so it passes INITIAL → WAIT LOGIN NEGOTIATE → ONLINE).
INITIAL, WAIT_LOGIN_NEGOTIATE, ONLINE, ERROR = 0, 1, 12, 13
LOGIN_STATE_DESC = {0: "INITIAL", 1: "WAIT LOGIN NEGOTIATE", 2: "ONE ISC", 3: "ONE ASC",
                    4: "TWO ISC", 5: "TWO ASC", 6: "WAIT ISC Confirm", 7: "WAIT ASC Confirm",
                    8: "WAIT REJECT", 9: "WAIT PRE-MASTER SECRET", 10: "WAIT VALIDATION",
                    11: "WAIT ARBITRATION", 12: "ONLINE", 13: "ERROR"}

COLUMNS: list[tuple[str, str]] = [
    ("connection_id", "uniqueidentifier"), ("transport_stream_id", "uniqueidentifier"),
    ("state", "smallint"), ("state_desc", "nvarchar(60)"), ("connect_time", "datetime"),
    ("login_time", "datetime"), ("authentication_method", "nvarchar(128)"),
    ("principal_name", "nvarchar(128)"), ("remote_user_name", "nvarchar(128)"),
    ("last_activity_time", "datetime"), ("is_accept", "bit"), ("login_state", "smallint"),
    ("login_state_desc", "nvarchar(60)"), ("peer_certificate_id", "int"),
    ("encryption_algorithm", "smallint"), ("encryption_algorithm_desc", "nvarchar(60)"),
    ("receives_posted", "smallint"), ("is_receive_flow_controlled", "bit"),
    ("sends_posted", "smallint"), ("is_send_flow_controlled", "bit"),
    ("total_bytes_sent", "bigint"), ("total_bytes_received", "bigint"),
    ("total_fragments_sent", "bigint"), ("total_fragments_received", "bigint"),
    ("total_sends", "bigint"), ("total_receives", "bigint"),
    ("peer_arbitration_id", "uniqueidentifier")]


def _now() -> datetime:
    # The broker's clock (enqueue_time, lifetime): naive UTC.
    return utcnow().replace(microsecond=0)


def _uuid() -> str:
    return str(uuid.uuid4()).upper()


@dataclass(eq=False)
class ConnStats:
    """One connection's row of the DMV; change it only through the registry's lock."""

    registry: ConnectionRegistry
    is_accept: bool
    peer: str
    connection_id: str = field(default_factory=_uuid)
    transport_stream_id: str = field(default_factory=_uuid)
    state: int = NEW
    login_state: int = INITIAL
    connect_time: datetime | None = None
    login_time: datetime | None = None
    last_activity_time: datetime | None = None
    peer_arbitration_id: str | None = None
    receives_posted: int = 0
    sends_posted: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    fragments_sent: int = 0
    fragments_received: int = 0
    sends: int = 0
    receives: int = 0
    principal_name: str | None = None       # the login admitted by its certificate
    peer_certificate_id: int | None = None  # the peer's certificate in master
    cipher: str | None = None               # the TLS cipher; None: frames in clear

    def set_state(self, state: int, login_state: int | None = None) -> None:
        """Move to ``state`` (and ``login_state``), stamping connect / login times."""
        with self.registry.lock:
            self.state = state
            if login_state is not None:
                self.login_state = login_state
            if state == CONNECTED and self.connect_time is None:
                self.connect_time = _now()
            if state == LOGGED_IN:
                self.login_time = _now()
            self.last_activity_time = _now()

    def logged_in(self, hello: dict[str, Any]) -> None:
        """The peer's hello arrived and was accepted: LOGGED_IN / ONLINE."""
        peer_id = hello.get("arbitration_id")
        with self.registry.lock:
            self.peer_arbitration_id = str(peer_id).upper() if peer_id else None
        self.set_state(LOGGED_IN, ONLINE)

    def secured(self, principal_name: str, peer_certificate_id: int, cipher: str | None
                ) -> None:
        """The peer was authenticated by its certificate (owned by ``principal_name``'s
        login) and the connection is encrypted with ``cipher`` (None: not encrypted)."""
        with self.registry.lock:
            self.principal_name = principal_name
            self.peer_certificate_id = peer_certificate_id
            self.cipher = cipher

    def posting(self, send: bool, delta: int) -> None:
        """A send (``send``) or receive starts (+1) or completes (-1)."""
        with self.registry.lock:
            if send:
                self.sends_posted += delta
            else:
                self.receives_posted += delta

    def sent(self, nbytes: int, fragment: bool) -> None:
        """One network send of ``nbytes`` (a message fragment if ``fragment``)."""
        with self.registry.lock:
            self.sends += 1
            self.bytes_sent += nbytes
            self.fragments_sent += int(fragment)
            self.last_activity_time = _now()

    def received(self, nbytes: int) -> None:
        """One network receive that returned ``nbytes``."""
        with self.registry.lock:
            self.receives += 1
            self.bytes_received += nbytes
            self.last_activity_time = _now()

    def fragment_received(self) -> None:
        """A whole message fragment arrived."""
        with self.registry.lock:
            self.fragments_received += 1

    def close(self) -> None:
        """The connection is closed: it leaves the DMV (SQL Server's CLOSED rows go too)."""
        self.registry.remove(self)

    def row(self) -> tuple[Any, ...]:
        """The DMV row (caller holds the lock): authentication CERTIFICATE once the peer was
        admitted; encryption AES when TLS carries the frames (TLS 1.3's AES-GCM suites),
        NONE when the endpoints negotiated no encryption."""
        method = None if self.peer_certificate_id is None else "CERTIFICATE"
        algorithm = (0, "NONE") if self.cipher is None else \
            (2, "AES") if "AES" in self.cipher else (0, self.cipher)
        return (self.connection_id, self.transport_stream_id, self.state,
                STATE_DESC[self.state], self.connect_time, self.login_time, method,
                self.principal_name, None,
                self.last_activity_time, int(self.is_accept), self.login_state,
                LOGIN_STATE_DESC[self.login_state], self.peer_certificate_id, *algorithm,
                self.receives_posted,
                0, self.sends_posted, 0, self.bytes_sent, self.bytes_received,
                self.fragments_sent, self.fragments_received, self.sends, self.receives,
                self.peer_arbitration_id)


class ConnectionRegistry:
    """The connections of one store's transport (thread-safe)."""

    def __init__(self, store: Any = None) -> None:
        self.lock = threading.Lock()
        # Whose endpoint security the connections use (transport_link.handshake reads it
        # from there); None only in the frame layer's own tests.
        self.store = store
        self._conns: list[ConnStats] = []
        # Sent in this process's hello: the far side's peer_arbitration_id.
        self.arbitration_id = _uuid()
        # Connections the listener refused or cut off, by reason (transport_listen).
        self.refused: Counter[str] = Counter()
        # Frames dropped because their integrity tag did not verify (transport_link).
        self.corrupted = 0

    def count_corrupted(self) -> None:
        """One more frame dropped as corrupted."""
        with self.lock:
            self.corrupted += 1

    def count_refused(self, kind: str) -> None:
        """One more connection refused for reason ``kind``."""
        with self.lock:
            self.refused[kind] += 1

    def open(self, *, is_accept: bool, peer: str) -> ConnStats:
        """Register a new connection (accepted, or about to be made)."""
        stats = ConnStats(self, is_accept, peer)
        stats.set_state(CONNECTED if is_accept else CONNECTING, INITIAL)
        with self.lock:
            self._conns.append(stats)
        return stats

    def remove(self, stats: ConnStats) -> None:
        """Forget a closed connection (idempotent)."""
        with self.lock:
            if stats in self._conns:
                self._conns.remove(stats)

    def rows(self) -> list[tuple[Any, ...]]:
        """The DMV's rows, oldest connection first."""
        with self.lock:
            return [c.row() for c in self._conns]


def registry(store: Any) -> ConnectionRegistry:
    """The store's connection registry (one per store and process)."""
    return store.extension("broker_connections", ConnectionRegistry)
