"""PostgreSQL advisory locks shared by the processes of one store: the host lease and the
activation reader slots (session locks on connections of their own: they die with the
connection, so a killed process frees them at once)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from ..base import BackendStore

log = logging.getLogger(__name__)


def connect_autocommit(store: BackendStore) -> Any:
    """A new psycopg connection to ``store``'s server, in autocommit mode, outside the pool
    (for a thread that keeps it for itself)."""
    # start-up laziness: the broker imports this module on SQLite too, where psycopg is not needed
    import psycopg

    engine = store.engine
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    return psycopg.connect(*args, autocommit=True, **kwargs)


_HOST_KEY = "hashtext(current_schema() || ':tsqlb_host')"
_INSIST_KEY = "hashtext(current_schema() || ':tsqlb_insist')"


class PgLease:
    """The lease of a PostgreSQL store: session advisory locks (one per store schema) on a
    connection of its own, opened when first needed."""

    def __init__(self, store: BackendStore) -> None:
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
                self._conn = connect_autocommit(self.store)
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


class ReaderSlot:
    """One of a queue's MAX_QUEUE_READERS activation slots, held (on a connection of its own)
    by the process running that activated task."""

    def __init__(self, store: BackendStore, db_id: int, queue_id: int) -> None:
        self.store = store
        self.key = f"{db_id}:{queue_id}"
        self.slot: int | None = None
        self._conn: Any = None

    def acquire(self, max_readers: int) -> bool:
        """Take a free slot below ``max_readers`` (True), or none is free (False)."""
        if self._conn is None:
            self._conn = self.store.connect()
        for slot in range(max_readers):
            got = self._conn.execute_fast("SELECT pg_try_advisory_lock(hashtext(current_schema() || "
                                  "':tsqlb_reader:' || ?), ?::int)", (self.key, slot)).fetchone()[0]
            if got:
                self.slot = slot
                return True
        return False

    def release(self) -> None:
        """Give the slot back and close the slot's connection."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if self.slot is not None:
                conn.execute_fast("SELECT pg_advisory_unlock(hashtext(current_schema() || "
                          "':tsqlb_reader:' || ?), ?::int)", (self.key, self.slot))
        except Exception:
            log.debug("advisory unlock failed", exc_info=True)
        finally:
            self.slot = None
            conn.close()
