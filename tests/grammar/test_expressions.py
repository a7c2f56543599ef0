"""Expressions: SQL Server precedence, literals, identifiers, keywords as identifiers,
function-style constructs and xml methods."""

from __future__ import annotations

from decimal import Decimal

import pytest
from grammar_helpers import expr, one

from tsqlbroker.grammar import ast

C = ast.Column
V = ast.Variable
B = ast.Binary
O = ast.ObjectName


def n(v: int) -> ast.Literal:
    return ast.Literal("int", v, str(v))


def where(sql: str) -> ast.Expr:
    stmt = one(f"SELECT 1 FROM t WHERE {sql}")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.where is not None
    return stmt.query.where


# --- precedence ---------------------------------------------------------------------------------
def test_multiplicative_binds_tighter_than_additive() -> None:
    assert expr("1 + 2 * 3") == B("+", n(1), B("*", n(2), n(3)))
    assert expr("1 - 2 % 3") == B("-", n(1), B("%", n(2), n(3)))


def test_additive_and_bitwise_share_a_level_left_to_right() -> None:
    assert expr("1 + 2 & 3 | 4 ^ 5") == B("^", B("|", B("&", B("+", n(1), n(2)), n(3)), n(4)),
                                          n(5))
    assert expr("10 - 2 - 3") == B("-", B("-", n(10), n(2)), n(3))


def test_unary_binds_tightest() -> None:
    assert expr("~1 + 2") == B("+", ast.Unary("~", n(1)), n(2))
    assert expr("-a * 2") == B("*", ast.Unary("-", C(("a",))), n(2))
    assert expr("-2 * 3") == B("*", ast.Literal("int", -2, "-2"), n(3))


def test_parentheses_override_precedence() -> None:
    assert expr("(1 + 2) * 3") == B("*", B("+", n(1), n(2)), n(3))


def test_not_and_or_precedence() -> None:
    a, b, c = (B("=", C((x,)), n(1)) for x in "abc")
    assert where("a = 1 OR b = 1 AND c = 1") == B("or", a, B("and", b, c))
    assert where("NOT a = 1 AND b = 1") == B("and", ast.Unary("not", a), b)
    assert where("(a = 1 OR b = 1) AND c = 1") == B("and", B("or", a, b), c)


def test_comparisons_bind_looser_than_arithmetic() -> None:
    assert where("a + 1 >= b * 2") == B(">=", B("+", C(("a",)), n(1)), B("*", C(("b",)), n(2)))
    for op in ("=", "<>", "!=", "<", ">", "<=", ">=", "!<", "!>"):
        assert where(f"a {op} 1") == B(op, C(("a",)), n(1))


def test_predicates() -> None:
    a = C(("a",))
    assert where("a IS NULL") == ast.IsNull(a)
    assert where("a IS NOT NULL") == ast.IsNull(a, True)
    assert where("a IN (1, 2)") == ast.InList(a, (n(1), n(2)))
    assert where("a NOT IN (1)") == ast.InList(a, (n(1),), True)
    assert where("a BETWEEN 1 AND 2 AND a = 1") == B("and", ast.Between(a, n(1), n(2)),
                                                     B("=", a, n(1)))
    assert where("a NOT BETWEEN 1 AND 2") == ast.Between(a, n(1), n(2), True)
    s = ast.Literal("string", "x%", "'x%'")
    e = ast.Literal("string", "!", "'!'")
    assert where("a LIKE 'x%' ESCAPE '!'") == ast.Like(a, s, e)
    assert where("a NOT LIKE 'x%'") == ast.Like(a, s, None, True)
    sub = where("a IN (SELECT b FROM u)")
    assert isinstance(sub, ast.InSubquery) and isinstance(sub.query, ast.Select)
    assert isinstance(where("EXISTS (SELECT 1)"), ast.Exists)
    q = where("a > ALL (SELECT b FROM u)")
    assert isinstance(q, ast.QuantifiedComparison) and q.quantifier == "all"


