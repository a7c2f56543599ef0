"""The wire format between two tsqlbroker brokers (docs/transport.md): the hellos, and the
checks every frame's members pass.

tsqlbroker's own format, not SQL Server's binary adjacent-broker protocol. The hellos are
a 4-byte big-endian unsigned length followed by that many bytes of UTF-8 JSON, one flat
object with an ``op`` member; the frames after them are binary, tagged and fragmented
(``transport_link``), with a flat JSON header checked here. Times travel as ISO-8601 UTC text.
"""

from __future__ import annotations

import json
import re
import select
import socket
import struct
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .transport_conns import ConnStats

PROTOCOL = "tsqlbroker-sb"
VERSION = 2                      # 2: binary tagged frames after the hellos
MAX_HELLO = 4096                 # a hello: the JSON frame before the peer is known
MAX_NAME = 256                   # service, contract and message type names (nvarchar(256))
_GUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
                   r"[0-9A-Fa-f]{12}")
_SCALARS = (str, int, float, bool, type(None))
_LEN = struct.Struct(">I")


class WireError(Exception):
    """A peer sent something that is not a frame of this protocol."""


def encode(frame: dict[str, Any]) -> bytes:
    """One frame as bytes: length prefix + compact JSON."""
    data = json.dumps(frame, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _LEN.pack(len(data)) + data


def send_frame(sock: socket.socket, frame: dict[str, Any],
               stats: ConnStats | None = None) -> None:
    """Write one JSON frame (a hello; counted on ``stats``, the connection's
    sys.dm_broker_connections row, when given: one network send)."""
    data = encode(frame)
    if stats is None:
        sock.sendall(data)
        return
    stats.posting(True, 1)
    try:
        sock.sendall(data)
    finally:
        stats.posting(True, -1)
    stats.sent(len(data), False)


class Deadline:
    """How long a reader waits: ``idle_s`` for a frame to begin (None: for ever), then
    ``frame_s`` for all of it to arrive once its first byte came (None: for ever), so that
    a peer sending a frame slowly, or never finishing it, is cut off."""

    def __init__(self, idle_s: float | None = None, frame_s: float | None = None) -> None:
        self.idle_s, self.frame_s = idle_s, frame_s
        self._until: float | None = None

    def begin(self) -> None:
        """A frame starts: from now on its whole must come within ``frame_s``."""
        self._until = None if self.frame_s is None else time.monotonic() + self.frame_s

    def arm(self, sock: socket.socket, started: bool) -> None:
        """Set the socket's timeout for the next read."""
        if not started:
            if self.idle_s is not None:
                sock.settimeout(self.idle_s)
            return
        if self._until is not None:
            left = self._until - time.monotonic()
            if left <= 0:
                raise WireError("frame not completed in time")
            sock.settimeout(left)


def read_exact(sock: socket.socket, n: int, stats: ConnStats | None,
                deadline: Deadline | None = None, started: bool = True) -> bytes | None:
    """``n`` bytes from ``sock`` (None when it closed before the first; ``started``: a
    frame has begun, so ``deadline``'s frame time runs), each receive counted on ``stats``."""
    chunks: list[bytes] = []
    got = 0
    while got < n:
        if deadline is not None:
            deadline.arm(sock, started or got > 0)
        try:
            chunk = sock.recv(min(n - got, 1 << 20))
        except TimeoutError:
            if deadline is None:
                raise
            if started or got:
                raise WireError("frame not completed in time") from None
            raise WireError("no frame in time") from None
        if deadline is not None and not started and got == 0 and chunk:
            deadline.begin()
        if stats is not None:
            stats.received(len(chunk))
        if not chunk:
            if got == 0:
                return None
            raise WireError("connection closed inside a frame")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, stats: ConnStats | None = None, *,
               max_size: int = MAX_HELLO, deadline: Deadline | None = None
               ) -> dict[str, Any] | None:
    """Read one JSON frame (a hello); None when the peer closed the connection between
    frames. With ``stats``, every network receive is counted on it.
    A frame longer than ``max_size``, one not (wholly) arriving within ``deadline``, and
    one that is not a flat JSON object with an ``op`` raise :class:`WireError`."""
    if stats is None:
        return _recv_frame(sock, None, max_size, deadline)
    stats.posting(False, 1)
    try:
        frame = _recv_frame(sock, stats, max_size, deadline)
    finally:
        stats.posting(False, -1)
    return frame


def _recv_frame(sock: socket.socket, stats: ConnStats | None, max_size: int,
                deadline: Deadline | None) -> dict[str, Any] | None:
    head = read_exact(sock, _LEN.size, stats, deadline, started=False)
    if head is None:
        return None
    (size,) = _LEN.unpack(head)
    if size > max_size:
        raise WireError(f"frame of {size} bytes is larger than {max_size}")
    data = read_exact(sock, size, stats, deadline) if size else b""
    if data is None:
        raise WireError("connection closed inside a frame")
    try:
        frame = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"frame is not JSON: {exc}") from None
    except RecursionError:
        raise WireError("frame is nested too deeply") from None
    if not isinstance(frame, dict) or not isinstance(frame.get("op"), str):
        raise WireError("frame is not an object with an 'op'")
    check_flat(frame)
    return frame


