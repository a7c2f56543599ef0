"""Scalar UDFs and session / metadata functions inside storage queries (both backends)."""

from __future__ import annotations

from typing import Any

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
SET NOCOUNT ON
CREATE TABLE dbo.t (a int PRIMARY KEY, n varchar(10))
CREATE TABLE dbo.rates (n varchar(10) PRIMARY KEY, r int)
INSERT dbo.t VALUES (1, 'x'), (2, 'y'), (3, 'z')
INSERT dbo.rates VALUES ('x', 10), ('y', 20)
GO
CREATE FUNCTION dbo.twice(@v int) RETURNS int AS BEGIN RETURN @v * 2 END
GO
CREATE FUNCTION dbo.rate(@n varchar(10)) RETURNS int
AS BEGIN RETURN (SELECT r FROM dbo.rates WHERE n = @n) END
GO
"""


def _run(session: Any, sink: CollectingSink, text: str) -> list[tuple[Any, ...]]:
    """Run ``text``; the rows of its last result set (no error allowed)."""
    sink.events.clear()
    session.execute(text)
    errors = [p for k, p in sink.events if k == "error"]
    assert not errors, errors
    sets = [p for k, p in sink.events if k == "resultset"]
    return list(sets[-1].rows) if sets else []


def _error(session: Any, sink: CollectingSink, text: str) -> Any:
    sink.events.clear()
    session.execute(text)
    errors = [p for k, p in sink.events if k == "error"]
    assert len(errors) == 1, sink.events
    return errors[0]


def test_udf_reading_another_table_per_row(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    assert _run(session, sink, "SELECT a, dbo.rate(n), dbo.twice(a) FROM dbo.t ORDER BY a") \
        == [(1, 10, 2), (2, 20, 4), (3, None, 6)]
    assert _run(session, sink, "SELECT a FROM dbo.t WHERE dbo.rate(n) > 10 OR dbo.twice(a) = 6"
                " ORDER BY dbo.twice(a) DESC") == [(3,), (2,)]


def test_udf_over_a_cte_column(session: Any, sink: CollectingSink) -> None:
    """An unqualified argument column of a CTE (named by its select list or column list)."""
    _run(session, sink, SETUP)
    assert _run(session, sink, "WITH c AS (SELECT a, n FROM dbo.t) SELECT a, dbo.rate(n) "
                "FROM c ORDER BY a") == [(1, 10), (2, 20), (3, None)]
    assert _run(session, sink, "WITH c (k, m) AS (SELECT a, n FROM dbo.t) "
                "SELECT k, dbo.twice(k) FROM c WHERE m <> 'z' ORDER BY k") == [(1, 2), (2, 4)]


def test_udf_in_update_insert_and_delete(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    _run(session, sink, "UPDATE dbo.rates SET r = dbo.twice(r) WHERE n = 'x'")
    _run(session, sink, "INSERT dbo.rates (n, r) SELECT n + n, dbo.rate(n) FROM dbo.t WHERE a < 3")
    _run(session, sink, "DELETE FROM dbo.rates WHERE dbo.twice(r) = 40 AND n = 'y'")
    assert _run(session, sink, "SELECT n, r FROM dbo.rates ORDER BY n") == [
        ("x", 20), ("xx", 20), ("yy", 20)]


def test_udf_sees_the_open_transaction(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    rows = _run(session, sink, """BEGIN TRAN
        UPDATE dbo.rates SET r = 99 WHERE n = 'y'
        SELECT a, dbo.rate(n) FROM dbo.t WHERE a = 2
        ROLLBACK""")
    assert rows == [(2, 99)]
    assert _run(session, sink, "SELECT dbo.rate(n) FROM dbo.t WHERE a = 2") == [(20,)]


def test_constant_and_variable_arguments(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    assert _run(session, sink, "DECLARE @v int = 5 SELECT a + dbo.twice(@v) FROM dbo.t "
                "WHERE a = dbo.twice(1) - 1") == [(11,)]
    assert _run(session, sink, "SELECT COUNT(*) FROM dbo.t WHERE dbo.rate(NULL) IS NULL") == [
        (3,)]


def test_alter_function_changes_the_next_query(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    query = "SELECT dbo.twice(a) FROM dbo.t WHERE a = 3"
    assert _run(session, sink, query) == [(6,)]
    _run(session, sink, "ALTER FUNCTION dbo.twice(@v int) RETURNS varchar(20) AS BEGIN "
                        "RETURN 'v' + CAST(@v AS varchar(10)) END")
    assert _run(session, sink, query) == [("v3",)]


def test_correlated_udf_arguments(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    assert _run(session, sink, "SELECT a, (SELECT MAX(dbo.twice(o.a + r.r)) FROM dbo.rates AS r)"
                " FROM dbo.t AS o ORDER BY a") == [(1, 42), (2, 44), (3, 46)]
    assert _run(session, sink, "SELECT a, (SELECT dbo.twice(r.r + o.a) FROM dbo.rates AS r "
                "WHERE r.n = o.n) FROM dbo.t AS o ORDER BY a") == [(1, 22), (2, 44), (3, None)]
    assert _run(session, sink, "SELECT a FROM dbo.t AS o WHERE EXISTS (SELECT 1 FROM dbo.rates"
                " AS r WHERE dbo.twice(r.r) = o.a * 20) ORDER BY a") == [(1,), (2,)]
    assert _run(session, sink, "SELECT o.a, x.fa FROM dbo.t AS o CROSS APPLY (SELECT "
                "dbo.twice(o.a) AS fa) AS x ORDER BY o.a") == [(1, 2), (2, 4), (3, 6)]
    assert _run(session, sink, "SELECT a, dbo.twice(dbo.twice(a) + 1) FROM dbo.t "
                "WHERE dbo.twice(a) < 5 ORDER BY a") == [(1, 6), (2, 10)]


def test_unknown_function_and_too_many_arguments(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    err = _error(session, sink, "SELECT dbo.nope(a) FROM dbo.t")
    assert (err.number, err.message) == (4121, ('Cannot find either column "dbo" or the '
                                         'user-defined function or aggregate "dbo.nope", or the '
                                         'name is ambiguous.'))
    assert _error(session, sink, "SELECT dbo.twice(a, 1) FROM dbo.t").number == 8144


def test_side_effects_refused_at_create(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    err = _error(session, sink, "CREATE FUNCTION dbo.f(@x int) RETURNS int AS BEGIN "
                                "DELETE FROM dbo.t RETURN 1 END")
    assert (err.number, err.procedure) == (443, "f")
    assert "'DELETE'" in err.message
    err = _error(session, sink, "CREATE FUNCTION dbo.r() RETURNS float AS BEGIN "
                                "RETURN RAND() END")
    assert err.message == "Invalid use of a side-effecting operator 'rand' within a function."
    _run(session, sink, "CREATE FUNCTION dbo.g(@x int) RETURNS int AS BEGIN "
                        "DECLARE @t TABLE (v int) INSERT @t VALUES (@x) "
                        "RETURN (SELECT v FROM @t) END")
    assert _run(session, sink, "SELECT dbo.g(a) FROM dbo.t ORDER BY a") == [(1,), (2,), (3,)]


def test_session_values_inside_queries(instance: Instance, session: Any,
                                       sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    rows = _run(session, sink, "SELECT @@SPID, USER_NAME(), SUSER_SNAME(), SYSTEM_USER, "
                               "CURRENT_USER, DB_NAME() FROM dbo.t WHERE a = 1")
    assert rows == [(session.id, "dbo", "sa", "sa", "dbo", "master")]
    assert _run(session, sink, "SELECT USER, a FROM dbo.t WHERE USER = 'dbo' AND a = 1") == [
        ("dbo", 1)]
    other = instance.session(CollectingSink())
    try:
        other.execute("SELECT @@SPID FROM dbo.t WHERE a = 1")
        sets = [p for k, p in other.sink.events if k == "resultset"]
        assert sets[-1].rows == [(other.id,)]  # the compiled SQL is shared, the value is not
    finally:
        other.close()


def test_catalog_lookups_per_row(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    rows = _run(session, sink, "SELECT name, OBJECT_NAME(object_id), OBJECT_SCHEMA_NAME("
                               "object_id), SCHEMA_NAME(schema_id) FROM sys.objects")
    assert rows and all(r[1] == r[0] and r[2] == r[3] == "dbo" for r in rows)
    assert _run(session, sink, "SELECT COL_NAME(object_id, 2) FROM sys.tables "
                               "WHERE name = 't'") == [("n",)]


def test_session_function_with_column_argument(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP)
    err = _error(session, sink, "SELECT GET_TRANSMISSION_STATUS(n) FROM dbo.t")
    assert err.number == 40000 and "GET_TRANSMISSION_STATUS" in err.message


def test_principal_and_type_lookups_per_row(session: Any, sink: CollectingSink) -> None:
    assert _run(session, sink, "SELECT principal_id, USER_NAME(principal_id), USER_ID(name), "
                "DATABASE_PRINCIPAL_ID(UPPER(name)) FROM sys.database_principals "
                "WHERE principal_id < 3 ORDER BY principal_id") == [
        (0, "public", 0, 0), (1, "dbo", 1, 1), (2, "guest", 2, 2)]
    assert _run(session, sink, "SELECT SUSER_NAME(principal_id), SUSER_SNAME(sid), "
                "SUSER_NAME() FROM sys.server_principals WHERE name = 'sa'") == [
        ("sa", "sa", "sa")]
    assert _run(session, sink, "SELECT TYPE_NAME(user_type_id), TYPE_ID(name) FROM sys.types"
                " WHERE name = 'int'") == [("int", 56)]


def test_impersonation_inside_queries(session: Any, sink: CollectingSink) -> None:
    _run(session, sink, SETUP + """
