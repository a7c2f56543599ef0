"""Compiled INSERT plans: reused on repetition, never across catalog changes, databases,
sessions' temp tables or frames' table variables; behaviour identical to the general path."""

from __future__ import annotations

import pytest

from tsqlbroker.engine import parsing
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.dml import ExecContext, declare_table_variable
from tsqlbroker.engine.plans import PlanCache, insert_shape
from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.store import Store
from tsqlbroker.storage.txn import Txn

from .conftest import new_session, rows, run

INSERT = "INSERT INTO t (a) VALUES (@v)"


def _stats(ctx: ExecContext) -> dict[str, int]:
    return dict(PlanCache.get(ctx.conn.store).stats)


def test_second_run_hits_the_plan_without_parsing(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL, b varchar(5) NULL)")
    before = _stats(ctx)
    run(ctx, INSERT, v=(1, "int"))
    assert _stats(ctx)["misses"] == before["misses"] + 1
    parsed_before = dict(parsing.stats)
    for i in (2, 3):
        result = run(ctx, INSERT, v=(i, "int"))
        assert result.rowcount == 1
    assert _stats(ctx)["hits"] == before["hits"] + 2
    assert parsing.stats["parse_hits"] == parsed_before["parse_hits"]
    assert parsing.stats["parse_misses"] == parsed_before["parse_misses"]
    assert rows(ctx, "SELECT a, b FROM t ORDER BY a") == [(1, None), (2, None), (3, None)]


