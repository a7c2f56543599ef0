"""Query rewrites PostgreSQL needs: the backend forms of what the transpiler writes per
backend. BEFORE / AFTER map a node's exact class to a rewrite ``(rewriter, node) → node``
(None: not handled), consulted by the transpiler's Rewriter where the case arises, before or
after the node's children are rewritten; the names and helpers below are asked by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres

from ....errors import not_supported
from ..integer_types import integer_type, signed_constant
from .casts import cast_to
from .xml_methods import xml_method  # noqa: F401 - the transpiler asks it by name

# T-SQL's case-insensitive string searches and other built-ins as the SQL functions of
# pgtext.py / pgstrings.py (also usable on the nondeterministic tsqlb_ci collation, where
# strpos / replace refuse to run): T-SQL name → function.
FUNCTION_NAMES = {"charindex": "tsqlb_charindex", "replace": "tsqlb_replace",
                  "stuff": "tsqlb_stuff", "patindex": "tsqlb_patindex",
                  "quotename": "tsqlb_quotename", "char": "tsqlb_char",
                  "nchar": "tsqlb_nchar", "isnumeric": "tsqlb_isnumeric",
                  "datename": "tsqlb_datename", "str": "tsqlb_str",
                  "hashbytes": "tsqlb_hashbytes", "ascii": "tsqlb_ascii",
                  "isdate": "tsqlb_isdate", "json_value": "tsqlb_json_value",
                  "isjson": "tsqlb_isjson", "json_query": "tsqlb_json_query",
                  "datediff_big": "tsqlb_datediff_big", "eomonth": "tsqlb_eomonth",
                  **{f"{kind}fromparts": f"tsqlb_{kind}fromparts" for kind in (
                      "date", "datetime", "datetime2", "smalldatetime", "time")}}
# Parameters of these types go into to_json as numbers, the others as text.
_NUMERIC_SPECS = ("int", "bigint", "smallint", "tinyint", "decimal", "numeric", "float",
                  "real", "money", "smallmoney")
# T-SQL functions with no PostgreSQL implementation yet: a clear Msg 40000, not Msg 195.
UNSUPPORTED_FUNCTIONS: frozenset[str] = frozenset()


def _round(rewriter: Any, node: exp.Round) -> exp.Expression | None:
    if node.args.get("truncate") is not None:
        raise not_supported("ROUND with a third (function) argument in a query on PostgreSQL")
    return None


def _hex_string(rewriter: Any, node: exp.HexString) -> exp.Expression:
    # PostgreSQL reads X'00FF' as a bit string; T-SQL's 0x00FF is binary (bytea).
    return exp.Cast(this=exp.Literal.string("\\x" + str(node.this)),
                    to=exp.DataType.build("bytea", dialect="postgres"))


def _like(rewriter: Any, node: exp.Like | exp.Escape) -> exp.Expression:
    """LIKE: ``tsqlb_like`` (T-SQL patterns with ``[…]``, case-insensitive, and usable on
    ``tsqlb_ci`` columns, where PostgreSQL 15 refuses LIKE)."""
    if isinstance(node, exp.Like) and isinstance(node.parent, exp.Escape):
        return node  # the ESCAPE around it makes the call
    like, escape = (node.this, node.expression) if isinstance(node, exp.Escape) \
        else (node, None)
    if not isinstance(like, exp.Like):
        return node
    args = [like.this, like.expression] + ([escape] if escape is not None else [])
    call: exp.Expression = exp.Anonymous(this="tsqlb_like", expressions=args)
    return exp.Not(this=call) if like.args.get("negate") else call


# The server's type for each integer result type: computing in it makes the server fail past
# the range ('integer out of range' …), which storage/failures.py names as SQL Server does.
_SERVER_INTEGER_TYPES = {"smallint": "smallint", "int": "integer", "bigint": "bigint"}
_CHECKED = (exp.Add, exp.Sub, exp.Mul, exp.Div)


def _integer_arithmetic(rewriter: Any, node: exp.Add | exp.Sub | exp.Mul | exp.Div
                        ) -> exp.Expression | None:
    """Integer ``+ - * /`` computed in SQL Server's result type (the operands' higher type).
    Each operand is cast to it: a CAST / CONVERT to an integer type reads back as a bigint
    here (casts.from_storage_text), and CAST(i AS int) * 2 must overflow as an int. A
    tinyint is a smallint here, so tinyint arithmetic is computed as integers (255 * 255
    fits) and ``tsqlb_tinyint`` checks the result's range (255 + 1 and 0 - 1 are Msg 8115)."""
    result = integer_type(rewriter, node)
    if result is None:
        return None
    target = exp.DataType.build(_SERVER_INTEGER_TYPES.get(result, "integer"))

    def operand(child: exp.Expression) -> exp.Expression:
        rewritten = rewriter.rewrite(child)
        inner = child.this if isinstance(child, exp.Paren) else child
        if result != "tinyint" and isinstance(inner, _CHECKED) \
                and integer_type(rewriter, inner) == result:
            return rewritten  # computed in that type already: a long chain stays shallow
        return exp.Cast(this=rewritten, to=target.copy())
    # The node's other arguments kept: a typed Div stays integer division.
    flags = {k: v for k, v in node.args.items() if k not in ("this", "expression")}
    computed = type(node)(this=operand(node.this), expression=operand(node.expression),
                          **flags)
    if result != "tinyint":
        return computed
    return exp.Anonymous(this="tsqlb_tinyint", expressions=[computed])


