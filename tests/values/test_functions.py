"""Built-in scalar functions: binding, result types, values and errors."""

from __future__ import annotations

import itertools
import re
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.builtins import NOTCONST, lookup, names
from tsqlbroker.values.types import SqlType, parse_type_spec

T = parse_type_spec


def call(name: str, *args: tuple[str, Any]) -> Any:
    """Bind ``name`` to (type spec, value) arguments; datepart words are passed as consts."""
    types = [T(spec) for spec, _v in args]
    consts = [v if spec.startswith("varchar") and isinstance(v, str) else NOTCONST
              for spec, v in args]
    _t, fn = lookup(name).bind(types, consts)  # type: ignore[union-attr]
    return fn(*[v for _s, v in args])


def rtype(name: str, *specs: str, consts: list[Any] | None = None) -> str:
    t, _fn = lookup(name).bind([T(s) for s in specs], consts or [NOTCONST] * len(specs))  # type: ignore[union-attr]
    return t.spec()


V = "varchar(20)"
N = "nvarchar(20)"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("len", [(V, "ab  ")], 2),
        ("len", [(V, "  ab")], 4),
        ("len", [(V, "")], 0),
        ("len", [("int", 12345)], 5),
        ("datalength", [(N, "ab")], 4),
        ("datalength", [(V, "ab ")], 3),
        ("datalength", [("int", 1)], 4),
        ("datalength", [("varbinary(10)", b"\x00\x01")], 2),
        ("datalength", [("uniqueidentifier", uuid.uuid4())], 16),
        ("substring", [(V, "abcdef"), ("int", 2), ("int", 3)], "bcd"),
        ("substring", [(V, "abcdef"), ("int", 0), ("int", 3)], "ab"),
        ("substring", [(V, "abcdef"), ("int", -1), ("int", 3)], "a"),
        ("substring", [(V, "abc"), ("int", 5), ("int", 3)], ""),
        ("substring", [("varbinary(4)", b"\x01\x02\x03"), ("int", 2), ("int", 1)], b"\x02"),
        ("left", [(V, "abcdef"), ("int", 2)], "ab"),
        ("right", [(V, "abcdef"), ("int", 2)], "ef"),
        ("right", [(V, "abc"), ("int", 0)], ""),
        ("charindex", [(V, "B"), (V, "abcb")], 2),
        ("charindex", [(V, "b"), (V, "abcb"), ("int", 3)], 4),
        ("charindex", [(V, "z"), (V, "abc")], 0),
        ("charindex", [(V, ""), (V, "abc")], 0),
        ("patindex", [(V, "%[0-9]%"), (V, "ab12")], 3),
        ("patindex", [(V, "%cd"), (V, "abcd")], 3),
        ("patindex", [(V, "ab%"), (V, "abcd")], 1),
        ("patindex", [(V, "%zz%"), (V, "abcd")], 0),
        ("replace", [(V, "aAbB"), (V, "a"), (V, "x")], "xxbB"),
        ("replace", [(V, "abc"), (V, ""), (V, "x")], "abc"),
        ("replicate", [(V, "ab"), ("int", 3)], "ababab"),
        ("replicate", [(V, "ab"), ("int", -1)], None),
        ("stuff", [(V, "abcdef"), ("int", 2), ("int", 3), (V, "XY")], "aXYef"),
        ("stuff", [(V, "abc"), ("int", 5), ("int", 1), (V, "X")], None),
        ("upper", [(V, "abc")], "ABC"),
        ("lower", [(N, "ÀB")], "àb"),
        ("ltrim", [(V, "  a ")], "a "),
        ("rtrim", [(V, "  a ")], "  a"),
        ("trim", [(V, "  a ")], "a"),
        ("trim", [(V, "xxaxx"), (V, "x")], "a"),
        ("concat", [(V, "a"), ("int", 1), (V, None)], "a1"),
        ("concat_ws", [(V, ","), (V, "a"), (V, None), (V, "b")], "a,b"),
        ("quotename", [(V, "a]b")], "[a]]b]"),
        ("quotename", [(V, "ab"), (V, "'")], "'ab'"),
        ("quotename", [(V, "ab"), (V, "x")], None),
        ("quotename", [("nvarchar(200)", "x" * 129)], None),
        ("nchar", [("int", 0xFEFF)], "\ufeff"),
        ("nchar", [("int", 70000)], None),
        ("char", [("int", 65)], "A"),
        ("char", [("int", 128)], "\u20ac"),
        ("char", [("int", 300)], None),
        ("unicode", [(N, "é")], 233),
        ("ascii", [(V, "A")], 65),
        ("ascii", [(V, "")], None),
        ("space", [("int", 3)], "   "),
        ("reverse", [(V, "abc")], "cba"),
        ("string_escape", [(V, 'a"b\\c/\n'), (V, "json")], 'a\\"b\\\\c\\/\\n'),
        ("translate", [(V, "2*[3+4]/{7-2}"), (V, "[]{}"), (V, "()()")], "2*(3+4)/(7-2)"),
        ("len", [(V, None)], None),
        ("upper", [(V, None)], None),
    ],
)
def test_string_functions(name: str, args: list[tuple[str, Any]], expected: Any) -> None:
    assert call(name, *args) == expected


