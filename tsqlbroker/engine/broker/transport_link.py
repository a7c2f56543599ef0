"""One broker-to-broker connection after the hellos (docs/transport.md, *Frames*): binary
frames, each with an HMAC-SHA256 tag keyed per connection and direction, and messages split
into fragments and reassembled.

The hellos carry an X25519 public key and a nonce each; both sides derive two keys from the
shared secret (HKDF-SHA256, one key per direction). A frame whose tag does not verify — bytes
changed on the way — is dropped, counted (``sys.dm_broker_connections`` shows it nowhere, the
registry's ``corrupted`` does) and not answered: its sender resends the message after its
acknowledgement wait. Frame numbers increase per direction and are under the tag, so a frame
replayed or moved within the connection is dropped the same way. The hellos travel inside
the endpoints' mutual TLS session (``endpoint_tls``, :func:`handshake`), so the keys belong
to the authenticated peer even when the frames then go in clear (no encryption negotiated).

A message is sent as fragments of at most :data:`FRAGMENT` bytes; the receiving side keeps
the fragments of a message in a spooled temporary file (memory up to :data:`SPOOL`, then
disk), at most :data:`MAX_PARTIAL` messages per connection at a time, and hands the message
over only when all of it has arrived: a partial message is never received. A fragment that is
missing (dropped as corrupted) makes the message's other fragments useless: they are
discarded, and the sender's resend starts over.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import socket
import ssl
import struct
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ...lazy import LazyModule
from .endpoint_tls import (
    NO_CERTIFICATE,
    NO_PEER_CERTIFICATE,
    REFUSED_BY_PEER,
    EndpointSecurity,
    Peer,
    Refused,
    encryption_mode,
    negotiate,
)
from .transport_wire import (
    Deadline,
    WireError,
    check_flat,
    check_hello,
    hello,
    read_exact,
    recv_frame,
    send_frame,
    wait_ready,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import x25519
    from cryptography.hazmat.primitives.kdf import hkdf

    from .transport_conns import ConnStats
else:
    # Start-up laziness: cryptography (~50 ms to import) loads with the first connection
    # between brokers.
    hashes = LazyModule("cryptography.hazmat.primitives.hashes", globals(), "hashes")
    x25519 = LazyModule("cryptography.hazmat.primitives.asymmetric.x25519", globals(),
                        "x25519")
    hkdf = LazyModule("cryptography.hazmat.primitives.kdf.hkdf", globals(), "hkdf")

CONTROL, FRAGMENT_KIND = 1, 2      # frame kinds: an answer / notice, a message fragment
FRAGMENT = 64 * 1024               # payload bytes per fragment
MAX_HEADER = 8 * 1024              # a frame's JSON header
MAX_LINK_FRAME = FRAGMENT + MAX_HEADER + 64
MAX_MESSAGE = 2 ** 31 - 1          # varbinary(max)
MAX_PARTIAL = 32                   # messages being reassembled per connection
SPOOL = 64 * 1024                  # bytes of one partial message kept in memory
MAX_CORRUPT_RUN = 3                # corrupted frames in a row before the connection is closed
_HEAD = struct.Struct(">IBQH")     # length, kind, frame number, header length
_TAG = 32
_MIN_FRAME = _HEAD.size - 4 + _TAG     # the bytes after the length prefix, header empty
Piece = tuple[dict[str, Any], bytes]   # a fragment not yet framed: its header, its payload


@dataclass
class KeyShare:
    """This side's part of the handshake: an ephemeral X25519 key and a nonce."""

    private: x25519.X25519PrivateKey = field(
        default_factory=lambda: x25519.X25519PrivateKey.generate())
    nonce: bytes = field(default_factory=lambda: os.urandom(16))

    def hello_fields(self) -> dict[str, str]:
        """The members this side adds to its hello."""
        raw = self.private.public_key().public_bytes_raw()
        return {"key": base64.b64encode(raw).decode("ascii"),
                "nonce": base64.b64encode(self.nonce).decode("ascii")}

    def keys(self, peer_hello: dict[str, Any], initiating: bool) -> tuple[bytes, bytes]:
        """(key for what this side sends, key for what it receives) from the peer's hello."""
        try:
            peer_key = base64.b64decode(str(peer_hello["key"]), validate=True)
            peer_nonce = base64.b64decode(str(peer_hello["nonce"]), validate=True)
            shared = self.private.exchange(x25519.X25519PublicKey.from_public_bytes(peer_key))
        except (KeyError, ValueError) as exc:
            raise WireError(f"hello's key share is not usable: {exc}") from None
        if len(peer_nonce) != 16:
            raise WireError("hello's nonce is not 16 bytes")
        salt = self.nonce + peer_nonce if initiating else peer_nonce + self.nonce
        material = hkdf.HKDF(algorithm=hashes.SHA256(), length=64, salt=salt,
                             info=b"tsqlbroker-sb frames").derive(shared)
        to_listener, to_initiator = material[:32], material[32:]
        return (to_listener, to_initiator) if initiating else (to_initiator, to_listener)


