"""The engine's own system tables, defined with SQLAlchemy Core on a store's ``MetaData``.

They hold what SQL Server keeps in its system base tables: databases, schemas, objects (every
schema-scoped object: tables, views, procedures, queues, constraints …), the columns of user
tables and table-valued objects, and counters for deterministic ids. Names start with
``tsqlb_`` so they never collide with the physical tables of user data (see ``naming.py``).
They are created unqualified: on PostgreSQL they live in the store's home schema (the first of
the connection's ``search_path``), while user tables live in their database's schema.
Column types are portable (no SQLite-only types) so the same definitions serve PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)


@dataclass(frozen=True)
class SystemTables:
    """The system tables of one store's metadata."""

    databases: Table
    schemas: Table
    objects: Table
    columns: Table
    counters: Table


def system_tables(metadata: MetaData) -> SystemTables:
    """Define (once per ``metadata``) and return the engine's system tables."""
    if "tsqlb_databases" in metadata.tables:
        t = metadata.tables
        return SystemTables(t["tsqlb_databases"], t["tsqlb_schemas"], t["tsqlb_objects"],
                            t["tsqlb_columns"], t["tsqlb_counters"])
    databases = Table(
        "tsqlb_databases", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        # Lower-cased name: database names compare case-insensitively (default collation).
        Column("name_key", String(128), nullable=False, unique=True),
        Column("service_broker_guid", String(36), nullable=False),
        Column("is_broker_enabled", Boolean, nullable=False),
        Column("is_honor_broker_priority_on", Boolean, nullable=False),
        Column("is_trustworthy_on", Boolean, nullable=False),
        Column("create_date", DateTime, nullable=False),
    )
    schemas = Table(
        "tsqlb_schemas", metadata,
        Column("database_id", Integer, primary_key=True, autoincrement=False),
        Column("schema_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("name_key", String(128), nullable=False),
        UniqueConstraint("database_id", "name_key", name="uq_tsqlb_schemas_name"),
    )
    objects = Table(
        "tsqlb_objects", metadata,
        # Unique in the whole store (hence also per database), so an id alone names an object.
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("database_id", Integer, nullable=False),
        Column("schema_id", Integer, nullable=False),
        Column("schema_name", String(128), nullable=False),
        Column("name", String(128), nullable=False),
        Column("name_key", String(128), nullable=False),
        Column("type", String(2), nullable=False),
        Column("parent_object_id", Integer, nullable=False, default=0),
        Column("create_date", DateTime, nullable=False),
        Column("modify_date", DateTime, nullable=False),
        Column("definition", Text),
        # Engine-private details (JSON): constraint columns, referenced table, check text,
        # physical table name … Not part of the public ObjectRow.
        Column("detail", Text),
        Column("physical_name", String(63)),
        # Temp tables belong to one session; other sessions never see them.
        Column("session_id", Integer),
        UniqueConstraint("database_id", "schema_id", "name_key", name="uq_tsqlb_objects_name"),
    )
    Index("ix_tsqlb_objects_parent", objects.c.parent_object_id)
    columns = Table(
        "tsqlb_columns", metadata,
        Column("object_id", Integer, primary_key=True, autoincrement=False),
        Column("column_id", Integer, primary_key=True, autoincrement=False),
        Column("name", String(128), nullable=False),
        Column("type_spec", String(64), nullable=False),
        Column("is_nullable", Boolean, nullable=False),
        Column("is_identity", Boolean, nullable=False, default=False),
        Column("seed_value", BigInteger),
        Column("increment_value", BigInteger),
        # Next identity value to hand out (kept here, not in the backend, so IDENTITY
        # works on any column and on every backend the same way).
        Column("identity_next", BigInteger),
        Column("default_sql", Text),
        Column("is_computed", Boolean, nullable=False, default=False),
    )
    counters = Table(
        "tsqlb_counters", metadata,
        Column("name", String(64), primary_key=True),
        Column("value", BigInteger, nullable=False),
    )
    return SystemTables(databases, schemas, objects, columns, counters)
