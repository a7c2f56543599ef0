"""Endpoint authentication and transport encryption between brokers (docs/transport.md,
*Endpoint security*): mutual TLS with the endpoints' certificates, CONNECT on the endpoint,
the ENCRYPTION negotiation table. Two instances in this process (loopback, both stores) and
socket pairs for the negotiation cases; every wait bounded."""

from __future__ import annotations

import contextlib
import itertools
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker.test_tcp_transport import (
    BEGIN,
    RETRY,
    SEND,
    TRUST,
    count,
    free_port,
    held,
    run_on,
    setup_side,
    wait_for,
)
from tests.broker.tls_peers import PeerSecurity, endpoint_der, log_text, refusals
from tests.conftest import FreshPostgres
from tests.tsql_client import Client
from tsqlbroker.engine.broker.endpoint_tls import (
    DISABLED,
    MODES,
    NO_ALGORITHM,
    NO_CERTIFICATE,
    REQUIRED,
    SUPPORTED,
    Refused,
    negotiate,
)
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.broker.transport_conns import ConnectionRegistry
from tsqlbroker.engine.broker.transport_link import Link, handshake
from tsqlbroker.engine.broker.transport_listen import REFUSED_AUTH
from tsqlbroker.engine.broker.transport_wire import WireError
from tsqlbroker.errors import message_text
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance


class Side:
    def __init__(self, url: str, db: str) -> None:
        self.url = url
        self.inst = Instance(url)
        self.client = Client(self.inst, db)
        self.transport: Transport = runtime_for(self.inst).transport

    def refused(self) -> dict[str, int]:
        return refusals(self.transport)

    def log_text(self) -> str:
        return log_text(self.transport)