@pytest.mark.parametrize(
    ("name", "args", "number"),
    [
        ("substring", [(V, "abc"), ("int", 1), ("int", -1)], 536),
        ("left", [(V, "abc"), ("int", -1)], 536),
        ("translate", [(V, "abc"), (V, "ab"), (V, "x")], 9828),
    ],
)
def test_string_function_errors(name: str, args: list[tuple[str, Any]], number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        call(name, *args)
    assert ei.value.number == number


@pytest.mark.parametrize(
    ("name", "specs", "spec"),
    [
        ("len", ["varchar(10)"], "int"),
        ("len", ["varchar(max)"], "bigint"),
        ("substring", ["nvarchar(10)", "int", "int"], "nvarchar(10)"),
        ("left", ["varchar(5)", "int"], "varchar(5)"),
        ("replace", ["varchar(10)", "varchar(1)", "varchar(1)"], "varchar(8000)"),
        ("replace", ["nvarchar(max)", "varchar(1)", "varchar(1)"], "nvarchar(max)"),
        ("concat", ["varchar(3)", "nvarchar(2)"], "nvarchar(5)"),
        ("quotename", ["sysname"], "nvarchar(258)"),
        ("nchar", ["int"], "nchar(1)"),
        ("abs", ["decimal(5,2)"], "decimal(5,2)"),
        ("ceiling", ["decimal(5,2)"], "decimal(5,0)"),
        ("sqrt", ["int"], "float"),
        ("getdate", [], "datetime"),
        ("sysdatetime", [], "datetime2(7)"),
        ("sysdatetimeoffset", [], "datetimeoffset(7)"),
        ("datediff_big", ["varchar(3)", "datetime", "datetime"], "bigint"),
        ("eomonth", ["datetime"], "date"),
        ("newid", [], "uniqueidentifier"),
        ("format", ["int", "varchar(2)"], "nvarchar(4000)"),
        ("choose", ["int", "varchar(2)", "nvarchar(5)"], "nvarchar(5)"),
    ],
)
def test_result_types(name: str, specs: list[str], spec: str) -> None:
    consts = ["day"] + [NOTCONST] * (len(specs) - 1) if name.startswith("date") and \
        name != "datefromparts" else None
    assert rtype(name, *specs, consts=consts) == spec


def test_dateadd_result_type_follows_argument() -> None:
    assert rtype("dateadd", "varchar(3)", "int", "date", consts=["day", 1, NOTCONST]) == "date"
    assert rtype("dateadd", "varchar(3)", "int", "varchar(10)",
                 consts=["day", 1, NOTCONST]) == "datetime"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("abs", [("int", -5)], 5),
        ("abs", [("decimal(5,2)", Decimal("-1.50"))], Decimal("1.50")),
        ("round", [("decimal(6,3)", Decimal("123.456")), ("int", 1)], Decimal("123.500")),
        ("round", [("decimal(6,3)", Decimal("123.456")), ("int", 1), ("int", 1)],
         Decimal("123.400")),
        ("round", [("decimal(6,3)", Decimal("123.456")), ("int", -1)], Decimal("120.000")),
        ("round", [("int", 155), ("int", -1)], 160),
        ("round", [("int", -155), ("int", -1)], -160),
        ("round", [("float", 2.5), ("int", 0)], 3.0),
        ("round", [("float", 1.005), ("int", 2)], 1.01),
        ("ceiling", [("decimal(5,2)", Decimal("1.01"))], Decimal(2)),
        ("floor", [("decimal(5,2)", Decimal("-1.01"))], Decimal(-2)),
        ("ceiling", [("float", 1.2)], 2.0),
        ("floor", [("int", 7)], 7),
        ("sign", [("int", -7)], -1),
        ("sign", [("float", 0.0)], 0.0),
        ("power", [("int", 2), ("int", 10)], 1024),
        ("power", [("int", 2), ("int", -2)], 0),
        ("power", [("decimal(2,1)", Decimal("2.0")), ("int", -2)], Decimal("0.3")),
        ("power", [("float", 2.0), ("float", 0.5)], 2 ** 0.5),
        ("sqrt", [("int", 16)], 4.0),
        ("square", [("int", 3)], 9.0),
        ("exp", [("int", 0)], 1.0),
        ("log", [("float", 1.0)], 0.0),
        ("log", [("int", 8), ("int", 2)], 3.0),
        ("log10", [("int", 1000)], 3.0),
        ("pi", [], 3.141592653589793),
        ("abs", [("int", None)], None),
    ],
)
def test_math(name: str, args: list[tuple[str, Any]], expected: Any) -> None:
    got = call(name, *args)
    if isinstance(expected, float):
        assert got == pytest.approx(expected)
    else:
        assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("name", "args", "number"),
    [("sqrt", [("int", -1)], 3623), ("log", [("int", 0)], 3623),
     ("abs", [("int", -2147483648)], 8115),
     ("round", [("decimal(4,1)", Decimal("999.9")), ("int", 0)], 8115)],
)
def test_math_errors(name: str, args: list[tuple[str, Any]], number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        call(name, *args)
    assert ei.value.number == number


def test_rand_with_seed_repeats() -> None:
    a = call("rand", ("int", 42))
    b = call("rand", ("int", 42))
    assert a == b and 0 <= a < 1
    assert 0 <= call("rand") < 1


D = datetime(2024, 3, 5, 13, 7, 9, 123000)


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("dateadd", [(V, "day"), ("int", 1), ("datetime", datetime(2024, 1, 31))],
         datetime(2024, 2, 1)),
        ("dateadd", [(V, "month"), ("int", 1), ("datetime", datetime(2024, 1, 31))],
         datetime(2024, 2, 29)),
        ("dateadd", [(V, "yy"), ("int", -1), ("date", date(2024, 2, 29))], date(2023, 2, 28)),
        ("dateadd", [(V, "mi"), ("int", 90), ("time", time(23, 0))], time(0, 30)),
        ("dateadd", [(V, "ms"), ("int", 2), ("datetime", datetime(2024, 1, 1))],
         datetime(2024, 1, 1, 0, 0, 0, 3000)),
        ("dateadd", [(V, "day"), ("int", 1), (V, "2024-01-01")], datetime(2024, 1, 2)),
        ("dateadd", [(V, "quarter"), ("int", 1), ("date", date(2024, 11, 30))],
         date(2025, 2, 28)),
        ("datediff", [(V, "day"), ("datetime", datetime(2024, 1, 31, 23, 59)),
                      ("datetime", datetime(2024, 2, 1))], 1),
        ("datediff", [(V, "year"), ("date", date(2023, 12, 31)), ("date", date(2024, 1, 1))], 1),
        ("datediff", [(V, "month"), ("date", date(2024, 1, 31)), ("date", date(2024, 2, 1))], 1),
        ("datediff", [(V, "hour"), ("datetime", datetime(2024, 1, 1, 10, 59)),
                      ("datetime", datetime(2024, 1, 1, 11, 0))], 1),
        ("datediff", [(V, "week"), ("date", date(2024, 3, 2)), ("date", date(2024, 3, 3))], 1),
        ("datediff", [(V, "week"), ("date", date(2024, 3, 3)), ("date", date(2024, 3, 9))], 0),
        ("datediff", [(V, "second"), ("datetime", datetime(2024, 1, 1)),
                      ("datetime", datetime(2023, 12, 31, 23, 59))], -60),
        ("datediff", [(V, "day"), (V, "2024-01-01"), (V, "2024-03-01")], 60),
        ("datediff_big", [(V, "ms"), ("date", date(1900, 1, 1)), ("date", date(2024, 1, 1))],
         3913056000000),
        ("datepart", [(V, "weekday"), ("date", date(2024, 3, 5))], 3),
        ("datepart", [(V, "dw"), ("date", date(2024, 3, 3))], 1),
        ("datepart", [(V, "week"), ("date", date(2024, 1, 6))], 1),
        ("datepart", [(V, "week"), ("date", date(2024, 1, 7))], 2),
        ("datepart", [(V, "iso_week"), ("date", date(2024, 12, 30))], 1),
        ("datepart", [(V, "dayofyear"), ("date", date(2024, 12, 31))], 366),
        ("datepart", [(V, "quarter"), ("datetime", D)], 1),
        ("datepart", [(V, "ms"), ("datetime", D)], 123),
        ("datepart", [(V, "tzoffset"), ("datetimeoffset", datetime(2024, 1, 1, tzinfo=UTC))], 0),
        ("datename", [(V, "month"), ("datetime", D)], "March"),
        ("datename", [(V, "weekday"), ("datetime", D)], "Tuesday"),
        ("datename", [(V, "year"), ("datetime", D)], "2024"),
        ("day", [("datetime", D)], 5),
        ("month", [("date", date(2024, 12, 1))], 12),
        ("year", [(V, "2021-06-01")], 2021),
        ("day", [("int", 0)], 1),
        ("eomonth", [("date", date(2024, 2, 10))], date(2024, 2, 29)),
        ("eomonth", [("date", date(2024, 1, 31)), ("int", 1)], date(2024, 2, 29)),
        ("eomonth", [("datetime", D), ("int", -3)], date(2023, 12, 31)),
        ("datefromparts", [("int", 2024), ("int", 2), ("int", 29)], date(2024, 2, 29)),
        ("datefromparts", [("int", 2024), ("int", None), ("int", 29)], None),
        ("datetimefromparts", [("int", 2024), ("int", 2), ("int", 29), ("int", 1), ("int", 2),
                               ("int", 3), ("int", 4)], datetime(2024, 2, 29, 1, 2, 3, 3000)),
        ("isdate", [(V, "2024-01-01")], 1),
        ("isdate", [(V, "2024-02-30")], 0),
        ("isdate", [(V, "hello")], 0),
        ("isdate", [(V, None)], 0),
    ],
)
def test_date_functions(name: str, args: list[tuple[str, Any]], expected: Any) -> None:
    assert call(name, *args) == expected