# --- literals -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,kind,value", [
    ("42", "int", 42),
    ("1.50", "decimal", Decimal("1.50")),
    ("1e3", "float", 1000.0),
    ("2.5E-2", "float", 0.025),
    ("$12.50", "money", Decimal("12.50")),
    ("0xFEFF", "binary", b"\xfe\xff"),
    ("0x1", "binary", b"\x01"),
    ("0x", "binary", b""),
    ("'it''s'", "string", "it's"),
    ("N'caf\u00e9'", "nstring", "caf\u00e9"),
    ("n'x'", "nstring", "x"),
    ("NULL", "null", None),
])
def test_literals(text: str, kind: str, value: object) -> None:
    lit = expr(text)
    assert isinstance(lit, ast.Literal)
    assert (lit.kind, lit.value, lit.text) == (kind, value, text if kind != "null" else "NULL")


def test_multiline_string_literal() -> None:
    assert expr("'a\nb'") == ast.Literal("string", "a\nb", "'a\nb'")


# --- identifiers ----------------------------------------------------------------------------------
def test_identifier_quoting_is_removed() -> None:
    assert expr("[a]]b]") == C(("a]b",))
    assert expr('"x""y"') == C(('x"y',))
    assert expr("[//www.develop.com/DMBrokerage/TradeEntry]") == C(
        ("//www.develop.com/DMBrokerage/TradeEntry",))


def test_multipart_names() -> None:
    stmt = one("SELECT a FROM srv.db.dbo.t, db..u, #tmp, ##g")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    names = [t.name for t in stmt.query.from_]
    assert names == [O("t", "dbo", "db", "srv"), O("u", None, "db"), O("#tmp"), O("##g")]


@pytest.mark.parametrize("word", ["status", "priority", "message_body", "type", "name", "value",
                                  "timeout", "state", "date", "lifetime", "contract", "queue",
                                  "service", "conversation", "encryption", "retention"])
def test_keywords_are_identifiers_where_no_keyword_fits(word: str) -> None:
    stmt = one(f"SELECT {word}, t.{word} FROM t WHERE {word} = 1 ORDER BY {word}")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert stmt.query.items[0].expr == C((word,))
    assert stmt.query.items[1].expr == C(("t", word))
    created = one(f"CREATE TABLE t ({word} int, x int)")
    assert isinstance(created, ast.CreateTable) and created.columns[0].name == word


def test_implicit_alias_named_like_a_keyword() -> None:
    stmt = one("SELECT a status, b AS type, c state, d description, e name FROM t")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    assert [i.alias for i in stmt.query.items] == ["status", "type", "state", "description",
                                                   "name"]


def test_variables_and_globals() -> None:
    assert expr("@x") == V("@x")
    assert expr("@@ROWCOUNT") == ast.GlobalVariable("@@rowcount")


# --- function-style constructs ---------------------------------------------------------------------
def test_cast_convert_try() -> None:
    assert expr("CAST(a AS decimal(10, 2))") == ast.Cast(C(("a",)), ast.DataType("decimal",
                                                                                   (10, 2)))
    assert expr("TRY_CAST('1' AS int)") == ast.Cast(ast.Literal("string", "1", "'1'"),
                                                     ast.DataType("int"), True)
    assert expr("CONVERT(varchar(20), d, 120)") == ast.Convert(
        ast.DataType("varchar", (20,)), C(("d",)), n(120))
    assert expr("TRY_CONVERT(int, '1')") == ast.Convert(
        ast.DataType("int"), ast.Literal("string", "1", "'1'"), None, True)


@pytest.mark.parametrize("text,name,args", [
    ("nvarchar(max)", "nvarchar", ("max",)),
    ("decimal(10,2)", "decimal", (10, 2)),
    ("datetime2(7)", "datetime2", (7,)),
    ("float(53)", "float", (53,)),
    ("varbinary(MAX)", "varbinary", ("max",)),
    ("UNIQUEIDENTIFIER", "uniqueidentifier", ()),
])
def test_data_types(text: str, name: str, args: tuple[object, ...]) -> None:
    stmt = one(f"DECLARE @v {text}")
    assert isinstance(stmt, ast.Declare)
    assert stmt.items[0].type == ast.DataType(name, args)


