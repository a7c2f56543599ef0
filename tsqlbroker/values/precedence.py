"""SQL Server's data type precedence, and the result types it decides: the one table.

On :class:`SqlType` for the interpreter (``common_type`` of CASE / COALESCE / UNION,
``int_as_decimal``) and on spec texts where the storage layer must type a column the way SQL
Server would although the backend types it otherwise: the columns of a table value constructor
(``VALUES (1), (2.5)`` is ``decimal(11,1)``), ``SUM`` / ``AVG`` (``AVG`` of an ``int`` column is
an ``int``) and decimal arithmetic.
"""

from __future__ import annotations

import re

from tsqlbroker.errors import TSqlError
from tsqlbroker.values.types import (
    FIXED_LENGTH,
    INT,
    INT_DECIMAL_PRECISION,
    MAX,
    SqlType,
    decimal_type,
    parse_spec,
)

# Highest first, as "Data type precedence (Transact-SQL)" lists them; NULL below everything.
PRECEDENCE_ORDER = (
    "sql_variant", "xml", "datetimeoffset", "datetime2", "datetime", "smalldatetime", "date",
    "time", "float", "real", "decimal", "numeric", "money", "smallmoney", "bigint", "int",
    "smallint", "tinyint", "bit", "ntext", "text", "image", "timestamp", "uniqueidentifier",
    "nvarchar", "nchar", "varchar", "char", "varbinary", "binary", "null",
)
# Rank by base type name, higher wins. decimal and numeric are the same type; sysname is
# nvarchar(128).
PRECEDENCE = {name: len(PRECEDENCE_ORDER) - i for i, name in enumerate(PRECEDENCE_ORDER)}
PRECEDENCE["numeric"] = PRECEDENCE["decimal"]
PRECEDENCE["sysname"] = PRECEDENCE["nvarchar"]
_STRINGS = {"char", "varchar", "nchar", "nvarchar", "sysname"}


def precedence(t: SqlType) -> int:
    """Data-type precedence rank: higher wins when two types meet."""
    return PRECEDENCE.get(t.name, 0)


def int_as_decimal(t: SqlType) -> SqlType:
    """The decimal an exact type turns into when mixed with decimals."""
    if t.is_decimal:
        return t
    if t.is_integer:
        p = t.const_digits if t.const_digits is not None else INT_DECIMAL_PRECISION[t.name]
        return decimal_type(p, 0)
    if t.name == "money":
        return decimal_type(19, 4)
    if t.name == "smallmoney":
        return decimal_type(10, 4)
    return decimal_type(38, 0)


def _merge_strings(types: list[SqlType], winner: SqlType) -> SqlType:
    unicode = winner.is_unicode
    varying = any(t.name not in FIXED_LENGTH for t in types)
    lengths = [t.length or 1 for t in types]
    if winner.name in ("text", "ntext"):
        return winner
    cap = 4000 if unicode else 8000
    if any(n == MAX for n in lengths):
        n = MAX
    else:
        n = max(lengths)
        if n > cap:
            n = MAX
    if unicode:
        return SqlType("nvarchar" if varying else "nchar", n)
    return SqlType("varchar" if varying else "char", n)


def common_type(types: list[SqlType]) -> SqlType:
    """The type of CASE / COALESCE / UNION / IN over ``types``: highest precedence wins.

    Lengths, precisions and scales are widened so every input fits: strings take the longest
    length (unicode if the winner is), decimals ``max(p-s)+max(s)`` capped at 38. A list of
    bare NULLs is ``int``, as ``SELECT CASE WHEN 1=1 THEN NULL END`` is.
    """
    real = [t for t in types if t.name != "null"]
    if not real:
        return INT
    winner = max(real, key=precedence)
    same_family = [t for t in real if precedence(t) == precedence(winner)]
    if winner.is_string:
        strings = [t for t in real if t.is_string]
        return _merge_strings(strings, winner)
    if winner.is_binary:
        bins = [t for t in real if t.is_binary]
        if winner.name == "image":
            return winner
        lengths = [t.length or 1 for t in bins]
        n = MAX if MAX in lengths else max(lengths)
        varying = any(t.name != "binary" for t in bins)
        return SqlType("varbinary" if varying else "binary", n)
    if winner.is_decimal:
        decs = [int_as_decimal(t) for t in real if t.is_exact_numeric]
        s = max(t.scale or 0 for t in decs)
        ip = max((t.precision or 18) - (t.scale or 0) for t in decs)
        p = min(ip + s, 38)
        return SqlType(winner.name, precision=p, scale=min(s, p))
    if winner.name in ("time", "datetime2", "datetimeoffset"):
        s = max((t.scale if t.scale is not None else 7) for t in same_family)
        return SqlType(winner.name, scale=s)
    if winner.is_integer and winner.const_digits is not None:
        return SqlType(winner.name)
    return winner


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
    top = max(known, key=lambda t: PRECEDENCE.get(t.name, 0))
    if top.name in ("decimal", "numeric"):
        scale, whole = 0, 1
        for t in known:
            if t.name in ("decimal", "numeric"):
                scale = max(scale, t.scale or 0)
                whole = max(whole, (t.precision or 18) - (t.scale or 0))
            elif t.name in INT_DECIMAL_PRECISION:
                whole = max(whole, INT_DECIMAL_PRECISION[t.name])
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
    if base in INT_DECIMAL_PRECISION:
        return INT_DECIMAL_PRECISION[base], 0
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
