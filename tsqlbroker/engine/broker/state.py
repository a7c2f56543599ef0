"""What the parts of the broker share: tables, metadata cache, lazily created built-in
objects of each database, per-transaction broker state, queue signals and listeners, the
other processes' wake-ups, and the lookups every part makes (database, queue, endpoint).

The public :class:`~tsqlbroker.engine.broker.Broker` is a front over one part per statement
family (objects, conversations, delivery, receiving, clock, views …), each holding this state.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select

from ...errors import BindError, broker_error, tsql_error
from ...storage.backends.postgres import interest as pgwake
from ...storage.backends.postgres import notices
from ...storage.backends.postgres.advisory import connect_autocommit
from ...storage.backends.sqlite import wake as filewake
from ...storage.backends.sqlite.file_locks import LockDir
from ...storage.store import Store, StoreConnection
from ...storage.txn import LockManager, Txn
from ..catalog import Catalog
from .claims import GroupClaims
from .fastsql import fetch_endpoint, fetch_peer
from .hosting import StoreHosting
from .meta import DbMeta, MetaCache
from .model import (
    DEFAULT_CONTRACT_ID,
    EVENT_NOTIFICATION,
    POST_EVENT_NOTIFICATION,
    SB,
    SYSTEM_MESSAGE_TYPES,
    SYSTEM_TYPE_IDS,
    Endpoint,
    QueueRow,
    uid,
)
from .schema import BrokerTables, broker_tables
from .waits import QueueSignals

log = logging.getLogger(__name__)

Listener = Callable[[str, int, int], None]
# System contracts: (id, name, [(type name, by initiator, by target)]).
_SYSTEM_CONTRACTS: tuple[tuple[int, str, tuple[tuple[str, bool, bool], ...]], ...] = (
    (5, POST_EVENT_NOTIFICATION, ((EVENT_NOTIFICATION, True, False),)),
    (2, SB + "BrokerConfigurationNotice",
     ((SB + "BrokerConfigurationNotice/MissingRoute", True, False),
      (SB + "BrokerConfigurationNotice/FailedRoute", True, False),
      (SB + "BrokerConfigurationNotice/MissingRemoteServiceBinding", True, False),
      (SB + "BrokerConfigurationNotice/FailedRemoteServiceBinding", True, False))),
    (3, SB + "ServiceDiagnostic",
     ((SB + "ServiceDiagnostic/Query", True, False),
      (SB + "ServiceDiagnostic/Status", False, True),
      (SB + "ServiceDiagnostic/Description", False, True))),
    (4, SB + "ServiceEcho", ((SB + "ServiceEcho/Echo", True, True),)),
    (DEFAULT_CONTRACT_ID, "DEFAULT", (("DEFAULT", True, True),)),
)


@dataclass
class TxnBrokerState:
    """What the broker remembers about one transaction."""

    # queuing_order of rows RECEIVEd (not yet deleted): the same txn must not see them again.
    received: set[int] = field(default_factory=set)
    # Queues this transaction received from (for the poison-message counter of activation).
    received_queues: set[tuple[int, int]] = field(default_factory=set)
    # Queues whose groups this transaction locked: waiters are woken when the locks go.
    locked_queues: set[tuple[int, int]] = field(default_factory=set)
    # Deliveries deferred to commit, per sending handle (END … WITH ERROR cancels them).
    pending_ops: dict[str, list[Any]] = field(default_factory=dict)
    # Whether the wake-up of waiters on locked_queues is registered (after the lock release).
    wake_registered: bool = False
    # PostgreSQL: conversations whose initiator endpoint row this transaction has locked
    # ahead of changing their target endpoint (Delivery.lock_initiator_first).
    initiators_locked: set[str] = field(default_factory=set)


class BrokerState:
    """What every part of the broker shares (one instance per store): the tables, the
    metadata cache, locks, queue signals and listeners, the other processes' wake-ups."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.t: BrokerTables = broker_tables(store.metadata)
        self.catalog = Catalog.get(store)
        self.meta = MetaCache(self.t, self.catalog)
        self.locks: LockManager = store.extension("lock_manager", lambda _s: LockManager())
        self.signals = QueueSignals()
        self._listeners: list[Listener] = []
        self._ready = False
        self.init_lock = threading.RLock()
        self.initialised_dbs: set[int] = set()
        # Handles that may have messages held in a transmission queue (a superset).
        self.held_handles: set[str] = set()
        # The activation manager, when one runs (for the dm_broker_* views).
        self.activation: Any = None
        self.catalog.on_drop_database(self._on_drop_database)
        # Other processes on a PostgreSQL store tell this one of what they did (NOTIFY).
        self.listener: notices.Listener | None = None
        # The queues this process waits on, declared to the others (their commits NOTIFY
        # only then).
        self.interest: pgwake.Interest | None = None
        if store.backend.commit_notices:
            self.interest = pgwake.Interest(lambda: connect_autocommit(store))
            self.listener = notices.Listener(store, self._remote_event, self._listening_again)
            self.listener.start()
            store.on_close(self.listener.stop)
            store.on_close(self.interest.close)
        # Processes sharing an SQLite file wake each other through sockets beside it.
        self.filewake = filewake.attach(store, self._remote_event,
                                        lambda: list(self.signals.waiting))
        if self.filewake is not None:
            self.add_queue_listener(self.filewake.queue_event)
        # ... and own conversation groups towards each other through claims (claims.py).
        self.lockdir: LockDir | None = None
        self.claims: GroupClaims | None = None
        shared = filewake.shared_file(store)
        if shared is not None:
            self.lockdir = LockDir(shared)
            store.on_close(self.lockdir.close)
            self.claims = GroupClaims(self.lockdir, self.locks, self.signals,
                                      self.claims_released)
        # Who hosts the background work (activation, clock, transport), reader slots.
        self.store_hosting = StoreHosting(store, self.lockdir)

    # -- setup --------------------------------------------------------------------------------
    def ensure_schema(self, conn: StoreConnection) -> None:
        """Create the broker tables (and the catalog's) if they do not exist yet."""
        if self._ready:
            return
        with self.init_lock:
            if self._ready:
                return
            stays = self.catalog.create_tables(conn, self.t.all())
            tq = self.t.transmission
            self.held_handles.update(conn.execute(
                select(tq.c.conversation_handle).distinct()).scalars())
            # Only a committed setup is known to stay; a caller's transaction may roll back.
            self._ready = stays

    def db(self, conn: StoreConnection, db_id: int) -> DbMeta:
        """The broker metadata of ``db_id``, creating its built-in objects on first use."""
        self.ensure_schema(conn)
        if db_id not in self.initialised_dbs:
            self._init_database(conn, db_id)
        meta = self.meta.get(conn, db_id)
        if meta is None:
            raise broker_error(8442)
        return meta

    def _init_database(self, conn: StoreConnection, db_id: int) -> None:
        if conn.in_write_txn and conn.backend.single_writer:
            # This connection holds the store's only write lock, so no other writer can add
            # the built-ins meanwhile; and the init lock may be held by a thread of this
            # process waiting for that very write lock (a deadlock if we waited for it).
            self._init_database_locked(conn, db_id)
            return
        with self.init_lock:
            self._init_database_locked(conn, db_id)

    def _init_database_locked(self, conn: StoreConnection, db_id: int) -> None:
        if db_id in self.initialised_dbs:
            return
        d = self.t.dbinit
        if conn.execute(select(d.c.database_id).where(d.c.database_id == db_id)).first():
            if not conn.in_write_txn:
                self.initialised_dbs.add(db_id)
            return
        if self.catalog.database(conn, db_id) is None:
            raise broker_error(8442)
        # Built-ins go in on a private connection, committed at once, when the database
        # is committed; else (created in the caller's open transaction) on the caller's
        # connection, so they roll back with the database.
        if conn.in_write_txn:
            # A private writer would wait for the caller's own storage lock.
            self._write_builtins(conn, db_id)
            self.meta.invalidate(db_id)
            return
        own = self.store.connect()
        try:
            if self.catalog.database(own, db_id) is not None:
                own.write()
                # Looked at again under the write lock: a DROP DATABASE may have
                # committed while this waited for it.
                if self.catalog.database(own, db_id) is None:
                    own.rollback()
                    raise broker_error(8442)
                if not own.execute(select(d.c.database_id).where(
                        d.c.database_id == db_id)).first():
                    self._write_builtins(own, db_id)
                own.commit()
                self.initialised_dbs.add(db_id)
            else:
                conn.write()
                self._write_builtins(conn, db_id)
        finally:
            own.close()
        self.meta.invalidate(db_id)

    def _write_builtins(self, conn: StoreConnection, db_id: int) -> None:
        t = self.t
        conn.execute(insert(t.dbinit).values(database_id=db_id))
        conn.execute(insert(t.message_types), [
            {"database_id": db_id, "message_type_id": mid, "name": name, "principal_id": None,
             "validation": v, "xml_collection_id": None, "schema_namespace": None,
             "is_system": True} for mid, name, v in SYSTEM_MESSAGE_TYPES])
        for cid, name, usages in _SYSTEM_CONTRACTS:
            conn.execute(insert(t.contracts).values(database_id=db_id, service_contract_id=cid,
                                                    name=name, principal_id=1))
            conn.execute(insert(t.contract_usages), [
                {"database_id": db_id, "service_contract_id": cid,
                 "message_type_id": SYSTEM_TYPE_IDS[tn], "is_sent_by_initiator": i,
                 "is_sent_by_target": tg} for tn, i, tg in usages])
        conn.execute(insert(t.routes).values(
            database_id=db_id, route_id=65536, name="AutoCreatedLocal", principal_id=1,
            remote_service_name=None, broker_instance=None, lifetime=None, address="LOCAL",
            mirror_address=None))

    def add_later_builtins(self, conn: StoreConnection, db_id: int) -> None:
        """Give a database whose built-ins an older version wrote the event-notification
        message type and contract (called by DDL, which writes)."""
        mt = self.t.message_types
        if conn.execute(select(mt.c.message_type_id).where(
                mt.c.database_id == db_id,
                mt.c.message_type_id == SYSTEM_TYPE_IDS[EVENT_NOTIFICATION])).first():
            return
        if not conn.execute(select(self.t.dbinit.c.database_id).where(
                self.t.dbinit.c.database_id == db_id)).first():
            return
        conn.execute(insert(mt).values(
            database_id=db_id, message_type_id=SYSTEM_TYPE_IDS[EVENT_NOTIFICATION],
            name=EVENT_NOTIFICATION, principal_id=None, validation="X", xml_collection_id=None,
            schema_namespace=None, is_system=True))
        cid, name, usages = _SYSTEM_CONTRACTS[0]
        conn.execute(insert(self.t.contracts).values(database_id=db_id, service_contract_id=cid,
                                                     name=name, principal_id=1))
        conn.execute(insert(self.t.contract_usages), [
            {"database_id": db_id, "service_contract_id": cid,
             "message_type_id": SYSTEM_TYPE_IDS[tn], "is_sent_by_initiator": i,
             "is_sent_by_target": tg} for tn, i, tg in usages])

    def _on_drop_database(self, conn: StoreConnection, db_id: int) -> None:
        """``DROP DATABASE``: remove every broker row of the database."""
        t = self.t
        for table in (t.message_types, t.contracts, t.contract_usages, t.queues, t.services,
                      t.service_contracts, t.routes, t.bindings, t.priorities, t.xml_schemas,
                      t.dbinit, t.conversations, t.groups, t.messages, t.transmission,
                      t.claims, t.waits, t.notifications):
            conn.execute(delete(table).where(table.c.database_id == db_id))
        # Not under _init_lock: an initialisation holding it may wait for the storage write
        # lock this transaction holds (a deadlock until the busy timeout). A set's discard
        # is atomic, and _init_database looks at the database again under the write lock.
        self.initialised_dbs.discard(db_id)
        self.meta.invalidate(db_id)

    # -- per-transaction state ----------------------------------------------------------------
    def txn_state(self, txn: Txn) -> TxnBrokerState:
        st = txn.state.get("broker")
        if st is None:
            st = TxnBrokerState()
            txn.state["broker"] = st
            txn.after_end(lambda committed, s=st, t=txn: self._txn_ended(s, t, committed))
        return st

    def _txn_ended(self, st: TxnBrokerState, txn: Txn, committed: bool) -> None:
        event = ("commit_receive" if committed else
                 "forced_rollback_receive" if txn.forced_rollback else "rollback_receive")
        for db_id, queue_id in st.received_queues:
            self.notify(event, db_id, queue_id)

    def claims_released(self, queues: list[tuple[int, int]]) -> None:
        """Published group claims on ``queues`` are gone: the other processes on the file
        look again (their waiters may have skipped those groups)."""
        if self.filewake is None:
            return
        for db_id, queue_id in queues:
            self.filewake.signal("l", db_id, queue_id)

    # -- listeners ----------------------------------------------------------------------------
    def add_queue_listener(self, fn: Listener) -> None:
        """Call ``fn(event, db_id, queue_id)`` on queue events: 'enqueued', 'received',
        'empty_receive', 'commit_receive', 'rollback_receive', 'forced_rollback_receive' (a
        transaction that received rolled back through no fault of its own: deadlock victim,
        lock timeout, lost connection, cancellation), 'altered', 'dropped'. Listeners must not raise
        (exceptions are logged and ignored) and must not block."""
        self._listeners.append(fn)

    def notify(self, event: str, db_id: int, queue_id: int) -> None:
        for fn in list(self._listeners):
            try:
                fn(event, db_id, queue_id)
            except Exception:  # a listener's bug must not break the session
                log.exception("broker queue listener failed")

    def enqueued_after_commit(self, txn: Txn, db_id: int, queue_id: int) -> None:
        """Wake waiters and tell listeners once ``txn`` commits (messages now visible);
        once per queue and transaction however many messages it enqueued."""
        seen: set[tuple[int, int]] = txn.state.setdefault("broker_enqueued", set())
        key = (db_id, queue_id)
        if key in seen:
            return
        seen.add(key)
        # Undone with the work (ROLLBACK TRAN to a savepoint, a retreating SEND): the hooks
        # below go with it, so a later enqueue registers them again.
        txn.on_undo(lambda: seen.discard(key))

        def fire() -> None:
            self.signals.bump(key)
            self.notify("enqueued", db_id, queue_id)
        txn.after_commit(fire)
        if txn.conn.backend.commit_notices:
            # Delivered to the other processes exactly when the messages become visible.
            txn.defer(notices.NotifyOp("e", db_id, queue_id, notices.commit_notices(txn)))
        # A savepoint rollback drops the hook: forget the queue so a later enqueue re-adds it.
        txn.on_undo(lambda: seen.discard(key))

    def _listening_again(self) -> None:
        """The listener lost its connection and has a new one: interest locks went with the
        interest connection's server session if the server restarted, and NOTIFYs of the
        outage are lost: declare the interest again and let every waiter look again."""
        if self.interest is None:
            return
        self.interest.restore()
        for key in self.interest.held():
            self.signals.bump(key)
            self.notify("enqueued", *key)

    def _remote_event(self, kind: str, db_id: int, queue_id: int) -> None:
        """An event NOTIFYed by another process sharing the PostgreSQL store."""
        if kind == "e":
            self.signals.bump((db_id, queue_id))
            self.notify("enqueued", db_id, queue_id)
        elif kind == "l":
            self.signals.bump((db_id, queue_id))
        elif kind == "m":
            # Broker metadata of the database changed (ALTER QUEUE …): reload it, and let
            # waiters and queue monitors look again.
            self.meta.invalidate(db_id)
            conn = self.store.connect()
            try:
                meta = self.meta.get(conn, db_id)
                queue_ids = list(meta.queues_by_id) if meta is not None else []
            finally:
                conn.close()
            for qid in queue_ids:
                self.signals.bump((db_id, qid))
                self.notify("altered", db_id, qid)

    # -- lookups ------------------------------------------------------------------------------
    def queue(self, conn: StoreConnection, db_id: int, schema: str | None, name: str
              ) -> QueueRow:
        meta = self.db(conn, db_id)
        q = meta.queues_by_name.get(((schema or "dbo").lower(), name.lower()))
        if q is None:
            raise tsql_error(208, name if schema is None else f"{schema}.{name}",
                             cls=BindError)
        return q

    def endpoint(self, conn: StoreConnection, db_id: int | None, handle: Any
                 ) -> Endpoint | None:
        """Endpoint ``handle`` (of database ``db_id`` unless None), or None."""
        try:
            key = uid(handle)
        except (ValueError, TypeError):
            return None
        ep = fetch_endpoint(conn, key)
        if ep is None or (db_id is not None and ep.database_id != db_id):
            return None
        return ep

    def schema_texts(self, conn: StoreConnection, db_id: int, collection_id: int | None,
                     namespace: str | None) -> list[str]:
        """The XSD texts of an XML schema collection (or of the schemas of ``namespace``),
        what a VALID_XML message is validated against."""
        x = self.t.xml_schemas
        if collection_id is not None:
            cond = x.c.xml_collection_id == collection_id
        else:
            cond = x.c.target_namespace == namespace
        return list(conn.execute(select(x.c.xsd).where(x.c.database_id == db_id, cond)
                                 .order_by(x.c.id)).scalars())

    def peer(self, conn: StoreConnection, ep: Endpoint) -> Endpoint | None:
        """The other endpoint of ``ep``'s conversation, if it exists."""
        return fetch_peer(conn, ep.conversation_id, 0 if ep.is_initiator else 1)
