"""Query rewrites PostgreSQL needs: the backend forms of what the transpiler writes per
backend. BEFORE / AFTER map a node's exact class to a rewrite ``(rewriter, node) → node``
(None: not handled), consulted by the transpiler's Rewriter where the case arises, before or
after the node's children are rewritten; the names and helpers below are asked by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ....errors import not_supported

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
                  "isjson": "tsqlb_isjson"}
# T-SQL functions with no PostgreSQL implementation yet: a clear Msg 40000, not Msg 195.
UNSUPPORTED_FUNCTIONS = frozenset({"format", "json_query"})


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


BEFORE: dict[type, Callable[[Any, Any], Any]] = {}
AFTER: dict[type, Callable[[Any, Any], Any]] = {
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