CREATE USER bob WITHOUT LOGIN
GRANT SELECT ON dbo.t TO bob
GO
CREATE PROCEDURE dbo.p AS
BEGIN
  EXECUTE AS USER = 'bob'
  SELECT USER_NAME(), CURRENT_USER FROM dbo.t WHERE a = 1
  REVERT
END
GO""")
    assert _run(session, sink, "EXEC dbo.p") == [("bob", "bob")]
    assert _run(session, sink, "SELECT USER_NAME() FROM dbo.t WHERE a = 1") == [("dbo",)]
    assert _run(session, sink, "EXECUTE AS USER = 'bob' SELECT USER_NAME() FROM dbo.t "
                               "WHERE a = 1 REVERT") == [("bob",)]


def test_function_table_variables_are_dropped(instance: Instance, session: Any,
                                              sink: CollectingSink) -> None:
    from tsqlbroker.engine.tableinfo import table_by_physical

    _run(session, sink, SETUP + """
CREATE FUNCTION dbo.tv(@x int) RETURNS int AS BEGIN
  DECLARE @t TABLE (v int)
  INSERT @t VALUES (@x), (@x + 1)
  RETURN (SELECT SUM(v) FROM @t)
END
GO""")
    declared: list[str] = []
    from tsqlbroker.interpreter import dml_stmts as interp_dml

    real = interp_dml.engine_dml.declare_table_variable

    def spy(ctx: Any, name: str, columns: str) -> str:
        physical: str = real(ctx, name, columns)
        declared.append(physical)
        return physical
    interp_dml.engine_dml.declare_table_variable = spy  # type: ignore[attr-defined]
    try:
        assert _run(session, sink, "SELECT a, dbo.tv(a) FROM dbo.t ORDER BY a") == [
            (1, 3), (2, 5), (3, 7)]
        assert _run(session, sink, "BEGIN TRAN UPDATE dbo.t SET a = dbo.tv(a) WHERE a = 3 "
                                   "COMMIT SELECT a FROM dbo.t ORDER BY a") == [(1,), (2,), (7,)]
    finally:
        interp_dml.engine_dml.declare_table_variable = real  # type: ignore[attr-defined]
    assert declared
    conn = instance.store.connect()
    try:
        assert [p for p in declared if table_by_physical(conn, p) is not None] == []
    finally:
        conn.close()
