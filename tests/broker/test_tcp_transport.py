"""Broker-to-broker delivery over TCP: two instances, each with its own store and endpoint,
routes both ways (docs/transport.md). In-process pairs of instances for the dialog rules, and
real ``tsqlbroker serve`` processes for a target that is down and one killed mid-stream."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FreshPostgres
from tests.tsql_client import Client
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.transport import Unreachable, _Backoff, _retry_from_env
from tsqlbroker.engine.broker.transport_conns import ConnectionRegistry
from tsqlbroker.engine.broker.transport_recv import Receiver
from tsqlbroker.engine.broker.transport_route import match_routes, parse_address
from tsqlbroker.engine.broker.transport_wire import (
    WireError,
    check_hello,
    encode,
    hello,
    recv_frame,
)
from tsqlbroker.errors import message_text
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

RETRY = "0.2,1"          # back-off for tests: 0.2 s doubling to 1 s (SQL Server: 4 → 64 s)

SETUP = """
CREATE DATABASE {db};
GO
ALTER DATABASE {db} SET ENABLE_BROKER;
GO
USE {db};
CREATE MESSAGE TYPE [//tcp/Req] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//tcp/Rep] VALIDATION = NONE;
CREATE CONTRACT [//tcp/C] ([//tcp/Req] SENT BY INITIATOR, [//tcp/Rep] SENT BY TARGET);
CREATE QUEUE Q;
CREATE SERVICE [{svc}] ON QUEUE Q ([//tcp/C]);
-- An unsecured dialog's initiator acts as public here, as SQL Server's tutorials grant.
GRANT SEND ON SERVICE::[{svc}] TO PUBLIC;
CREATE ROUTE ToFar WITH SERVICE_NAME = '{far}', ADDRESS = 'TCP://127.0.0.1:{far_port}';
"""
# Each instance's endpoint authenticates with its own certificate in master (its private
# key encrypted by master's database master key), as SQL Server's certificate transport
# security is set up; TRUST makes the other instance's certificate known and lets its
# owner's login CONNECT (docs/transport.md, *Endpoint security*).
ENDPOINT_CERT = """USE master;
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'M@sterKey1';
CREATE CERTIFICATE EndpointCert WITH SUBJECT = 'endpoint {name}';"""
ENDPOINT = """CREATE ENDPOINT BrokerEndpoint STATE = STARTED
AS TCP (LISTENER_PORT = {port}, LISTENER_IP = (127.0.0.1))
FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE EndpointCert, ENCRYPTION = {encryption});"""
TRUST = """USE master;
CREATE LOGIN FarLogin WITH PASSWORD = 'F@rLogin1';
CREATE USER FarUser FOR LOGIN FarLogin;
CREATE CERTIFICATE FarCert AUTHORIZATION FarUser FROM FILE = '{file}';
GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO FarLogin;"""
BEGIN = """DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//A/Init] TO SERVICE '//B/Targ' ON CONTRACT [//tcp/C]
    WITH ENCRYPTION = OFF;
SELECT @h;"""
SEND = """SEND ON CONVERSATION (CAST('{h}' AS uniqueidentifier)) MESSAGE TYPE [//tcp/Req]
    (N'<m n="{n}"/>');"""
END = """DECLARE @e uniqueidentifier = '{h}'; END CONVERSATION @e;"""


def free_port() -> int:
    """A free port SQL Server accepts for LISTENER_PORT (1024–32767: the kernel's port-0
    choice lies above that range, so ports are tried at random and bound to check)."""
    while True:
        port = random.randint(20000, 32767)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30.0,
             describe: Callable[[], Any] | None = None) -> Any:
    """Poll ``check`` until it returns something true; fail after ``timeout`` seconds
    (saying what ``describe`` returns then, for diagnosis)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            state = describe() if describe is not None else value
            raise AssertionError(f"timed out waiting for {what}: {state!r}")
        time.sleep(0.05)


def held(c: Client) -> list[tuple[Any, ...]]:
    """The transmission queue's sequence numbers and statuses (for failure messages)."""
    return c.rows("SELECT message_sequence_number, transmission_status FROM "
                  "sys.transmission_queue ORDER BY message_sequence_number")


def setup_side(url: str, *, db: str, svc: str, far: str, port: int, far_port: int,
               endpoint: bool = True, encryption: str = "REQUIRED") -> None:
    """Create one side's database, service, route (and endpoint) and close the instance."""
    inst = Instance(url)
    try:
        c = Client(inst)
        c.run(SETUP.format(db=db, svc=svc, far=far, far_port=far_port))
        if endpoint:
            c.run(ENDPOINT_CERT.format(name=db))
            c.run(ENDPOINT.format(port=port, encryption=encryption))
    finally:
        inst.close()


def run_on(url: str, sql: str) -> None:
    """Run ``sql`` on the store at ``url`` (an instance opened for it and closed)."""
    inst = Instance(url)
    try:
        Client(inst).run(sql)
    finally:
        inst.close()


def trust_each_other(ua: str, ub: str) -> None:
    """Each instance's endpoint certificate, backed up to a file, becomes FarCert in the
    other's master, owned by FarUser whose login FarLogin may CONNECT to its endpoint."""
    with tempfile.TemporaryDirectory() as tmp:
        files = [str(Path(tmp) / f"{n}.cer") for n in ("a", "b")]
        for url, file in zip((ua, ub), files, strict=True):
            run_on(url, f"USE master; BACKUP CERTIFICATE EndpointCert TO FILE = '{file}';")
        run_on(ua, TRUST.format(file=files[1]))
        run_on(ub, TRUST.format(file=files[0]))


def setup_pair(ua: str, ub: str, ports: tuple[int, int]) -> None:
    """Set up side A (initiator //A/Init, database da) at ``ua`` and side B (target
    //B/Targ, database db) at ``ub``, each with an endpoint, a route to the other, and the
    other's certificate trusted."""
    pa, pb = ports
    setup_side(ua, db="da", svc="//A/Init", far="//B/Targ", port=pa, far_port=pb)
    setup_side(ub, db="db", svc="//B/Targ", far="//A/Init", port=pb, far_port=pa)
    trust_each_other(ua, ub)


def child_env() -> dict[str, str]:
    """The environment of a child tsqlbroker process: the tests' back-off, this checkout."""
    env = dict(os.environ, TSQLBROKER_SB_RETRY=RETRY)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture
def ports() -> tuple[int, int]:
    a = free_port()
    b = free_port()
    while b == a:
        b = free_port()
    return a, b


@pytest.fixture
def pair(tmp_path: Path, ports: tuple[int, int], monkeypatch: pytest.MonkeyPatch,
         backend: str, fresh_postgres: FreshPostgres) -> Iterator[tuple[Client, Client]]:
    """Two instances in this process, A (initiator //A/Init) and B (target //B/Targ), each
    with its own store (two SQLite files, or two PostgreSQL schemas), endpoint and a route to
    the other."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", RETRY)
    if backend == "sqlite":
        ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    else:
        ua, ub = fresh_postgres.url(), fresh_postgres.url()
    setup_pair(ua, ub, ports)
    a, b = Instance(ua), Instance(ub)
    try:
        ca, cb = Client(a, "da"), Client(b, "db")
        # Each instance hosts its store's broker work, so its transport runs (a client
        # starts it at its first statement giving the broker work, e.g. SEND).
        runtime_for(a)
        runtime_for(b)
        yield ca, cb
    finally:
        a.close()
        b.close()


def count(c: Client, sql: str) -> int:
    return int(c.scalar(sql))


def states(c: Client) -> list[str]:
    """state_desc of every conversation endpoint of the client's database."""
    return [r[0] for r in c.rows("SELECT state_desc FROM sys.conversation_endpoints")]


# -- the wire and route matching --------------------------------------------------------------
def test_hellos_round_trip_and_bad_frames_are_refused() -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(encode(hello()) + b"\x00\x00\x00\x02[]")
        assert check_hello(recv_frame(right))["version"] == 2
        with pytest.raises(WireError):
            recv_frame(right)              # JSON, but not an object with an op
        left.sendall(b"\xff\xff\xff\xff")
        with pytest.raises(WireError):
            recv_frame(right)              # longer than a hello may be
        left.close()
        assert recv_frame(right) is None   # closed between frames


def test_the_registry_counts_from_many_threads() -> None:
    reg = ConnectionRegistry()
    stats = reg.open(is_accept=True, peer="x")

    def work() -> None:
        for _ in range(2000):
            stats.sent(3, True)
            stats.received(5)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = reg.rows()[0]
    assert (row[20], row[21], row[22], row[24], row[25]) == (24000, 40000, 8000, 8000, 8000)


def test_route_matching_prefers_instance_then_name_then_any() -> None:
    def route(name: str | None, guid: str | None, address: str) -> dict[str, Any]:
        return {"remote_service_name": name, "broker_instance": guid, "lifetime": None,
                "address": address}
    local = route(None, None, "LOCAL")
    named = route("//s", None, "TCP://h1:4022")
    pinned = route("//s", "AAAA", "TCP://h2:4022")
    rows = [local, named, pinned]
    assert match_routes(rows, "//s", "aaaa") == [pinned]
    assert match_routes(rows, "//s", None) == [named]
    assert match_routes([local, pinned], "//s", None) == [pinned]
    assert match_routes(rows, "//other", None) == [local]
    assert parse_address("TCP://127.0.0.1:4022") == ("127.0.0.1", 4022)
    assert parse_address("LOCAL") is None


def test_retries_back_off_from_the_minimum_doubling_to_the_maximum(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TSQLBROKER_SB_RETRY", raising=False)
    assert _retry_from_env() == (4.0, 64.0)          # SQL Server: 4, 8, 16, 32, then 64 s
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", "0.5,3")
    assert _retry_from_env() == (0.5, 3.0)
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", "nonsense")
    assert _retry_from_env() == (4.0, 64.0)
    backoff = _Backoff(4.0, 64.0)
    waits = []
    for _ in range(6):
        backoff.failed("x")
        waits.append(round(backoff._next["x"] - time.monotonic()))
    assert waits == [4, 8, 16, 32, 64, 64]
    assert not backoff.due("x")
    backoff.ok("x")
    assert backoff.due("x")


def test_the_endpoint_keeps_its_listener_port_and_ip(tmp_path: Path,
                                                     ports: tuple[int, int]) -> None:
    inst = Instance(f"sqlite:///{tmp_path}/e.db")
    try:
        Client(inst).run(ENDPOINT.format(port=ports[0], encryption="REQUIRED"))
        broker = Broker.get(inst.store)
        conn = inst.store.connect()
        try:
            row = conn.execute(broker.t.endpoints_net.select()).mappings().first()
        finally:
            conn.close()
        assert (row["state"], row["port"], row["ip"]) == ("STARTED", ports[0], "127.0.0.1")
        Client(inst).run("ALTER ENDPOINT BrokerEndpoint AS TCP (LISTENER_PORT = "
                         f"{ports[1]})")
        conn = inst.store.connect()
        try:
            assert conn.execute(broker.t.endpoints_net.select()).mappings().first()["port"] \
                == ports[1]
        finally:
            conn.close()
    finally:
        inst.close()


# -- two instances in this process ------------------------------------------------------------
def test_request_reply_in_order_and_end_on_both_sides(pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    h = ca.scalar(BEGIN)
    ca.run("\n".join(SEND.format(h=h, n=n) for n in range(5)))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 5, "5 messages at B")
    # B commits before it acknowledges; A deletes the last message when the ack arrives.
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's transmission queue emptied by B's acknowledgements", describe=lambda: held(ca))
    rows = cb.rows("SELECT message_sequence_number, CAST(message_body AS nvarchar(100)), "
                   "service_name FROM Q ORDER BY queuing_order")
    assert rows == [(n, f'<m n="{n}"/>', "//B/Targ") for n in range(5)]
    target = cb.rows("SELECT state_desc, far_service, far_broker_instance FROM "
                     "sys.conversation_endpoints")
    guid_a = str(ca.scalar("SELECT service_broker_guid FROM sys.databases WHERE name = 'da'"))
    assert target == [("CONVERSING", "//A/Init", guid_a.upper())]
    guid_b = str(cb.scalar("SELECT service_broker_guid FROM sys.databases WHERE name = 'db'"))
    assert ca.scalar("SELECT far_broker_instance FROM sys.conversation_endpoints") \
        == guid_b.upper()

    cb.run("""DECLARE @h uniqueidentifier, @i int = 0;
        WHILE @i < 5 BEGIN
            RECEIVE TOP (1) @h = conversation_handle FROM Q;
            SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Rep] (CAST(@i AS varbinary(4)));
            SET @i += 1;
        END
        END CONVERSATION @h;""")
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 6, "5 replies and EndDialog at A")
    rows = ca.rows("SELECT message_sequence_number, message_type_name, message_body FROM Q "
                   "ORDER BY queuing_order")
    assert [r[0] for r in rows] == list(range(6))
    assert [r[2] for r in rows[:5]] == [i.to_bytes(4, "big") for i in range(5)]
    assert rows[5][1] == "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"
    # B ended first: it waits (DO) until A ends too; A's close notice then closes it.
    assert cb.scalar("SELECT state_desc FROM sys.conversation_endpoints") \
        == "DISCONNECTED_OUTBOUND"
    assert ca.scalar("SELECT state_desc FROM sys.conversation_endpoints") \
        == "DISCONNECTED_INBOUND"
    ca.run(END.format(h=h))
    assert count(ca, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0
    assert count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0
    wait_for(lambda: states(cb) == ["CLOSED"], "B's endpoint closed by A's END")


def test_initiator_ending_first_waits_in_do_until_the_target_ends(
        pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=1) + "\n" + END.format(h=h))
    assert ca.scalar("SELECT state_desc FROM sys.conversation_endpoints") \
        == "DISCONNECTED_OUTBOUND"
    wait_for(lambda: states(cb) == ["DISCONNECTED_INBOUND"], "EndDialog at B")
    cb.run("DECLARE @h uniqueidentifier; RECEIVE TOP (1) @h = conversation_handle FROM Q; "
           "END CONVERSATION @h;")
    # B's close notice closes A's endpoint, which was waiting for it.
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0,
             "A's endpoint closed by B's END")


def test_a_resent_message_is_acknowledged_but_not_queued_twice(
        pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the message at B")
    cid = str(ca.scalar("SELECT conversation_id FROM sys.conversation_endpoints")).upper()
    guid_a = str(ca.scalar("SELECT service_broker_guid FROM sys.databases WHERE name = 'da'"))
    frame = {"op": "msg", "cid": cid, "init": 1, "seq": 0, "type": "//tcp/Req",
             "body": None, "from_service": "//A/Init", "from_broker": guid_a,
             "to_service": "//B/Targ", "to_broker": None, "contract": "//tcp/C",
             "priority": 5, "lifetime": "2099-01-01T00:00:00", "enqueue_time": None}
    receiver = Receiver(Broker.get(cb.session.instance.store))
    reply = receiver.handle(frame)
    assert reply["op"] == "ack" and reply.get("duplicate") is True
    assert count(cb, "SELECT COUNT(*) FROM Q") == 1
    # Applied together (one transaction): message 2 after a gap names the lost one (1), so
    # that the sender resends from there; then 1 and 2 in order are both taken.
    gap, late = {**frame, "seq": 2, "body": b"<m/>"}, {**frame, "seq": 1, "body": b"<m/>"}
    assert [(r["op"], r.get("expect")) for r in receiver.handle_all([frame, gap])] == [
        ("ack", None), ("nack", 1)]
    assert [r["op"] for r in receiver.handle_all([late, gap])] == ["ack", "ack"]
    assert cb.rows("SELECT message_sequence_number FROM Q ORDER BY queuing_order") == [
        (0,), (1,), (2,)]


def test_a_lost_acknowledgement_is_resent_and_delivered_once(
        pair: tuple[Client, Client], monkeypatch: pytest.MonkeyPatch) -> None:
    ca, cb = pair
    transport = ca.session.instance.extensions["broker_runtime"].transport
    real_apply = transport._apply
    lost: list[int] = []

    def apply(answered: list[tuple[dict[str, Any], Any, dict[str, Any]]]) -> list[bool]:
        if answered[0][2].get("op") == "ack" and not lost:
            # B committed the messages and acknowledged, but the acknowledgements are lost.
            lost.append(answered[0][0]["message_sequence_number"])
            raise Unreachable("An error occurred while receiving data: '104(lost)'.")
        return real_apply(answered)
    monkeypatch.setattr(transport, "_apply", apply)
    h = ca.scalar(BEGIN)
    ca.run("\n".join(SEND.format(h=h, n=n) for n in range(3)))
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's transmission queue to drain")
    assert lost == [0]
    rows = cb.rows("SELECT message_sequence_number FROM Q ORDER BY queuing_order")
    assert rows == [(0,), (1,), (2,)]


def test_replies_travel_by_the_targets_own_routes(pair: tuple[Client, Client],
                                                  ports: tuple[int, int]) -> None:
    ca, cb = pair
    cb.run("DROP ROUTE ToFar")
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the request at B")
    cb.run("DECLARE @h uniqueidentifier; RECEIVE TOP (1) @h = conversation_handle FROM Q; "
           "SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Rep] (0x2A);")
    # Only AutoCreatedLocal matches //A/Init at B, and no service of B has that name.
    assert cb.rows("SELECT to_service_name, transmission_status FROM sys.transmission_queue") \
        == [("//A/Init", message_text(9796))]
    cb.run(f"CREATE ROUTE Back WITH SERVICE_NAME = '//A/Init', "
           f"ADDRESS = 'TCP://127.0.0.1:{ports[0]}'")
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 1, "the reply at A")
    assert ca.scalar("SELECT message_body FROM Q") == b"\x2a"


def test_a_transport_route_takes_the_address_from_the_service_name(
        pair: tuple[Client, Client], ports: tuple[int, int]) -> None:
    ca, cb = pair
    far = f"tcp://127.0.0.1:{ports[1]}/Targ"
    cb.run(f"CREATE SERVICE [{far}] ON QUEUE Q ([//tcp/C]); "
           f"GRANT SEND ON SERVICE::[{far}] TO PUBLIC;")
    ca.run("CREATE ROUTE Transport WITH ADDRESS = 'TRANSPORT'")
    h = ca.scalar(BEGIN.replace("//B/Targ", far))
    ca.run(SEND.format(h=h, n=7))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the message at B")
    assert cb.scalar("SELECT service_name FROM Q") == far


def test_a_disabled_target_queue_holds_the_message_until_it_is_enabled(
        pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    cb.run("ALTER QUEUE Q WITH STATUS = OFF")
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: ca.scalar(f"SELECT GET_TRANSMISSION_STATUS('{h}')")
             == message_text(9617, "Q"), "the far broker's refusal as the status",
             describe=lambda: held(ca))
    cb.run("ALTER QUEUE Q WITH STATUS = ON")
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "delivery after STATUS = ON",
             describe=lambda: held(ca))
    # The message is in B's queue once B commits, a moment before B's acknowledgement
    # reaches A and A deletes it from its transmission queue (SQL Server's sender, too,
    # keeps a message until the acknowledgement arrives): wait for that, don't assert it.
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's transmission queue emptied by B's acknowledgement", describe=lambda: held(ca))


CONNECTION_COLUMNS = [
    "state", "state_desc", "is_accept", "login_state", "login_state_desc", "connect_time",
    "login_time", "last_activity_time", "total_bytes_sent", "total_bytes_received",
    "total_fragments_sent", "total_fragments_received", "total_sends", "total_receives",
    "peer_arbitration_id", "encryption_algorithm", "encryption_algorithm_desc",
    "connection_id", "authentication_method", "principal_name", "remote_user_name",
    "peer_certificate_id"]


def connections(c: Client) -> list[dict[str, Any]]:
    """sys.dm_broker_connections of the client's instance, as dicts."""
    rows = c.rows(f"SELECT {', '.join(CONNECTION_COLUMNS)} FROM sys.dm_broker_connections")
    return [dict(zip(CONNECTION_COLUMNS, r, strict=True)) for r in rows]


def test_dm_broker_connections_counts_the_traffic_of_both_ends(
        pair: tuple[Client, Client], monkeypatch: pytest.MonkeyPatch) -> None:
    ca, cb = pair
    assert connections(ca) == [] and connections(cb) == []
    h = ca.scalar(BEGIN)
    ca.run("\n".join(SEND.format(h=h, n=n) for n in range(3)))
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's messages acknowledged", describe=lambda: held(ca))

    def settled() -> tuple[dict[str, Any], dict[str, Any]] | None:
        # B counts its last acknowledgement once sendall returns, A when it reads it.
        a, b = connections(ca), connections(cb)
        if len(a) == 1 and len(b) == 1 and a[0]["total_bytes_received"] \
                == b[0]["total_bytes_sent"]:
            return a[0], b[0]
        return None
    out, into = wait_for(settled, "one connection at each end, counted alike",
                         describe=lambda: (connections(ca), connections(cb)))
    for row, accept in ((out, False), (into, True)):
        assert (row["state"], row["state_desc"]) == (4, "LOGGED_IN")
        assert (row["login_state"], row["login_state_desc"]) == (12, "ONLINE")
        assert bool(row["is_accept"]) is accept
        assert row["connect_time"] <= row["login_time"] <= row["last_activity_time"]
        # Authenticated by certificate, encrypted (both endpoints ENCRYPTION = REQUIRED):
        # the far instance's certificate in this master (FarCert), owned by FarLogin's user.
        assert (row["encryption_algorithm"], row["encryption_algorithm_desc"]) == (2, "AES")
        assert (row["authentication_method"], row["principal_name"]) == ("CERTIFICATE",
                                                                         "FarLogin")
        assert row["remote_user_name"] is None
    for row, c in ((out, ca), (into, cb)):
        assert row["peer_certificate_id"] == c.scalar(
            "SELECT certificate_id FROM master.sys.certificates WHERE name = 'FarCert'")
        assert row["total_receives"] >= 4
    assert out["total_sends"] >= 4                      # the hello, then a frame per message
    # The hello, then the answers: those to messages that came together in one send.
    assert into["total_sends"] >= 2
    assert out["total_bytes_sent"] == into["total_bytes_received"]
    assert out["total_fragments_sent"] == into["total_fragments_received"] == 3
    assert out["total_fragments_received"] == into["total_fragments_sent"] == 0
    # Each end names the other's transport, not itself.
    assert out["peer_arbitration_id"] and into["peer_arbitration_id"]
    assert out["peer_arbitration_id"] != into["peer_arbitration_id"]
    assert out["connection_id"] != into["connection_id"]

    # A closes the connection as idle: both rows go.
    from tsqlbroker.engine.broker import transport as transport_module
    monkeypatch.setattr(transport_module, "IDLE_CLOSE_S", 0.0)
    wait_for(lambda: connections(ca) == [] and connections(cb) == [],
             "both ends' rows gone once the idle connection closed",
             describe=lambda: (connections(ca), connections(cb)))


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_stopped_endpoint_stops_listening(pair: tuple[Client, Client],
                                            ports: tuple[int, int]) -> None:
    ca, cb = pair
    # B listens (its transport starts listening on a thread of its own) and A keeps a
    # connection to it: the first message delivered.
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the first message at B")
    cb.run("ALTER ENDPOINT BrokerEndpoint STATE = STOPPED")
    wait_for(lambda: _refused(ports[1]), "B to stop listening")
    # Nothing reaches a stopped endpoint, not even over A's kept connection.
    ca.run(SEND.format(h=h, n=1))
    # The kept connection may fail first (B closed it: a receive error is shown for a
    # moment); the next attempt is refused.
    seen: list[str] = []

    def refused_status() -> bool:
        status = ca.scalar(f"SELECT GET_TRANSMISSION_STATUS('{h}')")
        if status and (not seen or seen[-1] != status):
            seen.append(status)
        return bool(status) and status.startswith("Connection attempt failed with error: '111(")
    wait_for(refused_status, "a refused connection attempt", describe=lambda: seen)
    assert all(s.startswith(("Connection attempt failed with error:",
                             "An error occurred while receiving data:")) for s in seen), seen
    assert count(cb, "SELECT COUNT(*) FROM Q") == 1
    cb.run("ALTER ENDPOINT BrokerEndpoint STATE = STARTED")
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 2, "delivery after STARTED")


def test_a_restarted_far_broker_is_reached_again_without_waiting_for_a_retry(
        pair: tuple[Client, Client], ports: tuple[int, int]) -> None:
    ca, cb = pair
    transport = ca.session.instance.extensions["broker_runtime"].transport
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the first message at B")
    # Its acknowledgement processed too: otherwise B's restart may cut it off, and A's
    # retry (not what this test is about) would wait the 30 s below.
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's first message acknowledged")
    # B restarts; A's kept connection is dead. A failed attempt would wait 30 s.
    transport.backoff.lo = transport.backoff.hi = 30.0
    url = cb.session.instance.store.url
    cb.session.instance.close()
    again = Instance(url)
    try:
        cb2 = Client(again, "db")
        runtime_for(again)
        wait_for(lambda: not _refused(ports[1]), "B to listen again")
        ca.run(SEND.format(h=h, n=1))
        wait_for(lambda: count(cb2, "SELECT COUNT(*) FROM Q") == 2, "the second message",
                 10, describe=lambda: held(ca))
    finally:
        again.close()


def test_end_with_error_drops_unsent_messages_and_the_error_arrives(
        pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 1, "the first message at B")
    # Two more messages and END … WITH ERROR in one transaction: the messages are dropped,
    # so the Error's sequence number follows a gap.
    ca.run("BEGIN TRAN;\n" + SEND.format(h=h, n=1) + "\n" + SEND.format(h=h, n=2)
           + f"\nDECLARE @e uniqueidentifier = '{h}';"
           "\nEND CONVERSATION @e WITH ERROR = 50 DESCRIPTION = 'gave up';\nCOMMIT;")
    wait_for(lambda: states(cb) == ["ERROR"], "the Error at B",
             describe=lambda: (held(ca), states(ca), states(cb), held(cb),
                               cb.rows("SELECT message_sequence_number, message_type_name "
                                       "FROM Q ORDER BY queuing_order")))
    rows = cb.rows("SELECT message_sequence_number, message_type_name FROM Q "
                   "ORDER BY queuing_order")
    assert rows == [(0, "//tcp/Req"),
                    (3, "http://schemas.microsoft.com/SQL/ServiceBroker/Error")]
    cb.run("DECLARE @h uniqueidentifier; RECEIVE TOP (1) @h = conversation_handle FROM Q; "
           "END CONVERSATION @h;")
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0,
             "A's endpoint closed by B's END")


