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
PostgreSQL (``storage/backends/postgres/advisory.py``), ``flock`` files on a shared SQLite
file (``storage/backends/sqlite/leases.py``): the store's backend gives both.
"""

from __future__ import annotations

from ...storage.backends.leases import HostLease, ReaderSlotLike
from ...storage.backends.sqlite.file_locks import LockDir
from ...storage.store import Store


class StoreHosting:
    """The host lease and the reader slots of one store."""

    def __init__(self, store: Store, lockdir: LockDir | None) -> None:
        self.store = store
        self.lockdir = lockdir
        self.lease: HostLease = store.backend.host_lease(store, lockdir)
        store.on_close(self.lease.close)

    def reader_slot(self, db_id: int, queue_id: int) -> ReaderSlotLike:
        """A (not yet taken) reader slot of the queue."""
        return self.store.backend.reader_slot(self.store, self.lockdir, db_id, queue_id)
