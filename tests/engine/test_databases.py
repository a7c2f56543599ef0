"""Several databases in one store: three-part names, cross-database joins and transactions."""

from __future__ import annotations

import pytest
import sqlalchemy

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.dml import ExecContext
from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.store import Store
from tsqlbroker.storage.txn import Txn

from .conftest import new_session, rows, run


@pytest.fixture
def two(store: Store, ctx: ExecContext) -> tuple[ExecContext, int]:
    other = Catalog.get(store).create_database(ctx.conn, "Other")
    ctx.conn.commit()
    run(ctx, "CREATE TABLE orders (id int PRIMARY KEY, cust int)")
    run(ctx, "CREATE TABLE Other.dbo.customers (id int PRIMARY KEY, name varchar(20))")
    run(ctx, "INSERT INTO orders VALUES (1, 10), (2, 20)")
    run(ctx, "INSERT INTO Other..customers VALUES (10, 'ann'), (20, 'bob')")
    ctx.txn.commit()
    ctx.txn = Txn(ctx.conn)
    return ctx, other


def test_three_part_and_double_dot_names(two: tuple[ExecContext, int]) -> None:
    ctx, other = two
    assert rows(ctx, "SELECT name FROM Other.dbo.customers ORDER BY id") == [("ann",), ("bob",)]
    assert rows(ctx, "SELECT COUNT(*) FROM other..CUSTOMERS") == [(2,)]
    ctx_other = ExecContext(ctx.conn, ctx.txn, other, ctx.session_id)
    assert rows(ctx_other, "SELECT COUNT(*) FROM customers") == [(2,)]
    assert rows(ctx_other, "SELECT COUNT(*) FROM d.dbo.orders") == [(2,)]
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT * FROM customers")
    assert (ei.value.number, ei.value.message) == (208, "Invalid object name 'customers'.")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT * FROM nodb.dbo.t")
    assert ei.value.message == "Invalid object name 'nodb.dbo.t'."


def test_cross_database_join(two: tuple[ExecContext, int]) -> None:
    ctx, _other = two
    got = rows(ctx, "SELECT o.id, c.name FROM orders AS o JOIN Other.dbo.customers AS c "
                    "ON c.id = o.cust ORDER BY o.id")
    assert got == [(1, "ann"), (2, "bob")]


def test_rollback_spanning_two_databases(store: Store, two: tuple[ExecContext, int]) -> None:
    ctx, _other = two
    run(ctx, "INSERT INTO orders VALUES (3, 30)")
    run(ctx, "UPDATE Other.dbo.customers SET name = 'changed'")
    assert rows(ctx, "SELECT COUNT(*) FROM Other..customers WHERE name = 'changed'") == [(2,)]
    ctx.txn.rollback()
    ctx.txn = Txn(ctx.conn)
    assert rows(ctx, "SELECT COUNT(*) FROM orders") == [(2,)]
    assert rows(ctx, "SELECT name FROM Other..customers ORDER BY id") == [("ann",), ("bob",)]


def test_commit_spanning_two_databases_is_visible_elsewhere(
        store: Store, two: tuple[ExecContext, int]) -> None:
    ctx, _other = two
    run(ctx, "INSERT INTO orders VALUES (3, 30)")
    run(ctx, "INSERT INTO Other..customers VALUES (30, 'cy')")
    reader = new_session(store, ctx.db_id, 52)
    try:
        assert rows(reader, "SELECT COUNT(*) FROM orders") == [(2,)]
        ctx.txn.commit()
        assert rows(reader, "SELECT COUNT(*) FROM orders") == [(3,)]
        assert rows(reader, "SELECT name FROM Other..customers WHERE id = 30") == [("cy",)]
    finally:
        reader.conn.close()


def test_drop_database_drops_its_tables(store: Store, two: tuple[ExecContext, int]) -> None:
    ctx, _other = two
    catalog = Catalog.get(store)
    catalog.drop_database(ctx.conn, "Other")
    ctx.conn.commit()
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT * FROM Other..customers")
    assert ei.value.number == 208
    names = sqlalchemy.inspect(ctx.conn.conn).get_table_names()
    assert names and not any("customers" in n for n in names)


def test_same_table_name_in_two_databases(two: tuple[ExecContext, int]) -> None:
    ctx, other = two
    ctx_other = ExecContext(ctx.conn, ctx.txn, other, ctx.session_id)
    run(ctx_other, "CREATE TABLE orders (x varchar(5))")
    run(ctx_other, "INSERT INTO orders VALUES ('o')")
    assert rows(ctx_other, "SELECT x FROM orders") == [("o",)]
    assert rows(ctx, "SELECT COUNT(*) FROM orders") == [(2,)]


def test_cross_database_foreign_key_is_refused(two: tuple[ExecContext, int]) -> None:
    ctx, _other = two
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE Other.dbo.lines (o int CONSTRAINT fk_x REFERENCES orders(id))")
    assert (ei.value.number, ei.value.message) == (
        1763, "Cross-database foreign key references are not supported. Foreign key 'fk_x'.")
