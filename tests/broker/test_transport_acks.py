"""The transport acts on the far broker's answer to a transmission-queue row it read in an
earlier transaction: the answer must reach that row and no other, even when the row is gone
and a new one took its id (SQLite reuses the highest id of a deleted row)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from broker_env import REQ, TARGET_SVC, Env
from sqlalchemy import select
from tls_peers import PeerSecurity, secure_endpoint

from tsqlbroker.engine.broker import transport as transport_module
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.broker.transport_link import handshake
from tsqlbroker.engine.broker.transport_recv import ensure_remote_dialogs
from tsqlbroker.engine.brokerlog import BrokerLog

ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error"
FAR_BROKER = "8B9C2A51-0A4E-4F3B-9C1D-5E6F7A8B9C0D"


def _held(env: Env) -> list[dict[str, Any]]:
    tq = env.broker.t.transmission
    return [dict(r) for r in env.conn.execute(select(tq).order_by(tq.c.id)).mappings()]


def _a_remote_message_held(env: Env, db: int, port: int = 4022
                           ) -> tuple[Any, dict[str, Any]]:
    """A dialog routed to another broker (no endpoint here: its first message waits in the
    transmission queue); the handle and the held row of that message."""
    ensure_remote_dialogs(env.broker)       # as a transport does when it starts listening
    env.run(lambda t: env.broker.create_route(t, db, "Far", {
        "SERVICE_NAME": TARGET_SVC, "ADDRESS": f"TCP://127.0.0.1:{port}"}))
    h = env.dialog(db, encryption=False)
    env.send(db, h, REQ, b"<m/>")
    rows = _held(env)
    assert [(r["message_sequence_number"], r["message_type_name"]) for r in rows] == [(0, REQ)]
    return h, rows[0]


def test_a_late_acknowledgement_does_not_delete_the_error_that_took_its_rows_id(
        env: Env, db: int, store_url: str) -> None:
    h, sent = _a_remote_message_held(env, db)
    ep = env.run(lambda t: env.broker.state.endpoint(t.conn, db, h))
    # While the far broker's ack of message 0 is on its way, END … WITH ERROR deletes the
    # conversation's held rows (message 0's too) and holds the Error in their place.
    env.run(lambda t: env.broker.end_conversation(t, db, h, 50, "gave up", with_error=True))
    error = _held(env)
    assert [(r["message_sequence_number"], r["message_type_name"]) for r in error] == [
        (1, ERROR)]
    if store_url.startswith("sqlite"):
        assert error[0]["id"] == sent["id"]     # the case that matters: the id was reused
    transport = Transport(env.broker, BrokerLog())
    assert transport._apply([(sent, ep, {"op": "ack", "broker": FAR_BROKER})]) == [True]
    assert _held(env) == error
    # A status recorded late for the old row does not land on the Error either.
    transport._hold(sent, "Connection attempt failed with error: '111(Connection refused)'.")
    assert _held(env) == error


def test_an_acknowledgement_deletes_its_row_and_pins_the_dialog(env: Env, db: int) -> None:
    h, sent = _a_remote_message_held(env, db)
    ep = env.run(lambda t: env.broker.state.endpoint(t.conn, db, h))
    transport = Transport(env.broker, BrokerLog())
    assert transport._apply([(sent, ep, {"op": "ack", "broker": FAR_BROKER})]) == [True]
    assert _held(env) == []
    pinned = env.run(lambda t: env.broker.state.endpoint(t.conn, db, h))
    assert pinned.far_broker_instance == FAR_BROKER


class FarBroker:
    """A stand-in for the far broker on a loopback port: greets, then acknowledges every
    message frame, calling ``on_message(frame)`` first (before its answer leaves)."""

    def __init__(self, on_message: Callable[[dict[str, Any]], None]) -> None:
        self.on_message = on_message
        self.security = PeerSecurity()
        self.frames: list[dict[str, Any]] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            sock, _ = self.server.accept()
            with sock:
                link, _ = handshake(sock, None, None, initiating=False,
                                    security=self.security)
                while (frame := link.receive()) is not None:
                    self.frames.append(frame)
                    self.on_message(frame)
                    link.send_control({"op": "ack", "broker": FAR_BROKER, "id": frame["id"]})

    def close(self) -> None:
        self.server.close()
        self.thread.join(10)


@pytest.fixture
def far() -> Iterator[list[FarBroker]]:
    made: list[FarBroker] = []
    yield made
    for f in made:
        f.close()


def test_messages_dropped_by_end_with_error_while_one_is_sent_are_not_sent(
        env: Env, db: int, far: list[FarBroker], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # One message of the conversation in flight, its rows looked up before each: what a
    # window of them in flight does to the message after the one on the wire is done here
    # deterministically (with a window, those already taken off go, as ones on the wire).
    monkeypatch.setattr(transport_module, "CONV_WINDOW", 1)
    monkeypatch.setattr(transport_module, "HELD_CHECK_S", -1.0)
    handle: list[Any] = []

    def end_with_error_once(frame: dict[str, Any]) -> None:
        if frame["seq"] == 0:
            other = env.store.connect()
            try:
                env.run(lambda t: env.broker.end_conversation(
                    t, db, handle[0], 50, "gave up", with_error=True), other)
            finally:
                other.close()

    broker = FarBroker(end_with_error_once)
    far.append(broker)
    env.run(lambda t: secure_endpoint(env.store, t, broker.security, tmp_path))
    h, _ = _a_remote_message_held(env, db, broker.port)
    handle.append(h)
    env.send(db, h, REQ, b"<m/>")              # held behind message 0
    assert [r["message_sequence_number"] for r in _held(env)] == [0, 1]
    transport = Transport(env.broker, BrokerLog())
    try:
        transport._send_pass()                  # sends 0; meanwhile END … WITH ERROR drops 1
        assert [(f["seq"], f["type"]) for f in broker.frames] == [(0, REQ)]
        assert [(r["message_sequence_number"], r["message_type_name"])
                for r in _held(env)] == [(2, ERROR)]
        transport._send_pass()                  # the next pass sends the Error
        assert [(f["seq"], f["type"]) for f in broker.frames] == [(0, REQ), (2, ERROR)]
        assert _held(env) == []
    finally:
        transport.stop()