def handshake(sock: socket.socket, stats: ConnStats | None, arbitration_id: str | None, *,
              initiating: bool, deadline: Deadline | None = None,
              security: EndpointSecurity | None = None) -> tuple[Link, dict[str, Any]]:
    """Secure a new connection and exchange hellos; the :class:`Link` keyed by them and the
    peer's hello. With endpoint security (``security``, else the connection registry's),
    mutual TLS comes first and the peer must be admitted (``endpoint_tls``); the hellos then
    travel inside TLS, carry each side's ENCRYPTION setting, and when the negotiated result
    is "not encrypted" both sides end TLS and the frames go in clear (still tagged). The
    connecting side speaks first; the listening side answers only a hello it accepted.
    Raises :class:`WireError` (:class:`Refused` for authentication and encryption) for
    anything else; the socket is then closed."""
    if security is None and stats is not None and stats.registry.store is not None:
        security = EndpointSecurity.get(stats.registry.store)
    if security is None:
        # Only the frame layer's own tests build links without endpoint security.
        return _exchange_hellos(sock, stats, arbitration_id, initiating, deadline, None)
    local = security.local()
    timeout = sock.gettimeout()
    limit = deadline.idle_s if deadline is not None and deadline.idle_s is not None \
        else timeout
    tls = security.context(local, server=not initiating).wrap_socket(
        sock, server_side=not initiating, do_handshake_on_connect=False)
    try:
        _tls_handshake(tls, limit)
        tls.settimeout(timeout)
        try:
            peer = security.admit(local, tls.getpeercert(binary_form=True))
        except Refused as exc:
            if not initiating:
                refuse(tls, str(exc), stats)
            raise
        return _exchange_hellos(tls, stats, arbitration_id, initiating, deadline,
                                (local.encryption, peer))
    except BaseException as exc:
        if not initiating and isinstance(exc, Refused):
            _linger(tls)
        tls.close()
        raise


LINGER_S = 0.5       # a refusing listener lets the peer read why before it closes


def _linger(tls: ssl.SSLSocket) -> None:
    """Stop writing and read what the refused peer still sends, briefly, so that closing
    does not reset the connection under the alert or refusal it has yet to read."""
    with contextlib.suppress(OSError, ValueError):
        tls.shutdown(socket.SHUT_WR)
        until = time.monotonic() + LINGER_S
        while (left := until - time.monotonic()) > 0:
            tls.settimeout(left)
            if not tls.recv(4096):
                return


_UNKNOWN_CERT = (18, 19, 20, 21)    # self-signed / untrusted issuer: not in master


def _tls_handshake(tls: ssl.SSLSocket, limit: float | None) -> None:
    """The TLS handshake, whole within ``limit`` seconds (None: no limit) however slowly
    the peer sends its bytes. A peer that does not speak TLS is a :class:`WireError`
    (like a bad hello); a certificate that is not accepted, :class:`Refused`."""
    until = None if limit is None else time.monotonic() + limit
    tls.setblocking(False)
    while True:
        try:
            tls.do_handshake()
            return
        except ssl.SSLWantReadError:
            write = False
        except ssl.SSLWantWriteError:
            write = True
        except ssl.SSLCertVerificationError as exc:
            raise Refused(NO_CERTIFICATE if exc.verify_code in _UNKNOWN_CERT
                          else NO_CERTIFICATE.replace("Certificate not found",
                                                      str(exc.verify_message))) from None
        except ssl.SSLError as exc:
            raise _tls_refusal(exc) from None
        left = None if until is None else until - time.monotonic()
        if left is not None and left <= 0:
            raise WireError("TLS handshake not completed in time")
        if not wait_ready(tls, left, write=write):
            raise WireError("TLS handshake not completed in time")


