"""Broker-to-broker delivery over TCP (docs/transport.md).

One :class:`Transport` per running broker runtime. While the instance has a STARTED Service
Broker endpoint with a LISTENER_PORT, the process that holds that port:

* listens on it and applies the frames other brokers send (``transport_recv.Receiver``);
* sends the messages of remote conversations waiting in the transmission queues
  (``transport_route.next_hop`` says which and where), one conversation at a time in
  sequence order, each message deleted from the transmission queue only when the far broker
  acknowledged that it committed it; an unreachable broker is retried with exponential
  back-off (``retry_min`` doubling to ``retry_max`` seconds: 4 → 64 by default, as SQL
  Server), its messages waiting with a ``transmission_status`` that says why;
* tells far brokers when a remote dialog's endpoint here has closed (close notices).

A process that cannot bind the port (another process of the same store has it) neither
listens nor sends: one process per store speaks for the instance, as one SQL Server instance
owns its endpoint.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, case, delete, func, or_, select, update

from ...errors import message_text
from ...storage.txn import Txn
from .delivery import held_row
from .dialog_security import DialogKeys, Plan, Session
from .model import Endpoint
from .transport_conns import CONNECTED, WAIT_LOGIN_NEGOTIATE, ConnStats, registry
from .transport_link import FRAGMENT, MAX_PARTIAL, Link, Piece, handshake
from .transport_listen import Listener, ListenerLimits
from .transport_recv import (
    Receiver,
    ensure_remote_dialogs,
    pin,
    remember_dialog,
    remote_dialogs,
)
from .transport_route import (
    PENDING,
    choose,
    endpoint_started,
    next_hop,
    security_status,
)
from .transport_wire import WireError, time_out

if TYPE_CHECKING:
    from ..brokerlog import BrokerLog
    from . import Broker

CONNECT_TIMEOUT_S = 5.0
REPLY_TIMEOUT_S = 90.0          # the far side may wait for its store's write lock
ENDPOINT_CHECK_S = 1.0
NOTICE_CHECK_S = 1.0
IDLE_CLOSE_S = 90.0
LOCAL_RECHECK_S = 5.0           # a held conversation found local is looked at again after this
BATCH = 100                     # messages of one conversation read per pass
WINDOW = 128                    # messages in flight per connection (MAX_PARTIAL being written)
CONV_WINDOW = 64                # messages of one conversation in flight
ACK_FLUSH_S = 0.25              # answers gathered this long are applied in one transaction
SOCKET_BUFFER = 128 * 1024      # kernel send / receive buffer of a broker connection
HELD_CHECK_S = 0.1              # a conversation's rows looked up again after this
JOIN_LOOK_S = 0.02              # while a large message goes, new conversations looked for
LOAD_POLL_S = 0.005             # while a large body is read and nothing else is to write


def _retry_from_env() -> tuple[float, float]:
    """``TSQLBROKER_SB_RETRY="min,max"`` (seconds) overrides SQL Server's 4 → 64 s."""
    text = os.environ.get("TSQLBROKER_SB_RETRY", "")
    try:
        lo, hi = (float(x) for x in text.split(","))
        if 0 < lo <= hi:
            return lo, hi
    except ValueError:
        pass
    return 4.0, 64.0


def _ack_wait_from_env() -> float:
    """How long the sender waits for a message's answer before it gives the connection up
    and retries later: ``TSQLBROKER_SB_ACK_WAIT`` seconds, else 90 (the far side may wait
    for its store's write lock)."""
    try:
        value = float(os.environ.get("TSQLBROKER_SB_ACK_WAIT", ""))
    except ValueError:
        return REPLY_TIMEOUT_S
    return value if value > 0 else REPLY_TIMEOUT_S


def _os_text(exc: OSError) -> str:
    """``errno(strerror)`` as SQL Server shows socket errors."""
    return f"{exc.errno or 0}({exc.strerror or exc.__class__.__name__})"


class Unreachable(Exception):
    """The far broker could not be reached; the text is the transmission_status."""


def _receive_failed(exc: Exception) -> str:
    text = _os_text(exc) if isinstance(exc, OSError) else str(exc)
    return f"An error occurred while receiving data: '{text}'."