@pytest.mark.parametrize(
    ("name", "args", "number"),
    [
        ("dateadd", [(V, "hour"), ("int", 1), ("date", date(2024, 1, 1))], 9810),
        ("dateadd", [(V, "day"), ("int", 1), ("time", time(1, 0))], 9810),
        ("dateadd", [(V, "fortnight"), ("int", 1), ("date", date(2024, 1, 1))], 155),
        ("dateadd", [(V, "year"), ("int", 9000), ("date", date(2024, 1, 1))], 517),
        ("datefromparts", [("int", 2023), ("int", 2), ("int", 29)], 289),
        ("datediff", [(V, "ms"), ("date", date(1900, 1, 1)), ("date", date(2024, 1, 1))], 535),
    ],
)
def test_date_function_errors(name: str, args: list[tuple[str, Any]], number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        call(name, *args)
    assert ei.value.number == number


def test_datepart_message_text() -> None:
    with pytest.raises(TSqlError) as ei:
        call("dateadd", (V, "dy2"), ("int", 1), ("date", date(2024, 1, 1)))
    assert ei.value.message == "'dy2' is not a recognized dateadd option."


def test_now_functions_shapes() -> None:
    g = call("getdate")
    assert isinstance(g, datetime) and g.tzinfo is None and g.microsecond % 1000 == 0
    assert call("sysdatetimeoffset").tzinfo is not None
    assert abs((call("getutcdate") - datetime.now(UTC).replace(tzinfo=None))
               .total_seconds()) < 5
    assert lookup("getdate").deterministic is False  # type: ignore[union-attr]
    assert lookup("len").deterministic is True  # type: ignore[union-attr]


def test_convert_getdate_112_shape() -> None:
    from tsqlbroker.values.convert import converter

    text = converter(T("datetime"), T("varchar(30)"), style=112)(call("getdate"))
    assert re.fullmatch(r"\d{8}", text)


def test_newid_is_uppercase_text() -> None:
    from tsqlbroker.values.convert import converter

    g = call("newid")
    assert isinstance(g, uuid.UUID)
    text = converter(T("uniqueidentifier"), T("nvarchar(36)"))(g)
    assert re.fullmatch(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", text)
    assert call("newid") != g


def test_newsequentialid_increases_in_sql_server_order() -> None:
    from tsqlbroker.values.operators import compare

    cmp = compare(T("uniqueidentifier"), T("uniqueidentifier"))
    ids = [call("newsequentialid") for _ in range(5)]
    assert all(cmp(a, b) == -1 for a, b in itertools.pairwise(ids))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("123", 1), ("-1.5", 1), ("1e5", 1), ("$12", 1), ("1,000", 1), (".", 1), ("-", 1),
     ("abc", 0), ("", 0), ("1e", 0), ("12a", 0), (" 42 ", 1)],
)
def test_isnumeric(text: str, expected: int) -> None:
    assert call("isnumeric", (V, text)) == expected


