"""The wire format between two tsqlbroker brokers (docs/transport.md).

tsqlbroker's own format, not SQL Server's binary adjacent-broker protocol: every frame is a
4-byte big-endian unsigned length followed by that many bytes of UTF-8 JSON, one object with
an ``op`` member. Message bodies travel base64-encoded; times as ISO-8601 UTC text.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .transport_conns import ConnStats

PROTOCOL = "tsqlbroker-sb"
VERSION = 1
MAX_FRAME = 256 * 1024 * 1024    # bodies are varbinary(max); this bounds a hostile length
_LEN = struct.Struct(">I")


class WireError(Exception):
    """A peer sent something that is not a frame of this protocol."""


def encode(frame: dict[str, Any]) -> bytes:
    """One frame as bytes: length prefix + compact JSON."""
    data = json.dumps(frame, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _LEN.pack(len(data)) + data


def send_frame(sock: socket.socket, frame: dict[str, Any],
               stats: ConnStats | None = None) -> None:
    """Write one frame (counted on ``stats``, the connection's sys.dm_broker_connections
    row, when given: one network send; a ``msg`` frame is one message fragment)."""
    data = encode(frame)
    if stats is None:
        sock.sendall(data)
        return
    stats.posting(True, 1)
    try:
        sock.sendall(data)
    finally:
        stats.posting(True, -1)
    stats.sent(len(data), frame.get("op") == "msg")


def _read_exact(sock: socket.socket, n: int, stats: ConnStats | None) -> bytes | None:
    chunks: list[bytes] = []
    got = 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if stats is not None:
            stats.received(len(chunk))
        if not chunk:
            if got == 0:
                return None
            raise WireError("connection closed inside a frame")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, stats: ConnStats | None = None
               ) -> dict[str, Any] | None:
    """Read one frame; None when the peer closed the connection between frames. With
    ``stats``, every network receive is counted on it, and a ``msg`` frame as a fragment."""
    if stats is None:
        return _recv_frame(sock, None)
    stats.posting(False, 1)
    try:
        frame = _recv_frame(sock, stats)
    finally:
        stats.posting(False, -1)
    if frame is not None and frame["op"] == "msg":
        stats.fragment_received()
    return frame


def _recv_frame(sock: socket.socket, stats: ConnStats | None) -> dict[str, Any] | None:
    head = _read_exact(sock, _LEN.size, stats)
    if head is None:
        return None
    (size,) = _LEN.unpack(head)
    if size > MAX_FRAME:
        raise WireError(f"frame of {size} bytes is larger than {MAX_FRAME}")
    data = _read_exact(sock, size, stats) if size else b""
    if data is None:
        raise WireError("connection closed inside a frame")
    try:
        frame = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"frame is not JSON: {exc}") from None
    if not isinstance(frame, dict) or not isinstance(frame.get("op"), str):
        raise WireError("frame is not an object with an 'op'")
    return frame


def hello(broker_guids: list[str], arbitration_id: str | None = None) -> dict[str, Any]:
    """The first frame each side sends on a new connection (``arbitration_id`` identifies
    the sending transport: the far side's ``peer_arbitration_id``; older peers ignore it)."""
    frame: dict[str, Any] = {"op": "hello", "protocol": PROTOCOL, "version": VERSION,
                             "brokers": broker_guids}
    if arbitration_id is not None:
        frame["arbitration_id"] = arbitration_id
    return frame


def check_hello(frame: dict[str, Any] | None) -> dict[str, Any]:
    """``frame`` if it is a compatible hello; else raise :class:`WireError`."""
    if frame is None or frame.get("op") != "hello" or frame.get("protocol") != PROTOCOL:
        raise WireError("peer did not greet with the tsqlbroker-sb protocol")
    if frame.get("version") != VERSION:
        raise WireError(f"peer speaks version {frame.get('version')}, this is {VERSION}")
    return frame


def body_out(body: bytes | None) -> str | None:
    """A message body for JSON."""
    return None if body is None else base64.b64encode(body).decode("ascii")


def body_in(text: Any) -> bytes | None:
    """A message body from JSON."""
    if text is None:
        return None
    try:
        return base64.b64decode(str(text), validate=True)
    except ValueError:
        raise WireError("message body is not base64") from None


def time_out(value: datetime | None) -> str | None:
    """A (naive UTC) datetime for JSON."""
    return None if value is None else value.isoformat()


def time_in(text: Any) -> datetime | None:
    """A datetime from JSON."""
    if text is None:
        return None
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        raise WireError(f"bad time {text!r}") from None
