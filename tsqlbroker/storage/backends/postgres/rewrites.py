"""Query rewrites PostgreSQL needs: the backend forms of what the transpiler writes per
backend (node type → rewrite in BEFORE / AFTER, None: not handled; and the helpers below)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

BEFORE: dict[type, Callable[[Any, Any], Any]] = {}
AFTER: dict[type, Callable[[Any, Any], Any]] = {}


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