class _Backoff:
    """When each far broker (or conversation) may be tried again."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo, self.hi = lo, hi
        self._fails: dict[Any, int] = {}
        self._next: dict[Any, float] = {}

    def due(self, key: Any) -> bool:
        return time.monotonic() >= self._next.get(key, 0.0)

    def failed(self, key: Any) -> None:
        n = self._fails.get(key, 0) + 1
        self._fails[key] = n
        self._next[key] = time.monotonic() + min(self.hi, self.lo * 2 ** (n - 1))

    def ok(self, key: Any) -> None:
        self._fails.pop(key, None)
        self._next.pop(key, None)


@dataclass
class _Conversation:
    """A conversation's held rows being sent by one pass."""

    ep: Endpoint
    rows: deque[dict[str, Any]]
    sent: int = 0                   # acknowledged in this pass
    flying: int = 0                 # messages sent (or being written), not answered
    writing: bool = False           # a message's fragments are being written
    queued: bool = False            # in the pass's ready queue
    halted: bool = False            # stopped for this pass (a nack, an error, rows gone)
    checked: float = field(default_factory=time.monotonic)   # rows known to be held then


@dataclass
class _Flight:
    """A message on its way: its fragments not yet written, then its answer awaited."""

    conv: _Conversation
    row: dict[str, Any]
    frame_id: int
    pieces: deque[Piece]
    written: int = 0                # its last fragment was the pass's n-th message written
    loading: _Load | None = None    # a large body being read (then pieces are empty)


class _Load:
    """A large message's body read from the transmission queue, sealed and cut into
    fragments on a thread of its own: meanwhile the pass goes on writing (and taking in)
    small messages, which would otherwise wait the whole read."""

    def __init__(self, work: Callable[[], list[Piece] | None]) -> None:
        self._work = work
        self.pieces: list[Piece] | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        threading.Thread(target=self._run, name="broker-transport-load", daemon=True).start()

    def _run(self) -> None:
        try:
            self.pieces = self._work()
        except BaseException as exc:  # noqa: BLE001 - raised again in the pass's thread
            self.error = exc
        finally:
            self.done.set()


