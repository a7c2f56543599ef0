"""Whatever text reaches the storage layer, it answers with a result or a TSqlError."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tsqlbroker.engine.dml import ExecContext
from tsqlbroker.errors import TSqlError

from .conftest import run

WORDS = ["SELECT", "INSERT", "INTO", "UPDATE", "DELETE", "FROM", "WHERE", "SET", "VALUES",
         "CREATE", "TABLE", "DROP", "ALTER", "ADD", "VIEW", "AS", "JOIN", "ON", "TOP", "(",
         ")", ",", "=", "+", "*", "'x'", "N'y'", "1", "2.5", "NULL", "@v", "@@rowcount", "t",
         "u", "#tmp", "@tv", "a", "b", "dbo.t", "d..t", "sys.objects", "int", "varchar(5)",
         "PRIMARY", "KEY", "OUTPUT", "inserted.a", "deleted.*", "GROUP", "BY", "ORDER",
         "UNION", "ALL", "MERGE", "USING", "WHEN", "MATCHED", "THEN", "CAST", "CONVERT",
         "LEN", "GETDATE()", "IDENTITY", "DEFAULT", "CHECK", "REFERENCES", "TRUNCATE",
         "INDEX", "UNIQUE", "EXISTS", "IN", "NOT", "AND", "OR", "CASE", "END", ";", "[x y]"]


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_random_statements_raise_only_tsql_errors(ctx: ExecContext, words: list[str]) -> None:
    if not getattr(ctx, "_seeded", False):
        run(ctx, "CREATE TABLE t (a int PRIMARY KEY, b varchar(5))")
        run(ctx, "CREATE TABLE u (a int, b int)")
        run(ctx, "CREATE TABLE #tmp (a int)")
        ctx._seeded = True  # type: ignore[attr-defined]
    try:
        result = run(ctx, " ".join(words), v=(1, "int"))
    except TSqlError as e:  # any other exception fails the test
        assert e.number > 0 and e.message
    else:
        assert result.rowcount >= 0