def _tls_refusal(exc: ssl.SSLError) -> WireError:
    """What a failed TLS handshake means: the peer's certificate missing (:class:`Refused`),
    this side's refused by the peer (an alert: :class:`Refused`), or no TLS at all."""
    reason = str(getattr(exc, "reason", "") or exc)
    if "ALERT" in reason:
        return Refused(REFUSED_BY_PEER.format(reason.lower().replace("_", " ")))
    if "CERTIFICATE_REQUIRED" in reason or "PEER_DID_NOT_RETURN" in reason:
        return Refused(NO_PEER_CERTIFICATE)
    return WireError(f"TLS handshake failed: {reason or exc.__class__.__name__}")


def _exchange_hellos(sock: socket.socket, stats: ConnStats | None,
                     arbitration_id: str | None, initiating: bool, deadline: Deadline | None,
                     secured: tuple[str, Peer] | None) -> tuple[Link, dict[str, Any]]:
    """The hellos (with ``secured``: this side's ENCRYPTION setting and the admitted peer),
    then the link over TLS, or over the clear socket when encryption is not negotiated."""
    share = KeyShare()
    extra = {"encryption": secured[0]} if secured else {}
    mine = hello(arbitration_id, **share.hello_fields(), **extra)
    try:
        if initiating:
            _send_first(sock, mine, stats)
        greeting = recv_frame(sock, stats, deadline=deadline)
        if secured is not None and greeting is not None and greeting.get("op") == "refused":
            raise Refused(str(greeting.get("reason") or "Connection handshake failed."))
        greeting = check_hello(greeting)
        send_key, recv_key = share.keys(greeting, initiating)
        encrypted = False
        if secured is not None:
            try:
                encrypted = negotiate(secured[0], encryption_mode(greeting.get("encryption")))
            except Refused as exc:
                if not initiating:
                    send_frame(sock, {"op": "refused", "reason": str(exc)}, stats)
                raise
        if not initiating:
            send_frame(sock, mine, stats)
        if secured is not None and not encrypted and isinstance(sock, ssl.SSLSocket):
            sock = sock.unwrap()
    except ssl.SSLError as exc:
        raise _tls_refusal(exc) from None
    if stats is not None and secured is not None:
        cipher = sock.cipher() if encrypted and isinstance(sock, ssl.SSLSocket) else None
        stats.secured(secured[1].principal_name, secured[1].certificate_id,
                      cipher[0] if cipher else None)
    return Link(sock, send_key, recv_key, stats), greeting


def _send_first(sock: socket.socket, frame: dict[str, Any], stats: ConnStats | None) -> None:
    """The connecting side's hello. In TLS 1.3 the listener checks this side's certificate
    after our handshake ended: when it refused it, its alert (which says why) may be
    waiting while the write fails on the closed connection, so it is read then."""
    try:
        send_frame(sock, frame, stats)
    except (ssl.SSLError, OSError) as exc:
        if isinstance(sock, ssl.SSLSocket):
            try:
                sock.recv(1)
            except ssl.SSLError as alert:
                if "ALERT" in str(getattr(alert, "reason", "") or ""):
                    raise alert from exc
            except OSError:
                pass
        raise


def refuse(sock: socket.socket, reason: str, stats: ConnStats | None = None) -> None:
    """Tell an authenticated peer why it is refused (it shows the text); best effort."""
    with contextlib.suppress(OSError, ValueError):
        send_frame(sock, {"op": "refused", "reason": reason}, stats)


@dataclass
class Partial:
    """A message whose fragments are arriving."""

    header: dict[str, Any]
    size: int
    data: IO[bytes]
    got: int = 0
    next_frag: int = 1


