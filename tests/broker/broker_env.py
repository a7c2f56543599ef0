"""Helpers of the Service Broker engine tests: a store with its catalog and broker, and a
database with an initiator / target pair of services ready for dialogs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.storage.store import Store, StoreConnection
from tsqlbroker.storage.txn import Txn

T = TypeVar("T")

REQ = "//test/req"
RESP = "//test/resp"
CONTRACT = "//test/contract"
INIT_SVC = "//test/Initiator"
TARGET_SVC = "//test/Target"


@dataclass
class Env:
    """A store with a broker and helpers to run work in committed transactions."""

    store: Store
    catalog: Catalog
    broker: Broker
    conn: StoreConnection

    def run(self, fn: Callable[[Txn], T], conn: StoreConnection | None = None) -> T:
        """Run ``fn(txn)`` in a new transaction and commit it (rolled back on error)."""
        txn = Txn(conn or self.conn)
        try:
            result = fn(txn)
        except BaseException:
            txn.rollback()
            raise
        txn.commit()
        return result

    def new_db(self, name: str) -> int:
        return self.run(lambda t: self.catalog.create_database(t.conn, name))

    def setup_pair(self, db: int, *, target_db: int | None = None, retention: bool = False,
                   req_validation: str = "NONE") -> None:
        """Message types, contract, queues InitQ/TargQ and services in ``db`` (the target
        side in ``target_db`` when given)."""
        tdb = db if target_db is None else target_db

        def objects(t: Txn, d: int) -> None:
            self.broker.create_message_type(t, d, REQ, req_validation)
            self.broker.create_message_type(t, d, RESP, "NONE")
            self.broker.create_contract(t, d, CONTRACT, [(REQ, "INITIATOR"),
                                                         (RESP, "TARGET")])

        def build(t: Txn) -> None:
            objects(t, db)
            if tdb != db:
                objects(t, tdb)
            self.broker.create_queue(t, db, None, "InitQ", retention=retention)
            self.broker.create_queue(t, tdb, None, "TargQ")
            self.broker.create_service(t, db, INIT_SVC, None, "InitQ", [])
            self.broker.create_service(t, tdb, TARGET_SVC, None, "TargQ", [CONTRACT])
        self.run(build)

    def dialog(self, db: int, **kw: Any) -> Any:
        return self.run(lambda t: self.broker.begin_dialog(
            t, db, INIT_SVC, TARGET_SVC, contract=CONTRACT, **kw))

    def send(self, db: int, handle: Any, mtype: str | None, body: bytes | None) -> None:
        self.run(lambda t: self.broker.send(t, db, [handle], mtype, body, body is not None))

    def receive(self, db: int, queue: str, **kw: Any) -> list[dict[str, Any]]:
        rs = self.run(lambda t: self.broker.receive(t, db, None, queue, **kw))
        return [dict(zip(rs.columns, row, strict=True)) for row in rs.rows]

    def sql(self, text: str, conn: StoreConnection | None = None) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in (conn or self.conn).exec_driver_sql(text).fetchall()]

    def endpoints(self, db: int) -> dict[int, tuple[str, str]]:
        """is_initiator → (handle, state) of every endpoint in ``db``."""
        rows = self.sql("SELECT is_initiator, conversation_handle, state FROM "
                        f"tsqlb_sb_conversation_endpoints WHERE database_id = {db}")
        return {r[0]: (r[1], r[2]) for r in rows}
