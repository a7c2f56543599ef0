"""An in-memory cache of each database's broker metadata (message types, contracts, services,
queues, broker identity), so the hot path (SEND, RECEIVE, delivery) does not re-read them.

Safety across threads and transactions: the cache is only *filled* from committed state. A
transaction that changes broker metadata of a database marks it *dirty* until it ends; while
any transaction has it dirty, lookups for that database are served by a fresh read on the
caller's connection (so the DDL transaction sees its own changes) and not stored. When the
transaction ends (commit or rollback) the entry is dropped and the next lookup reloads it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import select

from ...storage.backends.postgres.notices import NotifyOp
from ...storage.store import StoreConnection
from ...storage.txn import Txn
from .model import ContractRow, MessageTypeRow, QueueRow, ServiceRow
from .schema import BrokerTables

if TYPE_CHECKING:
    from ..catalog import Catalog


@dataclass
class DbMeta:
    """The broker metadata of one database."""

    database_id: int
    name: str
    broker_guid: str
    is_broker_enabled: bool
    honor_priority: bool
    types_by_name: dict[str, MessageTypeRow] = field(default_factory=dict)
    types_by_id: dict[int, MessageTypeRow] = field(default_factory=dict)
    contracts_by_name: dict[str, ContractRow] = field(default_factory=dict)
    contracts_by_id: dict[int, ContractRow] = field(default_factory=dict)
    services_by_name: dict[str, ServiceRow] = field(default_factory=dict)
    services_by_id: dict[int, ServiceRow] = field(default_factory=dict)
    queues_by_id: dict[int, QueueRow] = field(default_factory=dict)
    queues_by_name: dict[tuple[str, str], QueueRow] = field(default_factory=dict)
    # Queue id → the event types its event notifications ask for (QUEUE_ACTIVATION …).
    queue_events: dict[int, frozenset[str]] = field(default_factory=dict)


class MetaCache:
    """Per-store cache of :class:`DbMeta`, keyed by database id."""

    def __init__(self, tables: BrokerTables, catalog: Catalog) -> None:
        self.t = tables
        self.catalog = catalog
        self._lock = threading.Lock()
        self._entries: dict[int, DbMeta] = {}
        self._dirty: dict[int, set[int]] = {}      # db id → ids of txns with pending DDL
        self._generation = 0                       # bumped by every change / invalidation

    def get(self, conn: StoreConnection, db_id: int) -> DbMeta | None:
        """The metadata of database ``db_id`` (None if the database does not exist)."""
        with self._lock:
            entry = self._entries.get(db_id)
            dirty = bool(self._dirty.get(db_id))
            generation = self._generation
        if entry is not None and not dirty:
            return entry
        loaded = self._load(conn, db_id)
        if loaded is not None and not dirty:
            with self._lock:
                # Store only if no DDL started or ended meanwhile (else it may be stale).
                if not self._dirty.get(db_id) and generation == self._generation:
                    self._entries[db_id] = loaded
        return loaded

    def all_loaded(self, conn: StoreConnection) -> list[DbMeta]:
        """Metadata of every database, in id order."""
        out = []
        for row in self.catalog.databases(conn):
            meta = self.get(conn, row.database_id)
            if meta is not None:
                out.append(meta)
        return out

    def changed(self, txn: Txn, db_id: int) -> None:
        """``txn`` changed broker metadata of ``db_id``: bypass the cache until it ends."""
        with self._lock:
            self._generation += 1
            self._entries.pop(db_id, None)
            holders = self._dirty.setdefault(db_id, set())
            first = txn.id not in holders
            holders.add(txn.id)
        if first:
            txn.after_end(lambda _committed, t=txn.id: self._ended(db_id, t))
            if txn.conn.backend.commit_notices:
                # Other processes on the store drop their copy when this commits.
                txn.defer(NotifyOp("m", db_id))

    def invalidate(self, db_id: int | None = None) -> None:
        """Forget cached metadata (one database, or all)."""
        with self._lock:
            self._generation += 1
            if db_id is None:
                self._entries.clear()
            else:
                self._entries.pop(db_id, None)

    def _ended(self, db_id: int, txn_id: int) -> None:
        with self._lock:
            self._generation += 1
            holders = self._dirty.get(db_id)
            if holders is not None:
                holders.discard(txn_id)
                if not holders:
                    del self._dirty[db_id]
            self._entries.pop(db_id, None)

    # -- loading ------------------------------------------------------------------------------
    def _load(self, conn: StoreConnection, db_id: int) -> DbMeta | None:
        db = self.catalog.database(conn, db_id)
        if db is None:
            return None
        t = self.t
        meta = DbMeta(db.database_id, db.name, str(db.service_broker_guid).upper(),
                      db.is_broker_enabled, db.is_honor_broker_priority_on)
        mt = t.message_types
        for r in conn.execute(select(mt).where(mt.c.database_id == db_id)).mappings():
            row = MessageTypeRow(db_id, r["message_type_id"], r["name"], r["validation"],
                                 r["xml_collection_id"], r["schema_namespace"],
                                 bool(r["is_system"]))
            meta.types_by_name[row.name] = row
            meta.types_by_id[row.message_type_id] = row
        usages: dict[int, dict[int, tuple[bool, bool]]] = {}
        cu = t.contract_usages
        for r in conn.execute(select(cu).where(cu.c.database_id == db_id)).mappings():
            usages.setdefault(r["service_contract_id"], {})[r["message_type_id"]] = (
                bool(r["is_sent_by_initiator"]), bool(r["is_sent_by_target"]))
        c = t.contracts
        for r in conn.execute(select(c).where(c.c.database_id == db_id)).mappings():
            crow = ContractRow(db_id, r["service_contract_id"], r["name"],
                               usages.get(r["service_contract_id"], {}))
            meta.contracts_by_name[crow.name] = crow
            meta.contracts_by_id[crow.service_contract_id] = crow
        sc = t.service_contracts
        contracts_of: dict[int, set[int]] = {}
        for r in conn.execute(select(sc).where(sc.c.database_id == db_id)).mappings():
            contracts_of.setdefault(r["service_id"], set()).add(r["service_contract_id"])
        s = t.services
        for r in conn.execute(select(s).where(s.c.database_id == db_id)).mappings():
            srow = ServiceRow(db_id, r["service_id"], r["name"], r["service_queue_id"],
                              frozenset(contracts_of.get(r["service_id"], set())),
                              int(r["principal_id"] or 1))
            meta.services_by_name[srow.name] = srow
            meta.services_by_id[srow.service_id] = srow
        q = t.queues
        for r in conn.execute(select(q).where(q.c.database_id == db_id)).mappings():
            qrow = queue_row(r)
            meta.queues_by_id[qrow.object_id] = qrow
            meta.queues_by_name[(qrow.schema_name.lower(), qrow.name.lower())] = qrow
        n = t.notifications
        for queue_id, events in conn.execute(select(n.c.parent_id, n.c.events).where(
                n.c.database_id == db_id)):
            meta.queue_events[queue_id] = meta.queue_events.get(
                queue_id, frozenset()) | frozenset(events.split(","))
        return meta


def queue_row(r: object) -> QueueRow:
    """A :class:`QueueRow` from a mapping row of the queues table."""
    m = dict(r)  # type: ignore[call-overload]
    return QueueRow(
        database_id=m["database_id"], object_id=m["object_id"], schema_id=m["schema_id"],
        schema_name=m["schema_name"], name=m["name"],
        is_receive_enabled=bool(m["is_receive_enabled"]),
        is_enqueue_enabled=bool(m["is_enqueue_enabled"]),
        is_retention_enabled=bool(m["is_retention_enabled"]),
        is_activation_enabled=bool(m["is_activation_enabled"]),
        activation_procedure=m["activation_procedure"], max_readers=int(m["max_readers"] or 0),
        execute_as=m["execute_as"],
        is_poison_message_handling_enabled=bool(m["is_poison_message_handling_enabled"]),
        create_date=m["create_date"], modify_date=m["modify_date"])
