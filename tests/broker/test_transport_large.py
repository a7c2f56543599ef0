"""A small message sent right after a large one on another dialog is not held up by it
(issue 20 item 7 (c), docs/transport.md *Exactly once, in order*): the sender reads a large
body on a thread of its own while the pass goes on writing small messages, and the receiver
commits a small message that passed a large one without waiting for the large one's
remaining fragments or its commit."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker.test_tcp_transport import RETRY, free_port, setup_pair, wait_for
from tests.conftest import FreshPostgres
from tests.tsql_client import Client
from tsqlbroker.engine.broker.endpoint_tls import EndpointSecurity
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.broker.transport_link import handshake
from tsqlbroker.engine.broker.transport_recv import Receiver
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

BIG = 20_000_000
TYPES = """CREATE MESSAGE TYPE [//tcp/Big] VALIDATION = NONE;
CREATE MESSAGE TYPE [//tcp/Small] VALIDATION = NONE;
CREATE CONTRACT [//tcp/Sizes] ([//tcp/Big] SENT BY INITIATOR, [//tcp/Small] SENT BY INITIATOR);
"""
BEGIN = """DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//A/Init] TO SERVICE '//B/Targ' ON CONTRACT [//tcp/Sizes]
    WITH ENCRYPTION = OFF;
SELECT @h;"""
SEND = """SEND ON CONVERSATION (CAST('{h}' AS uniqueidentifier)) MESSAGE TYPE [//tcp/{kind}]
    (CAST(REPLICATE(CAST('x' AS varchar(max)), {size}) AS varbinary(max)));"""


@pytest.fixture
def sized_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str,
               fresh_postgres: FreshPostgres
               ) -> Iterator[tuple[Client, Client, Instance, Instance]]:
    """Instances A and B (as test_tcp_transport's pair) with a contract of a large and a
    small message type that B's service accepts."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", RETRY)
    if backend == "sqlite":
        ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    else:
        ua, ub = fresh_postgres.url(), fresh_postgres.url()
    pa = free_port()
    pb = free_port()
    while pb == pa:
        pb = free_port()
    setup_pair(ua, ub, (pa, pb))
    a, b = Instance(ua), Instance(ub)
    try:
        ca, cb = Client(a, "da"), Client(b, "db")
        ca.run(TYPES)
        cb.run(TYPES + "ALTER SERVICE [//B/Targ] (ADD CONTRACT [//tcp/Sizes]);")
        runtime_for(a)
        runtime_for(b)
        yield ca, cb, a, b
    finally:
        a.close()
        b.close()


def _arrived(cb: Client) -> list[str]:
    return [r[0] for r in cb.rows("SELECT message_type_name FROM Q")]


def test_a_small_message_passes_a_large_one_whose_body_is_still_being_read(
        sized_pair: tuple[Client, Client, Instance, Instance],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ca, cb, _a, _b = sized_pair
    # The store is slow to hand over the large body: its read waits for the test.
    release, reading = threading.Event(), threading.Event()
    body = Transport._body

    def slow_body(self: Transport, r: dict[str, Any]) -> bytes | None:
        reading.set()
        release.wait(60)
        return body(self, r)

    monkeypatch.setattr(Transport, "_body", slow_body)
    big, small = ca.scalar(BEGIN), ca.scalar(BEGIN)
    try:
        ca.run(SEND.format(h=big, kind="Big", size=BIG))
        wait_for(reading.is_set, "the transport to read the large body")
        ca.run(SEND.format(h=small, kind="Small", size=1024))
        # The small message is delivered while the large body is still being read: the
        # sender's pass is not stuck in that read.
        assert wait_for(lambda: _arrived(cb), "the small message", timeout=20) == [
            "//tcp/Small"]
    finally:
        release.set()
    assert sorted(wait_for(lambda: len(_arrived(cb)) == 2 and _arrived(cb),
                           "the large message", timeout=120)) == ["//tcp/Big", "//tcp/Small"]
    wait_for(lambda: int(ca.scalar("SELECT COUNT(*) FROM sys.transmission_queue")) == 0,
             "the acknowledgements")


def test_a_small_message_that_passed_a_large_one_is_not_committed_with_it(
        sized_pair: tuple[Client, Client, Instance, Instance],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ca, cb, _a, _b = sized_pair
    # The receiver is slow to commit a large message: its apply waits for the test.
    release = threading.Event()
    handle_all = Receiver.handle_all
    applied: list[list[int]] = []

    def slow_apply(self: Receiver, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
        sizes = [len(f.get("body") or b"") for f in frames]
        applied.append(sizes)
        if max(sizes) > 1024:
            release.wait(60)
        return handle_all(self, frames)

    monkeypatch.setattr(Receiver, "handle_all", slow_apply)
    # The large body's read takes a moment, so that the small message surely joins the
    # pass before the large one's fragments are written (they then follow it on the wire).
    body = Transport._body

    def late_body(self: Transport, r: dict[str, Any]) -> bytes | None:
        time.sleep(0.5)
        return body(self, r)

    monkeypatch.setattr(Transport, "_body", late_body)
    big, small = ca.scalar(BEGIN), ca.scalar(BEGIN)
    try:
        ca.run(SEND.format(h=big, kind="Big", size=BIG))
        ca.run(SEND.format(h=small, kind="Small", size=1024))
        assert wait_for(lambda: _arrived(cb), "the small message", timeout=20) == [
            "//tcp/Small"]
    finally:
        release.set()
    wait_for(lambda: len(_arrived(cb)) == 2, "the large message", timeout=120)
    # The large message was applied in a transaction of its own.
    assert [BIG] in applied
    assert all(len(sizes) == 1 for sizes in applied if BIG in sizes)


def _message(ident: int, cid: str, kind: str, size: int) -> dict[str, Any]:
    return {"op": "msg", "id": ident, "cid": cid, "init": 1, "seq": 0, "type": f"//tcp/{kind}",
            "body": b"x" * size, "from_service": "//A/Init",
            "from_broker": "8B9C2A51-0A4E-4F3B-9C1D-5E6F7A8B9C0D", "to_service": "//B/Targ",
            "to_broker": None, "contract": "//tcp/Sizes", "priority": 5,
            "lifetime": "2099-01-01T00:00:00", "enqueue_time": None}


def test_the_receiver_commits_a_small_message_without_the_rest_of_a_large_one(
        sized_pair: tuple[Client, Client, Instance, Instance],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _ca, cb, a, b = sized_pair
    applied: list[list[int]] = []
    handle_all = Receiver.handle_all

    def recording(self: Receiver, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
        applied.append([len(f.get("body") or b"") for f in frames])
        return handle_all(self, frames)

    monkeypatch.setattr(Receiver, "handle_all", recording)
    listening = wait_for(lambda: runtime_for(b).transport.listening, "B to listen")
    link, _greeting = handshake(
        socket.create_connection(("127.0.0.1", listening[1]), timeout=30), None, None,
        initiating=True, security=EndpointSecurity.get(a.store))
    try:
        size = 2_000_000
        big = link.fragments(_message(1, "1" * 8 + "-0000-0000-0000-" + "0" * 12, "Big", size))
        small = link.fragments(_message(2, "2" * 8 + "-0000-0000-0000-" + "0" * 12, "Small",
                                        1024))
        # All on the wire at once: the large message's first fragment, the small message,
        # then the rest of the large one (as the sender interleaves them).
        link.sock.sendall(b"".join(link.seal(p) for p in [big[0], *small, *big[1:]]))
        answers = [link.receive(), link.receive()]
    finally:
        link.close()
    assert [(r or {}).get("id") for r in answers] == [2, 1]
    assert all((r or {}).get("op") == "ack" for r in answers)
    # The small message was committed alone, before the large one was whole; the large one
    # in a transaction of its own.
    assert applied == [[1024], [size]]
    assert sorted(_arrived(cb)) == ["//tcp/Big", "//tcp/Small"]
