"""The frames after the hellos (docs/transport.md, *Frames*): keyed per connection by the
handshake, integrity-checked (a damaged or replayed frame is dropped and counted, the next
one still read), binary bodies, messages fragmented, interleaved and reassembled (a partial
message is never handed over), and counted on the connections' DMV rows."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tsqlbroker.engine.broker.transport_conns import ConnectionRegistry, ConnStats
from tsqlbroker.engine.broker.transport_link import (
    FRAGMENT,
    MAX_CORRUPT_RUN,
    Link,
    handshake,
)
from tsqlbroker.engine.broker.transport_wire import WireError


class Pair:
    """Two ends of a socket pair past the handshake, and their DMV rows."""

    def __init__(self) -> None:
        self.reg = ConnectionRegistry()
        self.out_stats: ConnStats = self.reg.open(is_accept=False, peer="127.0.0.1:1")
        self.in_stats: ConnStats = self.reg.open(is_accept=True, peer="127.0.0.1:2")
        self.left, self.right = socket.socketpair()
        got: dict[str, Link] = {}

        def listen() -> None:
            link, greeting = handshake(self.right, self.in_stats, "0" * 8 + "-0000-0000-"
                                       "0000-" + "0" * 12, initiating=False)
            self.in_stats.logged_in(greeting)
            got["in"] = link
        t = threading.Thread(target=listen)
        t.start()
        self.out, greeting = handshake(self.left, self.out_stats, self.reg.arbitration_id,
                                       initiating=True)
        self.out_stats.logged_in(greeting)
        t.join(10)
        self.into = got["in"]

    def close(self) -> None:
        self.left.close()
        self.right.close()


@pytest.fixture
def pair() -> Iterator[Pair]:
    p = Pair()
    yield p
    p.close()


def _msg(ident: int, body: bytes | None) -> dict[str, object]:
    return {"op": "msg", "id": ident, "seq": ident, "body": body}


def test_messages_and_answers_round_trip_with_binary_bodies(pair: Pair) -> None:
    body = bytes(range(256)) * 3
    pair.out.send_message(_msg(1, body))
    pair.out.send_message(_msg(2, None))
    pair.out.send_message(_msg(3, b""))
    assert pair.into.receive() == {"op": "msg", "id": 1, "seq": 1, "body": body}
    assert pair.into.receive()["body"] is None           # NULL stays NULL …
    assert pair.into.receive()["body"] == b""            # … and empty stays empty
    pair.into.send_control({"op": "ack", "id": 1})
    assert pair.out.receive() == {"op": "ack", "id": 1}
    # Binary on the wire: the body's bytes once, not base64 (4/3 as many).
    rows = {r[10]: r for r in pair.reg.rows()}
    assert rows[0][20] < len(body) + 1000


def test_a_large_message_is_fragmented_and_a_small_one_passes_between_its_fragments(
        pair: Pair) -> None:
    large = bytes(range(256)) * (FRAGMENT * 3 // 256 + 7)
    frames = pair.out.fragments(_msg(1, large))
    assert len(frames) == 4
    received: list[dict[str, object]] = []
    reader = threading.Thread(target=lambda: received.extend(
        pair.into.receive() for _ in range(2)))
    reader.start()
    pair.out.write_fragment(frames[0])
    pair.out.send_message(_msg(2, b"<small/>"))          # between the large one's fragments
    for data in frames[1:]:
        pair.out.write_fragment(data)
    reader.join(10)
    assert [m["id"] for m in received] == [2, 1]          # the small one first
    assert received[1]["body"] == large
    rows = {r[10]: r for r in pair.reg.rows()}
    assert (rows[0][22], rows[1][23]) == (5, 5)          # fragments sent / received


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1:]


def _raw(pair: Pair, data: bytes) -> None:
    """Bytes onto the wire from the connecting side, as they are."""
    pair.left.sendall(data)


def test_a_corrupted_frame_is_dropped_counted_and_the_next_one_read(pair: Pair) -> None:
    bad = pair.out.seal(pair.out.fragments(_msg(1, b"<m>1</m>"))[0])
    _raw(pair, _flip(bad, len(bad) - 40))                # a body byte changed on the way
    pair.out.send_message(_msg(2, b"<m>2</m>"))
    assert pair.into.receive()["id"] == 2                # 1 is never handed over
    assert pair.into.corrupted == 1 and pair.reg.corrupted == 1


def test_a_replayed_frame_is_dropped(pair: Pair) -> None:
    frame = pair.out.seal(pair.out.fragments(_msg(1, b"x"))[0])
    _raw(pair, frame)
    _raw(pair, frame)                                    # the same bytes again
    pair.out.send_message(_msg(2, b"y"))
    assert [pair.into.receive()["id"] for _ in range(2)] == [1, 2]
    assert pair.into.corrupted == 1


def test_a_message_missing_a_fragment_is_never_handed_over(pair: Pair) -> None:
    large = b"z" * (FRAGMENT * 2 + 1)
    received: list[dict[str, object] | None] = []
    reader = threading.Thread(target=lambda: received.extend(
        pair.into.receive() for _ in range(2)))
    reader.start()
    frames = pair.out.fragments(_msg(1, large))
    pair.out.write_fragment(frames[0])
    _raw(pair, _flip(pair.out.seal(frames[1]), 30))      # dropped as corrupted
    pair.out.write_fragment(frames[2])                   # its message cannot be completed
    pair.out.send_message(_msg(1, large))                # the sender's resend
    # Cut off inside a message: nothing is handed over.
    pair.out.write_fragment(pair.out.fragments(_msg(3, large))[0])
    pair.left.shutdown(socket.SHUT_WR)
    reader.join(10)
    assert received[0] is not None and received[0]["body"] == large
    assert received[1] is None


def test_a_damaged_stream_closes_the_connection(pair: Pair) -> None:
    for n in range(MAX_CORRUPT_RUN):
        frame = pair.out.seal(pair.out.fragments(_msg(n, b"x"))[0])
        _raw(pair, _flip(frame, len(frame) - 1))
    with pytest.raises(WireError, match="corrupted frames in a row"):
        pair.into.receive()


def test_keys_differ_per_connection_and_direction() -> None:
    one, two = Pair(), Pair()
    try:
        frame = one.out.seal(one.out.fragments(_msg(1, b"x"))[0])
        two.left.sendall(frame)                          # a frame of another connection
        two.out.send_message(_msg(2, b"y"))
        assert two.into.receive()["id"] == 2 and two.into.corrupted == 1
        one.into.send_control({"op": "ack", "id": 9})
        echo = one.into.seal(one.out.fragments(_msg(3, b"x"))[0])
        one.right.sendall(_flip(echo, 20))               # damaged on the way back
        one.into.send_control({"op": "ack", "id": 10})
        assert one.out.receive() == {"op": "ack", "id": 9}
        assert one.out.receive() == {"op": "ack", "id": 10} and one.out.corrupted == 1
    finally:
        one.close()
        two.close()


def test_frames_are_counted_on_the_connections_row(pair: Pair) -> None:
    pair.out.send_message(_msg(1, b"\x00"))
    assert pair.into.receive()["body"] == b"\x00"
    pair.into.send_control({"op": "ack", "id": 1})
    assert pair.out.receive()["op"] == "ack"
    rows = {r[10]: r for r in pair.reg.rows()}           # by is_accept
    sent, got = rows[0], rows[1]
    assert sent[20] == got[21] > 0                       # total_bytes_sent / _received
    assert (sent[22], got[23]) == (1, 1)                 # fragments: the message only
    assert (sent[24], got[24]) == (2, 2)                 # total_sends: hello + frame
    assert (got[2], got[3], got[11], got[12]) == (4, "LOGGED_IN", 12, "ONLINE")
    assert got[26] == pair.reg.arbitration_id
    assert (sent[16], sent[18]) == (0, 0)                # nothing in progress now
    pair.out_stats.close()
    assert [r[10] for r in pair.reg.rows()] == [1]