def test_alter_table_invalidates(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    run(ctx, INSERT, v=(1, "int"))
    run(ctx, INSERT, v=(2, "int"))
    run(ctx, "ALTER TABLE t ADD b int NOT NULL DEFAULT 7")
    misses = _stats(ctx)["misses"]
    run(ctx, INSERT, v=(3, "int"))
    assert _stats(ctx)["misses"] == misses + 1
    assert rows(ctx, "SELECT a, b FROM t WHERE a = 3") == [(3, 7)]


def test_drop_and_create_of_the_same_name_gets_the_new_table(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    run(ctx, INSERT, v=(-1, "int"))
    run(ctx, INSERT, v=(-2, "int"))
    run(ctx, "DROP TABLE t")
    run(ctx, "CREATE TABLE t (a int NOT NULL CONSTRAINT ck_pos CHECK (a > 0))")
    with pytest.raises(TSqlError) as ei:
        run(ctx, INSERT, v=(-3, "int"))
    assert ei.value.number == 547
    assert "ck_pos" in ei.value.message
    run(ctx, INSERT, v=(4, "int"))
    assert rows(ctx, "SELECT a FROM t") == [(4,)]


def test_rolled_back_create_leaves_no_usable_plan(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    ctx.txn.commit()
    ctx.txn = Txn(ctx.conn)
    run(ctx, "CREATE TABLE u (a int NOT NULL)")
    run(ctx, "INSERT INTO u (a) VALUES (@v)", v=(1, "int"))
    ctx.txn.rollback()
    ctx.txn = Txn(ctx.conn)
    with pytest.raises(TSqlError) as ei:
        run(ctx, "INSERT INTO u (a) VALUES (@v)", v=(2, "int"))
    assert (ei.value.number, ei.value.message) == (208, "Invalid object name 'u'.")


def test_same_text_in_two_databases(store: Store, ctx: ExecContext) -> None:
    other_db = Catalog.get(store).create_database(ctx.conn, "e")
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    other = ExecContext(ctx.conn, ctx.txn, other_db, ctx.session_id)
    run(other, "CREATE TABLE t (a int NOT NULL)")
    for i in range(3):
        run(ctx, INSERT, v=(i, "int"))
        run(other, INSERT, v=(100 + i, "int"))
    assert rows(ctx, "SELECT a FROM t ORDER BY a") == [(0,), (1,), (2,)]
    assert rows(ctx, "SELECT a FROM e.dbo.t ORDER BY a") == [(100,), (101,), (102,)]


def test_temp_tables_of_two_sessions_never_share_a_plan(store: Store, ctx: ExecContext) -> None:
    other = new_session(store, ctx.db_id, 52)
    try:
        run(ctx, "CREATE TABLE #w (a int NOT NULL)")
        ctx.txn.commit()
        ctx.txn = Txn(ctx.conn)
        run(other, "CREATE TABLE #w (a int NOT NULL)")
        other.txn.commit()
        other.txn = Txn(other.conn)
        for i in range(3):
            run(ctx, "INSERT INTO #w VALUES (@v)", v=(i, "int"))
            ctx.txn.commit()
            ctx.txn = Txn(ctx.conn)
            run(other, "INSERT INTO #w VALUES (@v)", v=(10 + i, "int"))
            other.txn.commit()
            other.txn = Txn(other.conn)
        assert rows(ctx, "SELECT a FROM #w ORDER BY a") == [(0,), (1,), (2,)]
        assert rows(other, "SELECT a FROM #w ORDER BY a") == [(10,), (11,), (12,)]
    finally:
        other.conn.close()


def test_table_variables_of_two_frames(ctx: ExecContext) -> None:
    first = declare_table_variable(ctx, "@t", "(a int NOT NULL)")
    second = declare_table_variable(ctx, "@t", "(a int NOT NULL)")
    outer = ExecContext(ctx.conn, ctx.txn, ctx.db_id, ctx.session_id,
                        table_variables={"@t": first})
    inner = ExecContext(ctx.conn, ctx.txn, ctx.db_id, ctx.session_id,
                        table_variables={"@t": second})
    for i in range(2):
        run(outer, "INSERT INTO @t VALUES (@v)", v=(i, "int"))
        run(inner, "INSERT INTO @t VALUES (@v)", v=(50 + i, "int"))
    assert rows(outer, "SELECT a FROM @t ORDER BY a") == [(0,), (1,)]
    assert rows(inner, "SELECT a FROM @t ORDER BY a") == [(50,), (51,)]


def test_errors_and_identity_on_the_planned_path(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE k (id int NOT NULL PRIMARY KEY, v varchar(3) NULL)")
    text = "INSERT INTO k (id, v) VALUES (@id, @v)"
    run(ctx, text, id=(1, "int"), v=("a", "varchar(3)"))
    run(ctx, text, id=(2, "int"), v=("b", "varchar(3)"))
    with pytest.raises(TSqlError) as ei:
        run(ctx, text, id=(1, "int"), v=("c", "varchar(3)"))
    assert ei.value.number == 2627
    with pytest.raises(TSqlError) as ei:
        run(ctx, text, id=(None, "int"), v=("c", "varchar(3)"))
    assert ei.value.number == 515
    with pytest.raises(TSqlError) as ei:
        run(ctx, text, id=(3, "int"), v=("long", "varchar(4)"))
    assert ei.value.number == 8152
    with pytest.raises(TSqlError) as ei:
        run(ctx, "INSERT INTO k (id, v) VALUES (@id, @nope)", id=(3, "int"))
    assert ei.value.number == 137
    # The failed statements undid only themselves; the transaction goes on.
    assert rows(ctx, "SELECT id, v FROM k ORDER BY id") == [(1, "a"), (2, "b")]
    run(ctx, "CREATE TABLE n (id int IDENTITY(10, 5) NOT NULL, v int NULL)")
    got = [run(ctx, "INSERT INTO n (v) VALUES (@v)", v=(i, "int")).identity for i in range(3)]
    assert got == [10, 15, 20]


def test_only_constant_and_variable_values_are_planned() -> None:
    assert insert_shape(parsing.parse_statement("INSERT INTO t VALUES (1, N'x', NULL, @v)"))
    for text in ("INSERT INTO t VALUES (1 + 1)", "INSERT INTO t SELECT 1",
                 "INSERT INTO t DEFAULT VALUES", "INSERT INTO t OUTPUT inserted.a VALUES (1)",
                 "INSERT INTO t VALUES (@@SPID)", "UPDATE t SET a = 1"):
        assert insert_shape(parsing.parse_statement(text)) is None, text


# -- queries ------------------------------------------------------------------------------------
def test_query_plan_is_reused_and_follows_the_catalog(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL, s varchar(5) NULL)")
    run(ctx, "INSERT INTO t (a, s) VALUES (1, 'x')")
    text = "SELECT s + @p FROM t WHERE a = @v"
    assert rows(ctx, text, v=(1, "int"), p=("!", "varchar(1)")) == [("x!",)]
    hits = _stats(ctx)["hits"]
    parsed_before = dict(parsing.stats)
    assert rows(ctx, text, v=(1, "int"), p=("?", "varchar(1)")) == [("x?",)]
    assert rows(ctx, text, v=(2, "int"), p=("?", "varchar(1)")) == []
    assert _stats(ctx)["hits"] == hits + 2
    assert parsing.stats == parsed_before
    # Another spec for a variable: + means addition now, so a new plan.
    assert rows(ctx, "SELECT a + @p FROM t WHERE a = @v", v=(1, "int"), p=(2, "int")) == [(3,)]
    run(ctx, "DROP TABLE t")
    run(ctx, "CREATE TABLE t (a int NOT NULL, s int NULL)")
    run(ctx, "INSERT INTO t (a, s) VALUES (1, 40)")
    assert rows(ctx, text, v=(1, "int"), p=(2, "int")) == [(42,)]


def test_query_plans_of_two_sessions_temp_tables(store: Store, ctx: ExecContext) -> None:
    other = new_session(store, ctx.db_id, 52)
    try:
        run(ctx, "CREATE TABLE #q (a int NOT NULL)")
        run(ctx, "INSERT INTO #q VALUES (1)")
        ctx.txn.commit()
        ctx.txn = Txn(ctx.conn)
        run(other, "CREATE TABLE #q (a int NOT NULL)")
        run(other, "INSERT INTO #q VALUES (2)")
        other.txn.commit()
        other.txn = Txn(other.conn)
        for _ in range(2):
            assert rows(ctx, "SELECT a FROM #q") == [(1,)]
            assert rows(other, "SELECT a FROM #q") == [(2,)]
    finally:
        other.conn.close()


def test_assignments_and_accumulation_through_the_plan(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    for i in (1, 2, 3):
        run(ctx, "INSERT INTO t (a) VALUES (@v)", v=(i, "int"))
    text = "SELECT @s = @s + a FROM t ORDER BY a"
    for _ in range(3):
        result = run(ctx, text, s=(10, "int"))
        assert result.assign_targets == [("@s", "=")]
        assert result.resultsets[0].rows[-1] == (16,)


def test_catalog_views_are_resolved_every_time(ctx: ExecContext) -> None:
    text = "SELECT name FROM sys.objects WHERE name = 'late'"
    assert rows(ctx, text) == []
    assert PlanCache.get(ctx.conn.store).query_key(ctx, text, {}) is None
    run(ctx, "CREATE TABLE late (a int)")
    assert rows(ctx, text) == [("late",)]


# -- UPDATE / DELETE ----------------------------------------------------------------------------
def test_update_and_delete_plans_keep_constraints(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE p (id int NOT NULL PRIMARY KEY, v varchar(3) NULL)")
    run(ctx, "CREATE TABLE c (id int NOT NULL, pid int NULL "
             "CONSTRAINT fk_c_p REFERENCES p (id))")
    for i in (1, 2, 3):
        run(ctx, "INSERT INTO p (id, v) VALUES (@i, 'a')", i=(i, "int"))
    run(ctx, "INSERT INTO c (id, pid) VALUES (1, 3)")
    update = "UPDATE p SET v = @v WHERE id = @i"
    for i in (1, 2, 1):
        assert run(ctx, update, v=(f"b{i}", "varchar(3)"), i=(i, "int")).rowcount == 1
    hits = _stats(ctx)["hits"]
    with pytest.raises(TSqlError) as ei:
        run(ctx, update, v=("long", "varchar(4)"), i=(2, "int"))
    assert ei.value.number == 8152
    with pytest.raises(TSqlError) as ei:
        run(ctx, "UPDATE p SET id = @n WHERE id = @i", n=(2, "int"), i=(1, "int"))
    assert ei.value.number == 2627
    delete = "DELETE FROM p WHERE id = @i"
    assert run(ctx, delete, i=(1, "int")).rowcount == 1
    assert run(ctx, delete, i=(1, "int")).rowcount == 0
    with pytest.raises(TSqlError) as ei:
        run(ctx, delete, i=(3, "int"))
    assert ei.value.number == 547
    assert _stats(ctx)["hits"] == hits + 2  # the second and third DELETE
    assert rows(ctx, "SELECT id, v FROM p ORDER BY id") == [(2, "b2"), (3, "a")]


def test_update_plan_follows_alter_table(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int NOT NULL)")
    run(ctx, "INSERT INTO t (a) VALUES (1)")
    update = "UPDATE t SET a = a + @d"
    run(ctx, update, d=(1, "int"))
    run(ctx, update, d=(1, "int"))
    run(ctx, "ALTER TABLE t ADD CONSTRAINT ck_small CHECK (a < 5)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, update, d=(10, "int"))
    assert ei.value.number == 547
    assert rows(ctx, "SELECT a FROM t") == [(3,)]


def test_another_store_instance_changing_the_catalog_invalidates(persistent_url: str) -> None:
    """Two Store objects on one backend stand for two processes: each has its own plan
    cache, and DDL through one must reach the plans of the other."""
    first, second = Store(persistent_url), Store(persistent_url)
    c1, c2 = first.connect(), second.connect()
    try:
        Catalog.get(first).ensure_schema(c1)
        db_id = Catalog.get(first).create_database(c1, "d")
        c1.commit()
        one = ExecContext(c1, Txn(c1), db_id, 51)
        two = ExecContext(c2, Txn(c2), db_id, 52)
        run(one, "CREATE TABLE t (a int NOT NULL)")
        one.txn.commit()
        for i in (1, 2):
            one.txn = Txn(c1)
            run(one, INSERT, v=(i, "int"))
            assert rows(one, "SELECT COUNT(*) FROM t") == [(i,)]
            one.txn.commit()
        run(two, "DROP TABLE t")
        run(two, "CREATE TABLE t (a int NOT NULL CONSTRAINT ck_neg CHECK (a < 0))")
        two.txn.commit()
        one.txn = Txn(c1)
        with pytest.raises(TSqlError) as ei:
            run(one, INSERT, v=(3, "int"))
        assert ei.value.number == 547
        run(one, INSERT, v=(-3, "int"))
        assert rows(one, "SELECT COUNT(*) FROM t") == [(1,)]
        one.txn.commit()
    finally:
        c1.close()
        c2.close()
        first.close()
        second.close()