def test_an_activated_procedure_answers_requests_from_the_other_broker(
        pair: tuple[Client, Client]) -> None:
    ca, cb = pair
    cb.run("""CREATE PROCEDURE answer AS
BEGIN
    DECLARE @h uniqueidentifier, @t sysname, @b nvarchar(100);
    WHILE 1 = 1
    BEGIN
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name,
                 @b = CAST(message_body AS nvarchar(100)) FROM Q), TIMEOUT 500;
        IF @@ROWCOUNT = 0 BREAK;
        IF @t = N'//tcp/Req'
            SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Rep]
                (CAST(REPLACE(@b, N'<m', N'<r') AS varbinary(200)));
        ELSE
            END CONVERSATION @h;
    END
END""")
    cb.run("ALTER QUEUE Q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = answer, "
           "MAX_QUEUE_READERS = 1, EXECUTE AS SELF)")
    handles = [ca.scalar(BEGIN) for _ in range(3)]
    ca.run("\n".join(SEND.format(h=h, n=i) for i, h in enumerate(handles)))
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 3, "three answers at A",
             describe=lambda: (held(ca), held(cb)))
    rows = ca.rows("SELECT conversation_handle, CAST(message_body AS nvarchar(100)) FROM Q")
    assert sorted((str(h).upper(), b) for h, b in rows) == sorted(
        (str(h).upper(), f'<r n="{i}"/>') for i, h in enumerate(handles))
    for h in handles:
        ca.run(END.format(h=h))
    # The procedure ends the target sides when the EndDialogs arrive; B's close notices
    # then close A's sides, which wait in DISCONNECTED_OUTBOUND until then.
    wait_for(lambda: states(cb) == ["CLOSED"] * 3, "B's endpoints closed",
             describe=lambda: states(cb))
    wait_for(lambda: states(ca) == [], "A's endpoints closed", describe=lambda: states(ca))