class Link:
    """A connection past the hellos: tagged frames out and in, messages reassembled."""

    def __init__(self, sock: socket.socket, send_key: bytes, recv_key: bytes,
                 stats: ConnStats | None = None) -> None:
        self.sock = sock
        self.stats = stats
        self._send_key, self._recv_key = send_key, recv_key
        self._sent = 0
        self._received = 0
        self._partial: dict[int, Partial] = {}
        self.corrupted = 0          # frames dropped because their tag did not verify
        self._corrupt_run = 0

    # -- out ----------------------------------------------------------------------------------
    def _frame(self, kind: int, header: dict[str, Any], payload: bytes) -> bytes:
        head_bytes = json.dumps(header, separators=(",", ":"),
                                ensure_ascii=False).encode("utf-8")
        self._sent += 1
        size = _HEAD.size - 4 + len(head_bytes) + len(payload) + _TAG
        data = _HEAD.pack(size, kind, self._sent, len(head_bytes)) + head_bytes + payload
        return data + hmac.digest(self._send_key, data, hashlib.sha256)

    def _write(self, data: bytes, fragment: bool) -> None:
        stats = self.stats
        if stats is None:
            self.sock.sendall(data)
            return
        stats.posting(True, 1)
        try:
            self.sock.sendall(data)
        finally:
            stats.posting(True, -1)
        stats.sent(len(data), fragment)

    def send_control(self, header: dict[str, Any]) -> None:
        """Send an answer or notice (one frame)."""
        self._write(self._frame(CONTROL, header, b""), False)

    def send_controls(self, headers: list[dict[str, Any]]) -> None:
        """Send several answers at once: a frame each (each tagged), one network send."""
        if headers:
            self._write(b"".join(self._frame(CONTROL, h, b"") for h in headers), False)

    @staticmethod
    def fragments(frame: dict[str, Any]) -> list[Piece]:
        """The fragments of message ``frame`` (its ``body`` bytes or None): the first
        carries every member but the body, the others only the ``id``. Each becomes a frame
        (numbered, tagged) only when written, so fragments of several messages can be
        interleaved."""
        body = frame.get("body")
        header = {k: v for k, v in frame.items() if k != "body"}
        header["size"] = -1 if body is None else len(body)
        header["frag"] = 0
        view = memoryview(body or b"")
        out: list[Piece] = [(header, bytes(view[:FRAGMENT]))]
        for n, at in enumerate(range(FRAGMENT, len(view), FRAGMENT), 1):
            out.append(({"id": frame["id"], "frag": n}, bytes(view[at:at + FRAGMENT])))
        return out

    def seal(self, piece: Piece) -> bytes:
        """Fragment ``piece`` as the next frame's bytes (numbered, tagged)."""
        return self._frame(FRAGMENT_KIND, *piece)

    def write_fragment(self, piece: Piece) -> None:
        """Write one fragment made by :meth:`fragments`."""
        self._write(self.seal(piece), True)

    def send_message(self, frame: dict[str, Any]) -> None:
        """Send message ``frame`` whole, fragment after fragment."""
        for data in self.fragments(frame):
            self.write_fragment(data)

    # -- in -----------------------------------------------------------------------------------
    def receive(self, deadline: Deadline | None = None) -> dict[str, Any] | None:
        """The next control frame or whole message (``op`` ``msg`` with ``body`` bytes or
        None); None when the peer closed the connection. Corrupted frames and fragments of
        messages that cannot be completed are dropped on the way."""
        while True:
            got = self.receive_ready(deadline)
            if got is None or got:
                return got

    def readable(self, timeout: float) -> bool:
        """Whether a frame's bytes are there to read within ``timeout`` seconds (bytes TLS
        has already decrypted count: poll() does not see them)."""
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        return wait_ready(self.sock, timeout)

    def receive_ready(self, deadline: Deadline | None = None) -> dict[str, Any] | None:
        """Like :meth:`receive`, but reads one frame only (call it when :meth:`readable`):
        the control frame or the message it completes, ``{}`` when it was a fragment that
        completes nothing yet; None when the peer closed."""
        got = self._read(deadline)
        if got is None:
            return None
        kind, header, payload = got
        if kind == CONTROL:
            return header
        return self._fragment(header, payload) or {}

    def _read(self, deadline: Deadline | None) -> tuple[int, dict[str, Any], bytes] | None:
        stats = self.stats
        if stats is not None:
            stats.posting(False, 1)
        try:
            while True:
                head = read_exact(self.sock, 4, stats, deadline, started=False)
                if head is None:
                    return None
                (size,) = struct.unpack(">I", head)
                if not _MIN_FRAME <= size <= MAX_LINK_FRAME:
                    raise WireError(f"frame of {size} bytes is not {_MIN_FRAME} to "
                                    f"{MAX_LINK_FRAME} bytes")
                rest = read_exact(self.sock, size, stats, deadline)
                if rest is None:
                    raise WireError("connection closed inside a frame")
                data, tag = head + rest[:-_TAG], rest[-_TAG:]
                _, kind, number, hlen = _HEAD.unpack_from(data)
                good = hmac.compare_digest(
                    hmac.digest(self._recv_key, data, hashlib.sha256), tag)
                if not good or number <= self._received or kind not in (CONTROL,
                                                                       FRAGMENT_KIND) \
                        or _HEAD.size + hlen > len(data):
                    self._corrupt()
                    continue
                self._corrupt_run = 0
                self._received = number
                try:
                    header = json.loads(data[_HEAD.size:_HEAD.size + hlen].decode("utf-8"))
                except (UnicodeDecodeError, ValueError, RecursionError):
                    raise WireError("frame header is not JSON") from None
                check_flat(header)
                if kind == FRAGMENT_KIND and stats is not None:
                    stats.fragment_received()
                return kind, header, data[_HEAD.size + hlen:]
        finally:
            if stats is not None:
                stats.posting(False, -1)

    def _corrupt(self) -> None:
        self.corrupted += 1
        self._corrupt_run += 1
        if self.stats is not None:
            self.stats.registry.count_corrupted()
        if self._corrupt_run >= MAX_CORRUPT_RUN:
            # The length prefixes themselves may be damaged: the stream is lost.
            raise WireError(f"{MAX_CORRUPT_RUN} corrupted frames in a row")

    def _fragment(self, header: dict[str, Any], payload: bytes) -> dict[str, Any] | None:
        ident, frag = header.get("id"), header.get("frag")
        if isinstance(ident, bool) or not isinstance(ident, int) \
                or isinstance(frag, bool) or not isinstance(frag, int):
            raise WireError("fragment without an id and a fragment number")
        if len(payload) > FRAGMENT:
            raise WireError("fragment longer than a fragment may be")
        if frag == 0:
            self._discard(ident)
            size = header.pop("size", None)
            header.pop("frag", None)
            if isinstance(size, bool) or not isinstance(size, int) \
                    or not -1 <= size <= MAX_MESSAGE:
                raise WireError("message size out of range")
            if len(self._partial) >= MAX_PARTIAL:
                raise WireError(f"more than {MAX_PARTIAL} messages in progress")
            # Closed by _discard or when the message is complete.
            spool = tempfile.SpooledTemporaryFile(max_size=SPOOL)  # noqa: SIM115
            part = Partial(header, size, spool)
            self._partial[ident] = part
        else:
            found = self._partial.get(ident)
            if found is None:
                return None            # its first fragment was dropped: the resend comes
            part = found
            if frag != part.next_frag:
                self._discard(ident)   # a fragment in between was dropped
                return None
            part.next_frag += 1
        part.data.write(payload)
        part.got += len(payload)
        if part.got > max(part.size, 0):
            self._discard(ident)
            raise WireError("message longer than its size")
        if part.got < part.size:
            return None
        del self._partial[ident]
        part.data.seek(0)
        body = None if part.size < 0 else part.data.read()
        part.data.close()
        message = part.header
        message["body"] = body
        return message

    def _discard(self, ident: int) -> None:
        part = self._partial.pop(ident, None)
        if part is not None:
            part.data.close()

    def close(self) -> None:
        """Drop the partial messages and close the socket."""
        for ident in list(self._partial):
            self._discard(ident)
        self.sock.close()
