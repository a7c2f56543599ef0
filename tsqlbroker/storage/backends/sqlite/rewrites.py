"""Query rewrites SQLite needs: the backend forms of what the transpiler writes per backend.
BEFORE / AFTER map a node's exact class to a rewrite ``(rewriter, node) → node`` (None: not
handled), consulted by the transpiler's Rewriter where the case arises, before or after the
node's children are rewritten; the names and helpers below are asked by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite

from ....values.types import literal_spec
from ..integer_types import integer_type

# The interpreter's Python implementations serve every T-SQL built-in here.
FUNCTION_NAMES: dict[str, str] = {}
UNSUPPORTED_FUNCTIONS: frozenset[str] = frozenset()


def _is_decimal(spec: object) -> bool:
    return isinstance(spec, str) and spec.split("(")[0].strip().lower() in ("decimal", "numeric")


def checked_divisor(node: exp.Expression) -> exp.Expression:
    """SQLite divides by zero into NULL: a divisor that is not a non-zero constant goes
    through ``tsqlb_divisor``, which raises Msg 8134 as SQL Server does."""
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            if float(node.name) != 0:
                return node
        except ValueError:
            pass
    return exp.Anonymous(this="tsqlb_divisor", expressions=[node])


def _decimal_division(rewriter: Any, node: exp.Div | exp.Mod) -> exp.Expression | None:
    """Decimal ``/`` and ``%``: a decimal holding a whole number is stored as an integer
    here, and SQLite would divide (7 / 3.00 gave 2) or take the remainder (2.50 % 2 gave 0)
    in integers."""
    if not _is_decimal(rewriter.spec_of(node)):
        return None
    left = rewriter.rewrite(node.this)
    right = checked_divisor(rewriter.rewrite(node.expression))
    real = exp.DataType.build("REAL")
    if isinstance(node, exp.Div):
        return exp.Div(this=exp.Cast(this=left, to=real), expression=right)
    return exp.Anonymous(this="mod", expressions=[exp.Cast(this=left, to=real), right])


def _ordered_string_agg(rewriter: Any, node: exp.GroupConcat) -> exp.Expression | None:
    """``STRING_AGG(…) WITHIN GROUP (ORDER BY …)``: the ``tsqlb_string_agg`` aggregate,
    given the sort keys and directions after the value and the separator."""
    if not isinstance(node.this, exp.Order):
        return None
    order = node.this
    args = [rewriter.rewrite(order.this), rewriter.rewrite(node.args.get("separator")
                                                           or exp.Literal.string(","))]
    for item in order.expressions:
        args += [rewriter.rewrite(item.this),
                 exp.Literal.number(1 if item.args.get("desc") else 0)]
    return exp.Anonymous(this="tsqlb_string_agg", expressions=args)


def _divisor(rewriter: Any, node: exp.Div | exp.Mod) -> exp.Expression:
    node.set("expression", checked_divisor(node.expression))
    return node


def _exclusive_or(rewriter: Any, node: exp.BitwiseXor) -> exp.Expression:
    """``a ^ b``: SQLite has no XOR operator; ``(a | b) - (a & b)`` is the same bits."""
    a, b = node.this, node.expression
    return exp.Paren(this=exp.Sub(
        this=exp.Paren(this=exp.BitwiseOr(this=a, expression=b)),
        expression=exp.Paren(this=exp.BitwiseAnd(this=a.copy(), expression=b.copy()))))


_CHECKED_OPERATORS = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}
CHECKED_INTEGER_FUNCTION = "tsqlb_int_arith"
# SQLite takes at most 127 arguments in a call: a longer chain nests a call every 60 steps.
_CHECKED_STEPS_PER_CALL = 60


def _checked_call(first: exp.Expression, step: list[exp.Expression]) -> exp.Expression:
    """``tsqlb_int_arith(first, step…)``, one call for a chain: a ``first`` that is such a
    call already (not full) takes the step as its own."""
    inner = first.this if isinstance(first, exp.Paren) else first
    if isinstance(inner, exp.Anonymous) and inner.name == CHECKED_INTEGER_FUNCTION \
            and len(inner.expressions) < 1 + 2 * _CHECKED_STEPS_PER_CALL:
        return exp.Anonymous(this=CHECKED_INTEGER_FUNCTION, expressions=inner.expressions + step)
    return exp.Anonymous(this=CHECKED_INTEGER_FUNCTION, expressions=[first, *step])


def _checked_integer(rewriter: Any, node: exp.Add | exp.Sub | exp.Mul) -> exp.Expression | None:
    """``+ - *`` of two integers: SQLite computes in 64 bits and turns an overflow into a
    float, where SQL Server raises Msg 8115 past the result type's range (tinyint … bigint).
    ``tsqlb_int_arith(a, '+int', b, '*bigint', c …)`` computes it as SQL Server does, left
    to right, a chain ``a + b - c …`` in one call rather than one nested call per operator
    (SQLite refuses deep nesting). Only when both operands' types are evident integers:
    any other arithmetic stays SQLite's own."""
    result = integer_type(rewriter, node)
    if result is None:
        return None
    return _checked_call(rewriter.rewrite(node.this), [
        exp.Literal.string(_CHECKED_OPERATORS[type(node)] + result),
        rewriter.rewrite(node.expression)])


