"""Temp tables (per session) and table variables."""

from __future__ import annotations

import pytest

from tsqlbroker.engine.catalog import TEMPDB, Catalog
from tsqlbroker.engine.dml import (
    ExecContext,
    declare_table_variable,
    drop_table_variable,
    drop_temp_tables,
    insert_rows,
    temp_table_object_id,
)
from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.store import Store
from tsqlbroker.storage.txn import Txn

from .conftest import new_session, rows, run


def test_temp_tables_are_per_session(store: Store, ctx: ExecContext) -> None:
    other = new_session(store, ctx.db_id, 52)
    try:
        run(ctx, "CREATE TABLE #work (id int PRIMARY KEY, v varchar(10))")
        run(ctx, "INSERT INTO #work VALUES (1, 'mine')")
        ctx.txn.commit()
        ctx.txn = Txn(ctx.conn)
        with pytest.raises(TSqlError) as ei:
            run(other, "SELECT * FROM #work")
        assert (ei.value.number, ei.value.message) == (208, "Invalid object name '#work'.")
        run(other, "CREATE TABLE #work (x int)")
        run(other, "INSERT INTO #work VALUES (7)")
        other.txn.commit()
        assert rows(ctx, "SELECT v FROM #work") == [("mine",)]
        assert rows(other, "SELECT x FROM #work") == [(7,)]
        assert rows(ctx, "SELECT id FROM tempdb..#work") == [(1,)]
        assert rows(ctx, "SELECT id FROM tempdb.dbo.#work") == [(1,)]
    finally:
        other.conn.close()


def test_temp_table_object_id_and_catalog_row(ctx: ExecContext) -> None:
    assert temp_table_object_id(ctx, "#t") is None
    run(ctx, "CREATE TABLE #t (a int)")
    oid = temp_table_object_id(ctx, "#T")
    assert oid is not None
    assert rows(ctx, "SELECT OBJECT_ID('tempdb..#t')") == [(oid,)]
    name = rows(ctx, "SELECT name FROM tempdb.sys.objects WHERE object_id = @o",
                o=(oid, "int"))[0][0]
    assert name.startswith("#t____") and len(name) == 128
    row = Catalog.get(ctx.conn.store).object_by_id(ctx.conn, TEMPDB, oid)
    assert row is not None and row.type == "U"


def test_temp_table_creation_rolls_back(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE #t (a int)")
    ctx.txn.rollback()
    ctx.txn = Txn(ctx.conn)
    assert "#t" not in ctx.temp_tables
    with pytest.raises(TSqlError):
        run(ctx, "SELECT * FROM #t")
    run(ctx, "CREATE TABLE #t (a int)")
    assert rows(ctx, "SELECT COUNT(*) FROM #t") == [(0,)]


def test_duplicate_temp_table(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE #t (a int)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE #t (b int)")
    assert ei.value.number == 2714


def test_drop_temp_table_and_session_end(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE #a (x int)")
    run(ctx, "CREATE TABLE #b (x int)")
    run(ctx, "DROP TABLE #a")
    assert list(ctx.temp_tables) == ["#b"]
    drop_temp_tables(ctx)
    assert ctx.temp_tables == {}
    assert rows(ctx, "SELECT COUNT(*) FROM tempdb.sys.objects WHERE type = 'U'") == [(0,)]


def test_select_into_temp(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int, name nvarchar(20))")
    run(ctx, "INSERT INTO t VALUES (1, N'a'), (2, N'b')")
    result = run(ctx, "SELECT id, name, id * 2 AS twice INTO #copy FROM t WHERE id > 1")
    assert result.rowcount == 1
    rs = run(ctx, "SELECT * FROM #copy").resultsets[0]
    assert rs.columns == ["id", "name", "twice"]
    assert rs.types[:2] == ["int", "nvarchar(20)"]
    assert rs.rows == [(2, "b", 4)]


def test_table_variables(ctx: ExecContext) -> None:
    physical = declare_table_variable(ctx, "@items", "(id int PRIMARY KEY, label varchar(10))")
    ctx.table_variables["@items"] = physical
    run(ctx, "INSERT INTO @items VALUES (1, 'one'), (2, 'two')")
    assert insert_rows(ctx, "@items", ["id", "label"], [(3, "three")]) == 1
    assert rows(ctx, "SELECT label FROM @items WHERE id >= 2 ORDER BY id") == [
        ("two",), ("three",)]
    run(ctx, "CREATE TABLE t (id int)")
    run(ctx, "INSERT INTO t SELECT id FROM @items")
    assert rows(ctx, "SELECT COUNT(*) FROM t AS x JOIN @items AS i ON i.id = x.id") == [(3,)]
    with pytest.raises(TSqlError) as ei:
        run(ctx, "INSERT INTO @items VALUES (1, 'dup')")
    assert ei.value.number == 2627
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT * FROM @other")
    assert (ei.value.number, ei.value.message) == (1087,
                                                   'Must declare the table variable "@other".')
    drop_table_variable(ctx, physical)
    del ctx.table_variables["@items"]
    with pytest.raises(TSqlError):
        run(ctx, "SELECT * FROM @items")


def test_table_variable_not_null_message(ctx: ExecContext) -> None:
    ctx.table_variables["@t"] = declare_table_variable(ctx, "@t", "(a int NOT NULL)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "INSERT INTO @t VALUES (NULL)")
    assert ei.value.message == ("Cannot insert the value NULL into column 'a', table '@t'; "
                                "column does not allow nulls. INSERT fails.")


def test_insert_rows_into_named_tables(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int IDENTITY, v varchar(5))")
    run(ctx, "CREATE TABLE #tmp (v varchar(5))")
    assert insert_rows(ctx, "d.dbo.t", ["v"], [("a",), ("b",)]) == 2
    assert insert_rows(ctx, "#tmp", None, [("c",)]) == 1
    assert rows(ctx, "SELECT id, v FROM t ORDER BY id") == [(1, "a"), (2, "b")]
    assert rows(ctx, "SELECT v FROM #tmp") == [("c",)]


def test_table_variable_survives_rollback(ctx: ExecContext) -> None:
    ctx.table_variables["@t"] = declare_table_variable(ctx, "@t", "(a int)")
    run(ctx, "INSERT INTO @t VALUES (1)")
    ctx.txn.rollback()
    ctx.txn = Txn(ctx.conn)
    assert rows(ctx, "SELECT COUNT(*) FROM @t") == [(0,)]
    run(ctx, "INSERT INTO @t VALUES (2)")
    assert rows(ctx, "SELECT a FROM @t") == [(2,)]


def test_compound_assignment_in_update(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int, b varchar(10))")
    run(ctx, "INSERT INTO t VALUES (1, 'x')")
    run(ctx, "UPDATE t SET a += 2 * 3, b += 'y' WHERE a = 1")
    run(ctx, "UPDATE t SET t.a -= (1)")
    assert rows(ctx, "SELECT a, b FROM t") == [(6, "xy")]
