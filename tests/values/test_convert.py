"""CAST / CONVERT / implicit conversions: values, truncation, styles and error numbers."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timezone
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.convert import converter, implicit_converter
from tsqlbroker.values.text import float_text
from tsqlbroker.values.types import SqlType, parse_type_spec

T = parse_type_spec


def cast(value: Any, src: str, dst: str, style: int | None = None) -> Any:
    return converter(T(src), T(dst), style=style)(value)


@pytest.mark.parametrize(
    ("value", "src", "dst", "expected"),
    [
        (Decimal("123.456"), "decimal(6,3)", "decimal(5,1)", Decimal("123.5")),
        (Decimal("123.45"), "decimal(5,2)", "decimal(4,1)", Decimal("123.5")),
        (Decimal("-123.45"), "decimal(5,2)", "decimal(4,1)", Decimal("-123.5")),
        (Decimal("1.9"), "decimal(2,1)", "int", 1),
        (Decimal("-1.9"), "decimal(2,1)", "int", -1),
        (1.9, "float", "int", 1),
        (" 42 ", "varchar(4)", "int", 42),
        ("-7", "varchar(2)", "smallint", -7),
        ("", "varchar(1)", "int", 0),
        ("1.50", "varchar(4)", "decimal(5,2)", Decimal("1.50")),
        ("1.555", "varchar(5)", "decimal(5,2)", Decimal("1.56")),
        ("1e3", "varchar(3)", "float", 1000.0),
        ("$1,234.5", "varchar(8)", "money", Decimal("1234.5000")),
        ("true", "varchar(4)", "bit", 1),
        ("0", "varchar(1)", "bit", 0),
        (5, "int", "bit", 1),
        (300, "int", "bigint", 300),
        (123, "int", "varchar(30)", "123"),
        (123, "int", "varchar(2)", "*"),
        (Decimal("12.50"), "decimal(5,2)", "varchar(30)", "12.50"),
        (Decimal("12.5"), "money", "varchar(30)", "12.50"),
        (1.0, "float", "varchar(30)", "1"),
        (1234567.0, "float", "varchar(30)", "1.23457e+006"),
        (0.5, "float", "varchar(30)", "0.5"),
        ("abcdef", "varchar(6)", "varchar(3)", "abc"),
        ("ab", "varchar(2)", "char(4)", "ab  "),
        ("h\u00e9\u4e2d", "nvarchar(3)", "varchar(10)", "h\u00e9?"),
        (b"AB", "varbinary(2)", "varchar(10)", "AB"),
        ("AB", "varchar(2)", "varbinary(10)", b"AB"),
        ("AB", "nvarchar(2)", "varbinary(10)", b"A\x00B\x00"),
        (b"A\x00B\x00", "varbinary(4)", "nvarchar(10)", "AB"),
        ("ABC", "varchar(3)", "binary(5)", b"ABC\x00\x00"),
        ("ABC", "varchar(3)", "varbinary(2)", b"AB"),
        (1, "int", "varbinary(4)", b"\x00\x00\x00\x01"),
        (-1, "int", "binary(2)", b"\xff\xff"),
        (258, "int", "binary(6)", b"\x00\x00\x00\x00\x01\x02"),
        (b"\x00\x00\x01\x02", "varbinary(4)", "int", 258),
        (b"\xff\xff\xff\xff", "varbinary(4)", "int", -1),
        (b"\x01", "varbinary(1)", "int", 1),
        ("6f9619ff-8b86-d011-b42d-00c04fc964ff", "varchar(36)", "uniqueidentifier",
         uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")),
        ("{6F9619FF-8B86-D011-B42D-00C04FC964FF}", "varchar(38)", "uniqueidentifier",
         uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")),
        (uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff"), "uniqueidentifier",
         "nvarchar(36)", "6F9619FF-8B86-D011-B42D-00C04FC964FF"),
        (uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff"), "uniqueidentifier",
         "varbinary(16)", bytes.fromhex("FF19966F868B11D0B42D00C04FC964FF")),
        ("2024-03-05", "varchar(10)", "date", date(2024, 3, 5)),
        ("2024-03-05 10:11:12.123", "varchar(30)", "datetime",
         datetime(2024, 3, 5, 10, 11, 12, 123000)),
        ("2024-03-05T10:11:12.1234567", "varchar(30)", "datetime2",
         datetime(2024, 3, 5, 10, 11, 12, 123457)),
        ("20240305", "varchar(8)", "datetime", datetime(2024, 3, 5)),
        ("03/05/2024", "varchar(10)", "date", date(2024, 3, 5)),
        ("Mar 5 2024 1:30PM", "varchar(20)", "datetime", datetime(2024, 3, 5, 13, 30)),
        ("10:11:12", "varchar(8)", "time", time(10, 11, 12)),
        ("2024-03-05 10:00:00 +02:00", "varchar(30)", "datetimeoffset",
         datetime(2024, 3, 5, 10, tzinfo=timezone(__import__("datetime").timedelta(hours=2)))),
        (datetime(2024, 3, 5, 10, 11, 12, 2000), "datetime2", "datetime",
         datetime(2024, 3, 5, 10, 11, 12, 3000)),
        (datetime(2024, 3, 5, 10, 11, 40), "datetime", "smalldatetime",
         datetime(2024, 3, 5, 10, 12)),
        (datetime(2024, 3, 5, 10, 11, 12), "datetime", "date", date(2024, 3, 5)),
        (date(2024, 3, 5), "date", "datetime", datetime(2024, 3, 5)),
        (1, "int", "datetime", datetime(1900, 1, 2)),
        (datetime(1900, 1, 3, 13, 0), "datetime", "int", 3),
        (datetime(1900, 1, 2, 12, 0), "datetime", "float", 1.5),
        # from the stored 1/300 s ticks: .003 is one tick, 1/300 s
        (datetime(1900, 1, 1, 0, 0, 0, 3000), "datetime", "float", 1 / 300 / 86400.0),
    ],
)
def test_cast_values(value: Any, src: str, dst: str, expected: Any) -> None:
    got = cast(value, src, dst)
    assert got == expected
    assert type(got) is type(expected)


def test_null_stays_null() -> None:
    assert cast(None, "varchar(3)", "int") is None
    assert converter(SqlType("null"), T("int"))(None) is None


@pytest.mark.parametrize(
    ("value", "src", "dst", "number", "message"),
    [
        ("abc", "varchar(3)", "int", 245,
         "Conversion failed when converting the varchar value 'abc' to data type int."),
        ("1.5", "nvarchar(3)", "int", 245,
         "Conversion failed when converting the nvarchar value '1.5' to data type int."),
        (Decimal(2147483648), "numeric(10,0)", "int", 8115,
         "Arithmetic overflow error converting expression to data type int."),
        (300, "int", "tinyint", 220, "Arithmetic overflow error for data type tinyint, value = 300."),
        ("300", "varchar(3)", "tinyint", 244,
         ("The conversion of the varchar value '300' overflowed an INT1 column. Use a larger "
         "integer column.")),
        ("3000000000", "varchar(10)", "int", 248,
         "The conversion of the varchar value '3000000000' overflowed an int column."),
        ("abc", "varchar(3)", "decimal(5,2)", 8114, "Error converting data type varchar to numeric."),
        ("abc", "varchar(3)", "float", 8114, "Error converting data type varchar to float."),
        (Decimal("1234.5"), "decimal(5,1)", "decimal(4,1)", 8115,
         "Arithmetic overflow error converting numeric to data type numeric."),
        (1000, "int", "decimal(3,0)", 8115,
         "Arithmetic overflow error converting int to data type numeric."),
        ("x", "varchar(1)", "money", 235,
         "Cannot convert a char value to money. The char value has incorrect syntax."),
        ("notadate", "varchar(8)", "datetime", 241,
         "Conversion failed when converting date and/or time from character string."),
        ("2024-02-30", "varchar(10)", "datetime", 242,
         ("The conversion of a varchar data type to a datetime data type resulted in an "
         "out-of-range value.")),
        ("2024-02-30", "varchar(10)", "date", 241,
         "Conversion failed when converting date and/or time from character string."),
        ("nope", "varchar(4)", "uniqueidentifier", 8169,
         "Conversion failed when converting from a character string to uniqueidentifier."),
        (123, "int", "nvarchar(2)", 8115,
         "Arithmetic overflow error converting expression to data type nvarchar."),
        (Decimal("12.50"), "decimal(4,2)", "varchar(3)", 8115,
         "Arithmetic overflow error converting numeric to data type varchar."),
        (uuid.uuid4(), "uniqueidentifier", "varchar(10)", 8170,
         "Insufficient result space to convert uniqueidentifier value to char."),
        ("x", "varchar(1)", "bit", 245,
         "Conversion failed when converting the varchar value 'x' to data type bit."),
    ],
)
def test_conversion_errors(value: Any, src: str, dst: str, number: int, message: str) -> None:
    f = converter(T(src), T(dst))
    with pytest.raises(TSqlError) as ei:
        f(value)
    assert (ei.value.number, ei.value.message) == (number, message)
    assert converter(T(src), T(dst), try_=True)(value) is None


@pytest.mark.parametrize(
    ("src", "dst", "explicit", "number", "message"),
    [
        ("uniqueidentifier", "int", True, 529,
         "Explicit conversion from data type uniqueidentifier to int is not allowed."),
        ("uniqueidentifier", "int", False, 206,
         "Operand type clash: uniqueidentifier is incompatible with int"),
        ("varchar(5)", "varbinary(max)", False, 257,
         ("Implicit conversion from data type varchar to varbinary is not allowed. Use the "
         "CONVERT function to run this query.")),
        ("xml", "nvarchar(max)", False, 257,
         ("Implicit conversion from data type xml to nvarchar is not allowed. Use the CONVERT "
         "function to run this query.")),
        ("datetime", "int", False, 257,
         ("Implicit conversion from data type datetime to int is not allowed. Use the CONVERT "
         "function to run this query.")),
        ("date", "int", True, 529, "Explicit conversion from data type date to int is not allowed."),
        ("int", "xml", True, 529, "Explicit conversion from data type int to xml is not allowed."),
        ("date", "time", True, 529, "Explicit conversion from data type date to time is not allowed."),
        ("sql_variant", "nvarchar(10)", False, 257,
         ("Implicit conversion from data type sql_variant to nvarchar is not allowed. Use the "
         "CONVERT function to run this query.")),
    ],
)
def test_refused_conversions(src: str, dst: str, explicit: bool, number: int,
                             message: str) -> None:
    with pytest.raises(TSqlError) as ei:
        converter(T(src), T(dst), explicit=explicit, try_=True)
    assert (ei.value.number, ei.value.message) == (number, message)


@pytest.mark.parametrize(
    ("src", "dst"),
    [("varbinary(10)", "varchar(10)"), ("varchar(10)", "uniqueidentifier"), ("int", "varchar(5)"),
     ("varchar(5)", "int"), ("int", "datetime"), ("varchar(20)", "datetime"),
     ("varchar(10)", "xml"), ("varbinary(max)", "xml"), ("int", "varbinary(4)"),
     ("nvarchar(10)", "sql_variant")],
)
def test_implicit_allowed(src: str, dst: str) -> None:
    assert callable(implicit_converter(T(src), T(dst)))


@pytest.mark.parametrize(
    ("value", "src", "style", "expected"),
    [
        (b"\x01\xab", "varbinary(2)", 1, "0x01AB"),
        (b"\x01\xab", "varbinary(2)", 2, "01AB"),
        (b"AB", "varbinary(2)", 0, "AB"),
    ],
)
def test_binary_to_string_styles(value: bytes, src: str, style: int, expected: str) -> None:
    assert cast(value, src, "varchar(max)", style) == expected


@pytest.mark.parametrize(
    ("text", "style", "expected"),
    [("0x01AB", 1, b"\x01\xab"), ("01AB", 2, b"\x01\xab"), ("0x", 1, b""),
     ("AB", 0, b"AB")],
)
def test_string_to_binary_styles(text: str, style: int, expected: bytes) -> None:
    assert cast(text, "varchar(10)", "varbinary(max)", style) == expected


def test_string_to_binary_bad_hex() -> None:
    with pytest.raises(TSqlError) as ei:
        cast("0xZZ", "varchar(4)", "varbinary(max)", 1)
    assert ei.value.number == 8114


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        (None, "Mar  5 2024  1:07PM"),
        (0, "Mar  5 2024  1:07PM"),
        (100, "Mar  5 2024  1:07PM"),
        (1, "03/05/24"),
        (101, "03/05/2024"),
        (103, "05/03/2024"),
        (104, "05.03.2024"),
        (106, "05 Mar 2024"),
        (108, "13:07:09"),
        (109, "Mar  5 2024  1:07:09:123PM"),
        (110, "03-05-2024"),
        (111, "2024/03/05"),
        (112, "20240305"),
        (113, "05 Mar 2024 13:07:09:123"),
        (114, "13:07:09:123"),
        (120, "2024-03-05 13:07:09"),
        (121, "2024-03-05 13:07:09.123"),
        (126, "2024-03-05T13:07:09.123"),
        (127, "2024-03-05T13:07:09.123"),
        (23, "2024-03-05"),
    ],
)
def test_datetime_styles(style: int | None, expected: str) -> None:
    v = datetime(2024, 3, 5, 13, 7, 9, 123000)
    assert cast(v, "datetime", "varchar(40)", style) == expected


@pytest.mark.parametrize(
    ("value", "src", "expected"),
    [
        (date(2024, 3, 5), "date", "2024-03-05"),
        (datetime(2024, 3, 5, 1, 2, 3, 500000), "datetime2", "2024-03-05 01:02:03.5000000"),
        (datetime(2024, 3, 5, 1, 2, 3), "datetime2(0)", "2024-03-05 01:02:03"),
        (time(1, 2, 3), "time", "01:02:03.0000000"),
        (datetime(2024, 3, 5, 1, 2, 3, tzinfo=UTC), "datetimeoffset(0)",
         "2024-03-05 01:02:03 +00:00"),
    ],
)
def test_new_date_types_default_text(value: Any, src: str, expected: str) -> None:
    assert cast(value, src, "nvarchar(40)") == expected


def test_convert_varchar_10_truncates_style_120() -> None:
    assert cast(datetime(2024, 3, 5, 13, 7, 9), "datetime", "varchar(10)", 120) == "2024-03-05"


def test_bad_style() -> None:
    with pytest.raises(TSqlError) as ei:
        converter(T("datetime"), T("varchar(30)"), style=999)
    assert ei.value.number == 281


@pytest.mark.parametrize(
    ("value", "style", "expected"),
    [(1e10, 0, "1e+010"), (123.456, 0, "123.456"), (1.0, 1, "1.0000000e+000"),
     (0.1, 2, "1.000000000000000e-001"), (-2.5e-7, 0, "-2.5e-007"),
     # the legacy styles: 126 as 2; 128 and 129 the shortest digits that read back as the
     # value, fixed for a decimal exponent from -6 to 5 (CONVERT(varchar, 124.323125453,
     # 128) is 124.323125453 where style 0 writes 124.323)
     (0.1, 126, "1.000000000000000e-001"), (124.323125453, 128, "124.323125453"),
     (124.323125453, 129, "124.323125453"), (0.1 + 0.2, 128, "0.30000000000000004"),
     (123456.7, 128, "123456.7"), (1e6, 128, "1e+006"), (1.5e-7, 128, "1.5e-007"),
     (0.000001, 129, "0.000001"), (-12.5, 128, "-12.5"), (0.0, 128, "0"), (100.0, 128, "100"),
     (9.999999999999999e5, 128, "999999.9999999999")],
)
def test_float_text(value: float, style: int, expected: str) -> None:
    assert float_text(value, style) == expected


def test_real_rounds_to_single() -> None:
    assert cast(0.1, "float", "real") == pytest.approx(0.10000000149011612, abs=0)


def test_sql_variant_roundtrip() -> None:
    assert cast(5, "int", "sql_variant") == 5
    assert cast(5, "sql_variant", "varchar(10)") == "5"
    assert cast("12", "sql_variant", "int") == 12


def test_datetime_rounds_to_ticks() -> None:
    got = cast("2024-01-01 00:00:00.001", "varchar(30)", "datetime")
    assert got == datetime(2024, 1, 1, 0, 0, 0, 0)
    got = cast("2024-01-01 00:00:00.002", "varchar(30)", "datetime")
    assert got == datetime(2024, 1, 1, 0, 0, 0, 3000)


@pytest.mark.parametrize(
    ("text", "as_varchar", "data"),
    [("\u20ac", "\u20ac", b"\x80"), ("\x81", "\x81", b"\x81"), ("\u4e2d", "?", b"?"),
     ("A\u00e9", "A\u00e9", b"A\xe9")],
)
def test_varchar_bytes_are_code_page_1252(text: str, as_varchar: str, data: bytes) -> None:
    assert cast(text, "nvarchar(5)", "varchar(5)") == as_varchar
    assert cast(as_varchar, "varchar(5)", "varbinary(5)") == data
    assert cast(data, "varbinary(5)", "varchar(5)") == as_varchar


@pytest.mark.parametrize(
    ("value", "src", "style", "expected"),
    [
        (date(2024, 3, 5), "date", 120, "2024-03-05"),
        (date(2024, 3, 5), "date", 101, "03/05/2024"),
        (date(2024, 3, 5), "date", 100, "Mar  5 2024"),
        (time(13, 7, 9), "time(0)", 108, "13:07:09"),
        (time(13, 7, 9, 500000), "time(3)", 114, "13:07:09:500"),
        (datetime(2024, 3, 5, 13, 7, 9, 1200), "datetime2(4)", 121,
         "2024-03-05 13:07:09.0012"),
        (datetime(2024, 3, 5, 13, 7, 9, tzinfo=UTC), "datetimeoffset(0)", 127,
         "2024-03-05T13:07:09Z"),
        (datetime(2024, 3, 5, 13, 7, 9), "datetime2(0)", 126, "2024-03-05T13:07:09"),
    ],
)
def test_new_types_with_styles(value: Any, src: str, style: int, expected: str) -> None:
    assert cast(value, src, "varchar(40)", style) == expected


def test_time_with_a_date_style_is_refused() -> None:
    with pytest.raises(TSqlError) as ei:
        cast(time(1, 0), "time", "varchar(20)", 101)
    assert ei.value.number == 9809
