"""Transformer methods for names, literals, types, expressions and queries.

Each method is named after a grammar rule (or its ``-> alias``) and receives that rule's
children already transformed; ``[optional]`` parts arrive as ``None``. Keyword tokens are
filtered out by the grammar, so the arguments are the meaningful parts only.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from lark import Token

from tsqlbroker.grammar import ast

XML_METHODS = frozenset({"value", "query", "exist", "nodes", "modify"})


def name_of(tok: Any) -> str:
    """An identifier token's name with its quoting removed (``[a]]b]`` → ``a]b``)."""
    text = str(tok)
    first = text[:1]
    if first == "[":
        return text[1:-1].replace("]]", "]")
    if first == '"':
        return text[1:-1].replace('""', '"')
    return text


def object_name(parts: list[str | None]) -> ast.ObjectName:
    """``ObjectName`` from 1 to 4 dotted parts (``None`` for an omitted ``db..obj`` schema)."""
    n = len(parts)
    if n == 1:
        return ast.ObjectName(parts[0] or "")
    if n == 2:
        return ast.ObjectName(parts[1] or "", schema=parts[0])
    if n == 3:
        return ast.ObjectName(parts[2] or "", schema=parts[1], database=parts[0])
    return ast.ObjectName(parts[-1] or "", schema=parts[-2], database=parts[-3], server=parts[-4])


JSON_BUILDERS = frozenset({"json_object", "json_array", "json_query"})


def _json_call(name: str, args: list[ast.Expr], nulls: str) -> ast.FunctionCall:
    """The call with a leading flags literal: ``a`` / ``n`` (ABSENT / NULL ON NULL), then per
    value ``j`` when it is JSON already (a nested JSON_OBJECT / JSON_ARRAY / JSON_QUERY), else
    ``v``; values are every argument of JSON_ARRAY and every second one of JSON_OBJECT."""
    values = args[1::2] if name == "json_object" else args
    flags = nulls[0] + "".join(
        "j" if isinstance(v, ast.FunctionCall) and v.name.name.lower() in JSON_BUILDERS
        else "v" for v in values)
    return ast.FunctionCall(ast.ObjectName(name.upper()),
                            (ast.Literal("string", flags, f"'{flags}'"), *args))


def _call_or_method(path: tuple[str, ...], args: tuple[ast.Expr, ...]) -> ast.Expr:
    """``a.b.value(…)`` is an xml method on column ``a.b``; ``dbo.fn(…)`` a function."""
    if len(path) > 1 and path[-1].lower() in XML_METHODS:
        return ast.MethodCall(ast.Column(path[:-1]), path[-1].lower(), args)
    return ast.FunctionCall(object_name(list(path)), args)


