"""The catalog: databases, schemas and schema-scoped objects of every T-SQL database.

One backend store holds many T-SQL databases. The catalog keeps them in the system tables of
``systables.py`` (created on first use, idempotently, also in an existing file) and answers the
questions the interpreter, the DML layer and the Service Broker ask: does this database exist,
what is its broker GUID, is there an object ``dbo.x`` of type ``U``, what is object 245575913.

Every method takes the caller's :class:`~tsqlbroker.storage.store.StoreConnection` so that it
joins the caller's storage transaction; writers call ``conn.write()`` first, so a
``CREATE TABLE`` inside ``BEGIN TRAN`` is rolled back with it. Names compare
case-insensitively (SQL Server's default collation) through lower-cased key columns.

On PostgreSQL the system tables live in the store's *home* schema (the first schema of the
connection's ``search_path``) and each T-SQL database has a backend schema of its own for its
user tables (``naming.database_schema_name``), created and dropped with the database in the
caller's transaction. A store made before that layout (user tables in the home schema, no
layout mark) keeps working the old way: :meth:`Catalog.database_schema` is then None.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, and_, delete, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from ..errors import BindError, tsql_error
from ..storage.naming import database_schema_name, qualified_name, quote_ident
from ..storage.schema_stamp import STAMP_PREFIX, fingerprint
from ..storage.store import Store, StoreConnection
from .systables import SystemTables, system_tables

MASTER, TEMPDB, MODEL, MSDB = 1, 2, 3, 4
FIRST_USER_DATABASE_ID = 5

# (id, name, is_broker_enabled) as a fresh SQL Server instance has them.
_SYSTEM_DATABASES = ((MASTER, "master", False), (TEMPDB, "tempdb", True),
                     (MODEL, "model", False), (MSDB, "msdb", True))
# The schemas every database starts with, with SQL Server's schema ids.
_BUILTIN_SCHEMAS = ((1, "dbo"), (2, "guest"), (3, "INFORMATION_SCHEMA"), (4, "sys"))
FIRST_USER_SCHEMA_ID = 5

TYPE_DESC: dict[str, str] = {
    "U": "USER_TABLE", "V": "VIEW", "P": "SQL_STORED_PROCEDURE", "FN": "SQL_SCALAR_FUNCTION",
    "IF": "SQL_INLINE_TABLE_VALUED_FUNCTION", "TF": "SQL_TABLE_VALUED_FUNCTION",
    "TR": "SQL_TRIGGER", "SQ": "SERVICE_QUEUE", "IT": "INTERNAL_TABLE", "S": "SYSTEM_TABLE",
    "PK": "PRIMARY_KEY_CONSTRAINT", "UQ": "UNIQUE_CONSTRAINT", "F": "FOREIGN_KEY_CONSTRAINT",
    "C": "CHECK_CONSTRAINT", "D": "DEFAULT_CONSTRAINT", "TT": "TYPE_TABLE",
    "SO": "SEQUENCE_OBJECT", "SN": "SYNONYM",
}

# The columns of sys.objects, which the views of kinds of objects begin with.
OBJECT_COLUMNS: list[tuple[str, str | None]] = [
    ("name", "sysname"), ("object_id", "int"), ("principal_id", "int"), ("schema_id", "int"),
    ("parent_object_id", "int"), ("type", "char(2)"), ("type_desc", "nvarchar(60)"),
    ("create_date", "datetime"), ("modify_date", "datetime"), ("is_ms_shipped", "bit"),
    ("is_published", "bit"), ("is_schema_published", "bit"),
]

# Object ids: deterministic, shaped like SQL Server's (which step by 16000057 from a start
# such as 245575913), unique in the whole store, always above 100.
_OBJECT_ID_START = 245575913
_OBJECT_ID_STEP = 16000057
_OBJECT_ID_MOD = 2_147_483_647
_TOKEN_SQL = "SELECT value FROM tsqlb_counters WHERE name = 'catalog_version'"
# Counter row marking a PostgreSQL store whose T-SQL databases have backend schemas of their
# own. Stores made before it keep their user tables in the home schema and are not moved.
_LAYOUT_MARK = "pg_database_schemas"
# The stamp of what ensure_schema sets up: the tables then defined and the backend's objects.
_CATALOG_STAMP = STAMP_PREFIX + "catalog"


@dataclass(frozen=True)
class DatabaseRow:
    """One row of ``sys.databases`` (the columns the engine keeps)."""

    database_id: int
    name: str
    service_broker_guid: uuid.UUID
    is_broker_enabled: bool
    is_honor_broker_priority_on: bool
    is_trustworthy_on: bool
    create_date: datetime


@dataclass(frozen=True)
class ObjectRow:
    """One schema-scoped object, as ``sys.objects`` shows it (plus its module definition)."""

    object_id: int
    database_id: int
    schema_name: str
    name: str
    type: str
    type_desc: str
    parent_object_id: int
    create_date: datetime
    modify_date: datetime
    definition: str | None
    schema_id: int = 1
    physical_name: str | None = None
    detail: str | None = None
    session_id: int | None = None


DropHook = Callable[[StoreConnection, int], None]
# (conn, database_id, object_id) of an object being dropped.
ObjectDropHook = Callable[[StoreConnection, int, int], None]


class Catalog:
    """The catalog of one store. Obtain it with :meth:`Catalog.get`; it holds no row cache,
    so several processes sharing one backend see each other's changes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.t: SystemTables = system_tables(store.metadata)
        self._ready = False
        self._drop_hooks: list[DropHook] = []
        self._object_drop_hooks: list[ObjectDropHook] = []
        # Lookups cached per catalog *version token*: every catalog write stores a fresh
        # random token in the same transaction, so a reader sees the token of the state it
        # reads (its own uncommitted one included) and a rolled-back token never returns.
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._cache_lock = threading.Lock()
        # PostgreSQL: the store's home schema and whether each database has its own schema.
        self.home_schema: str | None = None
        self.database_schemas = False
        # Stamps of the store's parts as read at start or written since (schema_stamp.py):
        # a stamp that matches stays true (the engine never drops its tables).
        self._stamps: dict[str, int] = {}
        # User tables declare text columns COLLATE TSQL_CI: every connection needs it.
        store.backend.connect_hook(store)

    @classmethod
    def get(cls, store: Store) -> Catalog:
        """The one catalog of ``store``."""
        catalog: Catalog = store.extension("catalog", cls)
        return catalog

    # -- setup --------------------------------------------------------------------------------
    def ensure_schema(self, conn: StoreConnection) -> None:
        """Create the system tables and the system databases (master, tempdb, model, msdb)
        unless they exist. Cheap after the first call; on a store stamped by this code
        (``storage/schema_stamp.py``) the first call is one query."""
        conn.backend.prepare_connection(conn)
        if self._ready:
            return
        if self._stamped(conn):
            self._ready = True
            return
        tables = list(self.store.metadata.sorted_tables)
        with write_transaction(conn) as opened:
            lock_schema(conn)
            self.store.metadata.create_all(conn.conn, tables=tables, checkfirst=True)
            conn.backend.install_schema_objects(conn)
            present = {r[0] for r in conn.execute(select(self.t.databases.c.database_id))}
            for db_id, name, broker in _SYSTEM_DATABASES:
                if db_id not in present:
                    self._insert_database(conn, db_id, name, broker)
            if conn.backend.schemas_per_database:
                self._init_layout(conn)
            stamp = fingerprint(tables, conn.backend.schema_objects_source())
            self._write_stamp(conn, _CATALOG_STAMP, stamp)
        # Only a committed setup is known to stay; a caller's transaction may roll back.
        self._ready = opened
        if opened:
            self._stamps[_CATALOG_STAMP] = stamp

    def _stamped(self, conn: StoreConnection) -> bool:
        """Whether the store was set up by this code (its catalog stamp is this code's
        fingerprint of the tables ``ensure_schema`` would create and of the backend's
        objects): then nothing needs checking. One query, which also reads the other parts'
        stamps (:meth:`create_tables`) and, on PostgreSQL, the layout and home schema."""
        if conn.in_write_txn:
            return False        # a failed read would doom the caller's PostgreSQL transaction
        c = self.t.counters
        columns: list[Any] = [c.c.name, c.c.value]
        if conn.backend.schemas_per_database:
            columns.append(func.current_schema())
        query = select(*columns).where(
            c.c.name.startswith(STAMP_PREFIX, autoescape=True) | (c.c.name == _LAYOUT_MARK))
        try:
            rows = conn.execute(query).all()
        except DBAPIError:
            return False        # no catalog yet: a new store
        values = {str(r[0]): int(r[1]) for r in rows}
        self._stamps.update((k, v) for k, v in values.items() if k.startswith(STAMP_PREFIX))
        tables = self.store.metadata.sorted_tables
        if values.get(_CATALOG_STAMP) != fingerprint(
                tables, conn.backend.schema_objects_source()):
            return False
        if conn.backend.schemas_per_database:
            if _LAYOUT_MARK not in values:
                return False    # a store made before schemas per database: _init_layout
            self.home_schema = str(rows[0][2] or "public")
            self.database_schemas = True
        return True

    def _write_stamp(self, conn: StoreConnection, name: str, value: int) -> None:
        """Record that part ``name`` of the store is set up as ``value`` says (in the
        setting-up transaction, under the schema lock)."""
        c = self.t.counters
        done = conn.execute(update(c).where(c.c.name == name).values(value=value))
        if done.rowcount == 0:
            conn.execute(insert(c).values(name=name, value=value))

    def create_tables(self, conn: StoreConnection, tables: list[Table]) -> bool:
        """Create ``tables`` (after the catalog's own) unless they exist: in the caller's
        write transaction, or outside one in a transaction committed here. True when they
        are known to stay (committed here or stamped before; a caller's transaction may
        still roll back). ``tables`` are one part of the store, stamped under the name of
        the first (``storage/schema_stamp.py``): when the stamp read at start matches,
        nothing is checked."""
        self.ensure_schema(conn)
        name = STAMP_PREFIX + tables[0].name
        stamp = fingerprint(tables)
        if self._stamps.get(name) == stamp:
            return True
        with write_transaction(conn) as opened:
            lock_schema(conn)
            self.store.metadata.create_all(conn.conn, tables=tables, checkfirst=True)
            self._write_stamp(conn, name, stamp)
        if opened:
            self._stamps[name] = stamp
        return opened

    def _init_layout(self, conn: StoreConnection) -> None:
        """Find the home schema and decide the layout: a store already marked, or one with
        no user table yet (new, or made before and still empty), gets a schema per database
        (created here for the databases that exist); an unmarked store with user tables was
        made by an older version and keeps them in the home schema."""
        home = conn.exec_driver_sql("SELECT current_schema()").scalar()
        self.home_schema = str(home or "public")
        c, o = self.t.counters, self.t.objects
        if conn.execute(select(c.c.value).where(c.c.name == _LAYOUT_MARK)).first() is None:
            legacy = conn.execute(select(o.c.object_id).where(
                o.c.physical_name.is_not(None), o.c.session_id.is_(None)).limit(1)).first()
            if legacy is not None:
                self.database_schemas = False
                return
            conn.execute(insert(c).values(name=_LAYOUT_MARK, value=1))
            d = self.t.databases
            for db_id, name in conn.execute(select(d.c.database_id, d.c.name)).all():
                schema = database_schema_name(self.home_schema, int(db_id), name)
                conn.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
        self.database_schemas = True

    def database_schema(self, conn: StoreConnection, db_id: int) -> str | None:
        """The backend schema holding database ``db_id``'s user tables, or None when they
        live in the home schema (SQLite; PostgreSQL stores made before schemas per
        database)."""
        self.ensure_schema(conn)
        if not self.database_schemas or self.home_schema is None:
            return None
        row = self.database(conn, db_id)
        if row is None:
            return None
        return database_schema_name(self.home_schema, db_id, row.name)

    def table_schema(self, conn: StoreConnection, obj: ObjectRow) -> str | None:
        """The backend schema of table object ``obj``: temp tables and table variables
        (session-owned) stay in the home schema (None), others are in their database's."""
        if obj.session_id is not None:
            return None
        return self.database_schema(conn, obj.database_id)

    def _insert_database(self, conn: StoreConnection, db_id: int, name: str,
                         broker: bool) -> None:
        conn.execute(insert(self.t.databases).values(
            database_id=db_id, name=name, name_key=name.lower(),
            service_broker_guid=str(uuid.uuid4()).upper(), is_broker_enabled=broker,
            is_honor_broker_priority_on=False, is_trustworthy_on=db_id == MSDB,
            create_date=datetime.now()))
        for schema_id, schema in _BUILTIN_SCHEMAS:
            conn.execute(insert(self.t.schemas).values(
                database_id=db_id, schema_id=schema_id, name=schema, name_key=schema.lower()))

    # -- lookup cache -------------------------------------------------------------------------
    def _token(self, conn: StoreConnection) -> int | None:
        row = conn.backend.read_row(conn, _TOKEN_SQL)     # read on every lookup
        return None if row is None else int(row[0])

    def version(self, conn: StoreConnection) -> int | None:
        """The catalog's version token as ``conn`` sees it (its own uncommitted changes
        included): it changes with every catalog write (CREATE / ALTER / DROP, in any
        session or process sharing the store), so caches keyed on it stay correct. None
        before the first change."""
        return self._token(conn)

    def _changed(self, conn: StoreConnection) -> None:
        """Record a catalog change (call inside the writing transaction)."""
        token = secrets.randbits(62)
        c = self.t.counters
        done = conn.execute(update(c).where(c.c.name == "catalog_version").values(value=token))
        if done.rowcount == 0:
            conn.execute(insert(c).values(name="catalog_version", value=token))

    def _cached(self, conn: StoreConnection, key: tuple[Any, ...], fn: Callable[[], Any]
                ) -> Any:
        token = self._token(conn)
        if token is None:
            return fn()
        full = (token, *key)
        with self._cache_lock:
            if full in self._cache:
                return self._cache[full]
        value = fn()
        with self._cache_lock:
            if len(self._cache) > 20000:
                self._cache.clear()
            self._cache[full] = value
        return value

    # -- databases ----------------------------------------------------------------------------
    def create_database(self, conn: StoreConnection, name: str) -> int:
        """``CREATE DATABASE name``: Msg 1801 if it exists. The new database gets a fresh
        ``service_broker_guid`` and, as a documented choice of this implementation, an
        enabled broker (SQL Server copies ``model``, whose broker is off)."""
        self.ensure_schema(conn)
        if self.database_id(conn, name) is not None:
            raise tsql_error(1801, name)
        conn.write()
        top = conn.execute(select(func.max(self.t.databases.c.database_id))).scalar() or 0
        db_id = max(top + 1, FIRST_USER_DATABASE_ID)
        self._insert_database(conn, db_id, name, True)
        if self.database_schemas and self.home_schema is not None:
            schema = database_schema_name(self.home_schema, db_id, name)
            conn.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
        self._changed(conn)
        return db_id

    def drop_database(self, conn: StoreConnection, name: str) -> None:
        """``DROP DATABASE name``: Msg 3701 if it does not exist; system databases cannot be
        dropped (Msg 3708). Drops its tables and objects and runs the registered drop hooks
        (the broker removes its rows) first."""
        self.ensure_schema(conn)
        row = self.database(conn, name)
        if row is None:
            raise tsql_error(3701, "database", name, cls=BindError)
        if row.database_id < FIRST_USER_DATABASE_ID:
            raise tsql_error(3708, "drop", "database", row.name, "database")
        conn.write()
        for hook in list(self._drop_hooks):
            hook(conn, row.database_id)
        o = self.t.objects
        schema = self.database_schema(conn, row.database_id)
        if schema is not None:
            # Its tables (and their indexes) go with the schema.
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {quote_ident(schema)} CASCADE")
        else:
            physical = conn.execute(select(o.c.physical_name).where(
                o.c.database_id == row.database_id, o.c.physical_name.is_not(None))
            ).scalars().all()
            for table_name in physical:
                conn.exec_driver_sql(f"DROP TABLE IF EXISTS {quote_ident(table_name)}")
        ids = select(o.c.object_id).where(o.c.database_id == row.database_id)
        conn.execute(delete(self.t.columns).where(self.t.columns.c.object_id.in_(ids)))
        conn.execute(delete(o).where(o.c.database_id == row.database_id))
        conn.execute(delete(self.t.schemas).where(
            self.t.schemas.c.database_id == row.database_id))
        conn.execute(delete(self.t.databases).where(
            self.t.databases.c.database_id == row.database_id))
        self._changed(conn)

    def on_drop_database(self, hook: DropHook) -> None:
        """Call ``hook(conn, database_id)`` inside ``DROP DATABASE``, before its rows go."""
        self._drop_hooks.append(hook)

    def on_drop_object(self, hook: ObjectDropHook) -> None:
        """Call ``hook(conn, database_id, object_id)`` inside :meth:`drop_object` (for each
        child object too), before the object's rows go."""
        self._object_drop_hooks.append(hook)

    def database_id(self, conn: StoreConnection, name: str) -> int | None:
        """The id of database ``name`` (case-insensitive), or None."""
        self.ensure_schema(conn)
        d = self.t.databases

        def load() -> int | None:
            value = conn.execute(select(d.c.database_id).where(d.c.name_key == name.lower())
                                 ).scalar()
            return None if value is None else int(value)
        result: int | None = self._cached(conn, ("database_id", name.lower()), load)
        return result

    def database(self, conn: StoreConnection, db: int | str) -> DatabaseRow | None:
        """The ``sys.databases`` row of a database given by id or name, or None."""
        self.ensure_schema(conn)
        d = self.t.databases
        cond = d.c.database_id == db if isinstance(db, int) else d.c.name_key == db.lower()

        def load() -> DatabaseRow | None:
            row = conn.execute(select(d).where(cond)).mappings().first()
            return None if row is None else _database_row(row)
        key = db if isinstance(db, int) else db.lower()
        result: DatabaseRow | None = self._cached(conn, ("database", key), load)
        return result

    def databases(self, conn: StoreConnection) -> list[DatabaseRow]:
        """Every database, in id order."""
        self.ensure_schema(conn)
        d = self.t.databases
        return [_database_row(r) for r in
                conn.execute(select(d).order_by(d.c.database_id)).mappings()]

    def set_database_option(self, conn: StoreConnection, db_id: int, **values: Any) -> None:
        """``ALTER DATABASE … SET …``: ``is_broker_enabled``, ``service_broker_guid``,
        ``is_honor_broker_priority_on``, ``is_trustworthy_on``."""
        allowed = {"is_broker_enabled", "service_broker_guid", "is_honor_broker_priority_on",
                   "is_trustworthy_on"}
        unknown = set(values) - allowed
        if unknown:
            raise ValueError(f"unknown database option(s): {sorted(unknown)}")
        if "service_broker_guid" in values:
            values["service_broker_guid"] = str(values["service_broker_guid"]).upper()
        for key in allowed - {"service_broker_guid"}:
            if key in values:
                values[key] = bool(values[key])
        self.ensure_schema(conn)
        conn.write()
        d = self.t.databases
        conn.execute(update(d).where(d.c.database_id == db_id).values(**values))
        self._changed(conn)

    # -- schemas ------------------------------------------------------------------------------
    def schema_id(self, conn: StoreConnection, db_id: int, schema: str) -> int | None:
        """The id of ``schema`` in database ``db_id`` (case-insensitive), or None."""
        s = self.t.schemas

        def load() -> int | None:
            value = conn.execute(select(s.c.schema_id).where(
                s.c.database_id == db_id, s.c.name_key == schema.lower())).scalar()
            return None if value is None else int(value)
        result: int | None = self._cached(conn, ("schema", db_id, schema.lower()), load)
        return result

    def schemas(self, conn: StoreConnection, db_id: int) -> list[tuple[int, str]]:
        """``(schema_id, name)`` of every schema of database ``db_id``."""
        self.ensure_schema(conn)
        s = self.t.schemas
        return [(int(r[0]), str(r[1])) for r in conn.execute(
            select(s.c.schema_id, s.c.name).where(s.c.database_id == db_id)
            .order_by(s.c.schema_id))]

    def create_schema(self, conn: StoreConnection, db_id: int, name: str) -> int:
        """``CREATE SCHEMA name``: Msg 2714 if it exists."""
        self.ensure_schema(conn)
        if self.schema_id(conn, db_id, name) is not None:
            raise tsql_error(2714, name)
        conn.write()
        s = self.t.schemas
        top = conn.execute(select(func.max(s.c.schema_id)).where(s.c.database_id == db_id)
                           ).scalar() or 0
        schema_id = max(int(top) + 1, FIRST_USER_SCHEMA_ID)
        conn.execute(insert(s).values(database_id=db_id, schema_id=schema_id, name=name,
                                      name_key=name.lower()))
        self._changed(conn)
        return schema_id

    def drop_schema(self, conn: StoreConnection, db_id: int, name: str) -> bool:
        """``DROP SCHEMA name``: False when it does not exist; Msg 3708 for a built-in
        schema, Msg 3729 while an object is in it."""
        schema_id = self.schema_id(conn, db_id, name)
        if schema_id is None:
            return False
        if schema_id < FIRST_USER_SCHEMA_ID:
            raise tsql_error(3708, "drop", "schema", name, "schema")
        o = self.t.objects
        used = conn.execute(select(o.c.name).where(
            o.c.database_id == db_id, o.c.schema_id == schema_id, o.c.parent_object_id == 0,
            o.c.session_id.is_(None)).order_by(o.c.object_id).limit(1)).scalar()
        if used is not None:
            raise tsql_error(3729, "drop schema", name, used)
        conn.write()
        s = self.t.schemas
        conn.execute(delete(s).where(s.c.database_id == db_id, s.c.schema_id == schema_id))
        self._changed(conn)
        return True

    def transfer_object(self, conn: StoreConnection, object_id: int, schema: str) -> None:
        """``ALTER SCHEMA schema TRANSFER``: move object ``object_id`` and its child objects
        (constraints, indexes) into ``schema`` (Msg 15151 when it does not exist, Msg 15530
        when it already has an object of the name)."""
        row = self.object_by_id(conn, None, object_id)
        if row is None:
            return
        schema_id = self.schema_id(conn, row.database_id, schema)
        if schema_id is None:
            raise tsql_error(15151, "schema", schema)
        if schema_id == row.schema_id:
            return
        o = self.t.objects
        moving = [object_id, *conn.execute(select(o.c.object_id).where(
            o.c.parent_object_id == object_id)).scalars()]
        names = conn.execute(select(o.c.name_key).where(o.c.object_id.in_(moving))).scalars()
        clash = conn.execute(select(o.c.name).where(
            o.c.database_id == row.database_id, o.c.schema_id == schema_id,
            o.c.name_key.in_(list(names)))).scalar()
        if clash is not None:
            raise tsql_error(15530, clash)
        conn.write()
        schema_name = conn.execute(select(self.t.schemas.c.name).where(
            self.t.schemas.c.database_id == row.database_id,
            self.t.schemas.c.schema_id == schema_id)).scalar_one()
        conn.execute(update(o).where(o.c.object_id.in_(moving)).values(
            schema_id=schema_id, schema_name=schema_name))
        self._changed(conn)
        self.update_object(conn, object_id)

    # -- objects ------------------------------------------------------------------------------
    def create_object(self, conn: StoreConnection, db_id: int, schema: str | None, name: str,
                      type: str, *, definition: str | None = None,
                      parent_id: int | None = None, physical_name: str | None = None,
                      detail: str | None = None, session_id: int | None = None,
                      object_id: int | None = None) -> int:
        """Add an object of ``type`` (as in ``sys.objects``: U, V, P, FN, SQ, IT, PK …) named
        ``schema.name``; Msg 2714 if the schema already has an object of that name, Msg 2760
        if the schema does not exist. Returns the new, store-unique object id."""
        self.ensure_schema(conn)
        schema = schema or "dbo"
        schema_id = self.schema_id(conn, db_id, schema)
        if schema_id is None:
            raise tsql_error(2760, schema, cls=BindError)
        o = self.t.objects
        clash = conn.execute(select(o.c.object_id).where(
            o.c.database_id == db_id, o.c.schema_id == schema_id,
            o.c.name_key == name.lower())).first()
        if clash is not None:
            raise tsql_error(2714, name)
        conn.write()
        if object_id is None:
            object_id = self.next_object_id(conn)
        schema_name = conn.execute(select(self.t.schemas.c.name).where(
            self.t.schemas.c.database_id == db_id,
            self.t.schemas.c.schema_id == schema_id)).scalar_one()
        now = datetime.now()
        conn.execute(insert(o).values(
            object_id=object_id, database_id=db_id, schema_id=schema_id,
            schema_name=schema_name, name=name, name_key=name.lower(), type=type.upper(),
            parent_object_id=parent_id or 0, create_date=now, modify_date=now,
            definition=definition, detail=detail, physical_name=physical_name,
            session_id=session_id))
        self._changed(conn)
        return object_id

    def next_object_id(self, conn: StoreConnection) -> int:
        """Reserve the next deterministic object id (store-wide)."""
        conn.write()
        c = self.t.counters
        # Lock the counter's row before reading it: processes sharing a PostgreSQL store
        # (READ COMMITTED) would otherwise read the same value and hand out the same id.
        lock = update(c).where(c.c.name == "object_id").values(value=c.c.value)
        if conn.execute(lock).rowcount == 0:
            # The store's first id: another process may be adding the row right now (its
            # INSERT wins; ours waits for it, fails, and is undone to the savepoint).
            conn.savepoint("tsqlb_object_id")
            try:
                conn.execute(insert(c).values(name="object_id", value=0))
            except IntegrityError:
                conn.rollback_to("tsqlb_object_id")
                conn.execute(lock)
        n = conn.execute(select(c.c.value).where(c.c.name == "object_id")).scalar()
        o = self.t.objects
        while True:
            candidate = (_OBJECT_ID_START + int(n) * _OBJECT_ID_STEP) % _OBJECT_ID_MOD
            n = int(n) + 1
            if candidate <= 100:
                continue
            taken = conn.execute(select(o.c.object_id).where(o.c.object_id == candidate)
                                 ).first()
            if taken is None:
                break
        conn.execute(update(c).where(c.c.name == "object_id").values(value=n))
        return candidate

    def find_object(self, conn: StoreConnection, db_id: int, schema: str | None, name: str,
                    types: set[str] | None = None) -> ObjectRow | None:
        """The object ``schema.name`` (schema None → dbo) of database ``db_id``, optionally
        only of the given ``types``; None if there is none."""
        self.ensure_schema(conn)
        o = self.t.objects
        schema_id = self.schema_id(conn, db_id, schema or "dbo")
        if schema_id is None:
            return None
        conds = [o.c.database_id == db_id, o.c.schema_id == schema_id,
                 o.c.name_key == name.lower()]
        if types:
            conds.append(o.c.type.in_(sorted(t.upper() for t in types)))

        def load() -> ObjectRow | None:
            row = conn.execute(select(o).where(and_(*conds))).mappings().first()
            return None if row is None else _object_row(row)
        key = ("object", db_id, schema_id, name.lower(), tuple(sorted(types or ())))
        result: ObjectRow | None = self._cached(conn, key, load)
        return result

    def object_by_id(self, conn: StoreConnection, db_id: int | None, object_id: int
                     ) -> ObjectRow | None:
        """Object ``object_id`` (in database ``db_id`` unless that is None), or None."""
        self.ensure_schema(conn)
        o = self.t.objects
        conds = [o.c.object_id == object_id]
        if db_id is not None:
            conds.append(o.c.database_id == db_id)

        def load() -> ObjectRow | None:
            row = conn.execute(select(o).where(and_(*conds))).mappings().first()
            return None if row is None else _object_row(row)
        result: ObjectRow | None = self._cached(conn, ("object_id", db_id, object_id), load)
        return result

    def objects(self, conn: StoreConnection, db_id: int, types: set[str] | None = None,
                parent_id: int | None = None) -> list[ObjectRow]:
        """Objects of database ``db_id`` (optionally by type / parent), in id order; temp
        tables of sessions are included only for tempdb."""
        self.ensure_schema(conn)
        o = self.t.objects
        conds = [o.c.database_id == db_id]
        if types:
            conds.append(o.c.type.in_(sorted(t.upper() for t in types)))
        if parent_id is not None:
            conds.append(o.c.parent_object_id == parent_id)
        return [_object_row(r) for r in conn.execute(
            select(o).where(and_(*conds)).order_by(o.c.object_id)).mappings()]

    def update_object(self, conn: StoreConnection, object_id: int, *,
                      definition: str | None = None, detail: str | None = None) -> None:
        """``ALTER`` an object: new definition (and/or engine detail); ``modify_date`` always
        moves forward, so caches keyed on it see every change."""
        self.ensure_schema(conn)
        o = self.t.objects
        old = conn.execute(select(o.c.modify_date).where(o.c.object_id == object_id)).scalar()
        if old is None:
            return
        now = datetime.now()
        if now <= old:
            now = old + timedelta(microseconds=1)
        values: dict[str, Any] = {"modify_date": now}
        if definition is not None:
            values["definition"] = definition
        if detail is not None:
            values["detail"] = detail
        conn.write()
        conn.execute(update(o).where(o.c.object_id == object_id).values(**values))
        self._changed(conn)

    def drop_object(self, conn: StoreConnection, db_id: int, object_id: int | None = None
                    ) -> None:
        """Remove an object, its child objects (constraints of a table …), its column rows
        and its physical table, if it has one. ``drop_object(conn, object_id)`` also works
        (ids are unique in the store)."""
        self.ensure_schema(conn)
        if object_id is None:
            object_id = db_id
        o = self.t.objects
        conn.write()
        children = conn.execute(select(o.c.object_id).where(o.c.parent_object_id == object_id)
                                ).scalars().all()
        for child in children:
            if child != object_id:
                self.drop_object(conn, int(child))
        found = conn.execute(select(o.c.physical_name, o.c.database_id, o.c.session_id)
                             .where(o.c.object_id == object_id)).first()
        if found is not None:
            for hook in list(self._object_drop_hooks):
                hook(conn, int(found.database_id), object_id)
        if found is not None and found.physical_name:
            schema = None if found.session_id is not None else \
                self.database_schema(conn, int(found.database_id))
            conn.exec_driver_sql(
                f"DROP TABLE IF EXISTS {qualified_name(schema, found.physical_name)}")
        conn.execute(delete(self.t.columns).where(self.t.columns.c.object_id == object_id))
        conn.execute(delete(o).where(o.c.object_id == object_id))
        self._changed(conn)

    def rename_object(self, conn: StoreConnection, object_id: int, new_name: str) -> None:
        """``sp_rename``: Msg 2714 if the new name is taken in the schema."""
        row = self.object_by_id(conn, None, object_id)
        if row is None:
            return
        o = self.t.objects
        clash = conn.execute(select(o.c.object_id).where(
            o.c.database_id == row.database_id, o.c.schema_id == row.schema_id,
            o.c.name_key == new_name.lower(), o.c.object_id != object_id)).first()
        if clash is not None:
            raise tsql_error(2714, new_name)
        conn.write()
        conn.execute(update(o).where(o.c.object_id == object_id).values(
            name=new_name, name_key=new_name.lower()))
        self._changed(conn)
        self.update_object(conn, object_id)

    def table_exists_physically(self, conn: StoreConnection, physical_name: str,
                                schema: str | None = None) -> bool:
        """Whether the backend has table ``physical_name`` in backend schema ``schema``
        (None: the home schema) — for consistency checks."""
        return conn.backend.table_exists(conn, physical_name, schema)


