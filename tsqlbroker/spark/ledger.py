"""What Spark jobs record in the store, in the same transaction as their effects, so that a
task Spark runs again does nothing twice.

* ``tsqlb_spark_writes``: one row per committed partition of a batch write (``send``), keyed
  by the write's id and Spark's partition id. A retried task whose first attempt committed
  finds its row and sends nothing.
* ``tsqlb_spark_dialogs``: the dialog a write opened for each key of its key column, so that
  rows with the same key share one dialog across partitions (and the driver can end them
  after the write).
* ``tsqlb_spark_drained``: the messages a streaming drain's sink consumed, by queuing order,
  until the micro-batch that consumed them is committed in the query's checkpoint: a batch
  Spark runs again then tells "consumed by this stream" from "removed by someone else"
  (``failOnDataLoss``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    delete,
    insert,
    select,
    text,
)

from tsqlbroker.engine.broker.model import utcnow
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.storage.store import Store, StoreConnection

_PREFIX = "tsqlb_spark_"
_CHUNK = 500


def _tables(metadata: MetaData) -> tuple[Table, Table, Table]:
    t = metadata.tables
    if _PREFIX + "writes" in t:
        return t[_PREFIX + "writes"], t[_PREFIX + "dialogs"], t[_PREFIX + "drained"]
    writes = Table(
        _PREFIX + "writes", metadata,
        Column("write_id", String(64), primary_key=True),
        Column("partition_id", Integer, primary_key=True, autoincrement=False),
        Column("row_count", Integer, nullable=False),
        Column("committed", DateTime, nullable=False),
    )
    dialogs = Table(
        _PREFIX + "dialogs", metadata,
        Column("write_id", String(64), primary_key=True),
        Column("dialog_key", String(450), primary_key=True),
        Column("conversation_handle", String(36), nullable=False),
    )
    drained = Table(
        _PREFIX + "drained", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("queue_id", Integer, primary_key=True, autoincrement=False),
        Column("queuing_order", Integer, primary_key=True, autoincrement=False),
    )
    return writes, dialogs, drained


class Ledger:
    """The ledger tables of one store (created on first use)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.writes, self.dialogs, self.drained = _tables(store.metadata)
        self._ready = False

    @classmethod
    def get(cls, store: Store) -> Ledger:
        """The one ledger of ``store``."""
        ledger: Ledger = store.extension("spark_ledger", cls)
        return ledger

    def ensure(self, conn: StoreConnection) -> None:
        """Create the tables if they do not exist (committed at once outside a transaction,
        else in the caller's)."""
        if not self._ready:
            stays = Catalog.get(self.store).create_tables(
                conn, [self.writes, self.dialogs, self.drained])
            self._ready = stays

    # -- batch writes -------------------------------------------------------------------------
    def partition_done(self, conn: StoreConnection, write_id: str, partition_id: int) -> bool:
        """Whether partition ``partition_id`` of write ``write_id`` has committed."""
        self.ensure(conn)
        w = self.writes
        return conn.execute(select(w.c.row_count).where(
            w.c.write_id == write_id, w.c.partition_id == partition_id)).first() is not None

    def record_partition(self, conn: StoreConnection, write_id: str, partition_id: int,
                         rows: int) -> None:
        """Record the partition as committed (in the caller's write transaction)."""
        conn.execute(insert(self.writes).values(write_id=write_id, partition_id=partition_id,
                                                row_count=rows, committed=utcnow()))

    def dialog_for(self, conn: StoreConnection, write_id: str, key: str) -> str | None:
        """The conversation handle write ``write_id`` opened for ``key``, if any."""
        d = self.dialogs
        value = conn.execute(select(d.c.conversation_handle).where(
            d.c.write_id == write_id, d.c.dialog_key == key)).scalar()
        return None if value is None else str(value)

    def claim_dialog(self, conn: StoreConnection, write_id: str, key: str, handle: str) -> str:
        """Record ``handle`` as the dialog of ``key`` unless another partition recorded one
        first; the handle to use. (``ON CONFLICT DO NOTHING`` waits for a concurrent
        claimer's commit on PostgreSQL, then yields to it; SQLite has one writer.)"""
        conn.execute(text(
            f"INSERT INTO {self.dialogs.name} (write_id, dialog_key, conversation_handle) "
            "VALUES (:w, :k, :h) ON CONFLICT DO NOTHING"), {"w": write_id, "k": key, "h": handle})
        return self.dialog_for(conn, write_id, key) or handle

    def write_dialogs(self, conn: StoreConnection, write_id: str) -> list[str]:
        """Every dialog write ``write_id`` opened for a key."""
        self.ensure(conn)
        d = self.dialogs
        return [str(h) for h in conn.execute(select(d.c.conversation_handle).where(
            d.c.write_id == write_id)).scalars()]

    def forget_dialogs(self, conn: StoreConnection, write_id: str) -> None:
        """Drop the key → dialog rows of a finished write."""
        d = self.dialogs
        conn.execute(delete(d).where(d.c.write_id == write_id))

    # -- streaming drain ----------------------------------------------------------------------
    def record_drained(self, conn: StoreConnection, db_id: int, queue_id: int,
                       orders: Iterable[int]) -> None:
        """Record messages the stream's sink consumed (in its write transaction)."""
        rows = [{"database_id": db_id, "queue_id": queue_id, "queuing_order": int(o)}
                for o in orders]
        if rows:
            conn.execute(insert(self.drained), rows)

    def drained_among(self, conn: StoreConnection, db_id: int, queue_id: int,
                      orders: Collection[int]) -> set[int]:
        """Which of ``orders`` the stream's sink consumed."""
        self.ensure(conn)
        d = self.drained
        found: set[int] = set()
        ordered = sorted(orders)
        for start in range(0, len(ordered), _CHUNK):
            found.update(int(o) for o in conn.execute(select(d.c.queuing_order).where(
                d.c.database_id == db_id, d.c.queue_id == queue_id,
                d.c.queuing_order.in_(ordered[start:start + _CHUNK]))).scalars())
        return found

    def drained_between(self, conn: StoreConnection, db_id: int, queue_id: int, after: int,
                        upto: int) -> int:
        """How many messages with ``after`` < queuing order <= ``upto`` the sink consumed."""
        self.ensure(conn)
        d = self.drained
        return len(conn.execute(select(d.c.queuing_order).where(and_(
            d.c.database_id == db_id, d.c.queue_id == queue_id,
            d.c.queuing_order > after, d.c.queuing_order <= upto))).all())

    def forget_drained(self, conn: StoreConnection, db_id: int, queue_id: int,
                       upto: int) -> None:
        """Forget consumed messages up to ``upto`` (their micro-batch is committed: Spark
        never runs it again)."""
        d = self.drained
        conn.execute(delete(d).where(d.c.database_id == db_id, d.c.queue_id == queue_id,
                                     d.c.queuing_order <= upto))