class ExprBuilder:
    """Mixin: expressions, types and queries."""

    text: str

    # ---- names --------------------------------------------------------------------------
    def ident_list(self, *items: Token) -> tuple[str, ...]:
        return tuple(name_of(t) for t in items)

    def obj_name(self, *items: Token) -> ast.ObjectName:
        return object_name([name_of(t) for t in items])

    def obj_name_dbdot(self, db: Token, name: Token) -> ast.ObjectName:
        return ast.ObjectName(name_of(name), database=name_of(db))

    def name_path(self, *items: Token) -> tuple[str, ...]:
        return tuple(name_of(t) for t in items)

    def string(self, tok: Token) -> ast.Literal:
        text = str(tok)
        if text[0] in "nN":
            return ast.Literal("nstring", text[2:-1].replace("''", "'"), text)
        return ast.Literal("string", text[1:-1].replace("''", "'"), text)

    def on(self) -> bool:
        return True

    def off(self) -> bool:
        return False

    def data_type(self, first: Token, second: Token | None,
                  args: tuple[Any, ...] | None) -> ast.DataType:
        name = name_of(first) if second is None else f"{name_of(first)}.{name_of(second)}"
        if not args:
            return ast.DataType(name.lower())
        plain: list[int | str] = []
        collection = None
        for a in args:
            if isinstance(a, Token):
                plain.append(int(a))
            elif a.schema is None and a.name.lower() == "max":
                plain.append("max")
            elif a.schema is None and a.name.upper() in ("CONTENT", "DOCUMENT"):
                plain.append(a.name.lower())
            else:
                collection = a
        return ast.DataType(name.lower(), tuple(plain), collection)

    def type_args(self, *items: Any) -> tuple[Any, ...]:
        return items

    # ---- literals -----------------------------------------------------------------------
    def int_lit(self, tok: Token) -> ast.Literal:
        return ast.Literal("int", int(tok), str(tok))

    def dec_lit(self, tok: Token) -> ast.Literal:
        return ast.Literal("decimal", Decimal(str(tok)), str(tok))

    def float_lit(self, tok: Token) -> ast.Literal:
        return ast.Literal("float", float(tok), str(tok))

    def money_lit(self, tok: Token) -> ast.Literal:
        return ast.Literal("money", Decimal(str(tok)[1:]), str(tok))

    def bin_lit(self, tok: Token) -> ast.Literal:
        digits = str(tok)[2:]
        if len(digits) % 2:
            digits = "0" + digits
        return ast.Literal("binary", bytes.fromhex(digits), str(tok))

    def null_lit(self) -> ast.Literal:
        return ast.Literal("null", None, "NULL")

    def default_value(self) -> ast.DefaultValue:
        return ast.DefaultValue()

    # ---- conditions ---------------------------------------------------------------------
    def or_(self, a: ast.Expr, b: ast.Expr) -> ast.Binary:
        return ast.Binary("or", a, b)

    def and_(self, a: ast.Expr, b: ast.Expr) -> ast.Binary:
        return ast.Binary("and", a, b)

    def not_(self, a: ast.Expr) -> ast.Unary:
        return ast.Unary("not", a)

    def compare(self, a: ast.Expr, op: Token, b: ast.Expr) -> ast.Binary:
        return ast.Binary(_operator(op), a, b)

    def compare_quantified(self, a: ast.Expr, op: Token, q: Any, query: Any) -> ast.Expr:
        return ast.QuantifiedComparison(_operator(op), a, str(q.children[0]).lower(), query)

    def is_null(self, a: ast.Expr) -> ast.IsNull:
        return ast.IsNull(a)

    def is_not_null(self, a: ast.Expr) -> ast.IsNull:
        return ast.IsNull(a, True)

    def in_list(self, a: ast.Expr, items: tuple[ast.Expr, ...]) -> ast.InList:
        return ast.InList(a, items)

    def not_in_list(self, a: ast.Expr, items: tuple[ast.Expr, ...]) -> ast.InList:
        return ast.InList(a, items, True)

    def in_query(self, a: ast.Expr, q: Any) -> ast.InSubquery:
        return ast.InSubquery(a, q)

    def not_in_query(self, a: ast.Expr, q: Any) -> ast.InSubquery:
        return ast.InSubquery(a, q, True)

    def between(self, a: ast.Expr, lo: ast.Expr, hi: ast.Expr) -> ast.Between:
        return ast.Between(a, lo, hi)

    def not_between(self, a: ast.Expr, lo: ast.Expr, hi: ast.Expr) -> ast.Between:
        return ast.Between(a, lo, hi, True)

    def like(self, a: ast.Expr, p: ast.Expr, esc: ast.Expr | None) -> ast.Like:
        return ast.Like(a, p, esc)

    def not_like(self, a: ast.Expr, p: ast.Expr, esc: ast.Expr | None) -> ast.Like:
        return ast.Like(a, p, esc, True)

    def exists(self, q: Any) -> ast.Exists:
        return ast.Exists(q)

    # ---- arithmetic ---------------------------------------------------------------------
    def binop(self, a: ast.Expr, op: Token, b: ast.Expr) -> ast.Binary:
        return ast.Binary(str(op), a, b)

    def neg(self, _op: Token, a: ast.Expr) -> ast.Expr:
        # Fold a negative numeric literal so that "-1" is a constant, as SQL Server types it.
        if isinstance(a, ast.Literal) and a.kind in ("int", "decimal", "float", "money"):
            return ast.Literal(a.kind, -a.value, "-" + a.text)
        return ast.Unary("-", a)

    def pos(self, _op: Token, a: ast.Expr) -> ast.Expr:
        return ast.Unary("+", a)

    def bitnot(self, _op: Token, a: ast.Expr) -> ast.Expr:
        return ast.Unary("~", a)

    def collate(self, a: ast.Expr, name: Token) -> ast.Collate:
        return ast.Collate(a, name_of(name))

    # ---- primaries ----------------------------------------------------------------------
    def column(self, path: tuple[str, ...]) -> ast.Column:
        return ast.Column(path)

    def var(self, tok: Token) -> ast.Variable:
        return ast.Variable(str(tok))

    def gvar(self, tok: Token) -> ast.GlobalVariable:
        return ast.GlobalVariable(str(tok).lower())

    def method_call(self, target: ast.Expr, name: Token, args: Any) -> ast.MethodCall:
        return ast.MethodCall(target, name_of(name).lower(), args or ())

    def func_call(self, path: tuple[str, ...], dist: Any, args: Any, within: Any,
                  over: Any) -> ast.Expr:
        call = _call_or_method(path, args or ())
        if isinstance(call, ast.FunctionCall) and (dist or within or over):
            return ast.FunctionCall(call.name, call.args, distinct=dist == "distinct",
                                    over=over, within_group=within or ())
        return call

    def func_call_star(self, path: tuple[str, ...], _star: Token, over: Any) -> ast.FunctionCall:
        return ast.FunctionCall(object_name(list(path)), star=True, over=over)

    def func_call_from(self, path: tuple[str, ...], chars: ast.Expr, word: Token,
                       value: ast.Expr) -> ast.FunctionCall:
        """``TRIM(chars FROM s)``: TRIM(s, chars) to the function library."""
        if path[-1].lower() != "trim":
            raise self.syntax_error(word)
        return ast.FunctionCall(object_name(list(path)), (value, chars))

    def func_call_as(self, path: tuple[str, ...], value: ast.Expr, word: Token,
                     t: ast.DataType, culture: Any) -> ast.Parse:
        """``PARSE(x AS type [USING culture])`` and TRY_PARSE: names, not keywords (a column
        may be called parse), so the rule is a call's with AS inside."""
        name = path[-1].lower() if len(path) == 1 else ""
        if name not in ("parse", "try_parse"):
            raise self.syntax_error(word)
        return ast.Parse(value, t, culture, name == "try_parse")

    def from_word(self, tok: Token) -> Token:
        return tok

    as_word = from_word

    def distinct_all(self, tok: Token) -> str:
        return str(tok).lower()

    def within_group(self, items: tuple[ast.OrderItem, ...]) -> tuple[ast.OrderItem, ...]:
        return items

    def over_clause(self, part: Any, order: Any, frame: Any) -> ast.WindowSpec:
        return ast.WindowSpec(part or (), order or (), frame)

    def partition_by(self, items: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
        return items

    def expr_list(self, *items: ast.Expr) -> tuple[ast.Expr, ...]:
        return items

    def iif(self, cond: ast.Expr, a: ast.Expr, b: ast.Expr) -> ast.FunctionCall:
        return ast.FunctionCall(ast.ObjectName("IIF"), (cond, a, b))

    def json_object(self, *items: Any) -> ast.FunctionCall:
        """``JSON_OBJECT(k: v, … [NULL | ABSENT ON NULL])`` (NULL ON NULL by default)."""
        pairs = [x for x in items[:-1] if x is not None]
        return _json_call("json_object", [e for pair in pairs for e in pair],
                          items[-1] or "null")

    def json_array(self, values: Any, nulls: Any) -> ast.FunctionCall:
        """``JSON_ARRAY(v, … [NULL | ABSENT ON NULL])`` (ABSENT ON NULL by default)."""
        return _json_call("json_array", list(values or ()), nulls or "absent")

    def json_pair(self, key: ast.Expr, value: ast.Expr) -> tuple[ast.Expr, ast.Expr]:
        return key, value

    def json_nulls(self, word: Token, *_rest: Token) -> str:
        return str(word).lower()

    def update_column(self, name: Token) -> ast.UpdateColumn:
        return ast.UpdateColumn(name_of(name))

    def next_value_for(self, _tok: Token, name: ast.ObjectName, over: Any) -> ast.NextValueFor:
        return ast.NextValueFor(name, over)

    def action_column(self, tok: Token) -> ast.Column:
        return ast.Column((str(tok).lower(),))

    def subquery(self, q: Any) -> ast.Subquery:
        return ast.Subquery(q)

    def case_simple(self, operand: ast.Expr, *rest: Any) -> ast.Case:
        return ast.Case(operand, tuple(rest[:-1]), rest[-1])

    def case_searched(self, *rest: Any) -> ast.Case:
        return ast.Case(None, tuple(rest[:-1]), rest[-1])

    def simple_when(self, a: ast.Expr, b: ast.Expr) -> tuple[ast.Expr, ast.Expr]:
        return (a, b)

    searched_when = simple_when

    def cast(self, e: ast.Expr, t: ast.DataType) -> ast.Cast:
        return ast.Cast(e, t)

    def try_cast(self, e: ast.Expr, t: ast.DataType) -> ast.Cast:
        return ast.Cast(e, t, True)

    def convert(self, t: ast.DataType, e: ast.Expr, style: Any) -> ast.Convert:
        return ast.Convert(t, e, style)

    def try_convert(self, t: ast.DataType, e: ast.Expr, style: Any) -> ast.Convert:
        return ast.Convert(t, e, style, True)


    # ---- queries ------------------------------------------------------------------------
    def with_clause(self, *items: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        ctes = tuple(i for i in items if isinstance(i, ast.CommonTableExpr))
        ns = tuple(x for i in items if isinstance(i, tuple) for x in i)
        return ctes, ns

    def cte(self, name: Token, cols: Any, q: Any) -> ast.CommonTableExpr:
        return ast.CommonTableExpr(name_of(name), cols or (), q)

    def xmlnamespaces(self, *items: ast.XmlNamespace) -> tuple[ast.XmlNamespace, ...]:
        return items

    def xmlns_default(self, uri: ast.Literal) -> ast.XmlNamespace:
        return ast.XmlNamespace(uri.value)

    def xmlns(self, uri: ast.Literal, prefix: Token) -> ast.XmlNamespace:
        return ast.XmlNamespace(uri.value, name_of(prefix))

    def query(self, q: Any, order: Any, offset: Any, for_: Any) -> Any:
        if order is None and offset is None and for_ is None:
            return q
        off, fetch = offset if offset else (None, None)
        if isinstance(q, ast.Select):
            return ast.Select(q.items, q.distinct, q.top, q.into, q.from_, q.where, q.group_by,
                              q.having, order or (), off, fetch, q.option, for_)
        return ast.SetOperation(q.op, q.left, q.right, order or (), off, fetch, for_)

    def ordered_paren_query(self, q: Any, order: Any, offset: Any) -> Any:
        return self.query(q, order, offset, None)

    def union(self, a: Any, b: Any) -> ast.SetOperation:
        return ast.SetOperation("union", a, b)

    def union_all(self, a: Any, b: Any) -> ast.SetOperation:
        return ast.SetOperation("union all", a, b)

    def except_(self, a: Any, b: Any) -> ast.SetOperation:
        return ast.SetOperation("except", a, b)

    def intersect(self, a: Any, b: Any) -> ast.SetOperation:
        return ast.SetOperation("intersect", a, b)

    def select_core(self, dist: Any, top: Any, items: Any, into: Any, from_: Any, where: Any,
                    group: Any, having: Any) -> ast.Select:
        return ast.Select(items, dist == "distinct", top, into, from_ or (), where, group or (),
                          having)

    def top(self, e: ast.Expr, pct: Any, ties: Any) -> ast.Top:
        return ast.Top(e, bool(pct), bool(ties))

    def top_int(self, tok: Token, pct: Any, ties: Any) -> ast.Top:
        return ast.Top(self.int_lit(tok), bool(pct), bool(ties))

    def top_percent(self) -> bool:
        return True

    top_ties = top_percent

    def into(self, name: ast.ObjectName) -> ast.ObjectName:
        return name

    def where(self, c: ast.Expr) -> ast.Expr:
        return c

    having = where

    def group_by(self, items: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
        return items

    def order_by(self, items: tuple[ast.OrderItem, ...]) -> tuple[ast.OrderItem, ...]:
        return items

    def order_items(self, *items: ast.OrderItem) -> tuple[ast.OrderItem, ...]:
        return items

    index_columns = order_items

    def order_item(self, e: ast.Expr, desc: Any) -> ast.OrderItem:
        return ast.OrderItem(e, bool(desc))

    def asc(self) -> bool:
        return False

    def desc(self) -> bool:
        return True

    def offset_clause(self, off: ast.Expr, _fetch: Any, count: Any) -> tuple[Any, Any]:
        return off, count

    def select_items(self, *items: ast.SelectItem) -> tuple[ast.SelectItem, ...]:
        return items

    def star_item(self, _tok: Token) -> ast.SelectItem:
        return ast.SelectItem(ast.Star())

    def qualified_star(self, *parts: Token) -> ast.SelectItem:
        return ast.SelectItem(ast.Star(tuple(name_of(p) for p in parts[:-1])))

    def item(self, e: ast.Expr) -> ast.SelectItem:
        return ast.SelectItem(e)

    def item_alias(self, e: ast.Expr, alias: Token) -> ast.SelectItem:
        text = str(alias)
        name = text[1:-1].replace("''", "'") if text[:1] == "'" else name_of(alias)
        return ast.SelectItem(e, alias=name)

    def item_assign(self, var: Token, op: Token, e: ast.Expr) -> ast.SelectItem:
        return ast.SelectItem(e, assign_to=str(var), assign_op=str(op))

    def item_named(self, alias: Token, e: ast.Expr) -> ast.SelectItem:
        return ast.SelectItem(e, alias=name_of(alias))

    def from_clause(self, items: tuple[Any, ...]) -> tuple[Any, ...]:
        return items

    def from_list(self, *items: Any) -> tuple[Any, ...]:
        return items

    def join_on(self, left: Any, kind: str, right: Any, on: ast.Expr) -> ast.Join:
        return ast.Join(left, right, kind, on)

    def inner(self) -> str:
        return "inner"

    def left(self) -> str:
        return "left"

    def right(self) -> str:
        return "right"

    def full(self) -> str:
        return "full"

    def cross_join(self, left: Any, right: Any) -> ast.Join:
        return ast.Join(left, right, "cross")

    def cross_apply(self, left: Any, right: Any) -> ast.Join:
        return ast.Join(left, right, "cross apply")

    def outer_apply(self, left: Any, right: Any) -> ast.Join:
        return ast.Join(left, right, "outer apply")

    def pivot_table(self, source: Any, agg: ast.Expr, column: Token, listed: tuple[str, ...],
                    alias: str) -> ast.PivotTable:
        return ast.PivotTable(source, agg, name_of(column), listed, alias)

    def unpivot_table(self, source: Any, value: Token, column: Token, listed: tuple[str, ...],
                      alias: str) -> ast.PivotTable:
        return ast.PivotTable(source, name_of(value), name_of(column), listed, alias, True)

    def table_name(self, name: ast.ObjectName, alias: Any, hints: Any) -> ast.TableName:
        return ast.TableName(name, alias, hints or ())

    def function_table(self, name: ast.ObjectName, args: Any, alias: Any,
                       cols: Any) -> ast.FunctionTable:
        parts = tuple(p for p in name.parts() if p is not None)
        return ast.FunctionTable(_call_or_method(parts, args or ()), alias, cols or ())

    def function_table_with(self, name: ast.ObjectName, args: Any, schema: Any,
                            alias: Any) -> ast.FunctionTable:
        """``OPENJSON(…) WITH (…)``: the schema is the storage query's (transpiled) business."""
        if name.name.lower() != "openjson":
            raise self.syntax_error(schema)
        return self.function_table(name, args, alias, None)

    def openjson_schema(self, tok: Token, *cols: Any) -> Token:
        return tok

    def function_table_args(self, *items: ast.Expr) -> tuple[ast.Expr, ...]:
        return items

    def table_var(self, var: Token, alias: Any) -> ast.TableVariableRef:
        return ast.TableVariableRef(str(var), alias)

    def var_method_table(self, var: Token, method: Token, args: Any, alias: Any,
                         cols: Any) -> ast.FunctionTable:
        call = ast.MethodCall(ast.Variable(str(var)), name_of(method).lower(), args or ())
        return ast.FunctionTable(call, alias, cols or ())

    def cast_method_table(self, e: ast.Expr, t: ast.DataType, method: Token, args: Any,
                          alias: Any, cols: Any) -> ast.FunctionTable:
        """``CAST(x AS xml).nodes(…) AS T(c)`` under APPLY."""
        call = ast.MethodCall(ast.Cast(e, t), name_of(method).lower(), args or ())
        return ast.FunctionTable(call, alias, cols or ())

    def call_method_table(self, name: ast.ObjectName, inner: Any, method: Token, args: Any,
                          alias: Any, cols: Any) -> ast.FunctionTable:
        """``n.c.query(…).nodes(…) AS T(c)`` under APPLY: a method of a call's result."""
        parts = tuple(p for p in name.parts() if p is not None)
        call = ast.MethodCall(_call_or_method(parts, inner or ()), name_of(method).lower(),
                              args or ())
        return ast.FunctionTable(call, alias, cols or ())

    def derived_table(self, q: Any, alias: Any, cols: Any) -> ast.DerivedTable:
        return ast.DerivedTable(q, alias, cols or ())

    def values_table(self, rows: Any, alias: Any, cols: Any) -> ast.ValuesTable:
        return ast.ValuesTable(rows, alias, cols or ())

    def table_alias(self, name: Token) -> str:
        return name_of(name)

    def column_aliases(self, names: tuple[str, ...]) -> tuple[str, ...]:
        return names

    column_list = column_aliases

    def hints_without_with(self, *hints: str) -> tuple[str, ...]:
        return hints

    def table_hints(self, _w: Token, *hints: str) -> tuple[str, ...]:
        return hints

    def table_hint(self, name: Token, args: Any) -> str:
        if not args:
            return name_of(name).upper()
        return f"{name_of(name).upper()}({', '.join(_expr_text(a) for a in args)})"

    def index_hint(self, args: Any) -> str:
        items = args if isinstance(args, tuple) else (args,)
        return f"INDEX({', '.join(_expr_text(a) for a in items)})"

    def value_rows(self, *rows: Any) -> tuple[Any, ...]:
        return rows

    def value_row(self, *items: Any) -> tuple[Any, ...]:
        return items


def _expr_text(e: ast.Expr) -> str:
    """A short text for simple hint arguments (index names and numbers)."""
    if isinstance(e, ast.Column):
        return ".".join(e.parts)
    if isinstance(e, ast.Literal):
        return e.text
    return repr(e)


def _operator(op: Token) -> str:
    """A comparison operator without the blanks SQL Server allows inside it (``< >``)."""
    return "".join(str(op).split())