class _Flow:
    """The messages of one send pass over one connection: conversations ready to send,
    fragments being written, messages awaiting their answer (docs/transport.md, *Exactly
    once, in order*)."""

    def __init__(self, transport: Transport, link: Link, guids: dict[int, str]) -> None:
        self.transport, self.link, self.guids = transport, link, guids
        self.ready: deque[_Conversation] = deque()
        self.writing: deque[_Flight] = deque()
        self.flying: dict[int, _Flight] = {}
        self.answers = 0                # answers received in this pass
        self.acked: list[tuple[dict[str, Any], Endpoint, dict[str, Any]]] = []  # to apply
        self.due = time.monotonic() + ACK_FLUSH_S      # when they are applied
        self.more = False               # a conversation sent a whole batch
        self.written = 0                # messages whose fragments are all written

    def add(self, conv: _Conversation) -> None:
        """Make ``conv`` ready when it may send its next message now."""
        if conv.rows and not (conv.queued or conv.writing or conv.halted) \
                and conv.flying < CONV_WINDOW:
            conv.queued = True
            self.ready.append(conv)

    def take_off(self) -> None:
        """Start the next message of ready conversations while the window allows."""
        while self.ready and len(self.flying) < WINDOW and len(self.writing) < MAX_PARTIAL:
            conv = self.ready.popleft()
            conv.queued = False
            flight = self.transport._take_off(self.link, conv, self.guids)
            if flight is None:
                continue
            conv.flying += 1
            conv.writing = True
            self.writing.append(flight)
            self.flying[flight.frame_id] = flight

    def write_one(self) -> bool:
        """Write the next fragment: a message of one fragment (small) before any other, the
        fragmented (large) ones one after another, the oldest first. So a small message
        passes a large one, and a large one needs the connection to last only as long as
        its own fragments take: were they all interleaved, a connection cut (or a frame
        lost) would cost every large message its fragments so far, and on a lossy line
        none might ever get through. False when nothing could be written: the oldest
        large message's body is still being read (see :class:`_Load`)."""
        at = next((i for i, f in enumerate(self.writing) if len(f.pieces) == 1), 0)
        flight = self.writing[at]
        load = flight.loading
        if load is not None:
            if not load.done.is_set():
                return False
            flight.loading = None
            if load.error is not None:
                raise load.error
            if load.pieces is None:
                # Gone since it was read (END … WITH ERROR): the conversation stops here.
                del self.writing[at]
                self.flying.pop(flight.frame_id, None)
                conv = flight.conv
                conv.flying -= 1
                conv.writing = False
                conv.rows.clear()
                conv.halted = True
                return True
            flight.pieces.extend(load.pieces)
        self.link.write_fragment(flight.pieces.popleft())
        if flight.pieces:
            return True
        self.written += 1
        flight.written = self.written
        del self.writing[at]
        flight.conv.writing = False
        self.add(flight.conv)
        return True

    def answered(self, replies: list[dict[str, Any]]) -> None:
        """Act on answers: acknowledged rows deleted (together), a gap rewound, a message
        that an answer shows lost sent again."""
        mine: list[tuple[_Flight, dict[str, Any]]] = []
        latest = 0
        for reply in replies:
            flight = self.flying.pop(reply.get("id"), None)    # type: ignore[arg-type]
            if flight is None:
                continue                # answer to a message given up (rewound)
            self.answers += 1
            latest = max(latest, flight.written)
            flight.conv.flying -= 1
            expect = reply.get("expect")
            if reply.get("op") == "nack" and isinstance(expect, int) \
                    and not isinstance(expect, bool):
                self._rewind(flight, expect)
            else:
                mine.append((flight, reply))
        for flight, reply in mine:
            conv = flight.conv
            self.acked.append((flight.row, conv.ep, reply))
            if reply.get("op") != "ack":
                # A nack, or an error: nothing more of this conversation in this pass.
                conv.halted = True
                conv.rows.clear()
                self.due = 0.0
                continue
            conv.sent += 1
            self.more = self.more or conv.sent == BATCH
            self.add(conv)
        self._lost_before(latest)
        if time.monotonic() >= self.due:
            self.flush()

    def resend(self) -> None:
        """Send again every message written and not answered (see :meth:`_lost_before`)."""
        self._lost_before(self.written + 1)

    def _lost_before(self, latest: int) -> None:
        """The far broker reads a connection's frames in order and answers the messages in
        the order they complete: a message written before one that got its answer
        (``latest``) and still unanswered was lost on the way — its frame, or its answer.
        It is sent again now rather than after the answer wait (a copy the far side had
        committed is answered "duplicate"), with its conversation's messages after it, as
        a gap answer would have it."""
        lost = sorted((f for f in self.flying.values() if 0 < f.written < latest),
                      key=lambda f: f.written)
        for flight in lost:
            if self.flying.pop(flight.frame_id, None) is None:
                continue                # sent again with an earlier one of its conversation
            flight.conv.flying -= 1
            self._rewind(flight, flight.row["message_sequence_number"])

    def flush(self) -> None:
        """Apply the answers gathered (acknowledged rows deleted) in one transaction: one
        every ACK_FLUSH_S, not one per answer, so that the transport seldom takes the
        store's write lock from the sessions that SEND."""
        self.due = time.monotonic() + ACK_FLUSH_S
        acked, self.acked = self.acked, []
        if acked:
            self.transport._apply(acked)

    def _rewind(self, flight: _Flight, expect: int) -> None:
        """The far broker is missing message ``expect`` of ``flight``'s conversation (its
        frame was dropped as corrupted): that message and the ones after it that are in
        flight are sent again, in order; their answers, if any come, are ignored."""
        conv = flight.conv
        if conv.halted:
            return
        again = [flight.row]
        for fid, f in list(self.flying.items()):
            if f.conv is conv and f.row["message_sequence_number"] >= expect:
                del self.flying[fid]
                conv.flying -= 1
                again.append(f.row)
        again.sort(key=lambda r: (r["message_sequence_number"], r["id"]))
        conv.rows.extendleft(reversed(again))
        self.add(conv)


