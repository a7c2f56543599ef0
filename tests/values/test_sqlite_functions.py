"""The T-SQL functions registered in SQLite: storage values in, storage values out."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tsqlbroker.errors import TSqlError
from tsqlbroker.storage.backends.sqlite.functions import ci_collate as TSQL_COLLATION
from tsqlbroker.storage.backends.sqlite.tsql_functions import TSQL_FUNCTIONS as SQLITE_FUNCTIONS


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    for name, (nargs, fn) in SQLITE_FUNCTIONS.items():
        conn.create_function(f"tsql_{name}", nargs, fn)
    conn.create_collation("TSQL_CI", TSQL_COLLATION)
    return conn


def one(db: sqlite3.Connection, sql: str, *params: Any) -> Any:
    return db.execute(sql, params).fetchone()[0]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("select tsql_len('ab  ')", 2),
        ("select tsql_len(12345)", 5),
        ("select tsql_len(NULL)", None),
        ("select tsql_datalength('ab')", 4),
        ("select tsql_datalength(x'0001')", 2),
        ("select tsql_charindex('B', 'abcb')", 2),
        ("select tsql_charindex('b', 'abcb', 3)", 4),
        ("select tsql_patindex('%[0-9]%', 'ab12')", 3),
        ("select tsql_substring('abcdef', 0, 3)", "ab"),
        ("select tsql_left('abcdef', 2)", "ab"),
        ("select tsql_right('abcdef', 2)", "ef"),
        ("select tsql_replace('aAbB', 'a', 'x')", "xxbB"),
        ("select tsql_replicate('ab', 2)", "abab"),
        ("select tsql_stuff('abcdef', 2, 3, 'X')", "aXef"),
        ("select tsql_stuff('abcdef', 2, 3, NULL)", "aef"),
        ("select tsql_reverse('abc')", "cba"),
        ("select tsql_upper('àb')", "ÀB"),
        ("select tsql_quotename('a]b')", "[a]]b]"),
        ("select tsql_quotename('ab', '''')", "'ab'"),
        ("select tsql_concat('a', NULL, 1)", "a1"),
        ("select tsql_concat_ws(',', 'a', NULL, 'b')", "a,b"),
        ("select tsql_isnull(NULL, 5)", 5),
        ("select tsql_nchar(65279)", "\ufeff"),
        ("select tsql_char(65)", "A"),
        ("select tsql_unicode('é')", 233),
        ("select tsql_space(2)", "  "),
        ("select tsql_like('ABC ', 'a%c')", 1),
        ("select tsql_format('', 1234.5, 'N2')", "1,234.50"),
        ("select tsql_format('numeric(6,1)', 1234.5, 'G')", "1234.5"),
        ("select tsql_format('', '2024-03-05 13:07:09.000000', 'yyyy-MM-dd')", "2024-03-05"),
        ("select tsql_format('date', '2024-03-05', 'd', 'de-DE')", "05.03.2024"),
        ("select tsql_str(123.456, 8, 2)", "  123.46"),
        ("select tsql_dateadd('day', 1, '2024-01-31 00:00:00.000000')",
         "2024-02-01 00:00:00.000000"),
        ("select tsql_dateadd('month', 1, '2024-01-31')", "2024-02-29 00:00:00.000000"),
        ("select tsql_datediff('day', '2024-01-31 23:59:00.000000', '2024-02-01 00:00:00.0')", 1),
        ("select tsql_datediff('minute', '2024-01-01T10:00:00', '2024-01-01T11:30:00')", 90),
        ("select tsql_datediff_big('ms', '1900-01-01', '2024-01-01')", 3913056000000),
        ("select tsql_datepart('weekday', '2024-03-05')", 3),
        ("select tsql_datename('month', '2024-03-05')", "March"),
        ("select tsql_year('2024-03-05 00:00:00.000000')", 2024),
        ("select tsql_month('2024-03-05')", 3),
        ("select tsql_day('2024-03-05')", 5),
        ("select tsql_eomonth('2024-02-10')", "2024-02-29"),
        ("select tsql_eomonth('2024-02-10', 1)", "2024-03-31"),
        ("select tsql_isdate('2024-02-30')", 0),
        ("select tsql_isdate('2024-02-28')", 1),
        ("select tsql_isnumeric('1e5')", 1),
        ("select tsql_isnumeric(5)", 1),
        ("select tsql_isnumeric('x')", 0),
        ("select tsql_xml_value('<a><b>5</b></a>', '(/a/b)[1]', 'int')", 5),
        ("select tsql_xml_value('<a><b>5</b></a>', '(/a/c)[1]', 'int')", None),
        ("select tsql_xml_exist('<a/>', '/a')", 1),
        ("select tsql_xml_exist('<a/>', '/b')", 0),
        ("select tsql_xml_exist(NULL, '/b')", None),
        ("select tsql_xml_query('<a><b>5</b></a>', '/a/b')", "<b>5</b>"),
        ("select tsql_xml_value('<p:a xmlns:p=\"urn:x\">7</p:a>', '(/q:a)[1]', 'int', 'q=urn:x')",
         7),
        ("select tsql_xml_value(x'FFFE3C00610020002F003E00', 'count(/a)', 'int')", 1),
        ("select tsql_json_value('{\"a\": [1, 2]}', '$.a[1]')", "2"),
        ("select tsql_json_query('{\"a\": [1, 2]}', '$.a')", "[1, 2]"),
        ("select tsql_isjson('{}')", 1),
        ("select tsql_isjson('x')", 0),
        ("select hex(tsql_hashbytes('MD5', x'00'))", "93B885ADFE0DA089CDF634904FD59F71"),
    ],
)
def test_functions_in_sqlite(db: sqlite3.Connection, sql: str, expected: Any) -> None:
    assert one(db, sql) == expected


def test_now_and_ids(db: sqlite3.Connection) -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}000", one(db, "select tsql_getdate()"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", one(db, "select tsql_sysdatetime()"))
    guid = one(db, "select tsql_newid()")
    assert re.fullmatch(r"[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}", guid)
    assert one(db, "select tsql_newsequentialid()") != one(db, "select tsql_newsequentialid()")


def test_collation(db: sqlite3.Connection) -> None:
    assert one(db, "select 'abc ' = 'ABC' collate TSQL_CI") == 1
    assert one(db, "select 'abc' < 'ABD' collate TSQL_CI") == 1
    db.execute("create table t (s text collate TSQL_CI)")
    db.executemany("insert into t values (?)", [("b",), ("A",), ("a ",), ("C",)])
    assert [r[0] for r in db.execute("select distinct s from t order by s")][:1] in (["A"], ["a "])
    assert one(db, "select count(*) from t where s = 'a'") == 2


def test_collation_function_values() -> None:
    assert TSQL_COLLATION("abc", "ABC  ") == 0
    assert TSQL_COLLATION("a", "b") == -1
    assert TSQL_COLLATION("B", "a") == 1


def test_errors_are_tsql_errors() -> None:
    fn = SQLITE_FUNCTIONS["dateadd"][1]
    with pytest.raises(TSqlError) as ei:
        fn("fortnight", 1, "2024-01-01")
    assert ei.value.number == 155
    with pytest.raises(TSqlError) as ei:
        SQLITE_FUNCTIONS["datediff"][1]("day", "not a date", "2024-01-01")
    assert ei.value.number == 241
    with pytest.raises(TSqlError) as ei:
        SQLITE_FUNCTIONS["left"][1]("abc", -1)
    assert ei.value.number == 536
    with pytest.raises(TSqlError):
        SQLITE_FUNCTIONS["xml_value"][1]("<a>", "/a", "int")


def test_every_entry_is_well_formed() -> None:
    for name, (nargs, fn) in SQLITE_FUNCTIONS.items():
        assert name == name.lower() and callable(fn) and nargs >= -1


STORAGE = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=12), st.binary(max_size=6),
                    st.sampled_from(["2024-03-05 10:00:00.000000", "day", "month", "$.a",
                                     '{"a": 1}', "<a>1</a>", "(/a)[1]", "int", "N2"]))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SQLITE_FUNCTIONS)), st.lists(STORAGE, min_size=0, max_size=4))
def test_storage_values_never_raise_python_errors(name: str, args: list[Any]) -> None:
    nargs, fn = SQLITE_FUNCTIONS[name]
    if nargs >= 0:
        args = (args + [None] * nargs)[:nargs]
    try:
        result = fn(*args)
    except TSqlError:
        return
    assert result is None or isinstance(result, (int, float, str, bytes))
