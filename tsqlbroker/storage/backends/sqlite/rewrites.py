"""Query rewrites SQLite needs: the backend forms of what the transpiler writes per backend
(node type → rewrite in BEFORE / AFTER, None: not handled; and the helpers below)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

BEFORE: dict[type, Callable[[Any, Any], Any]] = {}
AFTER: dict[type, Callable[[Any, Any], Any]] = {}


def json_quote(value: exp.Expression) -> exp.Expression:
    """A value as a JSON string literal's text (FOR JSON): ``json_quote`` of its text."""
    return exp.Anonymous(this="json_quote", expressions=[
        exp.Cast(this=value, to=exp.DataType.build("text"))
        if not isinstance(value, exp.Cast) else value])


def integer_average(arg: exp.Expression) -> exp.Expression:
    """``AVG`` of a bigint (rewritten) argument as SQL Server computes it: the sum divided by
    the count in integers (SQLite's integer division truncates toward zero too)."""
    return exp.Div(this=exp.Sum(this=arg), expression=exp.Count(this=arg.copy()), typed=True)
