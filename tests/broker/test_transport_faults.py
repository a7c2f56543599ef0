"""Delivery between two instances through a faulty network (docs/transport.md, *Frames*): a
TCP proxy between them corrupts, drops and repeats bytes both ways and cuts connections; every message
still arrives exactly once and in order, corrupted frames are counted and dropped. And a large
message does not hold up a small one sent beside it. And a lost frame with nothing after it
(the last message's, or its answer) costs one answer wait, not a stall. Loopback, bounded (a
few hundred messages, small retry and answer waits)."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker.test_tcp_transport import (
    BEGIN,
    SEND,
    count,
    free_port,
    held,
    setup_side,
    trust_each_other,
    wait_for,
)
from tests.tsql_client import Client
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance


class FaultyProxy:
    """Forwards connections from ``port`` to ``target``; each chunk passing is, at random
    (seeded), corrupted (one byte flipped), dropped, sent twice, or the connection cut."""

    def __init__(self, target: int, *, corrupt: float, cut: float, seed: int = 7) -> None:
        self.target = target
        self.corrupt, self.cut = corrupt, cut
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.faults: dict[str, int] = {"corrupt": 0, "drop": 0, "twice": 0, "cut": 0}
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.socks: list[socket.socket] = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self) -> None:
        while True:
            try:
                left, _ = self.server.accept()
            except OSError:
                return                          # closed: the test is over
            try:
                right = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                left.close()                    # the target is down (killed): as a refusal
                continue
            self.socks += [left, right]
            for a, b in ((left, right), (right, left)):
                t = threading.Thread(target=self._pump, args=(a, b), daemon=True)
                self.threads.append(t)
                t.start()

    def _fault(self) -> str | None:
        with self.lock:
            if self.rng.random() < self.cut:
                fault: str | None = "cut"
            elif self.rng.random() < self.corrupt:
                fault = self.rng.choice(["corrupt", "corrupt", "drop", "twice"])
            else:
                return None
            self.faults[fault] += 1
            return fault

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        held: list[bytes] = []          # what the pump keeps back (see _pass)
        with contextlib.suppress(OSError):
            while data := src.recv(16384):
                fault = self._fault()
                if fault == "cut":
                    break
                self._pass(fault, data, dst, held)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def _pass(self, fault: str | None, data: bytes, dst: socket.socket,
              held: list[bytes]) -> None:
        """Pass ``data`` on to ``dst`` with ``fault`` done to it (``held``: chunks kept back
        by a subclass's faults, sent after this one)."""
        if fault != "drop":
            if fault == "corrupt":
                at = self.rng.randrange(len(data))
                data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]
            dst.sendall(data * (2 if fault == "twice" else 1))
        while held:
            dst.sendall(held.pop(0))

    def close(self) -> None:
        self.server.close()
        for s in self.socks:
            with contextlib.suppress(OSError):
                s.close()


