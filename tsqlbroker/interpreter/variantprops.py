"""``SQL_VARIANT_PROPERTY(value, property)``: a value's base type and its size facts.

The facts come from the value's T-SQL type: its declared type when the argument has one, else
(a sql_variant) the type its Python value stands for (``convert.variant_type``), which knows
no declared length or precision (docs/decisions.md).
"""

from __future__ import annotations

from typing import Any

from tsqlbroker.errors import tsql_error

from ..values.types import MAX, SqlType

COLLATION = "SQL_Latin1_General_CP1_CI_AS"
# Precision and scale per base type, as the SQL_VARIANT_PROPERTY page lists them.
_PRECISION = {"datetime": 23, "smalldatetime": 16, "float": 53, "real": 24, "money": 19,
              "smallmoney": 10, "bigint": 19, "int": 10, "smallint": 5, "tinyint": 3, "bit": 1}
_SCALE = {"money": 4, "smallmoney": 4, "datetime": 3}
_FIXED_BYTES = {"bigint": 8, "int": 4, "smallint": 2, "tinyint": 1, "bit": 1, "float": 8,
                "real": 4, "money": 8, "smallmoney": 4, "datetime": 8, "smalldatetime": 4,
                "date": 3, "uniqueidentifier": 16}
PROPERTIES = frozenset({"basetype", "precision", "scale", "maxlength", "collation"})


def _decimal_bytes(precision: int) -> int:
    return 5 if precision <= 9 else 9 if precision <= 19 else 13 if precision <= 28 else 17


def _time_bytes(scale: int) -> int:
    return 3 if scale <= 2 else 4 if scale <= 4 else 5


def _max_length(t: SqlType) -> int:
    n = t.name
    if n in _FIXED_BYTES:
        return _FIXED_BYTES[n]
    if n in ("decimal", "numeric"):
        return _decimal_bytes(t.precision or 18)
    if n in ("time", "datetime2", "datetimeoffset"):
        base = _time_bytes(7 if t.scale is None else t.scale)
        return base + {"time": 0, "datetime2": 3, "datetimeoffset": 5}[n]
    if t.length is None or t.length == MAX:
        return 8000
    return t.length * (2 if n in ("nchar", "nvarchar") else 1)


def variant_property(t: SqlType, name: str) -> Any:
    """The property ``name`` (BaseType, Precision, Scale, MaxLength, Collation) of a value
    of type ``t``; NULL for another name. TotalBytes is not known here (Msg 40000)."""
    prop = name.strip().lower()
    if prop == "totalbytes":
        raise tsql_error(40000, "SQL_VARIANT_PROPERTY(…, 'TotalBytes')")
    if prop not in PROPERTIES:
        return None
    n = t.name
    if prop == "basetype":
        return n
    if prop == "precision":
        if n in ("decimal", "numeric"):
            return t.precision if t.precision is not None else 18
        return _PRECISION.get(n, 0)
    if prop == "scale":
        if n in ("decimal", "numeric", "time", "datetime2", "datetimeoffset"):
            return t.scale or 0
        return _SCALE.get(n, 0)
    if prop == "maxlength":
        return _max_length(t)
    return COLLATION if t.is_string else None