def test_xml_type_with_schema_collection() -> None:
    stmt = one("DECLARE @x xml(dbo.coll)")
    assert isinstance(stmt, ast.Declare)
    assert stmt.items[0].type == ast.DataType("xml", (), O("coll", "dbo"))


def test_function_calls() -> None:
    assert expr("COUNT(*)") == ast.FunctionCall(O("COUNT"), star=True)
    assert expr("COUNT(DISTINCT a)") == ast.FunctionCall(O("COUNT"), (C(("a",)),), distinct=True)
    assert expr("dbo.fn(1)") == ast.FunctionCall(O("fn", "dbo"), (n(1),))
    assert expr("COALESCE(a, 0)") == ast.FunctionCall(O("COALESCE"), (C(("a",)), n(0)))
    assert expr("DATEADD(day, 1, d)") == ast.FunctionCall(O("DATEADD"),
                                                         (C(("day",)), n(1), C(("d",))))
    iif = expr("IIF(a > 1, 'x', 'y')")
    assert isinstance(iif, ast.FunctionCall) and iif.name == O("IIF")
    assert iif.args[0] == B(">", C(("a",)), n(1))
    assert expr("LEFT(a, 2)") == ast.FunctionCall(O("LEFT"), (C(("a",)), n(2)))


def test_window_function() -> None:
    f = expr("ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC ROWS BETWEEN UNBOUNDED "
             "PRECEDING AND CURRENT ROW)")
    assert isinstance(f, ast.FunctionCall) and f.over is not None
    assert f.over.partition_by == (C(("a",)),)
    assert f.over.order_by == (ast.OrderItem(C(("b",)), True),)
    assert f.over.frame == "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"


def test_case_expressions() -> None:
    simple = expr("CASE a WHEN 1 THEN 'x' ELSE 'y' END")
    assert isinstance(simple, ast.Case) and simple.operand == C(("a",))
    assert simple.whens == ((n(1), ast.Literal("string", "x", "'x'")),)
    searched = expr("CASE WHEN a > 1 THEN 1 END")
    assert isinstance(searched, ast.Case) and searched.operand is None
    assert searched.whens == ((B(">", C(("a",)), n(1)), n(1)),) and searched.else_ is None


def test_xml_methods() -> None:
    s = ast.Literal("string", "/a", "'/a'")
    assert expr("@x.value('/a', 'int')") == ast.MethodCall(
        V("@x"), "value", (s, ast.Literal("string", "int", "'int'")))
    assert expr("t.c.query('/a')") == ast.MethodCall(C(("t", "c")), "query", (s,))
    assert expr("c.exist('/a')") == ast.MethodCall(C(("c",)), "exist", (s,))
    cast = expr("CAST(@s AS xml).value('/a', 'int')")
    assert isinstance(cast, ast.MethodCall) and isinstance(cast.target, ast.Cast)
    paren = expr("(@x).query('/a')")
    assert paren == ast.MethodCall(V("@x"), "query", (s,))
    chained = expr("@x.query('/a').value('.', 'int')")
    assert isinstance(chained, ast.MethodCall) and isinstance(chained.target, ast.MethodCall)


def test_nodes_in_apply_is_a_function_table() -> None:
    stmt = one("SELECT T.c.value('.', 'int') FROM t CROSS APPLY t.x.nodes('/a') AS T(c)")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    join = stmt.query.from_[0]
    assert isinstance(join, ast.Join) and join.kind == "cross apply"
    assert isinstance(join.right, ast.FunctionTable)
    assert join.right.call == ast.MethodCall(C(("t", "x")), "nodes",
                                             (ast.Literal("string", "/a", "'/a'"),))
    assert (join.right.alias, join.right.column_aliases) == ("T", ("c",))


def test_collate_and_subquery() -> None:
    assert expr("a COLLATE Latin1_General_CI_AS") == ast.Collate(C(("a",)),
                                                                 "Latin1_General_CI_AS")
    sub = expr("(SELECT MAX(a) FROM t)")
    assert isinstance(sub, ast.Subquery) and isinstance(sub.query, ast.Select)
