"""SQL Server's data type precedence and aggregate result types, on type specs.

Used where the storage layer must type a column the way SQL Server would although the
backend types it otherwise: the columns of a table value constructor (``VALUES (1), (2.5)``
is ``decimal(11,1)``), and ``SUM`` / ``AVG`` (``AVG`` of an ``int`` column is an ``int``).
"""

from __future__ import annotations

import re

from ..errors import TSqlError
from .sqltypes import parse_spec

# Highest first (SQL Server "Data type precedence"); sysname is nvarchar.
_PRECEDENCE = ["sql_variant", "xml", "datetimeoffset", "datetime2", "datetime",
               "smalldatetime", "date", "time", "float", "real", "decimal", "numeric", "money",
               "smallmoney", "bigint", "int", "smallint", "tinyint", "bit", "ntext", "text",
               "image", "timestamp", "uniqueidentifier", "nvarchar", "sysname", "nchar",
               "varchar", "char", "varbinary", "binary"]
_RANK = {name: i for i, name in enumerate(_PRECEDENCE)}
# Integer types as the decimal precision they convert to.
_INT_DIGITS = {"bit": 1, "tinyint": 3, "smallint": 5, "int": 10, "bigint": 19}
_STRINGS = {"char", "varchar", "nchar", "nvarchar", "sysname"}


def literal_spec(text: str, is_string: bool, national: bool = False) -> str | None:
    """The type SQL Server gives a constant: ``1`` int, ``2.50`` decimal(3,2), ``1e3`` float,
    ``'ab'`` varchar(2), ``N'ab'`` nvarchar(2)."""
    if is_string:
        return f"{'n' if national else ''}varchar({max(len(text), 1)})"
    if re.fullmatch(r"\d+", text):
        value = int(text)
        if value < 2**31:
            return "int"
        return f"decimal({len(text)},0)" if len(text) <= 38 else "float"
    m = re.fullmatch(r"(\d*)\.(\d*)", text)
    if m:
        whole, frac = m.group(1).lstrip("0"), m.group(2)
        scale = len(frac)
        return f"decimal({max(len(whole) + scale, 1)},{scale})"
    if re.fullmatch(r"[\d.]+[eE][-+]?\d+", text):
        return "float"
    return None


def common_spec(specs: list[str | None]) -> str | None:
    """The type of a column whose values have ``specs`` (None: NULL or unknown, ignored):
    the highest-precedence type, widened to hold every value (decimal precision and scale,
    string length)."""
    known = []
    for spec in specs:
        if spec is None:
            continue
        try:
            known.append(parse_spec(spec))
        except TSqlError:
            return None
    if not known:
        return None
    top = min(known, key=lambda t: _RANK.get(t.name, len(_RANK)))
    if top.name in ("decimal", "numeric"):
        scale, whole = 0, 1
        for t in known:
            if t.name in ("decimal", "numeric"):
                scale = max(scale, t.scale or 0)
                whole = max(whole, (t.precision or 18) - (t.scale or 0))
            elif t.name in _INT_DIGITS:
                whole = max(whole, _INT_DIGITS[t.name])
        return f"decimal({min(whole + scale, 38)},{scale})"
    if top.name in _STRINGS:
        unicode_ = any(t.name in ("nchar", "nvarchar", "sysname") for t in known)
        lengths = [t.max_length for t in known if t.name in _STRINGS]
        base = "nvarchar" if unicode_ else "varchar"
        if any(t.is_max for t in known) or any(n is None for n in lengths):
            return f"{base}(max)"
        return f"{base}({max(n or 1 for n in lengths)})"
    return top.spec


def aggregate_spec(function: str, argument: str | None) -> str | None:
    """The result type of ``SUM`` / ``AVG`` over an argument of type ``argument``:
    tinyint, smallint, int → int; bigint → bigint; decimal(p,s) → decimal(38,s) (SUM) or
    decimal(38,max(s,6)) (AVG); money, smallmoney → money; float, real → float."""
    if argument is None:
        return None
    try:
        t = parse_spec(argument)
    except TSqlError:
        return None
    if t.name in ("tinyint", "smallint", "int"):
        return "int"
    if t.name == "bigint":
        return "bigint"
    if t.name in ("decimal", "numeric"):
        scale = t.scale or 0
        return f"decimal(38,{max(scale, 6) if function == 'avg' else scale})"
    if t.name in ("money", "smallmoney"):
        return "money"
    if t.name in ("float", "real"):
        return "float"
    return None


def _decimal_parts(spec: str | None) -> tuple[int, int] | None:
    """(precision, scale) of an exact numeric spec as SQL Server converts it for
    arithmetic with a decimal (int is decimal(10,0) …); None for anything else."""
    if spec is None:
        return None
    base = spec.split("(")[0].strip().lower()
    if base in _INT_DIGITS:
        return _INT_DIGITS[base], 0
    m = re.fullmatch(r"(?:decimal|numeric)\s*\((\d+)\s*(?:,\s*(\d+))?\)", spec.strip().lower())
    if m:
        return int(m.group(1)), int(m.group(2) or 0)
    if base in ("decimal", "numeric"):
        return 18, 0
    return None


def arithmetic_spec(op: str, left: str | None, right: str | None) -> str | None:
    """The decimal(p,s) SQL Server gives ``left op right`` (op one of + - * / %) when an
    operand is decimal and neither is approximate or money; None otherwise (the caller
    keeps its own typing). Precision beyond 38 takes digits from the scale, keeping 6."""
    a, b = _decimal_parts(left), _decimal_parts(right)
    if a is None or b is None:
        return None
    if not any(x is not None and x.split("(")[0].strip().lower() in ("decimal", "numeric")
               for x in (left, right)):
        return None  # integers only: integer arithmetic
    p, s = decimal_arith(op, *a, *b)
    return f"decimal({p},{s})"


def decimal_arith(op: str, p1: int, s1: int, p2: int, s2: int) -> tuple[int, int]:
    """(precision, scale) of ``decimal(p1,s1) op decimal(p2,s2)`` by SQL Server's documented
    formulas (op one of + - * / %). Precision beyond 38 takes digits from the scale,
    keeping 6 (or fewer if the scale was smaller)."""
    if op in ("+", "-"):
        s = max(s1, s2)
        p = s + max(p1 - s1, p2 - s2) + 1
    elif op == "*":
        p, s = p1 + p2 + 1, s1 + s2
    elif op == "/":
        s = max(6, s1 + p2 + 1)
        p = p1 - s1 + s2 + s
    else:  # %
        s = max(s1, s2)
        p = min(p1 - s1, p2 - s2) + s
    if p > 38:
        s = max(s - (p - 38), min(s, 6))
        p = 38
    return p, s
