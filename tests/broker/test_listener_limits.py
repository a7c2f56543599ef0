"""The hardened listener (docs/transport.md, *The listener's limits*): what a stranger who can
reach the endpoint's port can do to it — garbage, huge length prefixes, slow or unfinished
frames, deep nesting, malformed fields, hundreds of connections — each ends in a closed
connection, a log line and a count, while an established peer goes on being served. Loopback
only; bounded counts and times (small limits for the test)."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.broker.test_tcp_transport import (
    BEGIN,
    RETRY,
    SEND,
    count,
    free_port,
    setup_pair,
    wait_for,
)
from tests.broker.tls_peers import log_text, refusals
from tests.tsql_client import Client
from tsqlbroker.engine.broker.endpoint_tls import EndpointSecurity
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.broker.transport_link import KeyShare, Link, handshake
from tsqlbroker.engine.broker.transport_listen import (
    REFUSED_AUTH,
    REFUSED_FRAME,
    REFUSED_HELLO,
    REFUSED_LIMIT,
    ListenerLimits,
)
from tsqlbroker.engine.broker.transport_wire import encode, hello
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

LIMITS = ListenerLimits(max_connections=16, hello_s=0.5, frame_s=0.5, idle_s=30.0)


class Side:
    """One instance of the pair, its client and its transport."""

    def __init__(self, inst: Instance, db: str) -> None:
        self.inst = inst
        self.client = Client(inst, db)
        self.transport: Transport = runtime_for(inst).transport
        self.transport.listener.limits = LIMITS
        # This instance's endpoint identity, which the other side trusts (setup_pair).
        self.security = EndpointSecurity.get(inst.store)

    def refused(self) -> dict[str, int]:
        return refusals(self.transport)

    def log_text(self) -> str:
        return log_text(self.transport)


@pytest.fixture
def sides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Side, Side]]:
    """A (initiator) and B (target), two SQLite stores in this process (the listener does
    not depend on the store)."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", RETRY)
    ports = (free_port(), free_port())
    ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    setup_pair(ua, ub, ports)
    a, b = Instance(ua), Instance(ub)
    try:
        sa, sb = Side(a, "da"), Side(b, "db")
        wait_for(lambda: sb.transport.listening, "B to listen")
        yield sa, sb
    finally:
        a.close()
        b.close()


