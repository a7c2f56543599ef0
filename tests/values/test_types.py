"""Static types: declare/cast defaults, literal typing, precedence and common types."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar import ast
from tsqlbroker.interpreter.ast_types import literal_type, type_from_ast
from tsqlbroker.values.precedence import common_type, precedence
from tsqlbroker.values.types import INT, MAX, SqlType, decimal_type, parse_type_spec


@pytest.mark.parametrize(
    ("name", "args", "context", "spec"),
    [
        ("varchar", (), "declare", "varchar(1)"),
        ("varchar", (), "cast", "varchar(30)"),
        ("nvarchar", (), "cast", "nvarchar(30)"),
        ("nvarchar", ("max",), "declare", "nvarchar(max)"),
        ("nvarchar", ("MAX",), "cast", "nvarchar(max)"),
        ("varbinary", ("max",), "cast", "varbinary(max)"),
        ("binary", (), "cast", "binary(30)"),
        ("decimal", (), "declare", "decimal(18,0)"),
        ("numeric", (10,), "declare", "numeric(10,0)"),
        ("decimal", (10, 2), "declare", "decimal(10,2)"),
        ("dec", (5, 1), "declare", "decimal(5,1)"),
        ("integer", (), "declare", "int"),
        ("float", (), "declare", "float"),
        ("float", (24,), "declare", "real"),
        ("float", (25,), "declare", "float"),
        ("double precision", (), "declare", "float"),
        ("datetime2", (), "declare", "datetime2(7)"),
        ("datetime2", (3,), "declare", "datetime2(3)"),
        ("time", (), "declare", "time(7)"),
        ("datetimeoffset", (), "declare", "datetimeoffset(7)"),
        ("sysname", (), "declare", "nvarchar(128)"),
        ("rowversion", (), "declare", "binary(8)"),
        ("uniqueidentifier", (), "declare", "uniqueidentifier"),
        ("xml", (), "declare", "xml"),
        ("text", (), "declare", "text"),
        ("bit", (), "declare", "bit"),
        ("sys.int", (), "declare", "int"),
    ],
)
def test_type_from_ast(name: str, args: tuple, context: str, spec: str) -> None:
    t = type_from_ast(ast.DataType(name, args), context)
    assert t.spec() == spec
    assert parse_type_spec(spec) == t


def test_xml_collection_type() -> None:
    t = type_from_ast(ast.DataType("xml", (), ast.ObjectName("coll", "dbo")))
    assert t.is_xml and t.xml_collection == "dbo.coll"
    assert t.spec() == "xml(dbo.coll)"


@pytest.mark.parametrize(
    ("name", "args", "number"),
    [
        ("varchr", (), 2715),
        ("varchar", (9000,), 131),
        ("nvarchar", (4001,), 131),
        ("decimal", (39, 2), 2750),
        ("decimal", (5, 6), 192),
        ("char", ("max",), 2715),
    ],
)
def test_bad_types(name: str, args: tuple, number: int) -> None:
    with pytest.raises(TSqlError) as ei:
        type_from_ast(ast.DataType(name, args))
    assert ei.value.number == number


def test_unknown_type_message() -> None:
    with pytest.raises(TSqlError) as ei:
        type_from_ast(ast.DataType("foo"), position=2)
    assert ei.value.message == "Column, parameter, or variable #2: Cannot find data type foo."


@pytest.mark.parametrize(
    ("kind", "value", "text", "spec", "pyvalue"),
    [
        ("int", 1, "1", "int", 1),
        ("int", 2147483647, "2147483647", "int", 2147483647),
        ("int", 2147483648, "2147483648", "numeric(10,0)", Decimal(2147483648)),
        ("decimal", Decimal("123.456"), "123.456", "numeric(6,3)", Decimal("123.456")),
        ("decimal", Decimal("1.0"), "1.0", "numeric(2,1)", Decimal("1.0")),
        ("decimal", Decimal("0.5"), "0.5", "numeric(1,1)", Decimal("0.5")),
        ("decimal", Decimal(".05"), ".05", "numeric(2,2)", Decimal("0.05")),
        ("float", 1.5e3, "1.5e3", "float", 1500.0),
        ("money", Decimal("12.5"), "$12.5", "money", Decimal("12.5000")),
        ("string", "abc", "'abc'", "varchar(3)", "abc"),
        ("string", "", "''", "varchar(1)", ""),
        ("nstring", "ab", "N'ab'", "nvarchar(2)", "ab"),
        ("string", "x" * 9000, "", "varchar(max)", "x" * 9000),
        ("binary", b"\x01\x02", "0x0102", "varbinary(2)", b"\x01\x02"),
        ("null", None, "NULL", "null", None),
    ],
)
def test_literal_type(kind: str, value: object, text: str, spec: str, pyvalue: object) -> None:
    t, v = literal_type(ast.Literal(kind, value, text))
    assert t.spec() == spec
    assert v == pyvalue
    assert type(v) is type(pyvalue)


def test_int_literal_remembers_digits() -> None:
    t, _ = literal_type(ast.Literal("int", 3, "3"))
    assert t == INT and t.const_digits == 1


@pytest.mark.parametrize(
    ("higher", "lower"),
    [("xml", "nvarchar"), ("datetime", "int"), ("float", "decimal"), ("decimal", "money"),
     ("int", "varchar"), ("bigint", "int"), ("int", "bit"), ("uniqueidentifier", "nvarchar"),
     ("nvarchar", "varchar"), ("varchar", "varbinary"), ("datetimeoffset", "datetime2")],
)
def test_precedence(higher: str, lower: str) -> None:
    assert precedence(SqlType(higher)) > precedence(SqlType(lower))


@pytest.mark.parametrize(
    ("types", "spec"),
    [
        ([SqlType("varchar", 5), SqlType("varchar", 10)], "varchar(10)"),
        ([SqlType("varchar", 5), SqlType("nvarchar", 3)], "nvarchar(5)"),
        ([SqlType("char", 5), SqlType("char", 3)], "char(5)"),
        ([SqlType("varchar", 5), SqlType("varchar", MAX)], "varchar(max)"),
        ([INT, SqlType("varchar", 5)], "int"),
        ([INT, SqlType("bigint")], "bigint"),
        ([decimal_type(10, 2), decimal_type(5, 4)], "decimal(12,4)"),
        ([decimal_type(10, 2), INT], "decimal(12,2)"),
        ([SqlType("null"), SqlType("nvarchar", 4)], "nvarchar(4)"),
        ([SqlType("null")], "int"),
        ([SqlType("datetime"), SqlType("date")], "datetime"),
        ([SqlType("float"), decimal_type(5, 2)], "float"),
    ],
)
def test_common_type(types: list[SqlType], spec: str) -> None:
    assert common_type(types).spec() == spec


def test_predicates() -> None:
    assert SqlType("nvarchar", MAX).is_max and SqlType("nvarchar", 5).is_unicode
    assert SqlType("varbinary", 4).is_binary and not SqlType("varbinary", 4).is_string
    assert SqlType("money").is_exact_numeric and not SqlType("float").is_exact_numeric
    assert SqlType("bit").is_integer and SqlType("real").is_numeric
    assert SqlType("datetimeoffset").is_datetime and SqlType("xml").is_xml
