"""The integer type (tinyint … bigint) SQL Server gives an arithmetic expression of a query,
where it is evident: both backends' rewrites ask it to check integer arithmetic as SQL
Server does (Msg 8115 past the result type's range), each in its own way."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ...values import types
from ...values.operators import negation_type
from ...values.precedence import PRECEDENCE
from ...values.types import literal_spec

INTEGER_TYPES = types.INTEGER_TYPES - {"bit"}
# Integer operators and their T-SQL spelling: the result is the operand type of higher
# precedence (two smallints give a smallint: 20000 + 20000 overflows); a constant is an int.
ARITHMETIC_OPERATORS: dict[type, str] = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*",
                                         exp.Div: "/", exp.Mod: "%"}


def integer_type(rewriter: Any, node: exp.Expression) -> str | None:
    """The integer type of ``node`` (of the original tree) when it is integer arithmetic,
    a negation, an integer column, variable or constant whose type is evident; None
    otherwise. Kept per node in the rewriter's scratch, so that a long ``a + b + c …``
    chain is typed once."""
    known = rewriter.scratch().setdefault("integer_types", {})
    seen = known.get(id(node))
    if seen is not None and seen[0] is node:
        return seen[1]
    result: str | None
    if isinstance(node, exp.Paren):
        result = integer_type(rewriter, node.this)
    elif isinstance(node, exp.Neg) and signed_constant(node) is not None:
        # A minus written before a number is part of the constant, as the interpreter
        # reads it: -2147483648 is an int, -(-2147483648) the numeric 2147483648.
        result = "int" if literal_spec(signed_constant(node) or "", False) == "int" \
            else None
    elif isinstance(node, exp.Neg):
        inner = integer_type(rewriter, node.this)
        result = None if inner is None else negation_type(inner)
    elif isinstance(node, exp.Literal):
        result = "int" if not node.is_string and literal_spec(node.name, False) == "int" \
            else None
    elif isinstance(node, (exp.Case, exp.If)):
        result = _branches_type(rewriter, node)
    elif type(node) in ARITHMETIC_OPERATORS:
        left = integer_type(rewriter, node.this)
        right = integer_type(rewriter, node.expression)
        result = None if left is None or right is None else \
            max(left, right, key=PRECEDENCE.__getitem__)
    else:
        spec = rewriter.spec_of(node)
        spec = spec.strip().lower() if isinstance(spec, str) else None
        result = spec if spec in INTEGER_TYPES else None
    known[id(node)] = (node, result)  # the node is kept so that its id is not reused
    return result


def signed_constant(node: exp.Expression) -> str | None:
    """The text of a number written with minus signs before it (``-5``, ``-(-5)``), its
    signs folded; None for anything else."""
    negative = False
    while isinstance(node, (exp.Neg, exp.Paren)):
        negative ^= isinstance(node, exp.Neg)
        node = node.this
    if not isinstance(node, exp.Literal) or node.is_string:
        return None
    return ("-" if negative else "") + node.name


def _branches_type(rewriter: Any, node: exp.Case | exp.If) -> str | None:
    """A CASE's (or IIF's) type when every result is an integer or NULL: the results'
    type of highest precedence, as the CASE page says."""
    if isinstance(node, exp.Case):
        results = [branch.args.get("true") for branch in node.args.get("ifs") or []]
        results.append(node.args.get("default"))
    else:
        results = [node.args.get("true"), node.args.get("false")]
    found = [integer_type(rewriter, r) for r in results
             if r is not None and not isinstance(r, exp.Null)]
    if not found or None in found:
        return None
    return max((f for f in found if f is not None), key=PRECEDENCE.__getitem__)
