"""Each T-SQL database in a backend schema of its own on PostgreSQL (issue 6 item 1).

The store's system tables, temp tables and table variables stay in its home schema (the
first of the connection's ``search_path``); the user tables of T-SQL database ``Sales`` live
in schema ``<home>$sales``. Cross-database statements and dialogs run in one transaction of
one server either way; SQLite keeps everything in its one file, so the statement tests run
on both backends and the layout tests inspect the PostgreSQL server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import inspect, text
from tsql_client import Client

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.naming import database_schema_name
from tsqlbroker.storage.store import Store

LISTINGS = Path(__file__).resolve().parent.parent / "listings"


def _listing(name: str) -> str:
    (path,) = LISTINGS.glob(f"{name}*.sql")
    return path.read_text(encoding="utf-8")


def _home(url: str) -> str:
    match = re.search(r"search_path%3D(\w+)|search_path=(\w+)", url)
    assert match is not None
    return match.group(1) or match.group(2)


def _server(url: str) -> sqlalchemy.Engine:
    return sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)


def _schemas(url: str) -> set[str]:
    engine = _server(url)
    try:
        return set(inspect(engine).get_schema_names())
    finally:
        engine.dispose()


def _tables(url: str, schema: str) -> list[str]:
    engine = _server(url)
    try:
        return sorted(inspect(engine).get_table_names(schema=schema))
    finally:
        engine.dispose()


def _two_databases(c: Client) -> None:
    c.run("CREATE DATABASE Sales; CREATE DATABASE Stock;")
    c.run("USE Sales; CREATE TABLE dbo.orders (id int PRIMARY KEY, item int, qty int);")
    c.run("INSERT INTO orders VALUES (1, 10, 2), (2, 20, 5);")
    c.run("USE Stock; CREATE TABLE items (id int IDENTITY PRIMARY KEY, code int, name "
          "varchar(20)); CREATE TABLE moved (item int, qty int);")
    c.run("INSERT INTO items (code, name) VALUES (10, 'bolt'), (20, 'nut');")


@pytest.fixture
def sales_and_stock(fresh_postgres: Any) -> Iterator[tuple[str, Client]]:
    """A PostgreSQL store holding :func:`_two_databases`: its URL and a client of it."""
    url = fresh_postgres.url()
    inst = Instance(url)
    try:
        c = Client(inst)
        _two_databases(c)
        yield url, c
    finally:
        inst.close()


# -- the layout on the server ------------------------------------------------------------------
def test_names_of_database_schemas() -> None:
    assert database_schema_name("public", 5, "Sales") == "public$sales"
    assert database_schema_name("t_1", 7, "My-DB") == "t_1$my_db$7"
    # Sanitizing alike never makes two databases share a schema.
    assert database_schema_name("h", 8, "my db") != database_schema_name("h", 9, "my_db")
    assert database_schema_name("h", 8, "my db") != database_schema_name("h", 9, "My-DB")
    long_one = database_schema_name("h" * 40, 12, "x" * 100)
    assert len(long_one.encode()) <= 63
    assert long_one != database_schema_name("h" * 40, 13, "x" * 100)
    assert database_schema_name("h" * 40, 12, "x" * 100) != \
        database_schema_name("h" * 41, 12, "x" * 100)


def test_tables_of_two_databases_land_in_two_schemas(
        sales_and_stock: tuple[str, Client]) -> None:
    url, c = sales_and_stock
    home = _home(url)
    c.run("CREATE TABLE #scratch (a int); DECLARE @v TABLE (b int); "
          "INSERT INTO @v VALUES (1); INSERT INTO #scratch SELECT b FROM @v;")
    c.run("CREATE TABLE master.dbo.kept (a int)")
    schemas = _schemas(url)
    assert {f"{home}$sales", f"{home}$stock", f"{home}$master", f"{home}$tempdb"} <= schemas
    sales = _tables(url, f"{home}$sales")
    stock = _tables(url, f"{home}$stock")
    assert len(sales) == 1 and sales[0].endswith("_orders")
    assert len(stock) == 2 and {t.rsplit("_", 1)[1] for t in stock} == {"items", "moved"}
    assert len(_tables(url, f"{home}$master")) == 1
    home_tables = _tables(url, home)
    # The engine's own tables and the session's temp table stay home; no user table.
    assert "tsqlb_objects" in home_tables
    assert any(t.startswith("tmp") for t in home_tables)
    assert not any(t.endswith(("_orders", "_items", "_moved", "_kept")) for t in home_tables)
    # A PRIMARY KEY's backend index is in its table's schema too.
    engine = _server(url)
    try:
        indexes = inspect(engine).get_indexes(sales[0], schema=f"{home}$sales")
    finally:
        engine.dispose()
    assert [ix["column_names"] for ix in indexes] == [["id"]]


def test_drop_database_removes_its_schema(sales_and_stock: tuple[str, Client]) -> None:
    url, c = sales_and_stock
    home = _home(url)
    c.run("CREATE INDEX ix_qty ON Sales.dbo.orders (qty)")
    # T-SQL refuses DROP DATABASE in a transaction (Msg 226); the engine call joins the
    # caller's storage transaction, so a rollback keeps the schema.
    store = Store(url)
    conn = store.connect()
    try:
        conn.write()
        Catalog.get(store).drop_database(conn, "Sales")
        Catalog.get(store).create_database(conn, "Extra")
        conn.rollback()
    finally:
        conn.close()
        store.close()
    assert f"{home}$sales" in _schemas(url) and f"{home}$extra" not in _schemas(url)
    assert c.scalar("SELECT COUNT(*) FROM Sales.dbo.orders") == 2
    c.run("USE master; DROP DATABASE Sales;")
    assert f"{home}$sales" not in _schemas(url)
    assert f"{home}$stock" in _schemas(url)
    # The same name again: a fresh, empty database.
    c.run("CREATE DATABASE Sales; USE Sales; CREATE TABLE orders (id int);")
    assert c.scalar("SELECT COUNT(*) FROM orders") == 0
    assert len(_tables(url, f"{home}$sales")) == 1
    # DROP TABLE / DROP INDEX find the table and index in the database's schema.
    c.run("USE Stock; CREATE INDEX ix_code ON items (code); DROP INDEX ix_code ON items;")
    c.run("DROP TABLE moved")
    assert [t.rsplit("_", 1)[1] for t in _tables(url, f"{home}$stock")] == ["items"]


def test_two_stores_do_not_see_each_other(fresh_postgres: Any) -> None:
    urls = [fresh_postgres.url(), fresh_postgres.url()]
    instances = [Instance(u) for u in urls]
    try:
        for n, inst in enumerate(instances):
            c = Client(inst)
            c.run("CREATE DATABASE Shared; USE Shared; CREATE TABLE t (v int);")
            c.run(f"INSERT INTO t VALUES ({n})")
        for n, inst in enumerate(instances):
            assert Client(inst).rows("SELECT v FROM Shared.dbo.t") == [(n,)]
        homes = [_home(u) for u in urls]
        assert homes[0] != homes[1]
        for home in homes:
            assert len(_tables(urls[0], f"{home}$shared")) == 1
        Client(instances[0]).run("DROP DATABASE Shared")
        assert Client(instances[1]).rows("SELECT v FROM Shared.dbo.t") == [(1,)]
    finally:
        for inst in instances:
            inst.close()


def test_store_made_before_database_schemas_keeps_working(fresh_postgres: Any) -> None:
    """A store whose user tables are in the home schema (an older version's layout) opens
    and works as it is, without being moved."""
    url = fresh_postgres.url()
    home = _home(url)
    inst = Instance(url)
    try:
        c = Client(inst)
        c.run("CREATE DATABASE Old; USE Old; CREATE TABLE t (v int); INSERT INTO t VALUES (7);")
    finally:
        inst.close()
    # Turn it into the old layout: every user table in the home schema, no layout mark.
    engine = _server(url)
    try:
        with engine.begin() as db:
            for schema in [s for s in inspect(db).get_schema_names() if s.startswith(home + "$")]:
                for table in inspect(db).get_table_names(schema=schema):
                    db.execute(text(f'ALTER TABLE "{schema}"."{table}" SET SCHEMA "{home}"'))
                db.execute(text(f'DROP SCHEMA "{schema}"'))
            db.execute(text(f"DELETE FROM \"{home}\".tsqlb_counters "
                            "WHERE name = 'pg_database_schemas'"))
    finally:
        engine.dispose()
    inst = Instance(url)
    try:
        c = Client(inst)
        assert c.rows("SELECT v FROM Old.dbo.t") == [(7,)]
        c.run("CREATE DATABASE Newer; USE Newer; CREATE TABLE u (v int); "
              "INSERT INTO u SELECT v + 1 FROM Old.dbo.t;")
        assert c.rows("SELECT v FROM u") == [(8,)]
        c.run("USE master; DROP DATABASE Old;")
        assert not any(s.startswith(home + "$") for s in _schemas(url))
    finally:
        inst.close()


# -- statements across databases (both backends) -----------------------------------------------
def test_cross_database_query_and_insert_select(instance: Instance) -> None:
    c = Client(instance)
    _two_databases(c)
    c.run("USE Sales")
    got = c.rows("SELECT o.id, i.name, o.qty FROM orders AS o "
                 "JOIN Stock.dbo.items AS i ON i.code = o.item ORDER BY o.id")
    assert got == [(1, "bolt", 2), (2, "nut", 5)]
    c.run("INSERT INTO Stock.dbo.moved (item, qty) SELECT i.id, o.qty FROM orders AS o "
          "JOIN Stock..items AS i ON i.code = o.item")
    assert c.rows("SELECT item, qty FROM Stock.dbo.moved ORDER BY item") == [(1, 2), (2, 5)]
    c.run("UPDATE s SET qty = s.qty + m.qty FROM orders AS s "
          "JOIN Stock.dbo.moved AS m ON m.item = s.id")
    assert c.rows("SELECT qty FROM Sales.dbo.orders ORDER BY id") == [(4,), (10,)]
    c.run("DELETE FROM Stock.dbo.moved WHERE item IN (SELECT id FROM orders WHERE qty > 5)")
    assert c.scalar("SELECT COUNT(*) FROM Stock.dbo.moved") == 1
    c.run("TRUNCATE TABLE Stock.dbo.moved")
    assert c.scalar("SELECT COUNT(*) FROM Stock.dbo.moved") == 0
    # One transaction spans both databases.
    c.run("BEGIN TRAN; INSERT INTO orders VALUES (3, 30, 1); "
          "INSERT INTO Stock.dbo.items (code, name) VALUES (30, 'washer'); ROLLBACK;")
    assert c.scalar("SELECT COUNT(*) FROM orders") == 2
    assert c.scalar("SELECT COUNT(*) FROM Stock.dbo.items") == 2
    c.run("INSERT INTO Stock.dbo.items (code, name) VALUES (30, 'washer')")
    assert c.scalar("SELECT MAX(id) FROM Stock.dbo.items") == 3


def _application(c: Client) -> None:
    """The chapter's two databases with message types, contracts, queues and services."""
    c.run("CREATE DATABASE Trader1; CREATE DATABASE DMBrokerage;")
    for db in ("Trader1", "DMBrokerage"):
        c.run(f"USE {db}")
        c.run(_listing("15-02"))
        c.run(_listing("15-06"))
    c.run(re.sub(r",\s*ACTIVATION\s*\([^)]*\)", "", _listing("15-08_queues"),
                 flags=re.IGNORECASE))
    c.run(_listing("15-10"))
    c.run("USE Trader1; CREATE TABLE trades (id int, note varchar(20));")
    c.run("USE DMBrokerage; CREATE TABLE received (id int);")


@pytest.mark.parametrize("outcome", ["COMMIT", "ROLLBACK"])
def test_cross_database_dialog_in_one_transaction(instance: Instance, outcome: str) -> None:
    """Listing 15-14 (BEGIN DIALOG and SEND from Trader1 to DMBrokerage) with writes to user
    tables of both databases, in one transaction: all of it stays, or none of it."""
    c = Client(instance)
    _application(c)
    c.run("USE Trader1")
    c.run("BEGIN TRAN\nINSERT INTO trades VALUES (1, 'order1')\n"
          "INSERT INTO DMBrokerage.dbo.received VALUES (1)\n" + _listing("15-14")
          + f"\n{outcome}")
    expected = 1 if outcome == "COMMIT" else 0
    assert c.scalar("SELECT COUNT(*) FROM trades") == expected
    assert c.scalar("SELECT COUNT(*) FROM DMBrokerage.dbo.received") == expected
    c.run("USE DMBrokerage")
    assert c.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == expected
    assert c.scalar("SELECT COUNT(*) FROM sys.conversation_endpoints") == expected