def test_unknown_target_service_returns_error_8490(pair: tuple[Client, Client],
                                                  ports: tuple[int, int]) -> None:
    ca, cb = pair
    ca.run("CREATE ROUTE ToGhost WITH SERVICE_NAME = '//B/Ghost', "
           f"ADDRESS = 'TCP://127.0.0.1:{ports[1]}'")
    h = ca.scalar(BEGIN.replace("//B/Targ", "//B/Ghost"))
    ca.run(SEND.format(h=h, n=0))
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 1, "the Error at A")
    row = ca.rows("SELECT message_type_name, CAST(message_body AS nvarchar(4000)) FROM Q")[0]
    assert row[0] == "http://schemas.microsoft.com/SQL/ServiceBroker/Error"
    assert "<Code>-8490</Code>" in row[1]
    assert message_text(8490, "//B/Ghost") in row[1]
    assert ca.scalar("SELECT state_desc FROM sys.conversation_endpoints") == "ERROR"
    assert count(cb, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0


def test_the_target_validates_with_its_own_definitions(pair: tuple[Client, Client]) -> None:
    ca, _cb = pair
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0).replace('<m n="0"/>', "<not closed>"))
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 1, "the Error at A")
    body = ca.scalar("SELECT CAST(message_body AS nvarchar(4000)) FROM Q")
    assert "<Code>-9615</Code>" in body