@pytest.fixture
def untrusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str,
              fresh_postgres: FreshPostgres) -> Iterator[tuple[Side, Side, Path]]:
    """A (initiator) and B (target) with endpoints and routes, but neither knows the other's
    certificate yet (the test sets up what it needs, from the folder of their files)."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", RETRY)
    pa, pb = free_port(), free_port()
    if backend == "sqlite":
        ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    else:
        ua, ub = fresh_postgres.url(), fresh_postgres.url()
    setup_side(ua, db="da", svc="//A/Init", far="//B/Targ", port=pa, far_port=pb)
    setup_side(ub, db="db", svc="//B/Targ", far="//A/Init", port=pb, far_port=pa)
    for url, name in ((ua, "a"), (ub, "b")):
        run_on(url, f"USE master; BACKUP CERTIFICATE EndpointCert TO FILE = "
                    f"'{tmp_path}/{name}.cer';")
    a, b = Side(ua, "da"), Side(ub, "db")
    try:
        wait_for(lambda: a.transport.listening and b.transport.listening, "both listening")
        yield a, b, tmp_path
    finally:
        a.inst.close()
        b.inst.close()


def _status(a: Side) -> str:
    rows = held(a.client)
    return str(rows[0][1]) if rows else ""


def _nothing_arrived(b: Side) -> None:
    assert count(b.client, "SELECT COUNT(*) FROM Q") == 0
    assert count(b.client, "SELECT COUNT(*) FROM sys.conversation_endpoints") == 0


def test_a_peer_with_connect_is_admitted_and_one_without_is_refused_until_granted(
        untrusted: tuple[Side, Side, Path]) -> None:
    a, b, folder = untrusted
    run_on(a.url, TRUST.format(file=folder / "b.cer"))
    # B knows A's certificate, owned by FarUser, but FarLogin may not CONNECT yet.
    run_on(b.url, TRUST.format(file=folder / "a.cer").replace(
        "GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO FarLogin;", ""))
    h = a.client.scalar(BEGIN)
    a.client.run(SEND.format(h=h, n=0))
    no_connect = message_text(28034, "FarLogin", 84)
    wait_for(lambda: no_connect in _status(a), "A told why", describe=lambda: held(a.client))
    wait_for(lambda: b.refused().get(REFUSED_AUTH), "B counted the refusal",
             describe=b.refused)
    assert f"refused: {no_connect}" in b.log_text()
    _nothing_arrived(b)
    # DENY beats a GRANT to public; once granted to the login, the message goes through.
    b.client.run("GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO public; "
                 "DENY CONNECT ON ENDPOINT::BrokerEndpoint TO FarLogin;")
    refusals = b.refused()[REFUSED_AUTH]
    wait_for(lambda: b.refused()[REFUSED_AUTH] > refusals, "refused again despite public")
    _nothing_arrived(b)
    b.client.run("REVOKE CONNECT ON ENDPOINT::BrokerEndpoint TO FarLogin; "
                 "GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO FarLogin;")
    wait_for(lambda: count(b.client, "SELECT COUNT(*) FROM Q") == 1, "the message at B",
             describe=lambda: held(a.client))
    wait_for(lambda: not held(a.client), "A's message acknowledged")


def test_a_peer_whose_certificate_is_not_in_master_is_refused(
        untrusted: tuple[Side, Side, Path]) -> None:
    a, b, folder = untrusted
    run_on(a.url, TRUST.format(file=folder / "b.cer"))    # A trusts B; B does not know A
    h = a.client.scalar(BEGIN)
    a.client.run(SEND.format(h=h, n=0))
    wait_for(lambda: "refused this instance's certificate" in _status(a), "A told why",
             describe=lambda: held(a.client))
    wait_for(lambda: b.refused().get(REFUSED_AUTH), "B counted it", describe=b.refused)
    assert f"refused: {NO_CERTIFICATE}" in b.log_text()
    _nothing_arrived(b)


def test_an_unknown_certificate_and_a_listener_not_trusted_are_refused(
        untrusted: tuple[Side, Side, Path]) -> None:
    _a, b, _folder = untrusted
    host, port = b.transport.listening or ("", 0)
    # A stranger with a certificate of its own that B has never seen (it trusts B's).
    stranger = PeerSecurity([endpoint_der(b.inst.store)])
    with pytest.raises(Refused, match="refused this instance's certificate"):
        sock = socket.create_connection((host or "127.0.0.1", port), timeout=5)
        handshake(sock, None, None, initiating=True, security=stranger)
    wait_for(lambda: b.refused().get(REFUSED_AUTH), "B counted it", describe=b.refused)
    assert f"refused: {NO_CERTIFICATE}" in b.log_text()
    # The other way round: the connecting side refuses a listener it does not know.
    impostor = PeerSecurity()
    server = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=_accept_once, args=(server, impostor), daemon=True).start()
    with server, pytest.raises(Refused, match=re.escape(NO_CERTIFICATE)):
        sock = socket.create_connection(server.getsockname()[:2], timeout=5)
        handshake(sock, None, None, initiating=True, security=PeerSecurity())
    _nothing_arrived(b)


def _accept_once(server: socket.socket, security: PeerSecurity) -> None:
    try:
        sock, _ = server.accept()
    except OSError:
        return
    with sock, contextlib.suppress(OSError, WireError):    # the peer gives up on us
        handshake(sock, None, None, initiating=False, security=security)


# -- the ENCRYPTION negotiation table ---------------------------------------------------------
TABLE = {(DISABLED, DISABLED): False, (DISABLED, SUPPORTED): False,
         (DISABLED, REQUIRED): None, (SUPPORTED, SUPPORTED): True,
         (SUPPORTED, REQUIRED): True, (REQUIRED, REQUIRED): True}


def _expected(mine: str, theirs: str) -> bool | None:
    return TABLE.get((mine, theirs), TABLE.get((theirs, mine)))


def test_negotiate_follows_sql_servers_table() -> None:
    for mine, theirs in itertools.product(MODES, MODES):
        want = _expected(mine, theirs)
        if want is None:
            with pytest.raises(Refused, match="no compatible encryption algorithm"):
                negotiate(mine, theirs)
        else:
            assert negotiate(mine, theirs) is want, (mine, theirs)


def _connect_pair(initiator: PeerSecurity, listener: PeerSecurity
                  ) -> tuple[Any, Any, ConnectionRegistry]:
    """Both ends of a handshake over a socket pair: (link or error) each, and the registry
    their DMV rows are in."""
    left, right = socket.socketpair()
    reg = ConnectionRegistry()
    out: dict[str, Any] = {}

    def accept() -> None:
        stats = reg.open(is_accept=True, peer="test")
        try:
            out["listener"] = handshake(right, stats, None, initiating=False,
                                        security=listener)[0]
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            out["listener"] = exc
    t = threading.Thread(target=accept)
    t.start()
    left.settimeout(10)
    try:
        out["initiator"] = handshake(left, reg.open(is_accept=False, peer="test"), None,
                                     initiating=True, security=initiator)[0]
    except Exception as exc:  # noqa: BLE001
        out["initiator"] = exc
    t.join(10)
    return out["initiator"], out["listener"], reg


@pytest.mark.parametrize(("mine", "theirs"), list(itertools.product(MODES, MODES)))
def test_each_pair_of_encryption_settings_connects_as_the_table_says(
        mine: str, theirs: str) -> None:
    initiator, listener = PeerSecurity(encryption=mine), PeerSecurity(encryption=theirs)
    initiator.trust(listener.der)
    listener.trust(initiator.der)
    out, into, reg = _connect_pair(initiator, listener)
    want = _expected(mine, theirs)
    if want is None:
        # Both sides refuse; the connecting one learns why from the listener.
        for end in (out, into):
            assert isinstance(end, Refused) and str(end) == NO_ALGORITHM
        return
    assert isinstance(out, Link) and isinstance(into, Link)
    try:
        for link in (out, into):
            # Not encrypted: TLS was ended after the hellos (unwrap), frames go in clear.
            assert (link.sock.cipher() is not None) is want
        out.send_message({"op": "msg", "id": 1, "cid": "x", "body": b"\x00secret\xff"})
        got = into.receive()
        assert got is not None and got["body"] == b"\x00secret\xff"
        into.send_control({"op": "ack", "id": 1})
        assert out.receive() == {"op": "ack", "id": 1}
        rows = [dict(zip(("method", "principal", "cert", "alg", "desc"),
                         (r[6], r[7], r[13], r[14], r[15]), strict=True)) for r in reg.rows()]
        assert {(r["method"], r["principal"], r["cert"]) for r in rows} == {
            ("CERTIFICATE", "far", 256)}
        assert {(r["alg"], r["desc"]) for r in rows} == {(2, "AES") if want else (0, "NONE")}
    finally:
        out.close()
        into.close()


def test_frames_in_clear_are_still_integrity_checked() -> None:
    """ENCRYPTION = DISABLED on both sides: frames are readable on the wire, yet a changed
    byte is caught by the tag (keys exchanged inside the authenticated TLS session)."""
    initiator, listener = PeerSecurity(encryption=DISABLED), PeerSecurity(encryption=DISABLED)
    initiator.trust(listener.der)
    listener.trust(initiator.der)
    out, into, reg = _connect_pair(initiator, listener)
    assert isinstance(out, Link) and isinstance(into, Link)
    try:
        frame = out.seal(Link.fragments({"op": "msg", "id": 7, "cid": "c",
                                         "body": b"clear"})[0])
        assert b"clear" in frame and b'"cid":"c"' in frame       # not encrypted
        damaged = bytearray(frame)
        damaged[-40] ^= 1
        out.sock.sendall(bytes(damaged))
        out.send_message({"op": "msg", "id": 8, "cid": "c", "body": b"next"})
        got = into.receive()
        assert got is not None and (got["id"], got["body"]) == (8, b"next")
        assert reg.corrupted == into.corrupted == 1
    finally:
        out.close()
        into.close()