@pytest.fixture
def faulty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[tuple[Client, Client, FaultyProxy]]:
    """A → proxy → B (B answers A directly: its route points at A's endpoint)."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", "0.05,0.5")
    monkeypatch.setenv("TSQLBROKER_SB_ACK_WAIT", "1")
    pa, pb = free_port(), free_port()
    proxy = FaultyProxy(pb, corrupt=0.03, cut=0.005)
    ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    # Frames in clear (ENCRYPTION = DISABLED, still authenticated): a corrupted byte is then
    # a frame dropped by its integrity tag, not a TLS record that ends the connection.
    setup_side(ua, db="da", svc="//A/Init", far="//B/Targ", port=pa, far_port=proxy.port,
               encryption="DISABLED")
    setup_side(ub, db="db", svc="//B/Targ", far="//A/Init", port=pb, far_port=pa,
               encryption="DISABLED")
    trust_each_other(ua, ub)
    a, b = Instance(ua), Instance(ub)
    try:
        runtime_for(a)
        runtime_for(b)
        yield Client(a, "da"), Client(b, "db"), proxy
    finally:
        a.close()
        b.close()
        proxy.close()


def test_messages_arrive_exactly_once_in_order_through_corruption_and_cuts(
        faulty: tuple[Client, Client, FaultyProxy]) -> None:
    ca, cb, proxy = faulty
    dialogs = [str(ca.scalar(BEGIN)) for _ in range(6)]
    per_dialog = 40
    for n in range(per_dialog):
        batch = []
        for d, h in enumerate(dialogs):
            # Every tenth message of dialog 0 is large: several fragments each.
            size = 150_000 if d == 0 and n % 10 == 0 else 10
            batch.append(f"SEND ON CONVERSATION (CAST('{h}' AS uniqueidentifier)) "
                         f"MESSAGE TYPE [//tcp/Req] (N'<m n=\"{n}\" d=\"{d}\">' + "
                         f"REPLICATE(CAST(N'x' AS nvarchar(max)), {size}) + N'</m>');")
        ca.run("\n".join(batch))
    total = per_dialog * len(dialogs)
    wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
             "A's transmission queue to drain", timeout=240, describe=lambda: held(ca)[:3])
    rows = cb.rows("SELECT conversation_handle, CAST(message_body AS xml)"
                   ".value('(/m/@n)[1]', 'int'), CAST(message_body AS xml)"
                   ".value('(/m/@d)[1]', 'int'), DATALENGTH(message_body) "
                   "FROM Q ORDER BY queuing_order")
    assert len(rows) == total                                 # none lost, none twice
    by_dialog: dict[int, list[int]] = {}
    for _h, n, d, length in rows:
        by_dialog.setdefault(d, []).append(n)
        if d == 0 and n % 10 == 0:
            assert length > 300_000                           # reassembled whole
    assert by_dialog == {d: list(range(per_dialog)) for d in range(len(dialogs))}
    assert all(proxy.faults.values()), proxy.faults
    b_transport = cb.session.instance.extensions["broker_runtime"].transport
    assert b_transport.registry.corrupted > 0                 # dropped as corrupted


def test_a_small_message_passes_a_large_one_sent_beside_it(
        faulty: tuple[Client, Client, FaultyProxy]) -> None:
    ca, cb, proxy = faulty
    proxy.corrupt = proxy.cut = 0.0
    large, small = str(ca.scalar(BEGIN)), str(ca.scalar(BEGIN))
    ca.run(f"""BEGIN TRANSACTION;
