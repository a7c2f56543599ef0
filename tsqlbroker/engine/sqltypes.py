"""Type specs on the engine side: backend column types and value adaptation.

A *type spec* is the T-SQL type as lower-case text (``'int'``, ``'nvarchar(50)'``,
``'decimal(10,2)'``, ``'varchar(max)'`` …; see ARCHITECTURE "Values"). This module picks the
backend column type for a declared column; it re-exports the spec reader (values.types) and the
value adaptation (storage.stored_values: ``to_storage``, ``from_storage`` …) for the engine
modules that import them from here until P5.

SQLite storage: integers and bit as INTEGER; decimal/money with NUMERIC affinity (so that
comparison and arithmetic work in SQL; read back as a Decimal quantized to the scale); float
as REAL; strings as TEXT declared ``COLLATE TSQL_CI`` (on PostgreSQL ``COLLATE tsqlb_ci``,
a case-insensitive ICU collation); binary as BLOB; uniqueidentifier as
upper-case TEXT; date and time types as ISO-8601 TEXT (which sorts correctly).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    SmallInteger,
    Text,
)
from sqlalchemy.types import TypeEngine

# The spec reader (values.types) and the value adaptation (storage.stored_values) are imported
# from here by engine modules until P5 switches them.
from ..storage.stored_values import (  # noqa: F401 - re-exported
    BINARY_TYPES,
    DATE_TYPES,
    DECIMAL_TYPES,
    FLOAT_TYPES,
    INT_TYPES,
    NUMERIC_TYPES,
    STRING_TYPES,
    check_length,
    column_spec_for,
    from_storage,
    pad_fixed,
    spec_of_value,
    to_storage,
)
from ..values.types import TypeSpec, normalize_spec, parse_spec  # noqa: F401 - re-exported

# PostgreSQL's case-insensitive collation for character columns (see pgstrings.py).
PG_CI_COLLATION = "tsqlb_ci"


def column_type(spec: str, *, small_integers: bool, collation: str) -> TypeEngine[Any]:
    """The SQLAlchemy type of a backend column that stores values of ``spec``
    (``small_integers``: the backend has a 2-byte integer type for smallint/tinyint/bit;
    ``collation``: its case-insensitive one). Called by the backends' ``column_type`` hooks."""
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
        # TSQL_CI on SQLite; tsqlb_ci on PostgreSQL, created by pgfuncs.install (pgstrings.py)
        return Text(collation=collation)
    return Text()


