"""The directories of private stores (``sqlite://``): memory-backed temporary storage
(``/dev/shm`` where it exists) that lives as long as its process.

A store removes its directory when it closes, and at interpreter exit; SIGTERM reaches those
through the command line's handler. A killed process (SIGKILL) runs no clean-up, so each
directory holds :data:`OWNER_LOCK`, ``flock``-ed by its process while it lives, and the next
process that makes a private store removes every directory whose lock it can take: its owner
is gone. (Without ``flock``, on Windows, such directories stay.)
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

PREFIX = "tsqlbroker-"
OWNER_LOCK = "owner.lock"


@dataclass
class PrivateDir:
    """One private store's directory and the descriptor holding its owner lock."""

    path: str
    owner_fd: int | None

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the store's database file."""
        return f"sqlite:///{os.path.join(self.path, 'memory.db')}"

    def remove(self) -> None:
        """Delete the directory and give up the lock (idempotent)."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self.owner_fd is not None:
            os.close(self.owner_fd)
            self.owner_fd = None


def memory_root() -> str:
    """Where private stores live: ``/dev/shm`` if writable, else the temporary directory."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return tempfile.gettempdir()


def create_private_dir(root: str | None = None) -> PrivateDir:
    """A new private store directory under ``root`` (after sweeping the dead ones there)."""
    root = root or memory_root()
    sweep(root)
    path = tempfile.mkdtemp(prefix=PREFIX, dir=root)
    atexit.register(shutil.rmtree, path, True)
    return PrivateDir(path, _lock_owner(path))


def _lock_owner(directory: str) -> int | None:
    """Take ``directory``'s owner lock; the descriptor to keep open. Locked under a
    temporary name, then renamed: a sweeper never sees the lock file before it is held."""
    if fcntl is None:
        return None
    tmp = os.path.join(directory, ".owner")
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(tmp, os.path.join(directory, OWNER_LOCK))
    return fd


def sweep(root: str) -> list[str]:
    """Remove the private store directories under ``root`` whose processes are gone;
    returns their paths. Directories without a lock file (not ours, or made by an older
    version) are left alone."""
    if fcntl is None:
        return []
    try:
        names = [n for n in os.listdir(root) if n.startswith(PREFIX)]
    except OSError:
        return []
    removed = []
    for name in names:
        directory = os.path.join(root, name)
        try:
            fd = os.open(os.path.join(directory, OWNER_LOCK), os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # its process is alive
        try:
            shutil.rmtree(directory, ignore_errors=True)
            removed.append(directory)
        finally:
            os.close(fd)
    return removed