def test_isnumeric_of_numbers_and_null() -> None:
    assert call("isnumeric", ("int", 5)) == 1
    assert call("isnumeric", (V, None)) == 0


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("nullif", [("int", 1), ("int", 1)], None),
        ("nullif", [("int", 1), ("int", 2)], 1),
        ("nullif", [(V, "a"), (V, "A ")], None),
        ("isnull", [("int", None), ("int", 2)], 2),
        ("isnull", [(V, None), ("int", 2)], "2"),
        ("coalesce", [("int", None), ("int", None), ("int", 3)], 3),
        ("coalesce", [("int", None), ("decimal(5,2)", Decimal("1.50"))], Decimal("1.50")),
        ("choose", [("int", 2), (V, "a"), (V, "b")], "b"),
        ("choose", [("int", 3), (V, "a"), (V, "b")], None),
        ("format", [("int", 42), (V, "D5")], "00042"),
        ("format", [("float", 1234.567), (V, "N2")], "1,234.57"),
        ("format", [("datetime", D), (V, "yyyy-MM-dd")], "2024-03-05"),
        ("format", [("datetime", D), (V, "dd/MM/yyyy HH:mm:ss")], "05/03/2024 13:07:09"),
        ("format", [("decimal(6,1)", Decimal("1234.5")), (V, "#,##0.00")], "1,234.50"),
        ("format", [("money", Decimal("1234.5")), (V, "C"), (V, "en-US")], "$1,234.50"),
        ("format", [("int", 1), (V, "Q")], None),
        ("str", [("float", 123.456)], "       123"),
        ("str", [("float", 123.456), ("int", 8), ("int", 2)], "  123.46"),
        ("str", [("float", 123456.0), ("int", 3)], "***"),
        ("formatmessage", [(V, "Hello %s, %d"), (V, "x"), ("int", 5)], "Hello x, 5"),
        ("formatmessage", [("int", 8134)], "Divide by zero error encountered."),
        ("formatmessage", [("int", 49999)], None),
    ],
)
def test_misc_functions(name: str, args: list[tuple[str, Any]], expected: Any) -> None:
    assert call(name, *args) == expected