def check_flat(frame: Any) -> None:
    """Every frame is an object whose members are all scalars: nothing nested reaches the
    receiver."""
    if not isinstance(frame, dict) or not all(isinstance(v, _SCALARS) for v in frame.values()):
        raise WireError("frame is not a flat object")


def hello(arbitration_id: str | None = None, **share: str) -> dict[str, Any]:
    """The first frame each side sends on a new connection (``arbitration_id`` identifies
    the sending transport: the far side's ``peer_arbitration_id``). It says nothing about
    the instance's databases: the listening side answers only an accepted hello, and the
    broker GUIDs travel only in acknowledgements."""
    frame: dict[str, Any] = {"op": "hello", "protocol": PROTOCOL, "version": VERSION,
                             **share}
    if arbitration_id is not None:
        frame["arbitration_id"] = arbitration_id
    return frame


def check_hello(frame: dict[str, Any] | None) -> dict[str, Any]:
    """``frame`` if it is a compatible hello; else raise :class:`WireError`."""
    if frame is None or frame.get("op") != "hello" or frame.get("protocol") != PROTOCOL:
        raise WireError("peer did not greet with the tsqlbroker-sb protocol")
    if frame.get("version") != VERSION:
        raise WireError(f"peer speaks version {frame.get('version')}, this is {VERSION}")
    peer_id = frame.get("arbitration_id")
    if peer_id is not None and not is_guid(peer_id):
        raise WireError("hello's arbitration_id is not a GUID")
    return frame


def is_guid(value: Any) -> bool:
    """Whether ``value`` is a GUID's text (36 characters, 8-4-4-4-12 hex digits)."""
    return isinstance(value, str) and _GUID.fullmatch(value) is not None


def check_message(frame: dict[str, Any]) -> None:
    """Raise :class:`WireError` unless every member of a ``msg`` frame has its form: ids
    GUIDs, names at most 256 characters, numbers in range, times ISO text (the receiver
    converts them after this)."""
    _check_common(frame)
    for key in ("type", "from_service", "to_service", "contract"):
        _text(frame, key, MAX_NAME, required=True)
    for key in ("from_broker", "to_broker"):
        value = frame.get(key)
        if value not in (None, "") and not is_guid(value):
            raise WireError(f"{key} is not a GUID")
    seq = frame.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2 ** 63:
        raise WireError("seq is not a sequence number")
    priority = frame.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)
                                 or not 1 <= priority <= 10):
        raise WireError("priority is not 1 to 10")
    _text(frame, "lifetime", 40, required=True)
    _text(frame, "enqueue_time", 40)
    body = frame.get("body")
    if body is not None and not isinstance(body, bytes):
        raise WireError("body is not bytes")
    if frame.get("enc") not in (None, 0, 1) or isinstance(frame.get("enc"), bool):
        raise WireError("enc is not 0 or 1")
    for key in ("sk", "sk_sig", "sk_proof"):       # base64 of RSA blocks (dialog security)
        _text(frame, key, MAX_KEY_TEXT)
    for key in ("sk_to", "sk_from"):               # certificate thumbprints
        value = frame.get(key)
        if value is not None and (not isinstance(value, str)
                                  or not _THUMBPRINT.fullmatch(value)):
            raise WireError(f"{key} is not a certificate thumbprint")


def check_close(frame: dict[str, Any]) -> None:
    """Raise :class:`WireError` unless a ``close`` frame has its form."""
    _check_common(frame)


def _check_common(frame: dict[str, Any]) -> None:
    if not is_guid(frame.get("cid")):
        raise WireError("conversation id is not a GUID")
    if frame.get("init") not in (0, 1, True, False):
        raise WireError("init is not 0 or 1")
    ident = frame.get("id")
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, int)
                              or not 0 <= ident < 2 ** 63):
        raise WireError("id is not a frame number")


MAX_KEY_TEXT = 1400           # base64 of an RSA block of up to 8192 bits
_THUMBPRINT = re.compile(r"[0-9A-F]{40}")


def _text(frame: dict[str, Any], key: str, limit: int, *, required: bool = False) -> None:
    value = frame.get(key)
    if value is None and not required:
        return
    if not isinstance(value, str) or not value or len(value) > limit:
        raise WireError(f"{key} is not text of 1 to {limit} characters")


def wait_ready(sock: socket.socket, timeout: float | None, *, write: bool = False) -> bool:
    """Whether ``sock`` can be read (``write``: written) within ``timeout`` seconds (None: no
    limit). poll(), not select(): select cannot watch a descriptor above 1023, which a busy
    process (many stores, many connections) has."""
    if not hasattr(select, "poll"):         # not on Linux / macOS
        ready = select.select([] if write else [sock], [sock] if write else [], [], timeout)
        return bool(ready[0] or ready[1])
    poller = select.poll()
    poller.register(sock, select.POLLOUT if write else select.POLLIN)
    return bool(poller.poll(None if timeout is None else max(0.0, timeout) * 1000))


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
