"""The SQLAlchemy column type a backend declares for a column of a T-SQL type.

Integers and bit as INTEGER (2-byte SMALLINT where the backend has one); decimal/money as
NUMERIC (SQLite gives it NUMERIC affinity, so comparison and arithmetic work in SQL; read back
as a Decimal quantized to the scale); float as REAL; strings as TEXT declared with the
backend's case-insensitive collation (``TSQL_CI`` on SQLite, ``tsqlb_ci`` on PostgreSQL);
binary as BLOB / bytea; everything else (uniqueidentifier, date and time types) as TEXT
(ISO-8601, which sorts correctly). The backends' ``column_type`` hooks call it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Float, Integer, LargeBinary, Numeric, SmallInteger, Text
from sqlalchemy.types import TypeEngine

from ...values.types import parse_spec
from ..stored_values import BINARY_TYPES, DECIMAL_TYPES, FLOAT_TYPES, STRING_TYPES


def column_type(spec: str, *, small_integers: bool, collation: str) -> TypeEngine[Any]:
    """The SQLAlchemy type of a backend column that stores values of ``spec``
    (``small_integers``: the backend has a 2-byte integer type for smallint/tinyint/bit;
    ``collation``: its case-insensitive one)."""
    t = parse_spec(spec)
    if t.name in ("bigint", "int"):
        return BigInteger() if t.name == "bigint" else Integer()
    if t.name in ("smallint", "tinyint", "bit"):
        return SmallInteger() if small_integers else Integer()
    if t.name in DECIMAL_TYPES:
        p, s = (t.precision or 19, t.scale or 0) if t.name in ("decimal", "numeric") else (19, 4)
        return Numeric(p, s, asdecimal=True)
    if t.name in FLOAT_TYPES:
        return Float()
    if t.name in BINARY_TYPES:
        return LargeBinary()
    if t.name in STRING_TYPES:
        return Text(collation=collation)
    return Text()
