"""Metadata of user tables (also temp tables and table variables) as the DML layer needs it.

A table is a catalog object of type ``U`` with rows in ``tsqlb_columns`` and child objects
for its constraints (PK, UQ, F, C, D) whose engine detail (columns, referenced table, check
text) is JSON in ``tsqlb_objects.detail``. :func:`load_table` builds a :class:`TableInfo`
and caches it per ``(object_id, modify_date)``: every DDL change bumps ``modify_date``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from ..storage.naming import qualified_name
from ..storage.store import StoreConnection
from .catalog import TEMPDB, Catalog, ObjectRow
from .triggers import trigger_from_row


@dataclass(frozen=True)
class ColumnInfo:
    """One column of a user table."""

    column_id: int
    name: str
    spec: str
    nullable: bool
    identity: tuple[int, int] | None = None  # (seed, increment)
    default_sql: str | None = None
    # A computed column: default_sql holds its expression; the writer computes it.
    computed: bool = False


@dataclass(frozen=True)
class ConstraintInfo:
    """A PRIMARY KEY, UNIQUE, FOREIGN KEY, CHECK or DEFAULT constraint."""

    object_id: int
    name: str
    kind: str  # PK, UQ, F, C, D
    columns: tuple[str, ...] = ()
    ref_object_id: int | None = None
    ref_columns: tuple[str, ...] = ()
    check_sql: str | None = None
    on_delete: str | None = None  # 'CASCADE' / 'SET NULL' / None (NO ACTION)
    unique: bool = False  # for indexes (kind 'IX')
    disabled: bool = False  # ALTER TABLE … NOCHECK CONSTRAINT (CHECK and FOREIGN KEY)


@dataclass
class TableInfo:
    """A user table with its columns and constraints."""

    object_id: int
    db_id: int
    db_name: str
    schema: str
    name: str
    physical: str
    columns: list[ColumnInfo]
    constraints: list[ConstraintInfo]
    modify_date: Any
    # The name the user wrote for temp tables ('#t') and table variables ('@t').
    local_name: str | None = None
    # The backend schema the table lives in (PostgreSQL: its database's); None for the
    # home schema (SQLite, temp tables, table variables).
    backend_schema: str | None = None
    # DML triggers (engine/triggers.py TriggerInfo), in creation order.
    triggers: list[Any] = field(default_factory=list)
    _by_name: dict[str, ColumnInfo] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_name = {c.name.lower(): c for c in self.columns}

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (case-insensitive), or None."""
        return self._by_name.get(name.lower())

    def index(self, name: str) -> ConstraintInfo | None:
        """The table's index called ``name`` (case-insensitive), or None."""
        return next((k for k in self.constraints
                     if k.kind == "IX" and k.name.lower() == name.lower()), None)

    @property
    def sql_name(self) -> str:
        """The table's quoted, schema-qualified backend name for generated SQL."""
        return qualified_name(self.backend_schema, self.physical)

    def index_sql_name(self, index: str) -> str:
        """The quoted backend name of the table's index ``index`` (in the table's schema)."""
        return qualified_name(self.backend_schema, index)

    @property
    def identity_column(self) -> ColumnInfo | None:
        return next((c for c in self.columns if c.identity is not None), None)

    @property
    def two_part_name(self) -> str:
        """``dbo.t`` as constraint messages show it (``dbo.#t___…`` for temp tables)."""
        return f"{self.schema}.{self.name}"

    @property
    def three_part_name(self) -> str:
        """``db.dbo.t`` as Msg 515 shows it."""
        return f"{self.db_name}.{self.schema}.{self.name}"

    @property
    def display_name(self) -> str:
        """The name as the user knows it (``t``, ``#t`` or ``@t``)."""
        return self.local_name or self.name

    @property
    def is_temp(self) -> bool:
        return self.db_id == TEMPDB


_cache: dict[tuple[str, int, Any, bool], TableInfo] = {}
_cache_lock = threading.Lock()


