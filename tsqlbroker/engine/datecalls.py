"""DATEPART / DATENAME / DATEADD / DATEDIFF inside storage queries: the datepart and the
value's type settled while the statement is bound, as the interpreter settles them.

sqlglot reads the datepart keyword into names of its own (``DAYOFWEEK`` for ``weekday``,
``WEEKISO`` for ``iso_week`` …); :func:`datepart_of` gives back T-SQL's canonical name
(values/dates.py), Msg 155 for an unknown one. :func:`check_call` raises Msg 9810 where the
datepart makes no sense for the value's type (the hour of a date), before any row is read.
The backend functions then receive the canonical datepart, and DATEADD the value's type
spec, which decides its rounding and range (Msg 517).
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..errors import BindError, tsql_error
from ..values import dates
from ..values.types import DATETIME_TYPES, parse_spec

# sqlglot's names for T-SQL dateparts that are no T-SQL name themselves.
_SQLGLOT_PARTS = {"dayofweek": "weekday", "weekiso": "iso_week",
                  "timezone_minute": "tzoffset"}
# DATENAME's datepart as written, after the name sqlglot gives the call's position.
_DATENAME_PART = re.compile(r"\s*\(\s*(\w+)", re.ASCII)
# The format of a DATENAME call whose datepart :func:`restore_datename_parts` put back.
WRITTEN_PART = "datepart:"
# The functions whose first argument is a datepart.
PART_FUNCTIONS = frozenset({"datepart", "datename", "dateadd", "datediff", "datediff_big"})


def datepart_of(text: str, function: str) -> str:
    """The canonical datepart of a name as written or as sqlglot spelled it (Msg 155)."""
    low = text.strip().lower()
    return dates.datepart_name(_SQLGLOT_PARTS.get(low, low), function)


def value_spec(spec: str | None, function: str) -> str | None:
    """The date/time type a value of type ``spec`` is read as: its own type, datetime for
    DATEADD of a string or number (datetime2 for the other functions' strings); None when
    the type is not known."""
    if spec is None:
        return None
    name = parse_spec(spec).name
    if name in DATETIME_TYPES:
        return spec
    if function != "dateadd" and name in ("char", "varchar", "nchar", "nvarchar"):
        return "datetime2"
    return "datetime"


def check_call(function: str, part: str, spec: str | None) -> None:
    """Msg 9810 for a datepart the value's type lacks (DATEADD never takes tzoffset)."""
    if spec is None:
        return
    name = parse_spec(spec).name
    if function in ("datediff", "datediff_big"):
        return  # any datepart for any type: a date counts from midnight
    if function == "dateadd" and part == "tzoffset":
        raise tsql_error(9810, part, function, name, cls=BindError)
    dates.check_datepart(part, name, function)


def uses_datefirst(node: exp.Expression) -> bool:
    """Whether ``node`` is a DATEPART whose answer depends on ``SET DATEFIRST``."""
    if not isinstance(node, exp.Extract):
        return False
    low = node.this.name.lower()
    return dates.DATEPARTS.get(_SQLGLOT_PARTS.get(low, low)) in ("weekday", "week")


def restore_datename_parts(tree: exp.Expression, text: str) -> None:
    """Put back the datepart of each DATENAME call of ``tree`` as ``text`` writes it:
    sqlglot reads the datepart into a strftime format and gives ``dy`` and ``day`` the same
    one (``y`` and ``year`` too)."""
    for node in tree.find_all(exp.TimeToStr):
        start, end = node.meta.get("start"), node.meta.get("end")
        if start is None or end is None or text[start:end + 1].lower() != "datename":
            continue
        m = _DATENAME_PART.match(text, end + 1)
        if m is not None and m.group(1).lower() in dates.DATEPARTS:
            node.set("format", exp.Literal.string(WRITTEN_PART + m.group(1).lower()))


def part_literal(node: exp.Expression, function: str) -> exp.Literal:
    """The canonical datepart of a call's (sqlglot-parsed) datepart argument as a string."""
    return exp.Literal.string(datepart_of(node.name, function))