def _cannot_overflow(divisor: exp.Expression) -> bool:
    """A constant divisor other than 0 and -1: the quotient of integers stays in range
    (only MIN / -1 overflows) and SQLite's own division truncates toward zero as T-SQL's."""
    inner = divisor.this if isinstance(divisor, exp.Paren) else divisor
    return isinstance(inner, exp.Literal) and not inner.is_string \
        and literal_spec(inner.name, False) == "int" and int(inner.name) != 0


def _division(rewriter: Any, node: exp.Div | exp.Mod) -> exp.Expression | None:
    """``/`` and ``%``: decimal as ``_decimal_division`` computes it; integer ``/`` by a
    divisor that may be -1 (or 0) through the checked function (-2147483648 / -1 is Msg
    8115, SQLite would give 2147483648); anything else SQLite's own, its divisor checked."""
    decimal = _decimal_division(rewriter, node)
    if decimal is not None or not isinstance(node, exp.Div) \
            or _cannot_overflow(node.expression):
        return decimal
    return _checked_integer(rewriter, node)


def _checked_negation(rewriter: Any, node: exp.Neg) -> exp.Expression | None:
    """``-x`` of an integer that is not a constant: ``0 - x`` in the negation's type
    (-2147483648 of an int column is Msg 8115; a tinyint's is a smallint)."""
    operand = node.this.this if isinstance(node.this, exp.Paren) else node.this
    result = integer_type(rewriter, node)
    if result is None or isinstance(operand, exp.Literal):
        return None
    return exp.Anonymous(this=CHECKED_INTEGER_FUNCTION, expressions=[
        exp.Literal.number(0), exp.Literal.string("-" + result), rewriter.rewrite(node.this)])


BEFORE: dict[type, Callable[[Any, Any], Any]] = {
    exp.Add: _checked_integer,
    exp.Sub: _checked_integer,
    exp.Mul: _checked_integer,
    exp.Div: _division,
    exp.Mod: _division,
    exp.Neg: _checked_negation,
    exp.GroupConcat: _ordered_string_agg,
}
AFTER: dict[type, Callable[[Any, Any], Any]] = {
    exp.Div: _divisor,
    exp.Mod: _divisor,
    exp.BitwiseXor: _exclusive_or,
}


def json_quote(value: exp.Expression) -> exp.Expression:
    """A value as a JSON string literal's text (FOR JSON): ``json_quote`` of its text."""
    return exp.Anonymous(this="json_quote", expressions=[
        exp.Cast(this=value, to=exp.DataType.build("text"))
        if not isinstance(value, exp.Cast) else value])


def integer_average(arg: exp.Expression) -> exp.Expression:
    """``AVG`` of a bigint (rewritten) argument as SQL Server computes it: the sum divided by
    the count in integers (SQLite's integer division truncates toward zero too)."""
    return exp.Div(this=exp.Sum(this=arg), expression=exp.Count(this=arg.copy()), typed=True)


def convert(value: exp.Expression, spec: str, source: str | exp.Expression | None = None,
            style: exp.Expression | None = None, try_: bool = False) -> exp.Expression:
    """``CAST(value AS spec)`` / ``CONVERT`` of an already rewritten ``value``: the Python
    function ``tsqlb_cast`` (``tsqlb_try_cast`` for TRY_CAST / TRY_CONVERT, which take no
    style). ``source`` is not needed: the function sees the value's Python type."""
    fn = "tsqlb_try_cast" if try_ else "tsqlb_cast"
    args: list[exp.Expression] = [value, exp.Literal.string(spec)]
    if style is not None and not try_:
        args.append(style)
    return exp.Anonymous(this=fn, expressions=args)


def parse_call(value: exp.Expression, target: str, try_: bool,
               culture: exp.Expression | None) -> exp.Expression:
    """PARSE / TRY_PARSE of a rewritten (per-row) ``value`` into ``target``: the Python
    function ``tsqlb_parse`` over values/parse_builtins.py."""
    args = [value, exp.Literal.string(target), exp.Literal.number(int(try_))]
    return exp.Anonymous(this="tsqlb_parse", expressions=args + (
        [culture] if culture is not None else []))


def json_scalar(value: exp.Expression, spec: str | None) -> exp.Expression:
    """A scalar member of JSON_OBJECT / JSON_ARRAY as JSON text (NULL for NULL), as SQL
    Server writes it: a decimal keeps its scale (2.50; SQLite stores it as a REAL, which
    json_quote would write 2.5)."""
    name = spec.split("(")[0].strip().lower() if spec else ""
    if spec and name in ("decimal", "numeric"):
        # The decimal's text as CAST writes it, from the stored value read as that type.
        return exp.Anonymous(this="tsqlb_cast", expressions=[
            value, exp.Literal.string("varchar(64)"), exp.Null(), exp.Literal.string(spec)])
    # json_quote(NULL) is the text null; a string 'null' comes back quoted.
    return exp.Nullif(this=exp.Anonymous(this="json_quote", expressions=[value]),
                      expression=exp.Literal.string("null"))


def generate(tree: exp.Expression) -> tuple[str, tuple[str, ...] | None]:
    """The SQL text of a rewritten tree with ``:name`` placeholders (SQLite's parser tells
    them from literals), and None: no numbering (``execsql.BackendSql``'s parts)."""
    return SQLite().generate(tree), None
