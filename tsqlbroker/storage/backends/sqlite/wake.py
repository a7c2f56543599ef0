"""Wake-ups between processes sharing one SQLite file (several ``tsqlbroker serve``, or
``run`` beside ``serve``).

In one process a commit that enqueues messages bumps the queue's signal at once (``WAITFOR``
returns, the activation monitor hears of it). A process sharing the file cannot see that
bump; PostgreSQL stores carry it with ``LISTEN``/``NOTIFY`` (``storage/backends/postgres/notices.py``). SQLite has no
such channel, so this module makes one beside the database file:

* a directory ``<database file>-wake/`` holds one Unix-domain datagram socket per process
  (``<pid>-<random>.sock``);
* after a commit that enqueued messages (the broker's ``enqueued`` queue event) the
  committing process sends ``e|<db>|<queue>`` to every other socket there; an ALTER or DROP
  of a queue sends ``m|<db>|0`` (metadata changed). Sends never block: a peer whose buffer
  is full has wake-ups pending anyway, and a socket nobody listens on any more (its process
  died) is removed by the first sender that finds it so;
* a thread per process receives them and hands them to the broker's remote-event hook —
  the same one the PostgreSQL listener feeds — which wakes ``WAITFOR`` waiters and the
  activation monitors.

A datagram is only a hint to look again, so losing one costs latency, never correctness:
the thread also scans every ``scan_seconds`` (``TSQLBROKER_WAKE_SCAN_S``, default 5 s) and,
when ``PRAGMA data_version`` says another connection committed, wakes every queue that has
waiters. ``TSQLBROKER_WAKE_SOCKETS=0`` turns the sockets off (the scan alone remains).
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from ..base import BackendStore

log = logging.getLogger(__name__)

Handler = Callable[[str, int, int], None]
SCAN_ENV = "TSQLBROKER_WAKE_SCAN_S"
SOCKETS_ENV = "TSQLBROKER_WAKE_SOCKETS"
DEFAULT_SCAN_S = 5.0
_SUFFIX = "-wake"
# Longest socket path bind() takes everywhere (Linux allows 107 bytes, macOS 103).
_MAX_SUN_PATH = 100
# Queue events of this process that other processes must hear of, as wire kinds.
_WIRE_KINDS = {"enqueued": "e", "altered": "m", "dropped": "m"}


def shared_file(store: BackendStore) -> Path | None:
    """The database file of an SQLite store other processes can open, or None (another
    backend, or the private temporary file of ``sqlite://``)."""
    return store.backend.shared_file(store)


def scan_seconds() -> float:
    """The fallback scan period: ``$TSQLBROKER_WAKE_SCAN_S`` or 5 s."""
    try:
        value = float(os.environ.get(SCAN_ENV, DEFAULT_SCAN_S))
    except ValueError:
        return DEFAULT_SCAN_S
    return value if value > 0 else DEFAULT_SCAN_S


class FileWake:
    """This process's end of the wake-up directory of one SQLite file."""

    def __init__(self, db_file: Path, handler: Handler,
                 waiting: Callable[[], Iterable[tuple[int, int]]], *,
                 scan_s: float | None = None, sockets: bool | None = None) -> None:
        self.db_file = db_file
        self.handler = handler
        self.waiting = waiting
        self.scan_s = scan_seconds() if scan_s is None else scan_s
        if sockets is None:
            sockets = os.environ.get(SOCKETS_ENV, "1") not in ("0", "")
        # Windows builds of Python have no Unix-domain sockets: the scan alone there.
        sockets = sockets and hasattr(socket, "AF_UNIX")
        self.directory = db_file.with_name(db_file.name + _SUFFIX)
        self.name = f"{os.getpid()}-{uuid.uuid4().hex[:8]}.sock"
        self._sockets = sockets
        self._dir_fd: int | None = None
        self._recv: socket.socket | None = None
        self._send: socket.socket | None = None
        self._peers: list[str] = []
        self._peers_stamp: int | None = None
        self._peer_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tsqlbroker-file-wake",
                                        daemon=True)

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Bind this process's socket (unless sockets are off or cannot be had) and start the
        receiving / scanning thread."""
        if self._sockets:
            try:
                self._bind()
            except OSError as exc:
                # A read-only directory, a file system without sockets …: the scan remains.
                log.warning("no cross-process wake-ups for %s (%s); other processes' "
                            "messages are seen every %.0f s", self.db_file, exc, self.scan_s)
                self._close_sockets()
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, close and remove this process's socket."""
        self._stop.set()
        if self._send is not None:
            try:      # wake the thread from its wait in recv
                self._send.sendto(b"", self._address(self.name))
            except OSError:
                pass
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5.0)
        self._close_sockets()

    def _bind(self) -> None:
        self.directory.mkdir(mode=0o700, exist_ok=True)  # private, as the store file
        self._dir_fd = os.open(self.directory, os.O_RDONLY)
        recv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            recv.bind(self._address(self.name))
        except OSError:
            recv.close()
            raise
        self._recv = recv
        self._send = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._send.setblocking(False)

    def _close_sockets(self) -> None:
        for sock in (self._recv, self._send):
            if sock is not None:
                sock.close()
        if self._recv is not None:
            try:
                os.unlink(self.directory / self.name)
            except OSError:
                pass
        self._recv = self._send = None
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    def _address(self, name: str) -> str:
        """The socket address of ``name`` in the directory: its path, or — when that is too
        long for ``bind`` — the same file reached through this process's descriptor of the
        directory (Linux ``/proc/self/fd``)."""
        path = str(self.directory / name)
        if len(path.encode()) <= _MAX_SUN_PATH or self._dir_fd is None:
            return path
        return f"/proc/self/fd/{self._dir_fd}/{name}"

    # -- sending ------------------------------------------------------------------------------
    def queue_event(self, event: str, db_id: int, queue_id: int) -> None:
        """A broker queue listener: tell the other processes of this process's enqueues and
        queue changes. Events this thread dispatches came from elsewhere: not echoed."""
        kind = _WIRE_KINDS.get(event)
        if kind is None or self._send is None or threading.get_ident() == self._thread.ident:
            return
        self.signal(kind, db_id, 0 if kind == "m" else queue_id)

    def signal(self, kind: str, db_id: int, queue_id: int) -> None:
        """Send ``kind|db_id|queue_id`` to every other process on the file; never blocks."""
        sock = self._send
        if sock is None:
            return
        peers = self._current_peers()
        if not peers:
            return
        payload = f"{kind}|{db_id}|{queue_id}".encode()
        for peer in peers:
            try:
                sock.sendto(payload, self._address(peer))
            except BlockingIOError:
                pass      # its buffer is full: it has wake-ups to read already
            except ConnectionRefusedError:
                self._forget(peer)      # nobody listens there: its process is gone
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.debug("wake-up to %s failed: %s", peer, exc)

    def _current_peers(self) -> list[str]:
        """The other processes' sockets, re-read only when the directory changed."""
        try:
            # fstat on the open directory: this runs at every commit that enqueues, and a
            # path lookup costs more than the rest of the check.
            stamp = (os.stat(self.directory) if self._dir_fd is None
                     else os.fstat(self._dir_fd)).st_mtime_ns
        except OSError:
            return []
        with self._peer_lock:
            if stamp != self._peers_stamp:
                try:
                    names = [e.name for e in os.scandir(self.directory)
                             if e.name.endswith(".sock") and e.name != self.name]
                except OSError:
                    names = []
                self._peers, self._peers_stamp = names, stamp
            return list(self._peers)

    def _forget(self, peer: str) -> None:
        try:
            os.unlink(self.directory / peer)
        except OSError:
            pass

    # -- receiving ----------------------------------------------------------------------------
    def _run(self) -> None:
        version_conn = self._version_connection()
        last_version = _data_version(version_conn)
        next_scan = time.monotonic() + self.scan_s
        try:
            while not self._stop.is_set():
                for payload in self._receive(max(0.0, next_scan - time.monotonic())):
                    if payload:          # empty: stop() waking the thread
                        self._dispatch(payload)
                if time.monotonic() < next_scan:
                    continue
                next_scan = time.monotonic() + self.scan_s
                version = _data_version(version_conn)
                if version != last_version:
                    last_version = version
                    self._scan()
        finally:
            if version_conn is not None:
                version_conn.close()

    def _receive(self, timeout: float) -> set[bytes]:
        """Wait up to ``timeout`` seconds for the next datagram and drain what else is
        queued; duplicates collapse (ten commits to one queue make one wake-up)."""
        sock = self._recv
        if sock is None:
            self._stop.wait(timeout)
            return set()
        got: set[bytes] = set()
        try:
            sock.settimeout(timeout)
            got.add(sock.recv(256))
            sock.setblocking(False)      # the rest only if already there
            while True:
                got.add(sock.recv(256))
        except (BlockingIOError, TimeoutError):
            pass
        except OSError as exc:
            if not self._stop.is_set():
                log.debug("wake-up socket failed: %s", exc)
                self._stop.wait(timeout)
        return got

    def _dispatch(self, payload: bytes) -> None:
        try:
            kind, db, queue = payload.decode().split("|")
            self.handler(kind, int(db), int(queue))
        except Exception:
            log.exception("file wake-up: cannot handle %r", payload)

    def _scan(self) -> None:
        """Something committed elsewhere: every queue with a waiter looks again."""
        for db_id, queue_id in list(self.waiting()):
            self._dispatch(f"e|{db_id}|{queue_id}".encode())

    def _version_connection(self) -> sqlite3.Connection | None:
        try:
            return sqlite3.connect(self.db_file, check_same_thread=False)
        except sqlite3.Error as exc:
            log.debug("file wake-up: no data_version connection: %s", exc)
            return None


def _data_version(conn: sqlite3.Connection | None) -> int | None:
    """``PRAGMA data_version``: changes whenever another connection commits to the file."""
    if conn is None:
        return None
    try:
        return int(conn.execute("PRAGMA data_version").fetchone()[0])
    except sqlite3.Error:
        return None


def attach(store: BackendStore, handler: Handler,
           waiting: Callable[[], Iterable[tuple[int, int]]]) -> FileWake | None:
    """Start the wake-ups of ``store`` if it is an SQLite file other processes may share:
    ``handler(kind, db_id, queue_id)`` gets their events (the broker's remote-event hook),
    ``waiting()`` names the queues this process waits on (for the fallback scan). Returns
    the :class:`FileWake` (its :meth:`FileWake.queue_event` is to be registered as a queue
    listener), stopped when the store closes; None for other stores."""
    path = shared_file(store)
    if path is None:
        return None
    wake = FileWake(path, handler, waiting)
    wake.start()
    store.on_close(wake.stop)
    return wake
