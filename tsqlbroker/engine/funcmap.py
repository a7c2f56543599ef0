"""T-SQL functions in transpiled SQL: which backend call implements which T-SQL function.

sqlglot parses many T-SQL functions into typed nodes (``LEN`` → ``Length``, ``DATEADD`` →
``DateAdd`` …) with their own argument order. :func:`typed_call` gives back the T-SQL name
and the arguments in T-SQL order, so that the binder can call the backend's Python
implementation (``tsql_<name>``, storage/backends/sqlite/tsql_functions.py) or else its
``tsqlb_<name>`` (PL/pgSQL on PostgreSQL); anything else stays a native backend function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ..errors import BindError, tsql_error
from ..values.builtins import lookup
from ..values.types import parse_type_spec
from .datecalls import WRITTEN_PART

# FORMAT (engine/parsing.py keeps it an anonymous call with its .NET format string): the
# interpreter's built-in, bound per argument types, is the one rule queries use too.
FORMAT_BUILTIN = lookup("format")
FORMAT_RESULT = "nvarchar(4000)"

# Engine implementations used when the interpreter registered none.
BUILTIN_FALLBACK = {
    "len": "tsqlb_len", "left": "tsqlb_left", "right": "tsqlb_right",
    "dateadd": "tsqlb_dateadd", "datediff": "tsqlb_datediff", "datepart": "tsqlb_datepart",
    "year": "tsqlb_datepart", "month": "tsqlb_datepart", "day": "tsqlb_datepart",
    "getdate": "tsqlb_getdate", "newid": "tsqlb_newid", "object_id": None,
}
# DATENAME(part, d) as sqlglot parses it: TimeToStr with a strftime-like format per part.
# sqlglot writes some dateparts' formats alike ('%d' for both day and dy, '%Y' for year and
# y): those abbreviations are read as sqlglot wrote them.
_DATENAME_FORMATS = {"'%B'": "month", "'%A'": "weekday", "'%Y'": "year", "'%y'": "year",
                     "'quarter'": "quarter", "'qq'": "quarter", "'q'": "quarter", "'%j'": "dayofyear",
                     "'%d'": "day", "'%-d'": "day", "'%W'": "week", "'%V'": "iso_week",
                     "'%h'": "hour", "'%I'": "hour", "'%M'": "minute", "'%S'": "second",
                     "'%-S'": "second", "'%f'": "millisecond", "'%Bc%-S'": "microsecond",
                     "'%Mcro%S'": "microsecond", "'%Ma%Mo%S'": "nanosecond",
                     "'%M%-S'": "nanosecond", "'tzoff%-Set'": "tzoffset", "'tz'": "tzoffset"}


def _unit_literal(node: exp.Expression) -> exp.Expression:
    unit = node.args.get("unit")
    return exp.Literal.string(unit.name if unit is not None else "day")


def typed_call(node: exp.Expression) -> tuple[str, list[exp.Expression]] | None:
    """(T-SQL function name, arguments in T-SQL order) for sqlglot's typed function nodes
    whose T-SQL semantics SQLite lacks (or the interpreter implements)."""
    a = node.args
    if isinstance(node, exp.Length):
        return "len", [uncast(node.this)]
    if isinstance(node, exp.Left):
        return "left", [uncast(node.this), node.expression]
    if isinstance(node, exp.Right):
        return "right", [uncast(node.this), node.expression]
    if isinstance(node, exp.StrPosition):
        return "charindex", [x for x in (a.get("substr"), node.this, a.get("position")) if x]
    if isinstance(node, exp.Substring):
        return "substring", [x for x in (node.this, a.get("start"), a.get("length")) if x]
    if isinstance(node, exp.Replace):
        return "replace", [node.this, node.expression, a.get("replacement")]
    if isinstance(node, exp.Stuff):
        return "stuff", [node.this, a.get("start"), a.get("length"), node.expression]
    if isinstance(node, exp.Repeat):
        return "replicate", [node.this, a.get("times")]
    if isinstance(node, (exp.Upper, exp.Lower, exp.Reverse, exp.Space, exp.Ascii,
                         exp.Unicode)):
        return type(node).__name__.lower(), [node.this]
    if isinstance(node, exp.Chr):
        return "char", list(node.expressions)
    if isinstance(node, exp.ConcatWs):  # a Concat subclass: its first item is the separator
        return "concat_ws", list(node.expressions)
    if isinstance(node, exp.Concat):
        return "concat", list(node.expressions)
    if isinstance(node, exp.Like) and not a.get("escape"):
        return "like", [node.this, node.expression]
    if isinstance(node, exp.DateAdd):
        return "dateadd", [_unit_literal(node), node.expression, uncast(node.this)]
    if isinstance(node, exp.DateDiff):
        name = "datediff_big" if a.get("big_int") else "datediff"
        return name, [_unit_literal(node), uncast(node.expression), uncast(node.this)]
    if isinstance(node, exp.Extract):
        return "datepart", [exp.Literal.string(node.this.name), uncast(node.expression)]
    if isinstance(node, exp.TimeToStr) and a.get("format") is not None:
        fmt = a["format"]
        part = fmt.name[len(WRITTEN_PART):] if fmt.name.startswith(WRITTEN_PART) \
            else _DATENAME_FORMATS.get(fmt.sql())
        if part is not None:
            return "datename", [exp.Literal.string(part), uncast(node.this)]
        return None
    if isinstance(node, (exp.Year, exp.Month, exp.Day)):
        inner = node.this
        if isinstance(inner, exp.TsOrDsToDate):
            inner = inner.this
        return type(node).__name__.lower(), [uncast(inner)]
    if isinstance(node, exp.DateFromParts):
        return "datefromparts", [a["year"], a["month"], a["day"]]
    if isinstance(node, exp.TimestampFromParts):
        return "datetimefromparts", [a[k] for k in ("year", "month", "day", "hour", "min",
                                                    "sec", "milli")]
    if isinstance(node, exp.TimeFromParts):
        return "timefromparts", [a[k] for k in ("hour", "min", "sec", "fractions",
                                                "precision")]
    if isinstance(node, exp.LastDay):
        return "eomonth", [uncast(node.this)]
    if isinstance(node, (exp.MD5, exp.SHA, exp.SHA2)):  # HASHBYTES('MD5' | 'SHA1' | …, v)
        algorithm = "MD5" if isinstance(node, exp.MD5) else "SHA1" if isinstance(
            node, exp.SHA) else f"SHA2_{a['length'].name if a.get('length') else 256}"
        return "hashbytes", [exp.Literal.string(algorithm), node.this]
    if isinstance(node, (exp.JSONExtractScalar, exp.JSONExtract)):
        name = "json_value" if isinstance(node, exp.JSONExtractScalar) else "json_query"
        if not isinstance(node.expression, exp.JSONPath):
            # 'strict $.a' / 'lax $.a' (sqlglot leaves those text) or a variable's path
            return name, [node.this, node.expression]
        # JSON_VALUE / JSON_QUERY(text, '$.path'): the path as written (sqlglot parsed it)
        path = node.expression.sql("tsql")
        return name, [node.this, exp.Literal.string(path[1:-1].replace("''", "'"))]
    if isinstance(node, exp.CurrentTimestamp):
        return "getdate", []
    if isinstance(node, exp.Uuid):
        return "newid", []
    if isinstance(node, exp.ObjectId):
        return "object_id", [node.this]
    return None



def is_format_call(node: exp.Expression) -> bool:
    """Whether ``node`` is a FORMAT call as engine/parsing.py keeps it."""
    return isinstance(node, exp.Anonymous) and node.name.lower() == "format"


def bound_format(specs: list[str | None]) -> Callable[..., Any] | None:
    """FORMAT bound to its arguments' types (an unknown format or culture type is
    nvarchar; None when the value's type is not known): Msg 189 for the wrong number of
    arguments, Msg 8116 for a value that is neither a number nor a date/time, as the
    interpreter raises them."""
    assert FORMAT_BUILTIN is not None
    if not 2 <= len(specs) <= 3:
        raise tsql_error(189, "format", 2, 3, cls=BindError)
    if specs[0] is None:
        return None
    types = [parse_type_spec(s or FORMAT_RESULT) for s in specs]
    return FORMAT_BUILTIN.bind(types, [])[1]


# Conversions sqlglot wraps around T-SQL date arguments ('2024-01-01' in DATEDIFF …).
IMPLICIT_WRAPPERS = (exp.TimeStrToTime, exp.TsOrDsToDate, exp.TsOrDsToTimestamp)


def uncast(node: exp.Expression | None) -> exp.Expression:
    """Drop the casts sqlglot adds around T-SQL function arguments (LEN, DATEDIFF …)."""
    while isinstance(node, (exp.Cast, *IMPLICIT_WRAPPERS)) and not node.args.get("_explicit"):
        inner = node.this
        if isinstance(inner, exp.Anonymous) and inner.name.startswith("tsqlb_cast"):
            return inner
        node = inner
    assert node is not None
    return node
