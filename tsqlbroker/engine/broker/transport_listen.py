"""The listening side of the transport: accepts other brokers' connections on the endpoint's
port and answers their frames (docs/transport.md, *The listener's limits*).

Anyone who can reach the port can connect, so the listener spends little on a peer it does
not know yet: at most ``max_connections`` connections (each one thread) at a time, the
peer's hello within ``hello_s`` and at most 4 KiB, every later frame wholly within
``frame_s`` once it has begun (and at most 72 KiB, partial messages spooled to disk: see
``transport_link``), an idle connection closed after ``idle_s``. It answers a hello only
after accepting the peer's, and the hello says nothing about the instance. Before the hellos
the peer must pass the endpoint's authentication (mutual TLS with certificates in master, and
CONNECT on the endpoint: ``endpoint_tls``). A refused or cut-off connection is logged with the
reason and counted (:attr:`ConnectionRegistry.refused`); the other connections go on.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from .endpoint_tls import Refused
from .transport_conns import CONNECTED, WAIT_LOGIN_NEGOTIATE, ConnectionRegistry, ConnStats
from .transport_link import FRAGMENT, Link, handshake
from .transport_recv import Receiver
from .transport_wire import Deadline, WireError

if TYPE_CHECKING:
    from ..brokerlog import BrokerLog

# Why a connection was refused or cut off (the keys of ConnectionRegistry.refused).
REFUSED_LIMIT = "connection limit"      # more connections than max_connections
REFUSED_HELLO = "hello"                 # no (acceptable) hello in time
REFUSED_FRAME = "frame"                 # a bad, oversized, slow or unfinished frame
REFUSED_AUTH = "authentication"         # no / unknown certificate, no CONNECT, encryption
APPLY_BATCH = 64                        # frames at most applied in one transaction


@dataclass(frozen=True)
class ListenerLimits:
    """What one listener spends on its peers (see the module docstring)."""

    max_connections: int = 64
    hello_s: float = 10.0
    frame_s: float = 60.0
    idle_s: float = 600.0

    @classmethod
    def from_env(cls) -> ListenerLimits:
        """The defaults, changed by ``TSQLBROKER_SB_LISTENER="max_connections=8,hello_s=1"``
        (for tests and operators; unknown or bad items are ignored)."""
        limits = cls()
        kinds = {f.name: f.type for f in fields(cls)}
        for item in os.environ.get("TSQLBROKER_SB_LISTENER", "").split(","):
            name, _, value = item.partition("=")
            name = name.strip()
            if name not in kinds:
                continue
            try:
                number: Any = int(value) if kinds[name] == "int" else float(value)
            except ValueError:
                continue
            if number > 0:
                limits = replace(limits, **{name: number})
        return limits


class Listener:
    """Serves the connections accepted on one transport's listening socket."""

    def __init__(self, receiver: Receiver, registry: ConnectionRegistry, log: BrokerLog,
                 stopping: threading.Event, limits: ListenerLimits | None = None) -> None:
        self.receiver = receiver
        self.registry = registry
        self.log = log
        self.stopping = stopping
        self.limits = limits or ListenerLimits.from_env()
        self._lock = threading.Lock()
        self._inbound: set[socket.socket] = set()

    def accept_loop(self, server: socket.socket, current: Callable[[], bool]) -> None:
        """Accept connections on ``server`` while ``current()`` (it is still the
        transport's listening socket) and the transport is not stopping."""
        while not self.stopping.is_set() and current():
            try:
                sock, addr = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            peer = "{}:{}".format(*addr[:2])
            with self._lock:
                full = len(self._inbound) >= self.limits.max_connections
                if not full:
                    self._inbound.add(sock)
            if full:
                self._refuse(peer, REFUSED_LIMIT, f"more than {self.limits.max_connections} "
                             "connections")
                with contextlib.suppress(OSError):
                    sock.close()
                continue
            t = threading.Thread(target=self._serve, args=(sock, peer),
                                 name="broker-connection", daemon=True)
            t.start()

    def connections(self) -> int:
        """How many accepted connections are open now."""
        with self._lock:
            return len(self._inbound)

    def shutdown(self) -> None:
        """Cut every accepted connection (their threads end)."""
        with self._lock:
            inbound = list(self._inbound)
        for sock in inbound:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _refuse(self, peer: str, kind: str, why: str) -> None:
        self.registry.count_refused(kind)
        self.log.write("Transport", f"connection from {peer} refused: {why}", "error")

    def _serve(self, sock: socket.socket, peer: str) -> None:
        """One inbound connection: the peer's hello, ours, then answer frame after frame."""
        limits = self.limits
        stats: ConnStats | None = None
        link: Link | None = None
        stage = REFUSED_HELLO
        try:
            stats = self.registry.open(is_accept=True, peer=peer)
            stats.set_state(CONNECTED, WAIT_LOGIN_NEGOTIATE)
            link, greeting = handshake(sock, stats, self.registry.arbitration_id,
                                       initiating=False,
                                       deadline=Deadline(limits.hello_s, limits.hello_s))
            with self._lock:
                # TLS took the socket over: stopping must cut the one that now carries it.
                self._inbound.discard(sock)
                self._inbound.add(link.sock)
            stats.logged_in(greeting)
            stage = REFUSED_FRAME
            deadline = Deadline(limits.idle_s, limits.frame_s)
            held: dict[str, Any] | None = None     # a large message read, not applied
            while not self.stopping.is_set():
                frame, held = held or link.receive(deadline), None
                if frame is None:
                    return
                # The frames already here are applied with it, in one transaction, and
                # answered together (the sender keeps several messages in flight) — up to
                # a fragment that completes nothing: a large message's are streaming in,
                # and the messages read so far (a small one that passed it) must not wait
                # for the rest of it, nor be committed with it.
                # A large message is applied alone: the small ones before it are not
                # committed with it (they go first), those after it not gathered into its
                # transaction.
                frames, closed = [frame], False
                while len(frames) < APPLY_BATCH and not _large(frame) and link.readable(0):
                    more = link.receive_ready(deadline)
                    if more is None:
                        closed = True
                        break
                    if not more:
                        break
                    if _large(more):
                        held = more
                        break
                    frames.append(more)
                link.send_controls(self._answers(frames, peer))
                if closed:
                    return
        except Refused as exc:
            self._refuse(peer, REFUSED_AUTH, str(exc))
        except WireError as exc:
            if str(exc) == "no frame in time" and stage == REFUSED_FRAME:
                self.log.write("Transport", f"connection from {peer} closed: idle", "info")
            else:
                self._refuse(peer, stage, str(exc))
        except OSError:
            pass
        finally:
            with self._lock:
                self._inbound.discard(sock)
                if link is not None:
                    self._inbound.discard(link.sock)
            if stats is not None:
                stats.close()
            if link is not None:
                if link.corrupted:
                    # (Per connection, not per frame: a damaged line would flood the log.)
                    self.log.write("Transport", f"connection from {peer}: {link.corrupted} "
                                   "corrupted frames dropped", "info")
                link.close()
            sock.close()

    def _answers(self, frames: list[dict[str, Any]], peer: str) -> list[dict[str, Any]]:
        """The answers to ``frames`` (a malformed frame raises :class:`WireError`): all
        applied in one transaction; when that fails, each in its own, so that one frame the
        store cannot take does not hold up the others."""
        replies: list[dict[str, Any]] | None = None
        if len(frames) > 1:
            # (A malformed frame, too, is met again one by one, after those before it.)
            with contextlib.suppress(Exception):
                replies = self.receiver.handle_all(frames)
        if replies is None:
            replies = [self._answer(frame, peer) for frame in frames]
        for reply, frame in zip(replies, frames, strict=True):
            reply["id"] = frame.get("id")
        return replies

    def _answer(self, frame: dict[str, Any], peer: str) -> dict[str, Any]:
        """The answer to one frame applied alone."""
        try:
            return self.receiver.handle(frame)
        except WireError:
            raise
        except Exception as exc:  # noqa: BLE001 - the sender retries; we log
            self.log.write("Transport", f"message from {peer} not taken: {exc}", "error")
            return {"op": "nack", "status": "The far broker could not store the "
                    f"message: {exc.__class__.__name__}."}


def _large(frame: dict[str, Any]) -> bool:
    """Whether ``frame`` is a message of more than one fragment."""
    body = frame.get("body")
    return isinstance(body, bytes) and len(body) > FRAGMENT