SEND ON CONVERSATION (CAST('{large}' AS uniqueidentifier)) MESSAGE TYPE [//tcp/Req]
    (N'<m n="large">' + REPLICATE(CAST(N'x' AS nvarchar(max)), 2000000) + N'</m>');
SEND ON CONVERSATION (CAST('{small}' AS uniqueidentifier)) MESSAGE TYPE [//tcp/Req]
    (N'<m n="small"/>');
COMMIT;""")
    wait_for(lambda: count(cb, "SELECT COUNT(*) FROM Q") == 2, "both messages at B",
             timeout=60, describe=lambda: held(ca))
    order = cb.rows("SELECT CAST(message_body AS xml).value('(/m/@n)[1]', 'varchar(10)') "
                    "FROM Q ORDER BY queuing_order")
    assert order == [("small",), ("large",)]


TLS_RECORDS = range(0x14, 0x18)     # a TLS record's first byte (a frame's length: 0)
Drop = Callable[[bool, dict[str, Any]], bool]   # (from A, frame header) → drop it


class FrameProxy:
    """Forwards connections from ``port`` to ``target``, passing the TLS handshake and the
    hellos whole and then dropping, whole, the frames that ``drop`` picks by their header
    (frames go in clear: ENCRYPTION = DISABLED). A target that refuses refuses the
    connection too."""

    def __init__(self, target: int, drop: Drop) -> None:
        self.target, self.drop = target, drop
        self.dropped: list[tuple[bool, dict[str, Any]]] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                left, _ = self.server.accept()
            except OSError:
                return                          # closed: the test is over
            try:
                right = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                left.close()
                continue
            self.socks += [left, right]
            for a, b, from_a in ((left, right, True), (right, left, False)):
                threading.Thread(target=self._pump, args=(a, b, from_a), daemon=True).start()

    @staticmethod
    def _exact(sock: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionResetError
            data += chunk
        return data

    def _pump(self, src: socket.socket, dst: socket.socket, from_a: bool) -> None:
        with contextlib.suppress(OSError):
            while True:
                first = self._exact(src, 1)
                if first[0] in TLS_RECORDS:
                    head = first + self._exact(src, 4)
                    dst.sendall(head + self._exact(src, struct.unpack(">H", head[3:])[0]))
                    continue
                head = first + self._exact(src, 3)
                frame = head + self._exact(src, struct.unpack(">I", head)[0])
                hlen = struct.unpack_from(">H", frame, 13)[0]
                header = json.loads(frame[15:15 + hlen])
                if self.drop(from_a, header):
                    self.dropped.append((from_a, header))
                else:
                    dst.sendall(frame)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.server.close()
        for s in self.socks:
            with contextlib.suppress(OSError):
                s.close()


LAST = 49                           # the last of the 50 messages sent in one transaction


def lose_once(what: str, seq: int) -> Drop:
    """A ``drop`` for :class:`FrameProxy` that loses, the first time only (copies sent again
    pass), ``"message"``: the frame of message ``seq``; ``"answer"``: the answer to it;
    ``"answers"``: every answer until that one (all of the first connection's)."""
    seqs: dict[int, int] = {}           # message frame id → its sequence number
    lost = threading.Event()

    def drop(from_a: bool, header: dict[str, Any]) -> bool:
        if from_a and header.get("op") == "msg":
            seqs[header["id"]] = header["seq"]
        if lost.is_set():
            return False
        if from_a:
            mine = hit = what == "message" and header.get("seq") == seq
        else:
            mine = seqs.get(header.get("id")) == seq           # type: ignore[arg-type]
            hit = mine if what == "answer" else what == "answers"
        if hit and mine:
            lost.set()
        return hit
    return drop


@pytest.mark.parametrize(("what", "seq", "ack_wait", "connections"), [
    # Something comes after the loss: found at once, long before the answer wait.
    ("message", 10, 30.0, 1),           # the next message's gap answer names it
    ("answer", 10, 30.0, 1),            # the next answer shows it was lost
    # Nothing after it: one answer wait, then sent again on the same connection.
    ("message", LAST, 0.5, 1),
    ("answer", LAST, 0.5, 1),
    # Not one answer on the connection: given up, the messages sent on a new one.
    ("answers", LAST, 0.5, 2),
])
def test_a_lost_frame_or_answer_is_sent_again_without_a_stall(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str, seq: int,
        ack_wait: float, connections: int) -> None:
    """Issue 20's shape: one dialog, 50 messages in one transaction, one frame or answer
    lost (the proxy drops it whole, once). The dialog completes within seconds, each
    message once and in order (a copy B had committed is answered "duplicate")."""
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", "0.05,0.5")
    monkeypatch.setenv("TSQLBROKER_SB_ACK_WAIT", str(ack_wait))
    pa, pb = free_port(), free_port()
    proxy = FrameProxy(pb, lose_once(what, seq))
    ua, ub = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    setup_side(ua, db="da", svc="//A/Init", far="//B/Targ", port=pa, far_port=proxy.port,
               encryption="DISABLED")
    setup_side(ub, db="db", svc="//B/Targ", far="//A/Init", port=pb, far_port=pa,
               encryption="DISABLED")
    trust_each_other(ua, ub)
    a, b = Instance(ua), Instance(ub)
    try:
        runtime_for(a)
        runtime_for(b)
        ca, cb = Client(a, "da"), Client(b, "db")
        h = ca.scalar(BEGIN)
        ca.run("BEGIN TRANSACTION;\n" + "\n".join(SEND.format(h=h, n=n)
                                                   for n in range(LAST + 1)) + "\nCOMMIT;")
        # Bounded below the 30 s answer wait where the loss is found without it; else one
        # or two answer waits (0.5 s) and a back-off (0.05 s): seconds in all.
        wait_for(lambda: count(ca, "SELECT COUNT(*) FROM sys.transmission_queue") == 0,
                 "A's transmission queue to drain", timeout=20, describe=lambda: held(ca)[:3])
        rows = cb.rows("SELECT message_sequence_number FROM Q ORDER BY queuing_order")
        assert rows == [(n,) for n in range(LAST + 1)]          # each once, in order
        if what == "message":
            assert [(d, h["seq"]) for d, h in proxy.dropped] == [(True, seq)]
        else:
            assert proxy.dropped and all(not from_a for from_a, _h in proxy.dropped)
        assert len(proxy.socks) == 2 * connections
    finally:
        a.close()
        b.close()
        proxy.close()
