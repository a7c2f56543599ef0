"""Operators: result types, arithmetic rules, overflow, concatenation, comparison, LIKE."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar import ast
from tsqlbroker.interpreter.ast_types import literal_type
from tsqlbroker.values.operators import and3, binary, compare, comparison, like, not3, or3, unary
from tsqlbroker.values.types import SqlType, parse_type_spec

T = parse_type_spec


@pytest.mark.parametrize(
    ("op", "left", "right", "spec"),
    [
        ("*", "decimal(10,2)", "decimal(5,3)", "decimal(16,5)"),
        ("+", "decimal(10,2)", "decimal(5,3)", "decimal(12,3)"),
        ("-", "decimal(10,2)", "decimal(5,3)", "decimal(12,3)"),
        ("/", "decimal(10,2)", "decimal(5,3)", "decimal(19,8)"),
        ("%", "decimal(10,2)", "decimal(5,3)", "decimal(5,3)"),
        ("/", "decimal(38,10)", "decimal(38,10)", "decimal(38,6)"),
        ("*", "decimal(38,10)", "decimal(38,10)", "decimal(38,6)"),
        ("+", "decimal(38,2)", "decimal(38,2)", "decimal(38,2)"),
        ("*", "decimal(20,2)", "decimal(20,2)", "decimal(38,4)"),
        ("+", "int", "decimal(5,2)", "decimal(13,2)"),
        ("+", "int", "int", "int"),
        ("+", "int", "bigint", "bigint"),
        ("+", "tinyint", "smallint", "smallint"),
        ("+", "bit", "int", "int"),
        ("+", "int", "float", "float"),
        ("+", "real", "int", "real"),
        ("+", "money", "int", "money"),
        ("+", "money", "decimal(5,2)", "decimal(20,4)"),
        ("+", "varchar(3)", "varchar(5)", "varchar(8)"),
        ("+", "varchar(3)", "nvarchar(5)", "nvarchar(8)"),
        ("+", "nvarchar(max)", "nchar(1)", "nvarchar(max)"),
        ("+", "varchar(6000)", "varchar(6000)", "varchar(8000)"),
        ("+", "varchar(1)", "int", "int"),
        ("+", "varbinary(2)", "varbinary(3)", "varbinary(5)"),
        ("+", "datetime", "int", "datetime"),
        ("&", "int", "int", "int"),
        ("&", "bit", "bit", "bit"),
    ],
)
def test_result_types(op: str, left: str, right: str, spec: str) -> None:
    assert binary(op, T(left), T(right))[0].spec() == spec


def lit(text: str) -> tuple[SqlType, Any]:
    if text.startswith("'"):
        return literal_type(ast.Literal("string", text[1:-1], text))
    if text.startswith("N'"):
        return literal_type(ast.Literal("nstring", text[2:-1], text))
    if "." in text:
        return literal_type(ast.Literal("decimal", Decimal(text), text))
    return literal_type(ast.Literal("int", int(text), text))


@pytest.mark.parametrize(
    ("left", "op", "right", "expected"),
    [
        ("1", "/", "3", 0),
        ("7", "/", "2", 3),
        ("-7", "/", "2", -3),
        ("7", "%", "-3", 1),
        ("-7", "%", "3", -1),
        ("1.0", "/", "3", Decimal("0.333333")),
        ("2.0", "/", "3", Decimal("0.666667")),
        ("1", "/", "3.0", Decimal("0.333333")),
        ("10.50", "*", "2", Decimal("21.00")),
        ("1.5", "+", "1.25", Decimal("2.75")),
        ("'1'", "+", "1", 2),
        ("1", "+", "'1'", 2),
        ("'ab'", "+", "'cd'", "abcd"),
        ("N'ab'", "+", "'cd'", "abcd"),
        ("5", "&", "3", 1),
        ("5", "|", "3", 7),
        ("5", "^", "3", 6),
        ("2147483647", "-", "1", 2147483646),
    ],
)
def test_literal_arithmetic(left: str, op: str, right: str, expected: Any) -> None:
    lt, lv = lit(left)
    rt, rv = lit(right)
    if left.startswith("-"):
        lt, lv = lit(left[1:])
        lt, neg = unary("-", lt)
        lv = neg(lv)
    _t, fn = binary(op, lt, rt)
    got = fn(lv, rv)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("left", "op", "right", "lv", "rv", "number", "message"),
    [
        ("int", "+", "int", 2147483647, 1, 8115,
         "Arithmetic overflow error converting expression to data type int."),
        ("int", "*", "int", 65536, 65536, 8115,
         "Arithmetic overflow error converting expression to data type int."),
        ("int", "/", "int", 1, 0, 8134, "Divide by zero error encountered."),
        ("int", "%", "int", 1, 0, 8134, "Divide by zero error encountered."),
        ("decimal(5,2)", "/", "decimal(5,2)", Decimal(1), Decimal(0), 8134,
         "Divide by zero error encountered."),
        ("float", "/", "int", 1.0, 0, 8134, "Divide by zero error encountered."),
        ("varchar(1)", "+", "int", "a", 1, 245,
         "Conversion failed when converting the varchar value 'a' to data type int."),
        ("tinyint", "+", "tinyint", 200, 100, 8115,
         "Arithmetic overflow error converting expression to data type tinyint."),
        ("decimal(38,0)", "*", "decimal(38,0)", Decimal(10) ** 37, Decimal(10), 8115,
         "Arithmetic overflow error converting expression to data type numeric."),
    ],
)
def test_runtime_errors(left: str, op: str, right: str, lv: Any, rv: Any, number: int,
                        message: str) -> None:
    _t, fn = binary(op, T(left), T(right))
    with pytest.raises(TSqlError) as ei:
        fn(lv, rv)
    assert (ei.value.number, ei.value.message) == (number, message)


@pytest.mark.parametrize(
    ("left", "op", "right", "number", "message"),
    [
        ("varchar(3)", "-", "varchar(3)", 8117,
         "Operand data type varchar is invalid for subtract operator."),
        ("bit", "+", "bit", 8117, "Operand data type bit is invalid for add operator."),
        ("uniqueidentifier", "+", "uniqueidentifier", 8117,
         "Operand data type uniqueidentifier is invalid for add operator."),
        ("int", "+", "xml", 402, "The data types int and xml are incompatible in the add operator."),
        ("float", "%", "int", 402,
         "The data types float and int are incompatible in the modulo operator."),
        ("date", "+", "int", 206, "Operand type clash: date is incompatible with int"),
        ("datetime2", "-", "datetime2", 8117,
         "Operand data type datetime2 is invalid for subtract operator."),
    ],
)
def test_compile_time_errors(left: str, op: str, right: str, number: int, message: str) -> None:
    with pytest.raises(TSqlError) as ei:
        binary(op, T(left), T(right))
    assert (ei.value.number, ei.value.message) == (number, message)


def test_null_propagates() -> None:
    for op in "+-*/%&|^":
        _t, fn = binary(op, T("int"), T("int"))
        assert fn(None, 1) is None and fn(1, None) is None
    t, fn = binary("+", SqlType("null"), T("varchar(3)"))
    assert t.is_string and fn(None, "a") is None
    t, fn = binary("+", SqlType("null"), SqlType("null"))
    assert t.spec() == "int" and fn(None, None) is None


def test_concat_truncates_at_8000() -> None:
    _t, fn = binary("+", T("varchar(6000)"), T("varchar(6000)"))
    assert len(fn("a" * 6000, "b" * 6000)) == 8000
    _t, fn = binary("+", T("varchar(max)"), T("varchar(6000)"))
    assert len(fn("a" * 6000, "b" * 6000)) == 12000


def test_concat_binary_and_string_mix() -> None:
    _t, fn = binary("+", T("varbinary(2)"), T("varbinary(2)"))
    assert fn(b"\x01", b"\x02") == b"\x01\x02"


def test_nchar_feff_plus_nvarchar() -> None:
    t, fn = binary("+", T("nvarchar(1)"), T("nvarchar(30)"))
    assert t.spec() == "nvarchar(31)"
    assert fn("\ufeff", "<id>Order1</id>") == "\ufeff<id>Order1</id>"


def test_datetime_arithmetic() -> None:
    _t, fn = binary("+", T("datetime"), T("int"))
    assert fn(datetime(2024, 1, 31), 1) == datetime(2024, 2, 1)
    _t, fn = binary("-", T("datetime"), T("datetime"))
    assert fn(datetime(2024, 1, 2, 12), datetime(2024, 1, 1)) == datetime(1900, 1, 2, 12)


def test_money_arithmetic() -> None:
    _t, fn = binary("/", T("money"), T("money"))
    assert fn(Decimal("10.0000"), Decimal("3.0000")) == Decimal("3.3333")


@pytest.mark.parametrize(
    ("op", "t", "v", "expected"),
    [("-", "int", 5, -5), ("-", "decimal(5,2)", Decimal("1.50"), Decimal("-1.50")),
     ("~", "int", 5, -6), ("~", "tinyint", 5, 250), ("~", "bit", 1, 0), ("+", "int", 3, 3)],
)
def test_unary(op: str, t: str, v: Any, expected: Any) -> None:
    _t, fn = unary(op, T(t))
    assert fn(v) == expected and fn(None) is None


def test_unary_overflow() -> None:
    _t, fn = unary("-", T("int"))
    with pytest.raises(TSqlError) as ei:
        fn(-2147483648)
    assert ei.value.number == 8115


@pytest.mark.parametrize(
    ("lt", "rt", "a", "b", "expected"),
    [
        ("varchar(4)", "varchar(3)", "abc ", "ABC", 0),
        ("varchar(3)", "nvarchar(3)", "abc", "abd", -1),
        ("int", "int", 2, 1, 1),
        ("int", "varchar(2)", 10, "9", 1),
        ("int", "decimal(5,2)", 1, Decimal("1.00"), 0),
        ("float", "int", 0.5, 1, -1),
        ("date", "datetime", date(2024, 1, 1), datetime(2024, 1, 1, 0, 0, 1), -1),
        ("datetime", "varchar(10)", datetime(2024, 1, 1), "2024-01-01", 0),
        ("varbinary(2)", "varbinary(1)", b"\x01\x00", b"\x01", 0),
        ("int", "int", None, 1, None),
    ],
)
def test_compare(lt: str, rt: str, a: Any, b: Any, expected: int | None) -> None:
    assert compare(T(lt), T(rt))(a, b) == expected


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [("=", 1, 1, True), ("<>", 1, 1, False), ("!=", 1, 2, True), ("<", 1, 2, True),
     (">", 1, 2, False), ("<=", 2, 2, True), (">=", 1, 2, False), ("!<", 2, 1, True),
     ("!>", 2, 1, False), ("=", None, 1, None), ("<", 1, None, None)],
)
def test_comparison_ops(op: str, a: Any, b: Any, expected: bool | None) -> None:
    assert comparison(op, T("int"), T("int"))(a, b) is expected


def test_string_comparison_ci_trailing_spaces() -> None:
    eq = comparison("=", T("varchar(10)"), T("varchar(10)"))
    assert eq("abc ", "ABC") is True
    assert eq(" abc", "abc") is False
    lt = comparison("<", T("nvarchar(10)"), T("varchar(10)"))
    assert lt("apple", "Banana") is True


def test_guid_comparison_and_string() -> None:
    import uuid

    u = uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")
    eq = comparison("=", T("uniqueidentifier"), T("varchar(36)"))
    assert eq(u, "6f9619ff-8b86-d011-b42d-00c04fc964ff") is True


def test_xml_is_not_comparable() -> None:
    with pytest.raises(TSqlError) as ei:
        comparison("=", T("xml"), T("xml"))
    assert ei.value.number == 305


def test_mixed_comparison_conversion_error() -> None:
    eq = comparison("=", T("int"), T("varchar(3)"))
    with pytest.raises(TSqlError) as ei:
        eq(1, "abc")
    assert ei.value.number == 245


@pytest.mark.parametrize(
    ("value", "pattern", "escape", "expected"),
    [
        ("abc", "a%", None, True),
        ("ABC", "a_c", None, True),
        ("abc", "a_", None, False),
        ("abc", "[a-c]bc", None, True),
        ("dbc", "[a-c]bc", None, False),
        ("dbc", "[^a-c]bc", None, True),
        ("a%c", "a!%c", "!", True),
        ("abc", "a!%c", "!", False),
        ("a.c", "a.c", None, True),
        ("abc ", "abc", None, True),
        ("abc", "abc ", None, False),
        ("50%", "50[%]", None, True),
        ("b", "[z-a]", None, False),
        ("b", "[^z-a]", None, True),
        ("a\nb", "a%b", None, True),
        (None, "a", None, None),
        ("a", None, None, None),
    ],
)
def test_like(value: str | None, pattern: str | None, escape: str | None,
              expected: bool | None) -> None:
    assert like(value, pattern, escape) is expected


@pytest.mark.parametrize(
    ("a", "b", "and_", "or_"),
    [(True, True, True, True), (True, False, False, True), (True, None, None, True),
     (False, None, False, None), (None, None, None, None), (False, False, False, False)],
)
def test_three_valued_logic(a: bool | None, b: bool | None, and_: bool | None,
                            or_: bool | None) -> None:
    assert and3(a, b) is and_ and and3(b, a) is and_
    assert or3(a, b) is or_ and or3(b, a) is or_


def test_not3() -> None:
    assert not3(True) is False and not3(False) is True and not3(None) is None


def test_hot_loop_speed() -> None:
    """WHILE @i < n SET @i += 1 must stay within a small factor of plain Python."""
    import time

    lt = comparison("<", T("int"), T("int"))
    _t, add = binary("+", T("int"), T("int"))
    n = 200_000
    t0 = time.perf_counter()
    i = 0
    while lt(i, n):
        i = add(i, 1)
    sql = time.perf_counter() - t0
    t0 = time.perf_counter()
    j = 0
    while j < n:
        j += 1
    plain = time.perf_counter() - t0
    assert i == n and sql < plain * 20


def test_sql_variant_comparisons_use_the_values_types() -> None:
    eq = comparison("=", T("sql_variant"), T("varchar(10)"))
    assert eq(5, "5") is True
    assert eq("abc", "ABC ") is True
    lt = comparison("<", T("sql_variant"), T("sql_variant"))
    assert lt(1, 2) is True and lt(None, 2) is None
    assert compare(T("sql_variant"), T("int"))(Decimal("1.5"), 1) == 1
    with pytest.raises(TSqlError) as ei:
        binary("+", T("sql_variant"), T("int"))
    assert ei.value.message == "Operand data type sql_variant is invalid for add operator."


def test_sort_key_orders_like_order_by() -> None:
    from tsqlbroker.values.operators import sort_key

    words = ["b", None, "A", "a ", "C"]
    assert sorted(words, key=sort_key(T("varchar(5)")))[:2] == [None, "A"]
    descending = sorted(words, key=sort_key(T("varchar(5)")), reverse=True)
    assert descending[0] == "C" and descending[-1] is None
    nums = [3, None, 1]
    assert sorted(nums, key=sort_key(T("int"))) == [None, 1, 3]
    with pytest.raises(TSqlError):
        sort_key(T("xml"))
