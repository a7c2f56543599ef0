"""A shared SQLite file's host lease and reader slots: ``flock`` locks in the file's lock
directory (``file_locks.py``), which die with their process however it dies."""

from __future__ import annotations

from .file_locks import FileLock, LockDir


class FileLease:
    """The lease of a shared SQLite file: ``flock`` locks in its lock directory."""

    def __init__(self, lockdir: LockDir) -> None:
        self._host = lockdir.lock("host")
        self._insist = lockdir.lock("insist")

    def try_acquire(self, note: str) -> bool:
        if self._host.held:
            return True
        if not self._host.try_acquire():
            return False
        self._host.write_note(note)
        return True

    def still_held(self) -> bool:
        return self._host.held

    def release(self) -> None:
        self._host.release()

    def insist(self, on: bool) -> None:
        if on:
            self._insist.try_acquire(shared=True)
        else:
            self._insist.release()

    def others_insist(self) -> bool:
        return not self._insist.held and not self._insist.is_free()

    def holder(self) -> str:
        return self._host.read_note()

    def close(self) -> None:
        self._host.release()
        self._insist.release()


class FileReaderSlot:
    """A reader slot of a shared SQLite file: an ``flock`` file per (queue, slot)."""

    def __init__(self, lockdir: LockDir, db_id: int, queue_id: int) -> None:
        self.lockdir = lockdir
        self.prefix = f"reader-{db_id}-{queue_id}-"
        self._lock: FileLock | None = None

    def acquire(self, max_readers: int) -> bool:
        for slot in range(max_readers):
            lock = self.lockdir.lock(f"{self.prefix}{slot}")
            if lock.try_acquire():
                self._lock = lock
                return True
        return False

    def release(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()