def _connect(side: Side) -> socket.socket:
    host, port = side.transport.listening or ("", 0)
    return socket.create_connection((host or "127.0.0.1", port), timeout=5)


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the listener sends until it closes the connection (a reset, when it
    closed with our bytes unread, or a TLS alert or end, is a close too)."""
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except (ConnectionResetError, ssl.SSLError):
        pass
    return got


def _tls(side: Side, via: Side) -> ssl.SSLSocket:
    """A TLS connection to ``side``'s listener presenting ``via``'s endpoint certificate
    (which ``side`` trusts), before any hello."""
    local = via.security.local()
    return via.security.context(local, server=False).wrap_socket(_connect(side))


def _greeted(side: Side, via: Side) -> Link:
    """A connection past the hellos (ours accepted, the listener's read), authenticated as
    ``via``."""
    link, greeting = handshake(_connect(side), None, None, initiating=True,
                               security=via.security)
    assert greeting["op"] == "hello"
    return link


def test_nothing_is_sent_before_the_peer_is_authenticated_and_the_hello_reveals_nothing(
        sides: tuple[Side, Side]) -> None:
    a, b = sides
    guid = str(b.client.scalar("SELECT service_broker_guid FROM sys.databases "
                               "WHERE name = 'db'")).upper()
    t0 = time.monotonic()
    with _connect(b) as silent:
        assert _until_closed(silent) == b""          # no TLS hello: closed after 0.5 s
    assert 0.3 < time.monotonic() - t0 < 5
    wait_for(lambda: b.refused().get(REFUSED_HELLO) == 1, "the silent peer counted",
             describe=b.refused)
    assert "refused: TLS handshake not completed in time" in b.log_text()
    # TLS without a certificate: refused before a hello is read or sent.
    anonymous = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    anonymous.check_hostname, anonymous.verify_mode = False, ssl.CERT_NONE
    with anonymous.wrap_socket(_connect(b)) as tls:
        with contextlib.suppress(ssl.SSLError):     # the listener may have refused already
            tls.sendall(encode(hello(**KeyShare().hello_fields())))
        assert _until_closed(tls) == b""
    wait_for(lambda: b.refused().get(REFUSED_AUTH) == 1, "the anonymous peer counted",
             describe=b.refused)
    assert "The peer did not present a certificate" in b.log_text()
    # Authenticated: the listener's hello says nothing about the instance.
    with _tls(b, a) as sock:
        sock.sendall(encode(hello(**KeyShare().hello_fields(), encryption="REQUIRED")))
        data = sock.recv(4096)
    (size,) = struct.unpack(">I", data[:4])
    assert set(json.loads(data[4:4 + size])) == {"op", "protocol", "version",
                                                 "arbitration_id", "key", "nonce",
                                                 "encryption"}
    assert guid not in data.decode("utf-8", "replace").upper()


def test_a_peer_that_does_not_speak_tls_is_refused_as_a_bad_hello(
        sides: tuple[Side, Side]) -> None:
    _, b = sides
    with _connect(b) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _until_closed(sock) == b""
    wait_for(lambda: b.refused().get(REFUSED_HELLO) == 1, "the refusal counted",
             describe=b.refused)
    assert "TLS handshake failed" in b.log_text()


@pytest.mark.parametrize("data, reason", [
    (b"\xff\xff\xff\xff", "is larger than 4096"),                  # a 4 GiB length prefix
    (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "is larger than 4096"),  # garbage
    (encode({"op": "hello", "protocol": "other"}), "did not greet"),
    (encode({"op": "hello", "protocol": "tsqlbroker-sb", "version": 2,
             "arbitration_id": "x" * 100}), "not a GUID"),
    (struct.pack(">I", 100) + b'{"op":', "not completed in time"),  # an unfinished hello
    (struct.pack(">I", 4000) + b"[" * 2000 + b"]" * 2000, "nested too deeply"),
    (encode(hello()), "key share is not usable"),
])
def test_a_bad_or_slow_hello_is_refused_logged_and_counted(
        sides: tuple[Side, Side], data: bytes, reason: str) -> None:
    a, b = sides
    with _tls(b, a) as sock:
        sock.sendall(data)
        assert _until_closed(sock) == b""
    wait_for(lambda: b.refused().get(REFUSED_HELLO) == 1, "the refusal counted",
             describe=b.refused)
    assert reason in b.log_text()


def _frame_refused(b: Side, a: Side, send: Callable[[Link], None], reason: str, n: int
                   ) -> None:
    link = _greeted(b, a)
    with link.sock:
        send(link)
        assert _until_closed(link.sock) == b""       # no answer: closed
    wait_for(lambda: b.refused().get(REFUSED_FRAME) == n, "the bad frame counted",
             describe=b.refused)
    assert reason in b.log_text(), b.log_text()


def test_bad_frames_after_the_hello_close_the_connection_and_nothing_is_queued(
        sides: tuple[Side, Side]) -> None:
    a, b = sides
    msg = {"op": "msg", "id": 1, "cid": "0" * 8 + "-0000-0000-0000-" + "0" * 12, "init": 1,
           "seq": 0, "type": "//tcp/Req", "body": None, "from_service": "//A/Init",
           "from_broker": None, "to_service": "//B/Targ", "to_broker": None,
           "contract": "//tcp/C", "priority": 5, "lifetime": "2099-01-01T00:00:00",
           "enqueue_time": None}

    def message(**change: object) -> Callable[[Link], None]:
        return lambda link: link.send_message({**msg, **change})
    cases: list[tuple[Callable[[Link], None], str]] = [
        (message(cid="A" * 10_000), "conversation id is not a GUID"),
        (message(seq=-1), "seq is not a sequence number"),
        (message(to_service="s" * 300), "to_service is not text"),
        (message(from_broker="'; DROP TABLE x"), "from_broker is not a GUID"),
        (message(priority=11), "priority is not 1 to 10"),
        (lambda link: link.send_control({"op": "msg", "x": [[1]]}), "not a flat object"),
        (lambda link: link.send_control({"op": "shutdown"}), "unexpected frame"),
        (lambda link: link.sock.sendall(b"\xff\xff\xff\xff"), "is not 43 to"),
        (lambda link: link.sock.sendall((b"\x00\x00\x00\x30" + b"x" * 48) * 3),
         "corrupted frames in a row"),                                # garbage
        (lambda link: link.sock.sendall(struct.pack(">I", 1000) + b"{"),
         "not completed in time"),                                   # slow, never finished
    ]
    for n, (send, reason) in enumerate(cases, 1):
        _frame_refused(b, a, send, reason, n)
    assert count(b.client, "SELECT COUNT(*) FROM Q") == 0
    assert count(b.client, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0


def test_hundreds_of_connections_are_capped_while_an_established_peer_is_served(
        sides: tuple[Side, Side]) -> None:
    a, b = sides
    h = a.client.scalar(BEGIN)
    a.client.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(b.client, "SELECT COUNT(*) FROM Q") == 1, "the first message")
    flood: list[socket.socket] = []
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], b.transport.listener.connections(),
                          sum(t.name == "broker-connection" and t.is_alive()
                              for t in threading.enumerate()))
            time.sleep(0.01)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(300):
            try:
                flood.append(_connect(b))
            except OSError:
                pass                       # the backlog is full: a refused connect is fine
        # The established connection from A goes on: more messages arrive meanwhile.
        a.client.run("\n".join(SEND.format(h=h, n=n) for n in range(1, 21)))
        wait_for(lambda: count(b.client, "SELECT COUNT(*) FROM Q") == 21,
                 "the messages sent during the flood")
        refused = wait_for(lambda: (r := b.refused()) and sum(r.values()) >= len(flood)
                           and r, "every flood connection refused", describe=b.refused)
    finally:
        done.set()
        watcher.join()
        for s in flood:
            s.close()
    assert len(flood) >= 100
    assert refused.get(REFUSED_LIMIT, 0) > 0 and refused.get(REFUSED_HELLO, 0) > 0
    assert sum(refused.values()) == len(flood)
    # Connection threads: A's connection plus the flood, never more than the cap (+ the
    # A → B connection counted on B, and any B → A one counted on A's listener).
    assert peak[0] <= LIMITS.max_connections + 1
    assert "more than 16 connections" in b.log_text()
    rows = b.client.rows("SELECT message_sequence_number FROM Q ORDER BY queuing_order")
    assert [r[0] for r in rows] == list(range(21))


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSQLBROKER_SB_LISTENER", "max_connections=8, hello_s=1.5,bogus=3,"
                       "frame_s=x,idle_s=-1")
    limits = ListenerLimits.from_env()
    assert (limits.max_connections, limits.hello_s) == (8, 1.5)
    assert (limits.frame_s, limits.idle_s) == (ListenerLimits().frame_s,
                                               ListenerLimits().idle_s)
