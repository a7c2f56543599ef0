"""Catalog: databases, schemas and objects."""

from __future__ import annotations

import uuid

import pytest

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.store import Store, StoreConnection


def test_system_databases(catalog: Catalog, conn: StoreConnection) -> None:
    names = [(d.database_id, d.name) for d in catalog.databases(conn)]
    assert names == [(1, "master"), (2, "tempdb"), (3, "model"), (4, "msdb")]
    assert catalog.database_id(conn, "TEMPDB") == 2


def test_ensure_schema_idempotent_on_existing_file(persistent_url: str) -> None:
    url = persistent_url
    s1 = Store(url)
    c1 = s1.connect()
    Catalog.get(s1).ensure_schema(c1)
    Catalog.get(s1).create_database(c1, "Trader1")
    c1.commit()
    c1.close()
    s1.close()
    s2 = Store(url)
    c2 = s2.connect()
    cat = Catalog.get(s2)
    cat.ensure_schema(c2)
    assert [d.name for d in cat.databases(c2)][-1] == "Trader1"
    c2.close()
    s2.close()


def test_create_database(catalog: Catalog, conn: StoreConnection) -> None:
    db_id = catalog.create_database(conn, "DMBrokerage")
    conn.commit()
    assert db_id == 5
    row = catalog.database(conn, "dmbrokerage")
    assert row is not None and row.database_id == 5 and row.name == "DMBrokerage"
    assert isinstance(row.service_broker_guid, uuid.UUID)
    assert row.is_broker_enabled is True
    assert catalog.database(conn, 5) == row
    other = catalog.create_database(conn, "Trader1")
    assert other == 6
    assert catalog.database(conn, other).service_broker_guid != row.service_broker_guid
    assert [s for _i, s in catalog.schemas(conn, db_id)] == [
        "dbo", "guest", "INFORMATION_SCHEMA", "sys"]


def test_create_database_duplicate(catalog: Catalog, conn: StoreConnection) -> None:
    catalog.create_database(conn, "Trader1")
    with pytest.raises(TSqlError) as ei:
        catalog.create_database(conn, "TRADER1")
    assert ei.value.number == 1801
    assert ei.value.message == ("Database 'TRADER1' already exists. Choose a different "
                                "database name.")


def test_set_database_option(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    g = uuid.uuid4()
    catalog.set_database_option(conn, db, is_broker_enabled=False, service_broker_guid=g,
                                is_trustworthy_on=True)
    row = catalog.database(conn, db)
    assert (row.is_broker_enabled, row.service_broker_guid, row.is_trustworthy_on) == (
        False, g, True)


def test_drop_database(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    seen: list[int] = []
    catalog.on_drop_database(lambda c, i: seen.append(i))
    oid = catalog.create_object(conn, db, "dbo", "q", "SQ")
    catalog.drop_database(conn, "D")
    assert seen == [db]
    assert catalog.database_id(conn, "d") is None
    assert catalog.object_by_id(conn, db, oid) is None
    with pytest.raises(TSqlError) as ei:
        catalog.drop_database(conn, "d")
    assert ei.value.number == 3701
    assert ei.value.message == ("Cannot drop the database 'd', because it does not exist or "
                                "you do not have permission.")
    with pytest.raises(TSqlError) as ei:
        catalog.drop_database(conn, "master")
    assert ei.value.number == 3708


def test_objects(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    a = catalog.create_object(conn, db, "dbo", "tradeEntryQueue", "SQ")
    b = catalog.create_object(conn, db, None, "p", "P", definition="create proc p as select 1")
    assert a == 245575913 and b == 245575913 + 16000057
    row = catalog.find_object(conn, db, None, "TRADEENTRYQUEUE")
    assert row is not None and row.object_id == a and row.type_desc == "SERVICE_QUEUE"
    assert row.schema_name == "dbo" and row.database_id == db
    assert catalog.find_object(conn, db, "dbo", "tradeentryqueue", {"U"}) is None
    assert catalog.find_object(conn, 1, "dbo", "tradeentryqueue") is None
    with pytest.raises(TSqlError) as ei:
        catalog.create_object(conn, db, "DBO", "P", "U")
    assert ei.value.number == 2714
    assert ei.value.message == "There is already an object named 'P' in the database."
    with pytest.raises(TSqlError) as ei:
        catalog.create_object(conn, db, "nosuch", "x", "U")
    assert ei.value.number == 2760
    # the same name in another database is fine
    catalog.create_object(conn, 1, "dbo", "p", "P")


def test_update_and_drop_object(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    t = catalog.create_object(conn, db, "dbo", "t", "U")
    pk = catalog.create_object(conn, db, "dbo", "PK_t", "PK", parent_id=t)
    p = catalog.create_object(conn, db, "dbo", "p", "P", definition="v1")
    before = catalog.object_by_id(conn, db, p)
    catalog.update_object(conn, p, definition="v2")
    after = catalog.object_by_id(conn, db, p)
    assert after.definition == "v2" and after.modify_date > before.modify_date
    catalog.update_object(conn, p, definition="v3")
    assert catalog.object_by_id(conn, db, p).modify_date > after.modify_date
    catalog.drop_object(conn, db, t)
    assert catalog.object_by_id(conn, db, t) is None
    assert catalog.object_by_id(conn, db, pk) is None
    catalog.drop_object(conn, p)
    assert catalog.objects(conn, db) == []


def test_create_object_rolls_back(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    conn.commit()
    catalog.create_object(conn, db, "dbo", "t", "U")
    conn.rollback()
    assert catalog.find_object(conn, db, None, "t") is None


def test_create_schema(catalog: Catalog, conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    assert catalog.create_schema(conn, db, "Sales") == 5
    catalog.create_object(conn, db, "sales", "t", "U")
    assert catalog.find_object(conn, db, "SALES", "t").schema_name == "Sales"
    with pytest.raises(TSqlError) as ei:
        catalog.create_schema(conn, db, "sales")
    assert ei.value.number == 2714


def test_lookup_cache_follows_transactions(store: Store, catalog: Catalog,
                                           conn: StoreConnection) -> None:
    db = catalog.create_database(conn, "d")
    conn.commit()
    other = store.connect()
    try:
        assert catalog.find_object(other, db, None, "t") is None
        oid = catalog.create_object(conn, db, "dbo", "t", "U")
        assert catalog.find_object(conn, db, None, "t").object_id == oid
        assert catalog.find_object(other, db, None, "t") is None  # not committed yet
        conn.rollback()
        assert catalog.find_object(conn, db, None, "t") is None
        oid = catalog.create_object(conn, db, "dbo", "t", "U")
        conn.commit()
        assert catalog.find_object(other, db, None, "t").object_id == oid
        catalog.drop_object(other, oid)
        other.commit()
        assert catalog.find_object(conn, db, None, "t") is None
    finally:
        other.close()
