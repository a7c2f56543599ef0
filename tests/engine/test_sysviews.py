"""Catalog views over the engine's system tables."""

from __future__ import annotations

import uuid

import pytest

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.context import VirtualTable
from tsqlbroker.engine.dml import ExecContext, register_virtual_table
from tsqlbroker.errors import TSqlError, tsql_error

from .conftest import rows, run


def test_sys_databases(ctx: ExecContext) -> None:
    rs = run(ctx, "SELECT name, database_id, is_broker_enabled, service_broker_guid "
                  "FROM sys.databases WHERE name = 'd'").resultsets[0]
    assert rs.types == ["sysname", "int", "bit", "uniqueidentifier"]
    name, db_id, enabled, guid = rs.rows[0]
    row = Catalog.get(ctx.conn.store).database(ctx.conn, "d")
    assert (name, db_id, enabled, guid) == ("d", ctx.db_id, 1, row.service_broker_guid)
    assert isinstance(guid, uuid.UUID)
    assert rows(ctx, "select family_id from sys.databases where database_id = db_id('d')") == [
        (guid,)]


def test_sys_objects_tables_columns(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE orders (id int IDENTITY PRIMARY KEY, note nvarchar(30) NULL, "
             "amount decimal(9,2) NOT NULL)")
    run(ctx, "CREATE VIEW v_orders AS SELECT id FROM orders")
    objs = rows(ctx, "SELECT name, type, type_desc FROM sys.objects ORDER BY object_id")
    assert objs[0] == ("orders", "U", "USER_TABLE")
    assert objs[1][1:] == ("PK", "PRIMARY_KEY_CONSTRAINT")
    assert objs[2] == ("v_orders", "V", "VIEW")
    assert rows(ctx, "SELECT name FROM sys.tables") == [("orders",)]
    assert rows(ctx, "SELECT name FROM sys.views") == [("v_orders",)]
    cols = rows(ctx, "SELECT c.name, c.system_type_id, c.max_length, c.precision, c.scale, "
                     "c.is_nullable, c.is_identity FROM sys.columns c JOIN sys.tables t "
                     "ON t.object_id = c.object_id ORDER BY c.column_id")
    assert cols == [("id", 56, 4, 10, 0, 0, 1), ("note", 231, 60, 0, 0, 1, 0),
                    ("amount", 106, 5, 9, 2, 0, 0)]
    info = rows(ctx, "SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, IS_NULLABLE "
                     "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'orders' "
                     "ORDER BY ORDINAL_POSITION")
    assert info == [("id", "int", None, "NO"), ("note", "nvarchar", 30, "YES"),
                    ("amount", "decimal", None, "NO")]
    assert rows(ctx, "SELECT TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES "
                     "ORDER BY TABLE_NAME") == [("orders", "BASE TABLE"), ("v_orders", "VIEW")]
    assert rows(ctx, "SELECT definition FROM sys.sql_modules") == [
        ("CREATE VIEW v_orders AS SELECT id FROM orders",)]


def test_views_follow_the_named_database(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int)")
    assert rows(ctx, "SELECT COUNT(*) FROM master.sys.tables") == [(0,)]
    assert rows(ctx, "SELECT COUNT(*) FROM d.sys.tables") == [(1,)]
    assert rows(ctx, "SELECT name FROM sys.schemas WHERE schema_id = 1") == [("dbo",)]
    assert ("int", 56) in rows(ctx, "SELECT name, system_type_id FROM sys.types")


def test_catalog_views_are_read_only(ctx: ExecContext) -> None:
    for sql in ("DELETE FROM sys.objects", "UPDATE sys.databases SET name = 'x'",
                "INSERT INTO sys.schemas (name) VALUES ('x')"):
        with pytest.raises(TSqlError) as ei:
            run(ctx, sql)
        assert ei.value.number == 259


def test_registered_virtual_table(ctx: ExecContext) -> None:
    def resolver(c: ExecContext, database: str | None, schema: str | None, name: str
                 ) -> VirtualTable | None:
        if name.lower() != "numbers":
            return None
        return VirtualTable("SELECT 1 AS n UNION ALL SELECT 2", [("n", "int")],
                            refuse_error=tsql_error(259))

    register_virtual_table(ctx.conn.store, resolver)
    assert rows(ctx, "SELECT n FROM numbers WHERE n > @x ORDER BY n", x=(0, "int")) == [
        (1,), (2,)]
    with pytest.raises(TSqlError):
        run(ctx, "DELETE FROM numbers")


def test_constraint_views(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE p (id int CONSTRAINT pk_p PRIMARY KEY, code char(2) UNIQUE)")
    run(ctx, "CREATE TABLE c (id int, pid int CONSTRAINT fk_c FOREIGN KEY REFERENCES p(id) "
             "ON DELETE CASCADE, n int CHECK (n > 0) DEFAULT 1)")
    keys = rows(ctx, "SELECT name, type, is_system_named FROM sys.key_constraints "
                     "ORDER BY type")
    assert keys[0] == ("pk_p", "PK", 0) and keys[1][1:] == ("UQ", 1)
    fk = rows(ctx, "SELECT f.name, OBJECT_NAME_OF_PARENT = f.parent_object_id, "
                   "f.referenced_object_id, f.delete_referential_action_desc "
                   "FROM sys.foreign_keys f")
    assert fk == [("fk_c", rows(ctx, "SELECT OBJECT_ID('c')")[0][0],
                   rows(ctx, "SELECT OBJECT_ID('p')")[0][0], "CASCADE")]
    assert rows(ctx, "SELECT parent_column_id, definition FROM sys.check_constraints") == [
        (3, "(n > 0)")]
    assert rows(ctx, "SELECT parent_column_id, definition FROM sys.default_constraints") == [
        (3, "(1)")]