def constraint_from_row(row: ObjectRow) -> ConstraintInfo:
    """Decode a constraint object's detail JSON."""
    detail: dict[str, Any] = json.loads(row.detail or "{}")
    return ConstraintInfo(
        object_id=row.object_id, name=detail.get("name", row.name), kind=row.type,
        columns=tuple(detail.get("columns", ())), ref_object_id=detail.get("ref_object_id"),
        ref_columns=tuple(detail.get("ref_columns", ())), check_sql=detail.get("check"),
        on_delete=detail.get("on_delete"), unique=bool(detail.get("unique")),
        disabled=bool(detail.get("disabled")))


def load_table(conn: StoreConnection, obj: ObjectRow) -> TableInfo:
    """The :class:`TableInfo` of table object ``obj`` (cached per modification)."""
    catalog = Catalog.get(conn.store)
    # The layout is part of the key: a store reopened in another layout (older version's)
    # under the same URL must not get the other layout's backend names.
    key = (conn.store.url, obj.object_id, obj.modify_date, catalog.database_schemas)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    c = catalog.t.columns
    cols = [ColumnInfo(
        column_id=int(r.column_id), name=r.name, spec=r.type_spec, nullable=bool(r.is_nullable),
        identity=(int(r.seed_value), int(r.increment_value)) if r.is_identity else None,
        default_sql=r.default_sql, computed=bool(r.is_computed))
        for r in conn.execute(select(c).where(c.c.object_id == obj.object_id)
                              .order_by(c.c.column_id))]
    children = catalog.objects(conn, obj.database_id, parent_id=obj.object_id)
    constraints = [constraint_from_row(r) for r in children
                   if r.type in ("PK", "UQ", "F", "C", "D", "IX")]
    triggers = [trigger_from_row(r) for r in children if r.type == "TR"]
    db = catalog.database(conn, obj.database_id)
    detail: dict[str, Any] = json.loads(obj.detail or "{}")
    info = TableInfo(
        object_id=obj.object_id, db_id=obj.database_id, db_name=db.name if db else "?",
        schema=obj.schema_name, name=obj.name, physical=obj.physical_name or "",
        columns=cols, constraints=constraints, modify_date=obj.modify_date,
        local_name=detail.get("local_name"), backend_schema=catalog.table_schema(conn, obj),
        triggers=triggers)
    with _cache_lock:
        if len(_cache) > 2048:
            _cache.clear()
        _cache[key] = info
    return info


def table_by_physical(conn: StoreConnection, physical: str) -> TableInfo | None:
    """The table stored as backend table ``physical`` (temp tables, table variables)."""
    catalog = Catalog.get(conn.store)
    o = catalog.t.objects
    oid = conn.execute(select(o.c.object_id).where(o.c.physical_name == physical)).scalar()
    if oid is None:
        return None
    row = catalog.object_by_id(conn, None, int(oid))
    return None if row is None else load_table(conn, row)


def referencing_constraints(conn: StoreConnection, table: TableInfo) -> list[
        tuple[TableInfo, ConstraintInfo]]:
    """Foreign keys of any table that reference ``table`` (for DELETE / UPDATE checks)."""
    catalog = Catalog.get(conn.store)
    o = catalog.t.objects
    rows = conn.execute(select(o.c.object_id).where(
        o.c.type == "F", o.c.detail.like(f'%"ref_object_id": {table.object_id}%'))).scalars()
    out: list[tuple[TableInfo, ConstraintInfo]] = []
    for oid in rows:
        fk_row = catalog.object_by_id(conn, None, int(oid))
        if fk_row is None:
            continue
        fk = constraint_from_row(fk_row)
        if fk.ref_object_id != table.object_id or fk.disabled:
            continue
        parent = catalog.object_by_id(conn, None, fk_row.parent_object_id)
        if parent is not None:
            out.append((load_table(conn, parent), fk))
    return out