def test_format_unknown_culture() -> None:
    with pytest.raises(TSqlError) as ei:
        call("format", ("int", 1), (V, "N"), (V, "xx-XX"))
    assert ei.value.number == 9818


@pytest.mark.parametrize(
    ("name", "n", "number"),
    [("len", 0, 174), ("len", 2, 174), ("charindex", 4, 189), ("concat", 1, 189)],
)
def test_arity_errors(name: str, n: int, number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        lookup(name).bind([SqlType("int")] * n, [NOTCONST] * n)  # type: ignore[union-attr]
    assert ei.value.number == number


def test_lookup_is_case_insensitive_and_complete() -> None:
    assert lookup("LEN") is lookup("len") is not None
    assert lookup("no_such_function") is None
    for required in ("len", "datalength", "substring", "left", "right", "charindex",
                     "patindex", "replace", "replicate", "stuff", "upper", "lower", "ltrim",
                     "rtrim", "trim", "concat", "concat_ws", "quotename", "nchar", "char",
                     "unicode", "ascii", "space", "reverse", "str", "format", "abs", "round",
                     "ceiling", "floor", "power", "sqrt", "sign", "rand", "pi", "exp", "log",
                     "log10", "getdate", "getutcdate", "sysdatetime", "sysutcdatetime",
                     "sysdatetimeoffset", "current_timestamp", "dateadd", "datediff",
                     "datediff_big", "datepart", "datename", "day", "month", "year",
                     "eomonth", "datefromparts", "isdate", "isnumeric", "isnull", "coalesce",
                     "nullif", "choose", "newid", "newsequentialid", "string_escape",
                     "translate", "formatmessage"):
        assert required in names(), required


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("greatest", [("int", 1), ("int", 5), ("int", None), ("int", 3)], 5),
        ("least", [("int", 1), ("decimal(5,2)", Decimal("0.50"))], Decimal("0.50")),
        ("greatest", [(V, "apple"), (V, "Banana")], "Banana"),
        ("least", [("int", None), ("int", None)], None),
        ("todatetimeoffset", [("datetime2", datetime(2024, 3, 5, 10)), (V, "+02:00")],
         datetime(2024, 3, 5, 10, tzinfo=timezone(timedelta(hours=2)))),
        ("todatetimeoffset", [("datetime2", datetime(2024, 3, 5, 10)), ("int", -120)],
         datetime(2024, 3, 5, 10, tzinfo=timezone(timedelta(hours=-2)))),
        ("switchoffset", [("datetimeoffset", datetime(2024, 3, 5, 10, tzinfo=UTC)),
                          (V, "+05:30")],
         datetime(2024, 3, 5, 15, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))),
        ("datetrunc", [(V, "month"), ("datetime", D)], datetime(2024, 3, 1)),
        ("datetrunc", [(V, "quarter"), ("date", date(2024, 5, 17))], date(2024, 4, 1)),
        ("datetrunc", [(V, "week"), ("date", date(2024, 3, 6))], date(2024, 3, 3)),
        ("datetrunc", [(V, "hour"), ("datetime", D)], datetime(2024, 3, 5, 13)),
        ("datetrunc", [(V, "ms"), ("datetime2", datetime(2024, 1, 1, 0, 0, 0, 123456))],
         datetime(2024, 1, 1, 0, 0, 0, 123000)),
        ("timefromparts", [("int", 13), ("int", 7), ("int", 9), ("int", 5), ("int", 1)],
         time(13, 7, 9, 500000)),
    ],
)
def test_more_functions(name: str, args: list[tuple[str, Any]], expected: Any) -> None:
    assert call(name, *args) == expected


def test_timefromparts_invalid() -> None:
    with pytest.raises(TSqlError) as ei:
        call("timefromparts", ("int", 25), ("int", 0), ("int", 0), ("int", 0), ("int", 0))
    assert (ei.value.number, ei.value.message) == (
        289, ("Cannot construct data type time, some of the arguments have values which are "
             "not valid."))
