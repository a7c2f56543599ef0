"""DDL of the broker's database objects: message types, XML schema collections, contracts,
queues and services (reference §1.1–§1.4).

Broker object names (message types, contracts, services) are compared byte for byte, as SQL
Server does (they live in a binary collation); queues are ordinary schema-scoped objects whose
names compare case-insensitively through the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from ...errors import BindError, broker_error, cannot, tsql_error
from ...storage.store import StoreConnection
from ...storage.txn import Txn
from .conversations import Conversations
from .delivery import Delivery
from .meta import DbMeta
from .model import (
    USER_ID_BASE,
    VALIDATION_CODES,
    ActivationSettings,
    QueueRow,
    utcnow,
)
from .state import BrokerState
from .validation import SchemaError, target_namespaces


def split_name(name: str) -> list[str]:
    """Split a (possibly bracketed or quoted) multi-part name: ``[a].b."c"`` → [a, b, c]."""
    parts = re.findall(r'\[((?:[^\]]|\]\])*)\]|"((?:[^"]|"")*)"|([^.\s]+)', name.strip())
    out = []
    for bracketed, quoted, bare in parts:
        out.append(bracketed.replace("]]", "]") if bracketed else
                   quoted.replace('""', '"') if quoted else bare)
    return out


# Broker securable classes with an owner (sys.database_permissions numbering).
OWNED_CLASSES = frozenset({15, 16, 17, 18, 19})


class Objects:
    """CREATE / ALTER / DROP of message types, schema collections, contracts, queues and
    services (a part of :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, conversations: Conversations, delivery: Delivery
                 ) -> None:
        self.state = state
        self.conversations = conversations
        self.delivery = delivery

    # -- helpers ------------------------------------------------------------------------------
    def ddl(self, txn: Txn, db_id: int) -> DbMeta:
        """Start a DDL statement on ``db_id``: metadata as this transaction sees it."""
        meta = self.state.db(txn.conn, db_id)
        txn.write()
        self.state.add_later_builtins(txn.conn, db_id)
        self.state.meta.changed(txn, db_id)
        return self.state.meta.get(txn.conn, db_id) or meta

    def _next_id(self, conn: StoreConnection, column: object, db_id: int) -> int:
        table = column.table  # type: ignore[attr-defined]
        top = conn.execute(select(func.max(column)).where(table.c.database_id == db_id)
                           ).scalar()
        return max(int(top or 0) + 1, USER_ID_BASE)

    # -- message types ------------------------------------------------------------------------
    def create_message_type(self, txn: Txn, db_id: int, name: str, validation: str = "NONE",
                            schema_collection: str | None = None,
                            schema_namespace: str | None = None,
                            owner: int | None = None) -> int:
        """``CREATE MESSAGE TYPE``; returns the new message_type_id; ``owner`` the owning
        principal's id (dbo when None). ``schema_namespace`` is
        the pre-release ``ENCODING XML WITH 'ns'`` form (validated against the schema
        registered for that targetNamespace)."""
        meta = self.ddl(txn, db_id)
        if name in meta.types_by_name:
            raise tsql_error(2714, name)
        code, coll_id = self._validation(txn.conn, db_id, validation, schema_collection)
        if schema_namespace:
            code = "X"
        conn = txn.conn
        mid = self._next_id(conn, self.state.t.message_types.c.message_type_id, db_id)
        conn.execute(insert(self.state.t.message_types).values(
            database_id=db_id, message_type_id=mid, name=name, principal_id=owner or 1,
            validation=code, xml_collection_id=coll_id, schema_namespace=schema_namespace,
            is_system=False))
        return mid

    def _validation(self, conn: StoreConnection, db_id: int, validation: str,
                    schema_collection: str | None) -> tuple[str, int | None]:
        key = validation.upper().replace(" ", "_")
        if key not in VALIDATION_CODES:
            raise tsql_error(102, validation, cls=BindError)
        if key != "VALID_XML":
            return VALIDATION_CODES[key], None
        if not schema_collection:
            raise tsql_error(102, "VALID_XML", cls=BindError)
        return "X", self._collection_id(conn, db_id, schema_collection)

    def alter_message_type(self, txn: Txn, db_id: int, name: str, validation: str | None = None,
                           schema_collection: str | None = None,
                           schema_namespace: str | None = None) -> None:
        """``ALTER MESSAGE TYPE … VALIDATION = …`` (queued messages are not re-checked)."""
        meta = self.ddl(txn, db_id)
        row = meta.types_by_name.get(name)
        if row is None or row.is_system:
            raise cannot("alter", "message type", name)
        values: dict[str, object] = {}
        if validation is not None:
            code, coll = self._validation(txn.conn, db_id, validation, schema_collection)
            values.update(validation=code, xml_collection_id=coll, schema_namespace=None)
        if schema_namespace is not None:
            values.update(validation="X", schema_namespace=schema_namespace)
        if values:
            mt = self.state.t.message_types
            txn.conn.execute(update(mt).where(mt.c.database_id == db_id,
                                              mt.c.message_type_id == row.message_type_id
                                              ).values(**values))

    def drop_message_type(self, txn: Txn, db_id: int, names: list[str] | str) -> None:
        """``DROP MESSAGE TYPE a [, b …]``: refused (Msg 3729) while a contract uses one."""
        meta = self.ddl(txn, db_id)
        for name in [names] if isinstance(names, str) else names:
            row = meta.types_by_name.get(name)
            if row is None or row.is_system:
                raise cannot("drop", "message type", name)
            for contract in meta.contracts_by_id.values():
                if row.message_type_id in contract.usages:
                    raise tsql_error(3729, "DROP MESSAGE TYPE", name, contract.name)
            mt = self.state.t.message_types
            txn.conn.execute(delete(mt).where(mt.c.database_id == db_id,
                                              mt.c.message_type_id == row.message_type_id))

    # -- XML schema collections ---------------------------------------------------------------
    def _collection_id(self, conn: StoreConnection, db_id: int, qualified: str) -> int:
        parts = split_name(qualified)
        schema, name = (parts[-2] if len(parts) > 1 else "dbo"), parts[-1]
        x = self.state.t.xml_schemas
        cid = conn.execute(select(x.c.xml_collection_id).where(
            x.c.database_id == db_id, func.lower(x.c.schema_name) == schema.lower(),
            func.lower(x.c.name) == name.lower())).scalar()
        if cid is None:
            raise tsql_error(15151, "XML schema collection", qualified, cls=BindError)
        return int(cid)

    def create_xml_schema_collection(self, txn: Txn, db_id: int, schema: str | None,
                                     name: str | None, xsd_text: str) -> int:
        """``CREATE XML SCHEMA COLLECTION [schema.]name AS '…'`` — or, with ``name`` None,
        the pre-release ``CREATE XMLSCHEMA '…'``, registered under its targetNamespace.
        Returns the xml_collection_id. An XSD that does not compile raises Msg 2378."""
        self.ddl(txn, db_id)
        try:
            namespaces = target_namespaces(xsd_text)
        except SchemaError as exc:
            raise tsql_error(2378, str(exc)) from None
        if name is None:
            name = (namespaces[0] or "")[:128] if namespaces else ""
        schema = schema or "dbo"
        conn = txn.conn
        x = self.state.t.xml_schemas
        clash = conn.execute(select(x.c.xml_collection_id).where(
            x.c.database_id == db_id, func.lower(x.c.schema_name) == schema.lower(),
            func.lower(x.c.name) == name.lower())).first()
        if clash is not None:
            raise tsql_error(2714, name)
        cid = self._next_id(conn, x.c.xml_collection_id, db_id)
        self._add_schema(conn, db_id, cid, schema, name, xsd_text, namespaces)
        return cid

    def _add_schema(self, conn: StoreConnection, db_id: int, cid: int, schema: str, name: str,
                    xsd_text: str, namespaces: list[str | None]) -> None:
        sid = self.state.catalog.schema_id(conn, db_id, schema)
        if sid is None:
            raise tsql_error(2760, schema, cls=BindError)
        conn.execute(insert(self.state.t.xml_schemas).values(
            database_id=db_id, xml_collection_id=cid, schema_id=sid, schema_name=schema,
            name=name, target_namespace=namespaces[0] if namespaces else None, xsd=xsd_text,
            create_date=utcnow()))

    def alter_xml_schema_collection(self, txn: Txn, db_id: int, schema: str | None, name: str,
                                    xsd_text: str) -> None:
        """``ALTER XML SCHEMA COLLECTION … ADD '…'``."""
        self.ddl(txn, db_id)
        cid = self._collection_id(txn.conn, db_id, f"[{schema or 'dbo'}].[{name}]")
        try:
            namespaces = target_namespaces(xsd_text)
        except SchemaError as exc:
            raise tsql_error(2378, str(exc)) from None
        self._add_schema(txn.conn, db_id, cid, schema or "dbo", name, xsd_text, namespaces)

    def drop_xml_schema_collection(self, txn: Txn, db_id: int, schema: str | None, name: str
                                   ) -> int:
        """``DROP XML SCHEMA COLLECTION``: refused while a message type validates with it;
        the dropped collection's id."""
        meta = self.ddl(txn, db_id)
        cid = self._collection_id(txn.conn, db_id, f"[{schema or 'dbo'}].[{name}]")
        for mt in meta.types_by_id.values():
            if mt.xml_collection_id == cid:
                raise tsql_error(3729, "DROP XML SCHEMA COLLECTION", name, mt.name)
        x = self.state.t.xml_schemas
        txn.conn.execute(delete(x).where(x.c.database_id == db_id,
                                         x.c.xml_collection_id == cid))
        return cid

    # -- contracts ----------------------------------------------------------------------------
    def create_contract(self, txn: Txn, db_id: int, name: str,
                        usages: Iterable[tuple[str, str]], owner: int | None = None) -> int:
        """``CREATE CONTRACT name [AUTHORIZATION owner] (type SENT BY …, …)`` (``owner``: a
        principal id, dbo when None). Msg 2714 for a
        taken name, 8403 for a repeated type, 15151 for an unknown type (SQL Server's number
        for a missing object in DDL), 8492 if nothing is sent by the initiator."""
        meta = self.ddl(txn, db_id)
        if name in meta.contracts_by_name:
            raise tsql_error(2714, name)
        rows: dict[int, tuple[bool, bool]] = {}
        for type_name, sent_by in usages:
            mt = meta.types_by_name.get(type_name)
            if mt is None:
                raise tsql_error(15151, "message type", type_name, cls=BindError)
            if mt.message_type_id in rows:
                raise broker_error(8403, type_name)
            who = sent_by.upper()
            rows[mt.message_type_id] = (who in ("INITIATOR", "ANY"), who in ("TARGET", "ANY"))
        if not any(by_init for by_init, _t in rows.values()):
            raise broker_error(8492, name)
        conn = txn.conn
        cid = self._next_id(conn, self.state.t.contracts.c.service_contract_id, db_id)
        conn.execute(insert(self.state.t.contracts).values(
            database_id=db_id, service_contract_id=cid, name=name, principal_id=owner or 1))
        conn.execute(insert(self.state.t.contract_usages), [
            {"database_id": db_id, "service_contract_id": cid, "message_type_id": mid,
             "is_sent_by_initiator": i, "is_sent_by_target": tg}
            for mid, (i, tg) in rows.items()])
        return cid

    def drop_contract(self, txn: Txn, db_id: int, names: list[str] | str) -> None:
        """``DROP CONTRACT a [, b …]``: refused (3729) while a service or priority uses it;
        conversations on it end, their far sides get Error -8487."""
        meta = self.ddl(txn, db_id)
        conn = txn.conn
        for name in [names] if isinstance(names, str) else names:
            row = meta.contracts_by_name.get(name)
            if row is None or row.service_contract_id < USER_ID_BASE:
                raise cannot("drop", "contract", name)
            for svc in meta.services_by_id.values():
                if row.service_contract_id in svc.contract_ids:
                    raise tsql_error(3729, "DROP CONTRACT", name, svc.name)
            p = self.state.t.priorities
            prio = conn.execute(select(p.c.name).where(
                p.c.database_id == db_id,
                p.c.service_contract_id == row.service_contract_id)).scalar()
            if prio is not None:
                raise tsql_error(3729, "DROP CONTRACT", name, prio)
            self.conversations.drop_contract_conversations(txn, db_id, row.service_contract_id)
            for table in (self.state.t.contracts, self.state.t.contract_usages):
                conn.execute(delete(table).where(
                    table.c.database_id == db_id,
                    table.c.service_contract_id == row.service_contract_id))

    # -- queues -------------------------------------------------------------------------------
    def _activation_proc(self, conn: StoreConnection, db_id: int, meta: DbMeta,
                         proc: str | None) -> str | None:
        if not proc:
            return None
        parts = split_name(proc)
        if parts and parts[-1].startswith("#"):
            raise broker_error(9742, proc)
        name = parts[-1]
        schema = parts[-2] if len(parts) > 1 and parts[-2] else "dbo"
        db = parts[-3] if len(parts) > 2 else meta.name
        return f"[{db}].[{schema}].[{name}]"

    def create_queue(self, txn: Txn, db_id: int, schema: str | None, name: str, *,
                     status: bool = True, retention: bool = False,
                     activation: ActivationSettings | None = None,
                     poison_message_handling: bool = True) -> int:
        """``CREATE QUEUE``; returns the queue's object id (Msg 2714 if the name is taken)."""
        meta = self.ddl(txn, db_id)
        if name.startswith("#"):
            raise tsql_error(2714, name)
        conn = txn.conn
        object_id = self.state.catalog.create_object(conn, db_id, schema or "dbo", name, "SQ")
        obj = self.state.catalog.object_by_id(conn, db_id, object_id)
        act = activation or ActivationSettings()
        now = utcnow()
        conn.execute(insert(self.state.t.queues).values(
            object_id=object_id, database_id=db_id,
            schema_id=obj.schema_id if obj else 1,
            schema_name=obj.schema_name if obj else (schema or "dbo"), name=name,
            is_receive_enabled=status, is_enqueue_enabled=status,
            is_retention_enabled=retention,
            is_activation_enabled=bool(activation is not None and act.status is not False
                                       and act.procedure_name),
            activation_procedure=self._activation_proc(conn, db_id, meta, act.procedure_name),
            max_readers=act.max_queue_readers or 0,
            execute_as=(act.execute_as or None),
            is_poison_message_handling_enabled=poison_message_handling,
            create_date=now, modify_date=now))
        return object_id

    def alter_queue(self, txn: Txn, db_id: int, schema: str | None, name: str, *,
                    status: bool | None = None, retention: bool | None = None,
                    activation: ActivationSettings | None = None, activation_drop: bool = False,
                    poison_message_handling: bool | None = None) -> None:
        """``ALTER QUEUE … WITH …``. Unspecified settings stay. STATUS = ON again delivers
        the messages held for the queue's services in transmission queues (at commit).
        Listeners get 'altered' after commit."""
        meta = self.ddl(txn, db_id)
        q = self.state.queue(txn.conn, db_id, schema, name)
        values: dict[str, object] = {"modify_date": utcnow()}
        if status is not None:
            values.update(is_receive_enabled=status, is_enqueue_enabled=status)
        if retention is not None:
            values["is_retention_enabled"] = retention
        if poison_message_handling is not None:
            values["is_poison_message_handling_enabled"] = poison_message_handling
        if activation_drop:
            values.update(is_activation_enabled=False, activation_procedure=None,
                          max_readers=0, execute_as=None)
        elif activation is not None:
            if activation.procedure_name is not None:
                values["activation_procedure"] = self._activation_proc(
                    txn.conn, db_id, meta, activation.procedure_name)
            if activation.max_queue_readers is not None:
                values["max_readers"] = activation.max_queue_readers
            if activation.execute_as is not None:
                values["execute_as"] = activation.execute_as
            if activation.status is not None:
                values["is_activation_enabled"] = activation.status
            elif not q.activation_procedure and activation.procedure_name:
                values["is_activation_enabled"] = True
        qt = self.state.t.queues
        txn.conn.execute(update(qt).where(qt.c.object_id == q.object_id).values(**values))
        if status:
            self.delivery.defer_retry(txn, queue_key=(db_id, q.object_id))

        def altered(key: tuple[int, int] = (db_id, q.object_id)) -> None:
            self.state.signals.bump(key)
            self.state.notify("altered", *key)
        txn.after_commit(altered)

    def drop_queue(self, txn: Txn, db_id: int, schema: str | None, name: str) -> None:
        """``DROP QUEUE``: refused (3729) while a service uses it; its messages go."""
        meta = self.ddl(txn, db_id)
        q = self.state.queue(txn.conn, db_id, schema, name)
        for svc in meta.services_by_id.values():
            if svc.service_queue_id == q.object_id:
                raise tsql_error(3729, "DROP QUEUE", name, svc.name)
        conn = txn.conn
        m = self.state.t.messages
        conn.execute(delete(m).where(m.c.queue_id == q.object_id))
        qt = self.state.t.queues
        conn.execute(delete(qt).where(qt.c.object_id == q.object_id))
        self.state.catalog.drop_object(conn, db_id, q.object_id)

        def dropped(key: tuple[int, int] = (db_id, q.object_id)) -> None:
            self.state.signals.bump(key)
            self.state.notify("dropped", *key)
        txn.after_commit(dropped)

    def queue_info(self, conn: StoreConnection, db_id: int, queue_id: int) -> QueueRow:
        """The settings of queue ``queue_id`` (incl. activation); Msg 208 if it is gone."""
        meta = self.state.db(conn, db_id)
        q = meta.queues_by_id.get(queue_id)
        if q is None:
            raise tsql_error(208, str(queue_id), cls=BindError)
        return q

    def queues(self, conn: StoreConnection, db_id: int | None = None) -> list[QueueRow]:
        """Every queue (of one database, or of all), e.g. for the activation monitor."""
        self.state.ensure_schema(conn)
        qt = self.state.t.queues
        stmt = select(qt.c.database_id).distinct()
        dbs = [db_id] if db_id is not None else list(conn.execute(stmt).scalars())
        out: list[QueueRow] = []
        for d in dbs:
            out.extend(self.state.db(conn, d).queues_by_id.values())
        return out

    # -- services -----------------------------------------------------------------------------
    def _contract_ids(self, meta: DbMeta, names: Iterable[str]) -> list[int]:
        ids = []
        for cname in names:
            c = meta.contracts_by_name.get(cname)
            if c is None:
                raise tsql_error(15151, "contract", cname, cls=BindError)
            ids.append(c.service_contract_id)
        return ids

    def create_service(self, txn: Txn, db_id: int, name: str, queue_schema: str | None,
                       queue_name: str, contracts: Iterable[str] = (), owner: int | None = None,
                       retention: bool | None = None) -> int:
        """``CREATE SERVICE name [AUTHORIZATION owner] ON QUEUE q (contracts)``; returns the
        service id. ``owner``: the owning database principal's id (dbo when None). Messages
        held for this service name in transmission queues are delivered at commit."""
        meta = self.ddl(txn, db_id)
        if name in meta.services_by_name:
            raise tsql_error(2714, name)
        q = self.state.queue(txn.conn, db_id, queue_schema, queue_name)
        cids = self._contract_ids(meta, contracts)
        conn = txn.conn
        sid = self._next_id(conn, self.state.t.services.c.service_id, db_id)
        conn.execute(insert(self.state.t.services).values(
            database_id=db_id, service_id=sid, name=name, principal_id=owner or 1,
            service_queue_id=q.object_id))
        if cids:
            conn.execute(insert(self.state.t.service_contracts), [
                {"database_id": db_id, "service_id": sid, "service_contract_id": c}
                for c in dict.fromkeys(cids)])
        self.delivery.defer_retry(txn, to_service=name)
        return sid

    def alter_service(self, txn: Txn, db_id: int, name: str, queue_schema: str | None = None,
                      queue_name: str | None = None, add: Iterable[str] = (),
                      drop: Iterable[str] = ()) -> None:
        """``ALTER SERVICE``: move to another queue (with its messages) and/or add / drop
        contracts; Msg 8493 when nothing would change."""
        meta = self.ddl(txn, db_id)
        svc = meta.services_by_name.get(name)
        if svc is None:
            raise cannot("alter", "service", name)
        add_ids = self._contract_ids(meta, add)
        drop_ids = self._contract_ids(meta, drop)
        conn = txn.conn
        if queue_name is None and not add_ids and not drop_ids:
            raise broker_error(8493, name)
        sc = self.state.t.service_contracts
        for cid in drop_ids:
            conn.execute(delete(sc).where(sc.c.database_id == db_id, sc.c.service_id ==
                                          svc.service_id, sc.c.service_contract_id == cid))
        for cid in dict.fromkeys(add_ids):
            if cid not in svc.contract_ids:
                conn.execute(insert(sc).values(database_id=db_id, service_id=svc.service_id,
                                               service_contract_id=cid))
        if queue_name is not None:
            q = self.state.queue(conn, db_id, queue_schema, queue_name)
            if q.object_id != svc.service_queue_id:
                t = self.state.t
                s, m, c, g = t.services, t.messages, t.conversations, t.groups
                conn.execute(update(s).where(s.c.database_id == db_id,
                                             s.c.service_id == svc.service_id)
                             .values(service_queue_id=q.object_id))
                conn.execute(update(m).where(m.c.database_id == db_id,
                                             m.c.service_id == svc.service_id)
                             .values(queue_id=q.object_id))
                conn.execute(update(c).where(c.c.database_id == db_id,
                                             c.c.service_id == svc.service_id)
                             .values(queue_id=q.object_id))
                conn.execute(update(g).where(g.c.database_id == db_id,
                                             g.c.service_id == svc.service_id)
                             .values(queue_id=q.object_id))
                self.state.enqueued_after_commit(txn, db_id, q.object_id)
                self.delivery.defer_retry(txn, to_service=name)

    def _owned_table(self, class_: int) -> tuple[Any, str]:
        """The table and id column of the broker securable class ``class_`` (15 message
        types, 16 contracts, 17 services, 18 remote service bindings, 19 routes)."""
        t = self.state.t
        return {15: (t.message_types, "message_type_id"),
                16: (t.contracts, "service_contract_id"), 17: (t.services, "service_id"),
                18: (t.bindings, "remote_service_binding_id"), 19: (t.routes, "route_id")
                }[class_]

    def securable_owner(self, conn: StoreConnection, db_id: int, class_: int,
                        major_id: int) -> int | None:
        """The owner's principal id of the broker securable (class, id), or None."""
        if class_ not in OWNED_CLASSES:
            return None
        self.state.ensure_schema(conn)
        table, id_col = self._owned_table(class_)
        value = conn.execute(select(table.c.principal_id).where(
            table.c.database_id == db_id, table.c[id_col] == major_id)).scalar()
        return None if value is None else int(value)

    def owned_by(self, conn: StoreConnection, db_id: int, principal_id: int) -> str | None:
        """The kind of broker securable ``principal_id`` owns in ``db_id`` ("message type",
        "contract", "service", "remote service binding", "route"), or None: DROP USER
        refuses such an owner (Msg 15138)."""
        self.state.ensure_schema(conn)
        for class_, kind in ((15, "message type"), (16, "contract"), (17, "service"),
                             (18, "remote service binding"), (19, "route")):
            table, _id = self._owned_table(class_)
            if conn.execute(select(table.c.principal_id).where(
                    table.c.database_id == db_id, table.c.principal_id == principal_id)
                    ).first() is not None:
                return kind
        return None

    def alter_owner(self, txn: Txn, db_id: int, class_: int, major_id: int, owner: int
                    ) -> None:
        """``ALTER AUTHORIZATION ON <class>::name TO owner`` (its principal id) of the
        broker securable (class, id)."""
        self.ddl(txn, db_id)
        table, id_col = self._owned_table(class_)
        txn.conn.execute(update(table).where(table.c.database_id == db_id,
                                             table.c[id_col] == major_id)
                         .values(principal_id=owner))

    def drop_service(self, txn: Txn, db_id: int, name: str) -> None:
        """``DROP SERVICE``: its messages leave its queue; the far side of each open
        conversation gets an Error (-8470 "Remote service has been dropped.")."""
        meta = self.ddl(txn, db_id)
        svc = meta.services_by_name.get(name)
        if svc is None:
            raise cannot("drop", "service", name)
        conn = txn.conn
        p = self.state.t.priorities
        prio = conn.execute(select(p.c.name).where(
            p.c.database_id == db_id, p.c.local_service_id == svc.service_id)).scalar()
        if prio is not None:
            raise tsql_error(3729, "DROP SERVICE", name, prio)
        self.conversations.drop_service_conversations(txn, db_id, svc.service_id)
        s, sc = self.state.t.services, self.state.t.service_contracts
        conn.execute(delete(sc).where(sc.c.database_id == db_id,
                                      sc.c.service_id == svc.service_id))
        conn.execute(delete(s).where(s.c.database_id == db_id,
                                     s.c.service_id == svc.service_id))


__all__ = ["Objects", "split_name"]
