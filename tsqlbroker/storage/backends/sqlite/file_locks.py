"""Locks that processes sharing one SQLite file hold on files beside it.

SQLite has one lock for a whole file, held by a writing transaction; what the broker needs
between processes besides (whose group claims are still alive, who hosts the broker's
background work, how many activated readers run for a queue) lives in a directory
``<database file>-locks/`` as advisory ``flock`` locks on small files:

* ``owner-<tag>``: held exclusively by a process (tag = pid and a random part) for as long
  as it has the store open — its group claims in the store are alive while it is held;
* ``host``: the lease of the process that hosts activation, timers and transmission;
* ``insist``: held shared by each process that insists on hosting (``serve``,
  ``--activation on``): a process that hosts only for want of another yields to them;
* ``reader-<db>-<queue>-<slot>``: one of a queue's MAX_QUEUE_READERS activation slots.

The kernel drops a process's ``flock`` locks when it dies, however it dies, so none of
these needs a heartbeat or an expiry. Locks are per open file: two stores opened on the
same file in one process (tests do this to play two processes) contend like two processes.
Without ``fcntl`` (Windows) every lock is granted: one process per file there.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from pathlib import Path

try:  # POSIX only; see the module docstring
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_SUFFIX = "-locks"


class FileLock:
    """One advisory lock on a file of the lock directory, taken without waiting."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self, shared: bool = False) -> bool:
        """Take the lock (exclusive, or ``shared``) if no other holder stands in the way;
        True if it is held now (also when it already was)."""
        with self._lock:
            if self._fd is not None:
                return True
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            if fcntl is not None:
                try:
                    fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
                                | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    return False
            self._fd = fd
            return True

    def release(self) -> None:
        """Give the lock back (closing the file drops it)."""
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def write_note(self, text: str) -> None:
        """Leave ``text`` in the (held) lock's file: who holds it, for messages."""
        with self._lock:
            if self._fd is None:
                return
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
                os.pwrite(self._fd, text.encode(), 0)

    def read_note(self) -> str:
        """What the holder left in the file ('' if nothing)."""
        try:
            return self.path.read_text(errors="replace").strip()
        except OSError:
            return ""

    def is_free(self) -> bool:
        """Whether nobody holds the lock (probed with a lock of our own, at once given
        back): for a file this process does not hold."""
        if fcntl is None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)       # drops the probe's lock, if it got one


class LockDir:
    """The lock directory of one shared SQLite file, and this process's owner lock in it."""

    def __init__(self, db_file: Path) -> None:
        self.directory = db_file.with_name(db_file.name + _SUFFIX)
        self.directory.mkdir(mode=0o700, exist_ok=True)  # private, as the store file
        self.tag = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._owner = self.lock(f"owner-{self.tag}")
        self._owner.try_acquire()
        self._alive: dict[str, bool] = {}

    def lock(self, name: str) -> FileLock:
        """The lock on file ``name`` of the directory (not taken yet)."""
        return FileLock(self.directory / name)

    def alive(self, tag: str) -> bool:
        """Whether the process that wrote ``tag`` still has the store open. A dead one's
        owner file is removed (it never comes back to life)."""
        if tag == self.tag:
            return True
        if self._alive.get(tag) is False:
            return False
        owner = self.lock(f"owner-{tag}")
        if not owner.is_free():
            return True
        self._alive[tag] = False
        with contextlib.suppress(OSError):
            owner.path.unlink()
        return False

    def close(self) -> None:
        """This process no longer has the store open: its owner lock and file go."""
        self._owner.release()
        with contextlib.suppress(OSError):
            self._owner.path.unlink()