def test_encrypted_dialog_waits_without_dialog_security(pair: tuple[Client, Client]) -> None:
    ca, _cb = pair
    h = ca.scalar(BEGIN.replace("WITH ENCRYPTION = OFF", ""))
    ca.run(SEND.format(h=h, n=0))
    status = ca.scalar("SELECT transmission_status FROM sys.transmission_queue")
    assert status == message_text(9727)
    assert ca.scalar(f"SELECT GET_TRANSMISSION_STATUS('{h}')") == message_text(9727)
    ca.run("CREATE REMOTE SERVICE BINDING Bind "
           "TO SERVICE '//B/Targ' WITH USER = u;")
    h2 = ca.scalar(BEGIN.replace("WITH ENCRYPTION = OFF", "WITH ENCRYPTION = ON"))
    ca.run(SEND.format(h=h2, n=0))
    assert ca.scalar(f"SELECT GET_TRANSMISSION_STATUS('{h2}')") == message_text(28050)


def test_no_started_endpoint_means_the_transport_is_not_configured(
        pair: tuple[Client, Client]) -> None:
    ca, _cb = pair
    ca.run("ALTER ENDPOINT BrokerEndpoint STATE = STOPPED")
    h = ca.scalar(BEGIN)
    ca.run(SEND.format(h=h, n=0))
    assert ca.scalar(f"SELECT GET_TRANSMISSION_STATUS('{h}')") \
        == message_text(9666, "Service Broker")


