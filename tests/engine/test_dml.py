"""DML forms: UPDATE … FROM, DELETE with joins, TOP, OUTPUT [INTO], identity, views, ALTER."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tsqlbroker.engine.dml import ExecContext, declare_table_variable, set_identity_insert
from tsqlbroker.errors import TSqlError

from .conftest import rows, run


@pytest.fixture
def stock(ctx: ExecContext) -> ExecContext:
    run(ctx, "CREATE TABLE items (id int IDENTITY(10, 5) PRIMARY KEY, sku varchar(10) NOT NULL, "
             "qty int NOT NULL DEFAULT 0)")
    run(ctx, "CREATE TABLE prices (sku varchar(10) PRIMARY KEY, price decimal(8,2))")
    run(ctx, "INSERT INTO items (sku, qty) VALUES ('a', 1), ('b', 2), ('c', 3)")
    run(ctx, "INSERT INTO prices VALUES ('A', 1.50), ('b', 2.25)")
    return ctx


def test_identity_values_and_scope_identity(stock: ExecContext) -> None:
    assert rows(stock, "SELECT id FROM items ORDER BY id") == [(10,), (15,), (20,)]
    result = run(stock, "INSERT INTO items (sku) VALUES ('d')")
    assert (result.rowcount, result.identity) == (1, 25)
    run(stock, "TRUNCATE TABLE items")
    assert run(stock, "INSERT INTO items (sku) VALUES ('e')").identity == 10


def test_identity_on_non_key_column(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE log (msg varchar(20) PRIMARY KEY, seq bigint IDENTITY(100, -1))")
    run(ctx, "INSERT INTO log (msg) VALUES ('x'), ('y')")
    assert rows(ctx, "SELECT msg, seq FROM log ORDER BY seq") == [("y", 99), ("x", 100)]
    with pytest.raises(TSqlError) as ei:
        run(ctx, "UPDATE log SET seq = 1")
    assert ei.value.number == 8102


def test_failed_insert_does_not_advance_identity_inside_statement(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int IDENTITY, v int UNIQUE)")
    run(ctx, "INSERT INTO t (v) VALUES (1)")
    with pytest.raises(TSqlError):
        run(ctx, "INSERT INTO t (v) VALUES (2), (1)")
    assert run(ctx, "INSERT INTO t (v) VALUES (3)").identity == 2


def test_update_from_join(stock: ExecContext) -> None:
    result = run(stock, "UPDATE i SET qty = i.qty * 10 FROM items AS i "
                        "JOIN prices AS p ON p.sku = i.sku WHERE p.price > 1")
    assert result.rowcount == 2
    assert rows(stock, "SELECT sku, qty FROM items ORDER BY id") == [
        ("a", 10), ("b", 20), ("c", 3)]


def test_update_with_variables_and_output(stock: ExecContext) -> None:
    result = run(stock, "UPDATE items SET qty = qty + @n OUTPUT deleted.qty AS old, "
                        "inserted.qty AS new WHERE sku = @s", n=(5, "int"), s=("B", "varchar(10)"))
    assert result.rowcount == 1
    rs = result.resultsets[0]
    assert (rs.columns, rs.types, rs.rows) == (["old", "new"], ["int", "int"], [(2, 7)])


def test_update_and_delete_top(stock: ExecContext) -> None:
    assert run(stock, "UPDATE TOP (2) items SET qty = 0").rowcount == 2
    assert rows(stock, "SELECT COUNT(*) FROM items WHERE qty = 0") == [(2,)]
    assert run(stock, "DELETE TOP (1) FROM items").rowcount == 1
    assert rows(stock, "SELECT COUNT(*) FROM items") == [(2,)]


def test_delete_with_join_and_output_into_table_variable(stock: ExecContext) -> None:
    stock.table_variables["@gone"] = declare_table_variable(stock, "@gone", "(sku varchar(10))")
    result = run(stock, "DELETE i OUTPUT deleted.sku INTO @gone FROM items AS i "
                        "JOIN prices AS p ON p.sku = i.sku")
    assert result.rowcount == 2 and result.resultsets == []
    assert rows(stock, "SELECT sku FROM @gone ORDER BY sku") == [("a",), ("b",)]
    assert rows(stock, "SELECT sku FROM items") == [("c",)]


def test_insert_select_and_output(stock: ExecContext) -> None:
    run(stock, "CREATE TABLE copy (id int IDENTITY, sku varchar(10), total decimal(10,2))")
    result = run(stock, "INSERT INTO copy (sku, total) OUTPUT inserted.id, inserted.sku "
                        "SELECT i.sku, p.price * i.qty FROM items i JOIN prices p "
                        "ON p.sku = i.sku ORDER BY i.sku")
    assert result.rowcount == 2 and result.identity == 2
    assert result.resultsets[0].rows == [(1, "a"), (2, "b")]
    assert rows(stock, "SELECT total FROM copy ORDER BY id") == [
        (Decimal("1.50"),), (Decimal("4.50"),)]


def test_cte_and_union(stock: ExecContext) -> None:
    got = rows(stock, "WITH big AS (SELECT sku, qty FROM items WHERE qty >= 2) "
                      "SELECT sku FROM big UNION ALL SELECT sku FROM prices ORDER BY 1")
    assert got == [("A",), ("b",), ("b",), ("c",)]


def test_select_assignment_targets(stock: ExecContext) -> None:
    result = run(stock, "SELECT @s = sku, @q = qty FROM items ORDER BY id")
    assert result.assign_targets == [("@s", "="), ("@q", "=")]
    assert result.resultsets[0].rows[-1] == ("c", 3)
    empty = run(stock, "SELECT @s = sku FROM items WHERE 1 = 0")
    assert empty.resultsets[0].rows == [] and empty.rowcount == 0


def test_alias_equals_form(stock: ExecContext) -> None:
    rs = run(stock, "SELECT total = qty * 2, 'label' = sku FROM items WHERE id = 10"
             ).resultsets[0]
    assert (rs.columns, rs.rows) == (["total", "label"], [(2, "a")])


def test_collation_is_case_insensitive_and_ignores_trailing_spaces(stock: ExecContext) -> None:
    assert rows(stock, "SELECT id FROM items WHERE sku = 'A  '") == [(10,)]
    assert rows(stock, "SELECT COUNT(DISTINCT p.sku) FROM prices p JOIN items i "
                       "ON i.sku = p.sku") == [(2,)]
    assert rows(stock, "SELECT sku FROM prices ORDER BY sku") == [("A",), ("b",)]


def test_views(stock: ExecContext) -> None:
    run(stock, "CREATE VIEW dbo.priced AS SELECT i.sku, p.price FROM items i "
               "JOIN prices p ON p.sku = i.sku")
    rs = run(stock, "SELECT * FROM priced ORDER BY sku").resultsets[0]
    assert rs.columns == ["sku", "price"] and rs.rows == [("a", Decimal("1.50")),
                                                          ("b", Decimal("2.25"))]
    with pytest.raises(TSqlError) as ei:
        run(stock, "DELETE FROM priced")  # a join view: two base tables
    assert ei.value.number == 4405
    run(stock, "ALTER VIEW priced AS SELECT sku FROM prices")
    assert rows(stock, "SELECT COUNT(*) FROM priced") == [(2,)]
    with pytest.raises(TSqlError) as ei:
        run(stock, "CREATE VIEW bad AS SELECT * FROM nowhere")
    assert ei.value.number == 208
    assert run(stock, "DELETE FROM priced WHERE sku = 'a'").rowcount == 1
    assert rows(stock, "SELECT sku FROM prices") == [("b",)]
    run(stock, "DROP VIEW priced")
    with pytest.raises(TSqlError) as ei:
        run(stock, "DROP VIEW priced")
    assert ei.value.number == 3701
    run(stock, "DROP VIEW IF EXISTS priced")


def test_alter_table(stock: ExecContext) -> None:
    run(stock, "ALTER TABLE items ADD note nvarchar(20) NULL")
    run(stock, "ALTER TABLE items ADD flag bit NOT NULL DEFAULT 1")
    assert rows(stock, "SELECT note, flag FROM items WHERE id = 10") == [(None, 1)]
    with pytest.raises(TSqlError) as ei:
        run(stock, "ALTER TABLE items ADD must int NOT NULL")
    assert ei.value.number == 4901
    run(stock, "ALTER TABLE items ADD CONSTRAINT ck_qty CHECK (qty >= 0)")
    with pytest.raises(TSqlError) as ei:
        run(stock, "UPDATE items SET qty = -1")
    assert ei.value.number == 547
    run(stock, "ALTER TABLE items DROP CONSTRAINT ck_qty")
    run(stock, "UPDATE items SET qty = -1")
    run(stock, "ALTER TABLE items DROP COLUMN note")
    with pytest.raises(TSqlError) as ei:
        run(stock, "SELECT note FROM items")
    assert ei.value.number == 207
    run(stock, "ALTER TABLE items ALTER COLUMN sku varchar(1) NOT NULL")
    with pytest.raises(TSqlError) as ei:
        run(stock, "INSERT INTO items (sku) VALUES ('zz')")
    assert ei.value.number == 8152


def test_indexes(stock: ExecContext) -> None:
    run(stock, "CREATE INDEX ix_qty ON items (qty)")
    run(stock, "CREATE UNIQUE INDEX ux_sku ON dbo.items (sku)")
    with pytest.raises(TSqlError) as ei:
        run(stock, "INSERT INTO items (sku) VALUES ('A')")
    assert ei.value.message == ("Cannot insert duplicate key row in object 'dbo.items' with "
                                "unique index 'ux_sku'. The duplicate key value is (A).")
    with pytest.raises(TSqlError) as ei:
        run(stock, "CREATE INDEX ix_qty ON items (sku)")
    assert ei.value.number == 1913
    run(stock, "DROP INDEX ux_sku ON items")
    run(stock, "INSERT INTO items (sku) VALUES ('A')")
    run(stock, "DROP INDEX items.ix_qty")
    assert rows(stock, "SELECT COUNT(*) FROM sys.objects WHERE type = 'IX'") == [(0,)]


def test_create_table_errors(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE T (b int)")
    assert (ei.value.number, ei.value.message) == (
        2714, "There is already an object named 'T' in the database.")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE u (a int, A int)")
    assert ei.value.number == 2705
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE u (a int REFERENCES nowhere(id))")
    assert ei.value.number == 1767


def test_merge_emulation(stock: ExecContext) -> None:
    run(stock, "CREATE TABLE incoming (sku varchar(10), qty int)")
    run(stock, "INSERT INTO incoming VALUES ('a', 100), ('b', 0), ('z', 7)")
    result = run(stock, """
        MERGE INTO items AS t
        USING incoming AS s ON t.sku = s.sku
        WHEN MATCHED AND s.qty = 0 THEN DELETE
        WHEN MATCHED THEN UPDATE SET qty = t.qty + s.qty
        WHEN NOT MATCHED BY TARGET THEN INSERT (sku, qty) VALUES (s.sku, s.qty)
        WHEN NOT MATCHED BY SOURCE THEN UPDATE SET qty = -1;""")
    assert result.rowcount == 4 and result.identity == 25
    assert rows(stock, "SELECT sku, qty FROM items ORDER BY id") == [
        ("a", 101), ("c", -1), ("z", 7)]
    run(stock, "INSERT INTO incoming VALUES ('a', 1)")
    with pytest.raises(TSqlError) as ei:
        run(stock, "MERGE items AS t USING incoming AS s ON t.sku = s.sku "
                   "WHEN MATCHED THEN UPDATE SET qty = s.qty;")
    assert ei.value.number == 8672


def test_accumulating_assignment(stock: ExecContext) -> None:
    result = run(stock, "SELECT @list = @list + sku + ',', @n = @n + qty FROM items ORDER BY id",
                 list=("", "varchar(100)"), n=(0, "int"))
    assert result.assign_targets == [("@list", "="), ("@n", "=")]
    assert result.resultsets[0].rows[-1] == ("a,b,c,", 6)
    nulls = run(stock, "SELECT @list = @list + sku FROM items", list=(None, "varchar(100)"))
    assert nulls.resultsets[0].rows[-1] == (None,)


def test_compound_select_assignment_yields_the_operand(stock: ExecContext) -> None:
    result = run(stock, "SELECT @n += qty FROM items ORDER BY id", n=(100, "int"))
    assert result.assign_targets == [("@n", "+=")]
    assert [r[0] for r in result.resultsets[0].rows] == [1, 2, 3]


def test_identity_insert(stock: ExecContext) -> None:
    run(stock, "CREATE TABLE plain (a int)")
    with pytest.raises(TSqlError) as ei:
        set_identity_insert(stock, "plain", True)
    assert ei.value.number == 8106
    set_identity_insert(stock, "dbo.items", True)
    result = run(stock, "INSERT INTO items (id, sku) VALUES (100, 'big')")
    assert result.identity == 100
    with pytest.raises(TSqlError) as ei:
        run(stock, "INSERT INTO items (sku) VALUES ('x')")
    assert ei.value.number == 545
    with pytest.raises(TSqlError) as ei:
        run(stock, "INSERT INTO items VALUES (101, 'y', 1)")
    assert ei.value.number == 8101
    run(stock, "CREATE TABLE other (id int IDENTITY, v int)")
    with pytest.raises(TSqlError) as ei:
        set_identity_insert(stock, "other", True)
    assert ei.value.message == ("IDENTITY_INSERT is already ON for table 'dbo.items'. Cannot "
                                "perform SET operation for table 'other'.")
    set_identity_insert(stock, "items", False)
    assert run(stock, "INSERT INTO items (sku) VALUES ('next')").identity == 105


def test_names_are_case_insensitive(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE dbo.Orders ([OrderID] int IDENTITY PRIMARY KEY, "
             "CustomerName nvarchar(20) NOT NULL, [Total Due] decimal(8,2) CHECK ([TOTAL DUE] >= 0))")
    run(ctx, "INSERT INTO ORDERS (customername, [total due]) VALUES (N'Ann', 5)")
    run(ctx, "UPDATE orders SET [Total Due] = [total due] * 2 WHERE CUSTOMERNAME = N'ann'")
    rs = run(ctx, "SELECT orderid, [CustomerName], o.[TOTAL DUE] FROM Orders AS O").resultsets[0]
    assert rs.columns == ["orderid", "CustomerName", "TOTAL DUE"]
    assert rs.rows == [(1, "Ann", Decimal("10.00"))]
    assert rows(ctx, "SELECT * FROM orders")[0][0] == 1
    with pytest.raises(TSqlError) as ei:
        run(ctx, "UPDATE orders SET [total due] = -1")
    assert ei.value.number == 547


def test_update_through_a_top_view_ordered_by_position_or_constant(ctx: ExecContext) -> None:
    """A TOP view's ORDER BY n names its n-th column; a constant that is no column position
    (1.5) orders nothing, as the view's own SELECT reads it (it was int('1.5'): Msg 50000)."""
    run(ctx, "CREATE TABLE x (id int, v int)")
    run(ctx, "INSERT INTO x VALUES (1, 30), (2, 10), (3, 20)")
    run(ctx, "CREATE VIEW by_pos AS SELECT TOP 2 id, v FROM x ORDER BY 2 DESC")
    assert run(ctx, "UPDATE by_pos SET v = v + 1").rowcount == 2
    assert rows(ctx, "SELECT id, v FROM x ORDER BY id") == [(1, 31), (2, 10), (3, 21)]
    # The UPDATE fares as the view's SELECT does (PostgreSQL refuses the constant there).
    run(ctx, "CREATE VIEW by_const AS SELECT TOP 2 id, v FROM x ORDER BY 1.5")
    try:
        shown = {r[0] for r in rows(ctx, "SELECT id FROM by_const")}
    except TSqlError as e:
        with pytest.raises(TSqlError) as ei:
            run(ctx, "UPDATE by_const SET v = 0")
        assert ei.value.number == e.number
        return
    assert run(ctx, "UPDATE by_const SET v = 0").rowcount == 2
    assert {r[0] for r in rows(ctx, "SELECT id FROM x WHERE v = 0")} == shown
