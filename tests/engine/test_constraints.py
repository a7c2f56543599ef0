"""Constraint errors with SQL Server's numbers and texts; statement atomicity."""

from __future__ import annotations

import re

import pytest

from tsqlbroker.engine.dml import ExecContext
from tsqlbroker.errors import TSqlError

from .conftest import rows, run


def _error(ctx: ExecContext, sql: str) -> TSqlError:
    with pytest.raises(TSqlError) as ei:
        run(ctx, sql)
    return ei.value


def test_primary_key_violation(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int)")
    run(ctx, "INSERT INTO t VALUES (1, 1)")
    err = _error(ctx, "INSERT INTO t VALUES (1, 2)")
    assert (err.number, err.severity) == (2627, 14)
    assert re.fullmatch(r"Violation of PRIMARY KEY constraint 'PK__t__[0-9A-F]{16}'\. Cannot "
                        r"insert duplicate key in object 'dbo\.t'\. The duplicate key value "
                        r"is \(1\)\.", err.message)


def test_named_composite_unique(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int, b nvarchar(10), CONSTRAINT uq_ab UNIQUE (a, b))")
    run(ctx, "INSERT INTO t VALUES (1, N'x')")
    err = _error(ctx, "INSERT INTO t VALUES (1, N'X ')")
    assert err.message == ("Violation of UNIQUE KEY constraint 'uq_ab'. Cannot insert "
                           "duplicate key in object 'dbo.t'. The duplicate key value is (1, X ).")


def test_unique_allows_one_null_only(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int UNIQUE)")
    run(ctx, "INSERT INTO t VALUES (NULL)")
    err = _error(ctx, "INSERT INTO t VALUES (NULL)")
    assert err.number == 2627 and err.message.endswith("The duplicate key value is (<NULL>).")


def test_duplicate_within_one_statement_rolls_back_the_statement(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int PRIMARY KEY)")
    run(ctx, "INSERT INTO t VALUES (1)")
    err = _error(ctx, "INSERT INTO t VALUES (2), (3), (2)")
    assert err.number == 2627
    assert rows(ctx, "SELECT id FROM t") == [(1,)]
    run(ctx, "INSERT INTO t VALUES (2)")
    assert rows(ctx, "SELECT COUNT(*) FROM t") == [(2,)]


def test_not_null(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int, c varchar(5) NOT NULL)")
    err = _error(ctx, "INSERT INTO t (id) VALUES (1)")
    assert err.number == 515
    assert err.message == ("Cannot insert the value NULL into column 'c', table 'd.dbo.t'; "
                           "column does not allow nulls. INSERT fails.")
    run(ctx, "INSERT INTO t VALUES (1, 'a')")
    err = _error(ctx, "UPDATE t SET c = NULL")
    assert err.message.endswith("UPDATE fails.")


def test_truncation(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (c varchar(3), b varbinary(2))")
    err = _error(ctx, "INSERT INTO t (c) VALUES ('abcd')")
    assert (err.number, err.message) == (8152, "String or binary data would be truncated.")
    run(ctx, "INSERT INTO t (c) VALUES ('abc   ')")  # trailing spaces do not count
    run(ctx, "INSERT INTO t (c) VALUES ('ab')")
    assert _error(ctx, "UPDATE t SET c = c + 'zz'").number == 8152
    assert _error(ctx, "INSERT INTO t (b) VALUES (0x010203)").number in (8152, 102)


def test_foreign_key_and_reference(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE p (id int PRIMARY KEY)")
    run(ctx, "CREATE TABLE c (id int, pid int CONSTRAINT fk_c_p FOREIGN KEY REFERENCES p(id))")
    run(ctx, "INSERT INTO p VALUES (1)")
    run(ctx, "INSERT INTO c VALUES (1, 1), (2, NULL)")
    err = _error(ctx, "INSERT INTO c VALUES (3, 2)")
    assert err.number == 547
    assert err.message == ('The INSERT statement conflicted with the FOREIGN KEY constraint '
                           '"fk_c_p". The conflict occurred in database "d", table "dbo.p", '
                           'column \'id\'.')
    err = _error(ctx, "DELETE FROM p")
    assert err.message == ('The DELETE statement conflicted with the REFERENCE constraint '
                           '"fk_c_p". The conflict occurred in database "d", table "dbo.c", '
                           'column \'pid\'.')
    err = _error(ctx, "UPDATE c SET pid = 5")
    assert err.message.startswith("The UPDATE statement conflicted with the FOREIGN KEY")
    assert _error(ctx, "DROP TABLE p").number == 3726
    assert _error(ctx, "TRUNCATE TABLE p").number == 4712


def test_cascade_delete(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE p (id int PRIMARY KEY)")
    run(ctx, "CREATE TABLE c (id int, pid int, FOREIGN KEY (pid) REFERENCES p (id) "
             "ON DELETE CASCADE)")
    run(ctx, "INSERT INTO p VALUES (1), (2)")
    run(ctx, "INSERT INTO c VALUES (10, 1), (11, 2)")
    run(ctx, "DELETE FROM p WHERE id = 1")
    assert rows(ctx, "SELECT id FROM c") == [(11,)]


def test_check_constraint(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (q int CONSTRAINT ck_q CHECK (q > 0), r int, "
             "CHECK (r IS NULL OR r < q))")
    run(ctx, "INSERT INTO t VALUES (NULL, NULL)")  # NULL does not violate a CHECK
    err = _error(ctx, "INSERT INTO t VALUES (0, NULL)")
    assert err.message == ('The INSERT statement conflicted with the CHECK constraint "ck_q". '
                           'The conflict occurred in database "d", table "dbo.t", column \'q\'.')
    err = _error(ctx, "INSERT INTO t VALUES (1, 5)")
    assert err.number == 547 and 'table "dbo.t".' in err.message
    run(ctx, "INSERT INTO t VALUES (5, 1)")
    assert _error(ctx, "UPDATE t SET q = -1 WHERE q = 5").number == 547


def test_defaults(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (id int IDENTITY, s varchar(10) DEFAULT 'new', "
             "n int NOT NULL CONSTRAINT df_n DEFAULT (7), g uniqueidentifier DEFAULT NEWID())")
    run(ctx, "INSERT INTO t DEFAULT VALUES")
    run(ctx, "INSERT INTO t (s) VALUES ('x')")
    got = rows(ctx, "SELECT id, s, n, g FROM t ORDER BY id")
    assert [r[:3] for r in got] == [(1, "new", 7), (2, "x", 7)]
    assert got[0][3] != got[1][3]
    names = rows(ctx, "SELECT name FROM sys.objects WHERE type = 'D' ORDER BY name")
    assert ("df_n",) in names and len(names) == 3


def test_insert_column_count_errors(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int, b int)")
    assert _error(ctx, "INSERT INTO t VALUES (1)").number == 213
    assert _error(ctx, "INSERT INTO t (a, b) VALUES (1)").number == 109
    assert _error(ctx, "INSERT INTO t (a) VALUES (1, 2)").number == 110
    assert _error(ctx, "INSERT INTO t (a, nope) VALUES (1, 2)").number == 207


def test_set_null_on_delete(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE p (id int PRIMARY KEY)")
    run(ctx, "CREATE TABLE c (id int, pid int NULL REFERENCES p (id) ON DELETE SET NULL)")
    run(ctx, "INSERT INTO p VALUES (1), (2)")
    run(ctx, "INSERT INTO c VALUES (10, 1), (11, 2)")
    run(ctx, "DELETE FROM p WHERE id = 1")
    assert rows(ctx, "SELECT id, pid FROM c ORDER BY id") == [(10, None), (11, 2)]
