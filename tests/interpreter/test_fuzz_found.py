"""Failures the fuzz test (tests/fuzz) found in queries the storage layer runs, each now
SQL Server's answer or error instead of "the storage layer could not run the statement"."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tsqlbroker.interpreter.sink import CollectingSink


def rows(session: Any, sink: CollectingSink, sql: str) -> list[tuple[Any, ...]]:
    del sink.events[:]
    session.execute(sql)
    assert sink.errors() == [], sink.errors()[0].render()
    return [tuple(r) for rs in sink.resultsets() for r in rs.rows]


def error(session: Any, sink: CollectingSink, sql: str) -> str:
    del sink.events[:]
    session.execute(sql)
    errors = sink.errors()
    assert len(errors) == 1
    return f"{errors[0].number}: {errors[0].message}"


def test_an_odd_number_of_hex_digits_is_padded_on_the_left(session: Any,
                                                            sink: CollectingSink) -> None:
    assert rows(session, sink, "CREATE TABLE #h (b varbinary(10)); "
                               "INSERT #h VALUES (0x0), (0xABC), (0x); "
                               "SELECT b FROM #h WHERE b <> 0xFFF ORDER BY DATALENGTH(b)") == [
        (b"",), (b"\x00",), (b"\x0a\xbc",)]


def test_numbers_into_dates(session: Any, sink: CollectingSink) -> None:
    session.execute("CREATE TABLE #d (d date, dt datetime)")
    assert error(session, sink, "INSERT #d (d) VALUES (1)") == (
        "206: Operand type clash: int is incompatible with date")
    # datetime and smalldatetime take a number of days since 1900-01-01.
    got = rows(session, sink, "INSERT #d (dt) VALUES (1.5); "
                              "SELECT CONVERT(varchar(30), dt, 121) FROM #d")
    assert got == [("1900-01-02 12:00:00.000",)]


def test_round_with_a_function_argument(session: Any, sink: CollectingSink,
                                        backend: str) -> None:
    session.execute("CREATE TABLE #r (x decimal(10, 3)); INSERT #r VALUES (1.255), (-1.255)")
    sql = "SELECT ROUND(x, 2, 1), ROUND(x, 2, 0) FROM #r ORDER BY x"
    if backend == "sqlite":
        assert [(str(a), str(b)) for a, b in rows(session, sink, sql)] == [
            ("-1.250", "-1.260"), ("1.250", "1.260")]
    else:  # not translated for PostgreSQL: said so, not run wrongly
        assert error(session, sink, sql) == ("40000: ROUND with a third (function) argument "
                                             "in a query on PostgreSQL is not supported.")


def test_a_value_too_large_for_a_decimal_column_overflows(session: Any,
                                                          sink: CollectingSink) -> None:
    session.execute("CREATE TABLE #p (d decimal(5, 2))")
    for value in ("1234.5", "1e300", "CAST(99999999999999999999 AS decimal(38, 0))"):
        assert error(session, sink, f"INSERT #p VALUES ({value})").startswith("8115: ")
    assert rows(session, sink, "INSERT #p VALUES (999.994); SELECT d FROM #p") == [
        (Decimal("999.99"),)]


def test_top_takes_an_integer_that_is_not_negative(session: Any, sink: CollectingSink) -> None:
    session.execute("CREATE TABLE #c (a int); INSERT #c VALUES (1), (2), (3)")
    not_integer = ("1060: The number of rows provided for a TOP or FETCH clauses row count "
                   "parameter must be an integer.")
    negative = "127: A TOP N or FETCH rowcount value may not be negative."
    for top, expected in [("('2')", not_integer), ("(1.5)", not_integer), ("(-1)", negative)]:
        assert error(session, sink, f"SELECT TOP {top} a FROM #c") == expected
    assert error(session, sink, "DECLARE @s varchar(9) = '2'; SELECT TOP (@s) a FROM #c") == (
        not_integer)
    assert error(session, sink, "DECLARE @n int = -2; SELECT TOP (@n) a FROM #c") == negative
    assert rows(session, sink, "SELECT TOP (50.5) PERCENT a FROM #c ORDER BY a") == [(1,), (2,)]


def test_a_negated_string_in_a_session_function_argument(session: Any,
                                                         sink: CollectingSink) -> None:
    # Folded in Python before the query ran: -('x') raised TypeError there. Negated text
    # is float, as outside queries.
    assert error(session, sink, "SELECT name FROM sys.databases "
                                "WHERE database_id = DB_ID(-('x'))") == (
        "8114: Error converting data type varchar to float.")
    assert error(session, sink, "PRINT -('x')") == (
        "8114: Error converting data type varchar to float.")