class Transport:
    """The listener and the sender of one broker (see the module docstring)."""

    def __init__(self, broker: Broker, log: BrokerLog, *, retry_min: float | None = None,
                 retry_max: float | None = None, poll_s: float = 0.25,
                 limits: ListenerLimits | None = None) -> None:
        lo, hi = _retry_from_env()
        self.broker = broker
        self.log = log
        self.poll_s = poll_s
        self.backoff = _Backoff(retry_min or lo, max(retry_max or hi, retry_min or lo))
        self.receiver = Receiver(broker)
        self.keys = self.receiver.keys          # dialog security's session keys
        self.listening: tuple[str, int] | None = None
        self._server: socket.socket | None = None
        self._conns: dict[tuple[str, int], Link] = {}
        self._frames = 0                        # the id of the last frame sent
        self.ack_wait_s = _ack_wait_from_env()
        # sys.dm_broker_connections: every open connection's counters (per store).
        self.registry = registry(broker.store)
        self._stats: dict[tuple[str, int], ConnStats] = {}
        self._stop = threading.Event()
        self.listener = Listener(self.receiver, self.registry, log, self._stop, limits)
        self._seen = 0
        self._used: dict[tuple[str, int], float] = {}
        self._local: dict[str, float] = {}      # held local conversations → next look
        self._threads: list[threading.Thread] = []
        self._bind_failed: tuple[str, int] | None = None
        self._next_endpoint = 0.0
        self._next_notice = 0.0

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the transport's thread (it listens once the endpoint is STARTED)."""
        if self._threads:
            return
        self._stop.clear()
        t = threading.Thread(target=self._run, name="broker-transport", daemon=True)
        self._threads.append(t)
        t.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop listening and sending; close every connection."""
        self._stop.set()
        PENDING.bump()
        self._close_server()
        self.listener.shutdown()
        for t in self._threads:
            t.join(timeout)
        self._threads.clear()
        for key in list(self._conns):
            self._drop(key)

    def _close_idle(self, now: float) -> None:
        """Close outbound connections unused for a while (SQL Server does too)."""
        for key, used in list(self._used.items()):
            if now - used > IDLE_CLOSE_S:
                self._drop(key)

    def _run(self) -> None:
        seen = self._seen = PENDING.generation
        while not self._stop.is_set():
            try:
                now = time.monotonic()
                self._close_idle(now)
                if now >= self._next_endpoint:
                    self._next_endpoint = now + ENDPOINT_CHECK_S
                    self._check_endpoint()
                if self.listening is not None:
                    more = self._send_pass()
                    if now >= self._next_notice:
                        self._next_notice = now + NOTICE_CHECK_S
                        self._notice_pass()
                    if more:
                        continue
            except Exception as exc:  # noqa: BLE001 - the transport outlives one bad pass
                self.log.write("Transport", f"{exc.__class__.__name__}: {exc}", "error")
            seen = PENDING.wait(seen, self.poll_s)
            if not self._stop.is_set() and seen != self._seen:
                self._seen = seen
                # Woken by a SEND's delivery step: its transaction commits a moment later.
                self._stop.wait(0.02)

    # -- the listener -------------------------------------------------------------------------
    def _check_endpoint(self) -> None:
        conn = self.broker.store.connect()
        try:
            self.broker.ensure_schema(conn)
            ep = endpoint_started(self.broker.state, conn)
        finally:
            conn.close()
        want: tuple[str, int] | None = None
        if ep is not None:
            ip = str(ep["ip"] or "ALL").upper()
            want = ("" if ip == "ALL" else ip, int(ep["port"]))
        if want == self.listening:
            return
        if self.listening is not None:
            # A STOPPED endpoint answers nothing: its accepted connections are cut as well
            # (a peer's kept connection would otherwise still deliver).
            self._close_server()
            self.listener.shutdown()
            self.log.write("Transport", f"stopped listening on port {self.listening[1]}",
                           "info")
            self.listening = None
        if want is None:
            return
        server = socket.socket(socket.AF_INET6 if ":" in want[0] else socket.AF_INET,
                               socket.SOCK_STREAM)
        try:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(want)
            server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER)
            server.listen(16)
            server.settimeout(0.5)
        except OSError as exc:
            server.close()
            if self._bind_failed != want:
                self._bind_failed = want
                self.log.write("Transport", f"cannot listen on {want[0] or 'ALL'}:{want[1]} "
                               f"({_os_text(exc)}); this process does not transmit", "info")
            return
        self._bind_failed = None
        try:
            ensure_remote_dialogs(self.broker)   # only stores that talk to other brokers
        except Exception:
            server.close()
            raise
        self._server = server
        self.listening = want
        t = threading.Thread(target=self.listener.accept_loop,
                             args=(server, lambda: self._server is server),
                             name="broker-listener", daemon=True)
        self._threads.append(t)
        t.start()
        self.log.write("Transport", f"listening on {want[0] or 'ALL'}:{want[1]}", "info")

    def _close_server(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()

    # -- the sender ---------------------------------------------------------------------------
    def _connection(self, key: tuple[str, int]) -> Link:
        link = self._conns.get(key)
        if link is not None:
            return link
        stats = self.registry.open(is_accept=False, peer=f"{key[0]}:{key[1]}")
        try:
            sock = socket.create_connection(key, timeout=CONNECT_TIMEOUT_S)
            # Little queued in the kernel: a small message written between a large one's
            # fragments is not stuck behind megabytes already buffered.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER)
        except OSError as exc:
            stats.close()
            raise Unreachable(
                f"Connection attempt failed with error: '{_os_text(exc)}'.") from None
        stats.set_state(CONNECTED, WAIT_LOGIN_NEGOTIATE)
        try:
            sock.settimeout(self.ack_wait_s)
            link, greeting = handshake(sock, stats, self.registry.arbitration_id,
                                       initiating=True)
        except (OSError, WireError) as exc:
            stats.close()
            sock.close()
            raise Unreachable(_receive_failed(exc)) from None
        stats.logged_in(greeting)
        self._conns[key] = link
        self._stats[key] = stats
        return link

    def _call(self, key: tuple[str, int], frame: dict[str, Any]) -> dict[str, Any]:
        """Send ``frame`` to the broker at ``key`` and wait for its answer; raises
        :class:`Unreachable` (with the transmission_status text) when that fails."""
        reused = key in self._conns
        try:
            return self._exchange(key, frame)
        except Unreachable:
            if not reused:
                raise
        # A kept connection the far broker closed meanwhile (it restarted, or closed it as
        # idle): once more on a new one. Sending a message twice is harmless (duplicates
        # are acknowledged, not queued).
        return self._exchange(key, frame)

    def _exchange(self, key: tuple[str, int], frame: dict[str, Any]) -> dict[str, Any]:
        link = self._connection(key)
        self._used[key] = time.monotonic()
        self._frames += 1
        frame = {**frame, "id": self._frames}
        try:
            if frame["op"] == "msg":
                link.send_message(frame)
            else:
                link.send_control(frame)
            while True:
                # No answer within ack_wait_s (the frame was dropped as corrupted, or the
                # far broker is stuck): the socket times out, the connection is dropped and
                # the message waits for its retry.
                reply = link.receive()
                if reply is None:
                    raise ConnectionResetError(104, "Connection reset by peer")
                if reply.get("id") == frame["id"]:
                    return reply
        except (OSError, WireError) as exc:
            self._drop(key)
            raise Unreachable(_receive_failed(exc)) from None

    def _drop(self, key: tuple[str, int]) -> None:
        self._used.pop(key, None)
        stats = self._stats.pop(key, None)
        if stats is not None:
            stats.close()
        link = self._conns.pop(key, None)
        if link is not None:
            if link.corrupted:
                self.log.write("Transport", f"connection to {key[0]}:{key[1]}: "
                               f"{link.corrupted} corrupted frames dropped", "info")
            link.close()

    def _send_pass(self) -> bool:
        """Send what the transmission queues hold for other brokers; True when a
        conversation had more than one batch or a message went, so the next pass should
        follow at once."""
        by_key = self._work()
        guids = {m.database_id: m.broker_guid for m in self._metas()} if by_key else {}
        more = False
        for key, convs in by_key.items():
            if self._stop.is_set():
                return False
            more = self._send_to(key, convs, guids) or more
        return more

    def _work(self, skip: set[str] | None = None
              ) -> dict[tuple[str, int], list[tuple[Endpoint, list[dict[str, Any]]]]]:
        """The conversations with messages to send now (not ``skip``), by far broker
        address: each with its first BATCH held rows. Those that cannot go get their
        transmission_status instead."""
        b = self.broker
        tq = b.t.transmission
        now = time.monotonic()
        conn = b.store.connect()
        try:
            handles = list(conn.execute(select(tq.c.conversation_handle).distinct()).scalars())
            work: list[tuple[Endpoint, Any, list[dict[str, Any]]]] = []
            for handle in handles:
                if self._local.get(handle, 0.0) > now or (skip and handle in skip):
                    continue
                ep = b.state.endpoint(conn, None, handle)
                hop = None if ep is None else next_hop(b.state, conn, ep)
                if ep is None or hop is None:
                    # Local delivery's (or an orphan's): not looked at again for a while.
                    self._local[handle] = now + LOCAL_RECHECK_S
                    continue
                held = [dict(r) for r in conn.execute(
                    select(*self._held_columns()).where(tq.c.conversation_handle == handle)
                    .order_by(tq.c.message_sequence_number, tq.c.id).limit(BATCH)).mappings()]
                if not held:
                    continue
                # (A dialog whose session is made, or known to be unsecured, needs no look.)
                status = hop.status or ("" if self.keys.known(ep) is not False
                                        else security_status(b.state, conn, ep))
                if ep.state == "ER":
                    status = message_text(9784)
                if status or ep.state == "CD":
                    self._hold(held[0], status, drop=ep.state == "CD")
                    continue
                work.append((ep, hop, held))
        finally:
            conn.close()
        for handle in [h for h, until in self._local.items() if until <= now]:
            del self._local[handle]
        by_key: dict[tuple[str, int], list[tuple[Endpoint, list[dict[str, Any]]]]] = {}
        for ep, hop, held in work:
            key = (hop.host, hop.port)
            if self.backoff.due(key) and self.backoff.due(ep.conversation_handle):
                by_key.setdefault(key, []).append((ep, held))
        return by_key

    def _send_to(self, key: tuple[str, int], convs: list[tuple[Endpoint, list[dict[str, Any]]]],
                 guids: dict[int, str], *, again: bool = True) -> bool:
        """Send the held rows of ``convs`` (each conversation's in sequence order) to the
        broker at ``key`` over one connection: up to WINDOW messages in flight, up to
        CONV_WINDOW of one conversation (its next message goes once the previous one's
        fragments are written), the fragments of different conversations' messages
        interleaved so that a small message passes a large one. The answers that arrive
        together are applied in one transaction. A gap answer (a message lost on the way)
        rewinds its conversation to the lost message, and so does an answer to a message
        written after one still unanswered (lost, or its answer lost). True when a message
        was answered or a conversation's whole batch went (the next pass should follow at
        once)."""
        reused = key in self._conns
        try:
            link = self._connection(key)
        except Unreachable as exc:
            self.backoff.failed(key)
            for _ep, rows in convs:
                self._hold(rows[0], str(exc))
            return False
        flow = _Flow(self, link, guids)
        for ep, rows in convs:
            flow.add(_Conversation(ep, deque(rows)))
        handles = {ep.conversation_handle for ep, _rows in convs}
        progress = time.monotonic()
        next_look = progress + JOIN_LOOK_S
        answered = 0                    # flow.answers when its messages were last resent
        try:
            while not self._stop.is_set():
                flow.take_off()
                if (flow.writing or flow.flying) and not flow.ready \
                        and len(flow.flying) < WINDOW and time.monotonic() >= next_look:
                    # A large message is on its way: conversations that got messages since
                    # this pass began join it, so theirs need not wait for its end.
                    next_look = time.monotonic() + JOIN_LOOK_S
                    for conv in self._joining(key, handles, guids):
                        flow.add(conv)
                    continue
                if flow.writing:
                    # (Nothing written: a large body is being read; answers meanwhile.)
                    timeout = 0.0 if flow.write_one() else LOAD_POLL_S
                elif flow.flying:
                    if time.monotonic() - progress > self.ack_wait_s:
                        if flow.answers > answered:
                            # No answer for that long, but this connection did carry
                            # answers since: the last frames, or their answers, were lost
                            # (nothing after them told). Sent again on it, at once.
                            answered = flow.answers
                            flow.resend()
                            progress = time.monotonic()
                            continue
                        # Not one answer since: the far broker is stuck, or the line is
                        # dead. The messages wait for their retry.
                        raise Unreachable(_receive_failed(TimeoutError(
                            110, f"no answer within {self.ack_wait_s:g} seconds")))
                    timeout = JOIN_LOOK_S
                else:
                    break
                self._used[key] = time.monotonic()
                replies = self._answers(link, timeout)
                if replies or flow.writing:
                    progress = time.monotonic()
                if replies:
                    self.backoff.ok(key)
                    flow.answered(replies)
            flow.flush()
        except (OSError, WireError, Unreachable) as exc:
            self._drop(key)
            flow.flush()                # what was acknowledged is not sent again
            if reused and again and not flow.answers and not isinstance(exc, Unreachable):
                # A kept connection the far broker closed meanwhile (it restarted, or
                # closed it as idle): once more on a new one. Sending a message twice is
                # harmless (duplicates are acknowledged, not queued).
                return self._send_to(key, convs, guids, again=False)
            self.backoff.failed(key)
            status = str(exc) if isinstance(exc, Unreachable) else _receive_failed(exc)
            for flight in flow.flying.values():
                self._hold(flight.row, status)
            return False
        # Another pass at once after one that delivered: a SEND wakes the transport before
        # its commit, so rows committed during this pass may not have been seen by it.
        return flow.more or flow.answers > 0

    def _held_columns(self) -> list[Any]:
        """The transmission queue's columns as a pass reads them: a body longer than a
        fragment is left out (``body_size`` says how long it is) and read when its message
        takes off, so that reading a conversation's rows for a pass — with a 50 MB message
        among them — does not hold up the small messages that are to pass it."""
        tq = self.broker.t.transmission
        size = func.length(tq.c.message_body)
        return [*(c for c in tq.c if c.name != "message_body"),
                case((size <= FRAGMENT, tq.c.message_body), else_=None).label("message_body"),
                size.label("body_size")]

    def _body(self, r: dict[str, Any]) -> bytes | None:
        """The body of held row ``r`` (read without a long one, see :meth:`_held_columns`);
        None when it is gone (or NULL)."""
        if r["message_body"] is not None or r["body_size"] is None:
            return r["message_body"]  # type: ignore[no-any-return]
        tq = self.broker.t.transmission
        conn = self.broker.store.connect()
        try:
            return conn.execute(select(tq.c.message_body).where(  # type: ignore[no-any-return]
                held_row(tq, r))).scalar()
        finally:
            conn.close()

    def _joining(self, key: tuple[str, int], handles: set[str], guids: dict[int, str]
                 ) -> list[_Conversation]:
        """Conversations for the broker at ``key`` with messages to send that are not among
        ``handles`` (which they join)."""
        joining = [_Conversation(ep, deque(rows))
                   for ep, rows in self._work(skip=handles).get(key, [])]
        handles.update(c.ep.conversation_handle for c in joining)
        if any(c.ep.database_id not in guids for c in joining):
            guids.update({m.database_id: m.broker_guid for m in self._metas()})
        return joining

    def _take_off(self, link: Link, conv: _Conversation, guids: dict[int, str]
                  ) -> _Flight | None:
        """The next message of ``conv`` as a flight, or None when the conversation has no
        more to send now."""
        if not conv.rows:
            return None
        r = conv.rows.popleft()
        now = time.monotonic()
        if now - conv.checked > HELD_CHECK_S:
            conv.checked = now
            if not self._still_held(r):
                # Gone since it was read: END … WITH ERROR dropped the messages not yet
                # sent (the next pass reads what the conversation holds now). Looked up
                # at most every HELD_CHECK_S: a message taken off in between is as one
                # already on the wire.
                conv.rows.clear()
                conv.halted = True
                return None
        session = self._session(conv.ep)
        if isinstance(session, str):
            # Dialog security cannot be set up now (a certificate went meanwhile …).
            self._hold(r, session)
            conv.rows.clear()
            conv.halted = True
            return None
        self._frames += 1
        frame_id, guid = self._frames, guids.get(conv.ep.database_id)

        def pieces() -> list[Piece] | None:
            if r["message_body"] is None and r["body_size"] is not None:
                r["message_body"] = self._body(r)
                if r["message_body"] is None:
                    return None         # gone since it was read (END … WITH ERROR)
            frame = {**self._frame(r, conv.ep, guid), "id": frame_id}
            if session is not None:
                frame = DialogKeys.seal(frame, session)
            return link.fragments(frame)

        if r["message_body"] is None and r["body_size"] is not None:
            return _Flight(conv, r, frame_id, deque(), loading=_Load(pieces))
        made = pieces()
        assert made is not None         # (a body read with its row is there)
        return _Flight(conv, r, frame_id, deque(made))

    def _session(self, ep: Endpoint) -> Session | str | None:
        """Dialog security's session for ``ep``'s next message (made now for an
        initiator's first secured message), a status to hold it with, or None."""
        known = self.keys.known(ep)
        if known is not False:
            return known
        conn = self.broker.store.connect()
        try:
            found = self.keys.outgoing(conn, ep)
        finally:
            conn.close()
        if not isinstance(found, Plan):
            return found
        how = found
        made: Session = self._in_txn(lambda txn: self.keys.begin(txn, ep, how))
        return made

    @staticmethod
    def _answers(link: Link, timeout: float) -> list[dict[str, Any]]:
        """The answers that arrive within ``timeout`` seconds (0: those already here)."""
        got: list[dict[str, Any]] = []
        while link.readable(0 if got else timeout):
            reply = link.receive()
            if reply is None:
                raise ConnectionResetError(104, "Connection reset by peer")
            got.append(reply)
        return got

    def _still_held(self, r: dict[str, Any]) -> bool:
        """Whether transmission-queue row ``r`` (read by this pass) is still waiting."""
        tq = self.broker.t.transmission
        conn = self.broker.store.connect()
        try:
            return conn.execute(select(tq.c.id).where(held_row(tq, r))).first() is not None
        finally:
            conn.close()

    @staticmethod
    def _frame(r: dict[str, Any], ep: Endpoint, from_broker: str | None) -> dict[str, Any]:
        """The ``msg`` frame of transmission-queue row ``r`` of endpoint ``ep``."""
        return {
            "op": "msg", "id": r["id"], "cid": ep.conversation_id, "init": ep.is_initiator,
            "seq": r["message_sequence_number"], "type": r["message_type_name"],
            "body": r["message_body"], "from_service": r["from_service_name"],
            "from_broker": from_broker, "to_service": r["to_service_name"],
            "to_broker": ep.far_broker_instance or r["to_broker_instance"],
            "contract": r["service_contract_name"], "priority": r["priority"],
            "lifetime": time_out(ep.lifetime), "enqueue_time": time_out(r["enqueue_time"])}

    def _metas(self) -> list[Any]:
        conn = self.broker.store.connect()
        try:
            return self.broker.meta.all_loaded(conn)
        finally:
            conn.close()

    def _in_txn(self, fn: Any) -> Any:
        conn = self.broker.store.connect()
        txn = Txn(conn, owner="broker-transport")
        try:
            txn.write()
            result = fn(txn)
            txn.commit()
            return result
        except BaseException:
            txn.rollback()
            raise
        finally:
            conn.close()

    def _hold(self, r: dict[str, Any], status: str, *, drop: bool = False) -> None:
        """Record why row ``r`` waits (or drop the rows of a closed endpoint)."""
        tq = self.broker.t.transmission
        if drop:
            self._in_txn(lambda txn: txn.conn.execute(delete(tq).where(
                tq.c.conversation_handle == r["conversation_handle"])))
        elif r["transmission_status"] != status:
            self._in_txn(lambda txn: txn.conn.execute(update(tq).where(
                held_row(tq, r)).values(transmission_status=status)))

    def _apply(self, answered: list[tuple[dict[str, Any], Endpoint, dict[str, Any]]]
               ) -> list[bool]:
        """Act on the far broker's answers to rows (each with its endpoint), the deletes of
        acknowledged rows in one transaction; for each, True to go on with the
        conversation's next row."""
        b = self.broker
        tq = b.t.transmission
        goes: list[bool] = []
        done: list[tuple[int, dict[str, Any], Endpoint, dict[str, Any]]] = []
        for at, (r, ep, reply) in enumerate(answered):
            op = reply.get("op")
            goes.append(False)
            if op == "nack":
                self.backoff.failed(ep.conversation_handle)
                self._hold(r, str(reply.get("status") or ""))
            elif op not in ("ack", "error"):
                self._hold(r, f"Unexpected answer from the far broker: {op!r}.")
            else:
                self.backoff.ok(ep.conversation_handle)
                done.append((at, r, ep, reply))

        def commit(txn: Txn) -> None:
            for at, r, ep, reply in done:
                txn.conn.execute(delete(tq).where(held_row(tq, r)))
                now = b.state.endpoint(txn.conn, None, ep.conversation_handle)
                if now is None:
                    continue
                far = reply.get("broker")
                if reply.get("op") == "error":
                    b.delivery.error_endpoint(txn.conn, txn, now,
                                              int(reply.get("code") or 0),
                                              str(reply.get("text") or ""))
                    continue
                if now.is_initiator and far:
                    pin(b, txn, now, str(far))
                    remember_dialog(b, txn, now, r["from_service_name"], str(far).upper())
                goes[at] = True
        if done:
            self._in_txn(commit)
        return goes

    # -- close notices ------------------------------------------------------------------------
    def _notice_pass(self) -> None:
        """Tell far brokers about remote dialogs whose endpoint here has closed."""
        b = self.broker
        rd = remote_dialogs(b)
        conn = b.store.connect()
        todo: list[tuple[dict[str, Any], tuple[str, int]]] = []
        try:
            c = b.t.conversations
            joined = rd.outerjoin(c, and_(c.c.conversation_id == rd.c.conversation_id,
                                          c.c.is_initiator == rd.c.is_initiator))
            closed = select(rd).select_from(joined).where(
                or_(c.c.conversation_handle.is_(None), c.c.state == "CD"))
            for r in [dict(x) for x in conn.execute(closed).mappings()]:
                routes = [dict(x) for x in conn.execute(select(b.t.routes).where(
                    b.t.routes.c.database_id == r["database_id"])).mappings()]
                hop = choose(b.state, conn, routes, r["far_service"], r["far_broker"],
                             remote_side=True)
                if hop is not None and hop.host is not None and hop.port is not None:
                    todo.append((r, (hop.host, hop.port)))
        finally:
            conn.close()
        for r, key in todo:
            if self._stop.is_set() or not self.backoff.due(key):
                continue
            try:
                reply = self._call(key, {"op": "close", "cid": r["conversation_id"],
                                         "init": r["is_initiator"]})
            except Unreachable:
                self.backoff.failed(key)
                continue
            if reply.get("op") == "ack":
                self._in_txn(lambda txn, r=r: self._forget(txn, r))

    def _forget(self, txn: Txn, r: dict[str, Any]) -> None:
        """The far broker knows remote dialog ``r``'s endpoint here closed: its row and
        session key go."""
        rd = remote_dialogs(self.broker)
        txn.conn.execute(delete(rd).where(rd.c.conversation_id == r["conversation_id"],
                                          rd.c.is_initiator == r["is_initiator"]))
        self.keys.forget(txn.conn, r["conversation_id"], r["is_initiator"])

