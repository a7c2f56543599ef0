"""Which commits tell other processes of themselves: waiter interest on a PostgreSQL store.

A ``NOTIFY`` serialises every notifying commit of the server behind one lock (PostgreSQL
queues notifications in commit order), so a commit that NOTIFYs when nobody listens costs
every process on the store throughput for nothing. A commit that enqueued messages or held
conversation-group locks therefore NOTIFYs only when some process waits on one of the queues
concerned — a ``WAITFOR (RECEIVE …)`` / ``GET CONVERSATION GROUP``, or a queue monitor of a
queue with activation. Two advisory locks per queue say so:

* **interest** (``W``): every process that waits on the queue holds it in shared mode, on a
  connection of its own (:class:`Interest`), for as long as it waits;
* **gate** (``G``): a committing transaction takes it in shared mode (to the end of the
  transaction) just before it probes ``W``; a process starting to wait takes it exclusively
  for a moment around taking ``W``.

The committer's final round trip is ``lock G shared; NOTIFY … WHERE W is held by someone;
COMMIT``. Either the waiter's ``W`` came first — the probe sees it and the commit NOTIFYs —
or the committer's ``G`` did, and the waiter's exclusive ``G`` waits for that commit, after
which the waiter looks at the queue and sees what it committed. So no wake-up is lost, and
the waiter looks at the queue only once its interest is known (:meth:`Interest.acquire`
returns then). Metadata changes ('m') still NOTIFY unconditionally: they are rare, and every
process caches metadata.

Keys are pairs of 32-bit integers: a hash of the store's schema, the purpose and the
database, and the queue id. A collision between stores only costs a NOTIFY or a moment's
wait, never a lost wake-up.
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)

QueueKey = tuple[int, int]          # (database_id, queue_id)
_INT32 = 1 << 32


def _int32(value: int) -> int:
    value %= _INT32
    return value - _INT32 if value >= _INT32 // 2 else value


def advisory_key(schema: str, purpose: str, db_id: int, queue_id: int) -> tuple[int, int]:
    """The advisory-lock key pair of ``purpose`` ('wait' or 'gate') for one queue."""
    return _int32(zlib.crc32(f"{schema}:tsqlb_{purpose}:{db_id}".encode())), _int32(queue_id)


def gate_sql(schema: str, queues: Iterable[QueueKey]) -> str:
    """The committer's gate: shared transaction-level locks on the queues' ``G`` keys, in
    key order (the same order everywhere)."""
    keys = sorted(advisory_key(schema, "gate", db, q) for db, q in queues)
    return "SELECT " + ", ".join(f"pg_advisory_xact_lock_shared({a}, {b})" for a, b in keys)


def waiter_condition(schema: str, queues: Iterable[QueueKey]) -> str:
    """An SQL condition true when some process holds the interest key of one of ``queues``
    (an exclusive try-lock fails), evaluated without keeping anything locked."""
    probes = []
    for a, b in sorted(advisory_key(schema, "wait", db, q) for db, q in queues):
        # CASE fixes the order: the unlock runs only after a successful try.
        probes.append(f"CASE WHEN pg_try_advisory_lock({a}, {b}) "
                      f"THEN NOT pg_advisory_unlock({a}, {b}) ELSE true END")
    return " OR ".join(probes)


class Interest:
    """The queues this process waits on, held as shared interest locks on a PostgreSQL
    connection of its own (opened on first use, so a process that never waits never opens
    it). Counted per queue: the lock is taken by the first waiter and let go by the last."""

    def __init__(self, connect: Any) -> None:
        """``connect()`` returns a new autocommit psycopg connection to the store."""
        self._connect = connect
        self._lock = threading.Lock()
        self._counts: dict[QueueKey, int] = {}
        self._pg: Any = None
        self._schema = ""

    def acquire(self, db_id: int, queue_id: int) -> None:
        """Declare a waiter on the queue; returns once every commit that could have missed
        it has committed (the caller looks at the queue afterwards)."""
        key = (db_id, queue_id)
        with self._lock:
            count = self._counts.get(key, 0)
            self._counts[key] = count + 1
            if count == 0:
                self._sync(lambda: self._hold_sql(key))

    def release(self, db_id: int, queue_id: int) -> None:
        """A waiter on the queue is done."""
        key = (db_id, queue_id)
        with self._lock:
            count = self._counts.get(key, 0) - 1
            if count > 0:
                self._counts[key] = count
                return
            self._counts.pop(key, None)
            if self._pg is not None:
                self._sync(lambda: "SELECT pg_advisory_unlock_shared({}, {})".format(
                    *advisory_key(self._schema, "wait", *key)))

    def held(self) -> list[QueueKey]:
        """The queues this process declares interest in."""
        with self._lock:
            return sorted(self._counts)

    def restore(self) -> None:
        """After the server connection was lost (its locks with it): a new connection holding
        every key still wanted."""
        with self._lock:
            self._drop_connection()
            if self._counts:
                self._sync()

    def close(self) -> None:
        """Let every key go (the connection closes)."""
        with self._lock:
            self._counts.clear()
            self._drop_connection()

    # -- internals (called with self._lock held) ------------------------------------------
    def _hold_sql(self, key: QueueKey) -> str:
        gate = advisory_key(self._schema, "gate", *key)
        wait = advisory_key(self._schema, "wait", *key)
        return (f"SELECT pg_advisory_lock({gate[0]}, {gate[1]}); "
                f"SELECT pg_advisory_lock_shared({wait[0]}, {wait[1]}); "
                f"SELECT pg_advisory_unlock({gate[0]}, {gate[1]})")

    def _sync(self, sql: Any = None) -> None:
        """Run ``sql()`` (built once the schema is known) on the interest connection. A new
        connection first takes every wanted key (which makes ``sql`` moot); a lost one is
        reopened once. Failing that the process misses other processes' wake-ups until the
        listener reconnects and calls :meth:`restore`."""
        for attempt in (1, 2):
            try:
                if self._pg is None:
                    self._pg = self._connect()
                    row = self._pg.execute("SELECT current_schema()").fetchone()
                    self._schema = (row[0] if row else None) or "public"
                    for key in sorted(self._counts):
                        self._pg.execute(self._hold_sql(key))
                elif sql is not None:
                    self._pg.execute(sql())
                return
            except Exception as exc:  # noqa: BLE001 - the server went away
                self._drop_connection()
                if attempt == 2:
                    log.warning("could not declare a waiter to other processes (%s)",
                                str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    def _drop_connection(self) -> None:
        pg, self._pg = self._pg, None
        if pg is not None:
            try:
                pg.close()
            except Exception:  # closing a broken connection
                log.debug("closing the interest connection failed", exc_info=True)