@contextmanager
def write_transaction(conn: StoreConnection) -> Iterator[bool]:
    """The caller's write transaction, or one opened here (True): rolled back if the block
    raises, committed when it ends."""
    opened = not conn.in_write_txn
    conn.write()
    try:
        yield opened
    except BaseException:
        if opened:
            conn.rollback()
        raise
    if opened:
        conn.commit()


def lock_schema(conn: StoreConnection) -> None:
    """Take the store's table-creation lock (where several processes write at once) until the transaction ends:
    processes starting together on one store take turns (else the loser of a CREATE race
    fails: duplicate table, "tuple concurrently updated")."""
    conn.backend.xact_lock(conn, "tsqlb_schema")


def _database_row(row: Any) -> DatabaseRow:
    return DatabaseRow(
        database_id=int(row["database_id"]), name=row["name"],
        service_broker_guid=uuid.UUID(row["service_broker_guid"]),
        is_broker_enabled=bool(row["is_broker_enabled"]),
        is_honor_broker_priority_on=bool(row["is_honor_broker_priority_on"]),
        is_trustworthy_on=bool(row["is_trustworthy_on"]), create_date=row["create_date"])


def _object_row(row: Any) -> ObjectRow:
    kind = row["type"]
    return ObjectRow(
        object_id=int(row["object_id"]), database_id=int(row["database_id"]),
        schema_name=row["schema_name"], name=row["name"], type=kind,
        type_desc=TYPE_DESC.get(kind, kind), parent_object_id=int(row["parent_object_id"] or 0),
        create_date=row["create_date"], modify_date=row["modify_date"],
        definition=row["definition"], schema_id=int(row["schema_id"]),
        physical_name=row["physical_name"], detail=row["detail"],
        session_id=row["session_id"])