def _integer_negation(rewriter: Any, node: exp.Neg) -> exp.Expression | None:
    """``-x`` of an integer that is not a constant, in its type (-CAST(i AS int) of
    -2147483648 is Msg 8115); a tinyint's negation is a smallint, which cannot overflow."""
    result = integer_type(rewriter, node)
    if result not in _SERVER_INTEGER_TYPES or signed_constant(node) is not None:
        return None
    return exp.Neg(this=exp.Cast(this=rewriter.rewrite(node.this),
                                 to=exp.DataType.build(_SERVER_INTEGER_TYPES[result])))


BEFORE: dict[type, Callable[[Any, Any], Any]] = {
    exp.Add: _integer_arithmetic,
    exp.Sub: _integer_arithmetic,
    exp.Mul: _integer_arithmetic,
    exp.Div: _integer_arithmetic,
    exp.Neg: _integer_negation,
}


def _is_null(rewriter: Any, node: exp.Is) -> exp.Expression:
    """``@v IS NULL``: psycopg sends a string parameter untyped, and PostgreSQL cannot type a
    parameter whose first use is IS NULL ("could not determine data type of parameter");
    testing its text form types it (a parameter already typed casts to text as well)."""
    if isinstance(node.this, exp.Placeholder):
        node.set("this", exp.Cast(this=node.this, to=exp.DataType.build("text")))
    return node


AFTER: dict[type, Callable[[Any, Any], Any]] = {
    exp.Is: _is_null,
    exp.Round: _round,
    exp.HexString: _hex_string,
    exp.Like: _like,
    exp.Escape: _like,
}


def json_quote(value: exp.Expression) -> exp.Expression:
    """A value as a JSON string literal's text (FOR JSON): ``'' || to_json(…)``, text rather
    than json (REPLACE and concatenation need text)."""
    return exp.DPipe(this=exp.Literal.string(""), expression=exp.Anonymous(
        this="to_json", expressions=[exp.Cast(
            this=value, to=exp.DataType.build("nvarchar(max)", dialect="tsql"))]), safe=True)


def integer_average(arg: exp.Expression) -> exp.Expression:
    """``AVG`` of a bigint (rewritten) argument as SQL Server computes it: truncated toward
    zero (PostgreSQL averages bigint in numeric)."""
    return exp.Cast(this=exp.Anonymous(this="trunc", expressions=[exp.Avg(this=arg)]),
                    to=exp.DataType.build("bigint"))


def convert(value: exp.Expression, spec: str, source: str | exp.Expression | None = None,
            style: exp.Expression | None = None, try_: bool = False) -> exp.Expression:
    """``CAST(value AS spec)`` / ``CONVERT`` of an already rewritten ``value`` of type
    ``source``: the server's ``tsqlb_cvt`` (see :func:`.casts.cast_to`)."""
    return cast_to(value, spec, source, style, try_)


def parse_call(value: exp.Expression, target: str, try_: bool,
               culture: exp.Expression | None) -> exp.Expression:
    """PARSE / TRY_PARSE of a value known only per row: the server has no reader of .NET's
    culture formats, so the engine reads the values before the statement runs
    (engine/udf_calls.py); a call that reaches here is one it could not prepare (a copy
    made while rewriting, an operand naming a select-list alias)."""
    raise not_supported("PARSE or TRY_PARSE of a select-list alias, or inside CROSS APPLY, "
                        "in a query on PostgreSQL")


def json_scalar(value: exp.Expression, spec: str | None) -> exp.Expression:
    """A scalar member of JSON_OBJECT / JSON_ARRAY as JSON text (NULL for NULL): ``to_json``
    of the value, typed first where PostgreSQL cannot tell (parameters, string literals);
    ``spec``: the value's T-SQL type where known."""
    if isinstance(value, exp.Placeholder):
        spec = spec or "nvarchar"
        name = spec.split("(")[0].strip().lower()
        # A decimal parameter is bound as a number without its scale: numeric(p,s) gives
        # it back (2.50, as SQL Server writes it).
        typed = spec.replace(name, "numeric", 1) if name in ("decimal", "numeric") else \
            "numeric" if name in _NUMERIC_SPECS else "text"
        value = exp.Cast(this=value, to=exp.DataType.build(typed, dialect="postgres"))
    elif isinstance(value, exp.Literal) and value.is_string:
        value = exp.Cast(this=value, to=exp.DataType.build("text"))
    return exp.Cast(this=exp.Anonymous(this="to_json", expressions=[value]),
                    to=exp.DataType.build("text"))


class _NumberedPostgres(Postgres.Generator):  # type: ignore[misc]
    """PostgreSQL SQL with ``$n`` placeholders, numbered per distinct name."""

    def __init__(self, **opts: Any) -> None:
        super().__init__(dialect=Postgres(), **opts)
        self.param_names: dict[str, int] = {}

    def placeholder_sql(self, expression: exp.Placeholder) -> str:
        name = expression.name
        if not name:
            raise ValueError("an unnamed placeholder in generated SQL")
        number = self.param_names.get(name)
        if number is None:
            number = self.param_names[name] = len(self.param_names) + 1
        return f"${number}"


def generate(tree: exp.Expression) -> tuple[str, tuple[str, ...] | None]:
    """The SQL text of a rewritten tree with ``$n`` placeholders, and the parameter name
    behind each number (``execsql.BackendSql``'s parts)."""
    gen = _NumberedPostgres()
    text = gen.generate(tree)
    return text, tuple(gen.param_names)
