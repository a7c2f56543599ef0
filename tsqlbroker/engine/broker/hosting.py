"""Who hosts a store's background broker work, and activation reader slots across processes.

Activation (queue monitors and activated procedures), the broker clock (conversation timers,
dialog lifetimes, retries of held messages) and transmission over TCP run in one process per
store at a time: the holder of the store's *host lease* (the interpreter's broker runtime
decides when to ask for it, see ``interpreter/broker_runtime.py``). The lease dies with its
process, however it dies, so another process takes it over without an expiry to wait for:

* an SQLite file: an ``flock`` on ``host`` in the file's lock directory (``filelocks``);
* PostgreSQL: a session advisory lock on a connection of the lease's own (a lost connection
  loses the lease: the holder notices at its next check and stops hosting);
* a private store (``sqlite://``): nobody else can open it; this process hosts.

Processes that *insist* on hosting (``serve``, ``--activation on``) say so with a shared
lock (``insist``), so that one hosting only because nobody else did (``auto``) can see
them and hand over.

Reader slots cap the activated readers of a queue at MAX_QUEUE_READERS over every process
(during a hand-over two hosts' readers overlap for a moment): advisory locks per slot on
PostgreSQL (``pgsync.ReaderSlot``), ``flock`` files on a shared SQLite file.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from ...storage.backends.sqlite.file_locks import FileLock, LockDir
from ...storage.store import Store
from . import pgsync

log = logging.getLogger(__name__)


class HostLease(Protocol):
    """The lease on hosting one store's background broker work."""

    def try_acquire(self, note: str) -> bool:
        """Take the lease if it is free (``note``: who takes it, for other processes'
        messages); True if this process holds it now."""

    def still_held(self) -> bool:
        """Whether this process still holds the lease."""

    def release(self) -> None:
        """Give the lease back."""

    def insist(self, on: bool) -> None:
        """Declare (or withdraw) that this process insists on hosting."""

    def others_insist(self) -> bool:
        """Whether another process insists on hosting (meaningless while this one does)."""

    def holder(self) -> str:
        """Who holds the lease, as its holder described itself ('' if unknown)."""

    def close(self) -> None:
        """Give everything back (the store closes)."""


class ReaderSlotLike(Protocol):
    """One of a queue's MAX_QUEUE_READERS slots."""

    def acquire(self, max_readers: int) -> bool: ...

    def release(self) -> None: ...


class LocalLease:
    """A store no other process can open: this process always hosts."""

    def try_acquire(self, note: str) -> bool:
        return True

    def still_held(self) -> bool:
        return True

    def release(self) -> None:
        """Nothing to give back."""

    def insist(self, on: bool) -> None:
        """Nobody to tell."""

    def others_insist(self) -> bool:
        return False

    def holder(self) -> str:
        return ""

    def close(self) -> None:
        """Nothing to close."""


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


_HOST_KEY = "hashtext(current_schema() || ':tsqlb_host')"
_INSIST_KEY = "hashtext(current_schema() || ':tsqlb_insist')"


class PgLease:
    """The lease of a PostgreSQL store: session advisory locks (one per store schema) on a
    connection of its own, opened when first needed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._conn: Any = None
        self._held = False
        self._insisting = False
        self._lock = threading.Lock()

    def _scalar(self, sql: str) -> Any:
        """``sql``'s value on the lease's connection; a failure drops the connection (and
        with it the lease) and answers None."""
        try:
            if self._conn is None:
                self._conn = pgsync.connect_autocommit(self.store)
                if self._insisting:
                    self._conn.execute(f"SELECT pg_advisory_lock_shared({_INSIST_KEY})")
            return self._conn.execute(sql).fetchone()[0]
        except Exception as exc:  # noqa: BLE001 - the server went away: the lease is lost
            log.warning("host lease connection lost: %s", str(exc).splitlines()[0]
                        if str(exc) else type(exc).__name__)
            self._drop()
            return None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        self._held = False
        if conn is not None:
            try:
                conn.close()
            except Exception:
                log.debug("closing the lease connection failed", exc_info=True)

    def try_acquire(self, note: str) -> bool:
        with self._lock:
            if self._held and self._scalar("SELECT 1") == 1:
                return True
            self._held = bool(self._scalar(f"SELECT pg_try_advisory_lock({_HOST_KEY})"))
            return self._held

    def still_held(self) -> bool:
        with self._lock:
            return self._held and self._scalar("SELECT 1") == 1

    def release(self) -> None:
        with self._lock:
            if self._held:
                self._scalar(f"SELECT pg_advisory_unlock({_HOST_KEY})")
                self._held = False

    def insist(self, on: bool) -> None:
        with self._lock:
            if on == self._insisting:
                return
            self._insisting = on
            if self._conn is None and on:
                self._scalar("SELECT 1")        # connects and declares it
            elif self._conn is not None:
                self._scalar(f"SELECT pg_advisory_lock_shared({_INSIST_KEY})" if on
                             else f"SELECT pg_advisory_unlock_shared({_INSIST_KEY})")

    def others_insist(self) -> bool:
        with self._lock:
            if self._insisting:
                return False
            free = self._scalar(f"SELECT pg_try_advisory_lock({_INSIST_KEY})")
            if free:
                self._scalar(f"SELECT pg_advisory_unlock({_INSIST_KEY})")
            return free is False

    def holder(self) -> str:
        return ""

    def close(self) -> None:
        with self._lock:
            self._drop()


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


class NoSlot:
    """The reader slot of a store only this process opens: the queue monitor's count is the
    cap."""

    def acquire(self, max_readers: int) -> bool:
        return True

    def release(self) -> None:
        """Nothing to give back."""


class StoreHosting:
    """The host lease and the reader slots of one store."""

    def __init__(self, store: Store, lockdir: LockDir | None) -> None:
        self.store = store
        self.lockdir = lockdir
        self.lease: HostLease
        if lockdir is not None:
            self.lease = FileLease(lockdir)
        elif pgsync.is_postgres_store(store):
            self.lease = PgLease(store)
        else:
            self.lease = LocalLease()
        store.on_close(self.lease.close)

    def reader_slot(self, db_id: int, queue_id: int) -> ReaderSlotLike:
        """A (not yet taken) reader slot of the queue."""
        if self.lockdir is not None:
            return FileReaderSlot(self.lockdir, db_id, queue_id)
        if pgsync.is_postgres_store(self.store):
            return pgsync.ReaderSlot(self.store, db_id, queue_id)
        return NoSlot()