def test_a_route_to_the_instances_own_endpoint_delivers_locally(
        tmp_path: Path, ports: tuple[int, int]) -> None:
    url = f"sqlite:///{tmp_path}/one.db"
    setup_side(url, db="da", svc="//A/Init", far="//B/Targ", port=ports[0],
               far_port=ports[0])
    # The port is taken, so this instance's transport cannot send: only local delivery can
    # get the message to the other database.
    busy = socket.socket()
    busy.bind(("127.0.0.1", ports[0]))
    busy.listen(1)
    inst = Instance(url)
    try:
        c = Client(inst)
        c.run(SETUP.format(db="db", svc="//B/Targ", far="//A/Init", far_port=ports[0]))
        c.run("USE da")
        h = c.scalar(BEGIN)
        c.run(SEND.format(h=h, n=0))
        assert count(c, "SELECT COUNT(*) FROM sys.transmission_queue") == 0
        assert count(c, "SELECT COUNT(*) FROM db.dbo.Q") == 1
    finally:
        inst.close()
        busy.close()


# -- real serve processes ---------------------------------------------------------------------
class Serve:
    """One ``tsqlbroker serve`` process on a store; started and stopped by the test."""

    def __init__(self, url: str, log: Path, port: int) -> None:
        self.url, self.log, self.port = url, log, port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        mark = self.log.read_text().count("listening on") if self.log.exists() else 0
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tsqlbroker", "serve", "--url", self.url,
             "--log", str(self.log)], env=child_env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        wait_for(lambda: self.log.exists() and self.log.read_text().count(
            f"listening on 127.0.0.1:{self.port}") > mark or self._died(), "serve to listen",
            60)
        assert self.proc.poll() is None, self.log.read_text()

    def _died(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


def test_serve_processes_hold_retry_and_deliver_exactly_once_in_order(
        tmp_path: Path, ports: tuple[int, int]) -> None:
    pa, pb = ports
    ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    setup_pair(ua, ub, ports)
    serve_a = Serve(ua, tmp_path / "a.log", pa)
    serve_b = Serve(ub, tmp_path / "b.log", pb)
    # Readers only: these instances never run a broker statement, so they start no
    # runtime and never compete with the serve processes for the endpoint ports.
    ra, rb = Instance(ua), Instance(ub)
    try:
        serve_a.start()
        ca, cb = Client(ra, "da"), Client(rb, "db")
        total = 300
        h = run_sql(ua, "da", BEGIN)[0]["rows"][0][0]
        run_sql(ua, "da", "\n".join(SEND.format(h=h, n=n) for n in range(3)))
        # The target is down: the messages wait with a status that says why.
        status = wait_for(lambda: ca.scalar(
            "SELECT TOP (1) transmission_status FROM sys.transmission_queue "
            "ORDER BY message_sequence_number"), "a transmission status")
        assert status.startswith("Connection attempt failed with error: '111(")
        assert count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 3

        serve_b.start()
        wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 3, "delivery after start")
        run_sql(ua, "da", "SET NOCOUNT ON; DECLARE @i int = 3; WHILE @i < " + str(total) +
             " BEGIN SEND ON CONVERSATION (CAST('" + h + "' AS uniqueidentifier)) "
             "MESSAGE TYPE [//tcp/Req] "
             "(N'<m n=\"' + CAST(@i AS nvarchar(10)) + N'\"/>'); SET @i += 1; END")
        # Kill the target mid-stream, then start it again.
        wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") >= 20, "the stream to flow")
        serve_b.kill()
        assert count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") > 0, \
            "everything arrived before the kill: raise total"
        serve_b.start()
        wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
                 "the transmission queue to drain", 120, describe=lambda: held(ca)[:3])
        rows = cb.rows("SELECT message_sequence_number, CAST(message_body AS nvarchar(50)) "
                       "FROM Q ORDER BY queuing_order")
        assert rows == [(n, f'<m n="{n}"/>') for n in range(total)]

        # The reply travels back by B's route; both sides end.
        run_sql(ub, "db", "DECLARE @h uniqueidentifier; RECEIVE TOP (1) @h = conversation_handle "
             "FROM Q; SEND ON CONVERSATION @h MESSAGE TYPE [//tcp/Rep] (0x01); "
             "END CONVERSATION @h;")
        wait_for(lambda: count(ca, "SELECT COUNT(*) FROM Q") == 2, "reply and EndDialog at A")
        run_sql(ua, "da", END.format(h=h))
        assert count(ca, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0
        wait_for(lambda: states(cb) == ["CLOSED"], "B's endpoint closed by A's END")
    finally:
        serve_a.stop()
        serve_b.stop()
        ra.close()
        rb.close()


def run_sql(url: str, db: str, text: str) -> list[dict[str, Any]]:
    """Run ``text`` in another tsqlbroker process (it cannot take the serving process's
    port, so the serving process transmits what it commits); its result sets."""
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", url, "-d", db, "-b",
                           "--format", "json", "-Q", text], capture_output=True, text=True,
                          timeout=120, check=False, env=child_env())
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [r for r in records if r.get("type") == "resultset"]
