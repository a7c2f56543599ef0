"""T-SQL columns as Spark columns: types (DDL names) and values.

The engine describes every result column by its T-SQL type spec (``'varbinary(max)'``,
``'uniqueidentifier'`` …, see docs/ARCHITECTURE.md); a Spark schema is built from those specs
so that a queue reads with the queue's own types: ``message_body`` binary, times as
``timestamp_ntz`` (the broker's columns are naive UTC), uniqueidentifiers as upper-case
strings. tinyint (0–255) widens to smallint: Spark's byte is signed.
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

_DECIMAL = re.compile(r"(?:decimal|numeric)\s*\((\d+)\s*(?:,\s*(\d+))?\)")

# Type name (the spec without its length) → Spark DDL type.
_SPARK: dict[str, str] = {
    "bigint": "bigint", "int": "int", "smallint": "smallint", "tinyint": "smallint",
    "bit": "boolean", "float": "double", "real": "float",
    "money": "decimal(19,4)", "smallmoney": "decimal(10,4)",
    "date": "date", "datetime": "timestamp_ntz", "datetime2": "timestamp_ntz",
    "smalldatetime": "timestamp_ntz", "datetimeoffset": "timestamp",
    "binary": "binary", "varbinary": "binary", "image": "binary", "rowversion": "binary",
    "timestamp": "binary",
}


def _base(spec: str) -> str:
    return spec.split("(", 1)[0].strip().lower()


def spark_type(spec: str | None) -> str:
    """The Spark DDL type of a column of T-SQL type ``spec`` (string when unknown)."""
    if spec is None:
        return "string"
    m = _DECIMAL.fullmatch(spec.strip().lower())
    if m:
        return f"decimal({m.group(1)},{m.group(2) or 0})"
    if _base(spec) in ("decimal", "numeric"):
        return "decimal(18,0)"
    return _SPARK.get(_base(spec), "string")


def schema_ddl(columns: Sequence[tuple[str, str | None]]) -> str:
    """A Spark DDL schema string (```name` type, …``) for ``columns``."""
    return ", ".join(f"`{name.replace('`', '``')}` {spark_type(spec)}" for name, spec in columns)


def _uuid_text(v: Any) -> Any:
    return str(v).upper() if isinstance(v, uuid.UUID) else v


def _bool(v: Any) -> Any:
    return None if v is None else bool(v)


def _text(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, uuid.UUID):
        return str(v).upper()
    if isinstance(v, _dt.time):
        return v.isoformat()
    return v.to_string() if hasattr(v, "to_string") else str(v)


def _same(v: Any) -> Any:
    return v


def _float(v: Any) -> Any:
    return None if v is None else float(v)


def _decimal(v: Any) -> Any:
    return None if v is None or isinstance(v, Decimal) else Decimal(str(v))


def _binary(v: Any) -> Any:
    return None if v is None else bytes(v)


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "boolean": _bool, "string": _text, "double": _float, "float": _float, "binary": _binary,
}


def converter(spec: str | None) -> Callable[[Any], Any]:
    """Engine value → the Python value Spark expects for :func:`spark_type` of ``spec``."""
    if spec is not None and _base(spec) == "uniqueidentifier":
        return _uuid_text
    kind = spark_type(spec)
    if kind.startswith("decimal"):
        return _decimal
    return _CONVERT.get(kind, _same)


def row_converter(specs: Sequence[str | None]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A function turning one engine row into the tuple Spark takes."""
    fns = [converter(s) for s in specs]

    def convert(row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(fn(v) for fn, v in zip(fns, row, strict=True))
    return convert


def tsql_value(value: Any) -> tuple[Any, str]:
    """A Spark row value as a bound T-SQL parameter: (value, type spec)."""
    if value is None:
        return None, "nvarchar(max)"
    if isinstance(value, bool):
        return int(value), "bit"
    if isinstance(value, int):
        return value, "bigint"
    if isinstance(value, float):
        return value, "float"
    if isinstance(value, Decimal):
        exp = -value.as_tuple().exponent if isinstance(value.as_tuple().exponent, int) else 0
        scale = max(0, exp)
        return value, f"decimal(38,{min(scale, 38)})"
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value), "varbinary(max)"
    if isinstance(value, _dt.datetime):
        return value, "datetimeoffset" if value.tzinfo is not None else "datetime2"
    if isinstance(value, _dt.date):
        return value, "date"
    if isinstance(value, uuid.UUID):
        return value, "uniqueidentifier"
    return str(value), "nvarchar(max)"
