"""Rows computed in Python as backend SELECT text: how the catalog views that SQL Server
derives from metadata (``sys.columns``, ``sys.types``, the security views, the session DMVs)
hand their rows to the query that reads them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ..storage.backends.base import Backend


def _sql_literal(value: Any, backend: Backend) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, bytes):
        return backend.bytes_literal(value)
    if isinstance(value, dt.datetime):
        value = value.strftime("%Y-%m-%d %H:%M:%S.%f")
    return "'" + str(value).replace("'", "''") + "'"


_NULL_TYPES = {"int": "INTEGER", "smallint": "INTEGER", "bigint": "INTEGER",
               "tinyint": "INTEGER", "bit": "INTEGER", "datetime": "TIMESTAMP"}


def _typed_null(type_name: str | None) -> str:
    sql_type = _NULL_TYPES.get(type_name or "")
    return f"CAST(NULL AS {sql_type})" if sql_type else "NULL"


def literal_rows(columns: Sequence[tuple[str, str | None]], rows: Sequence[Sequence[Any]],
                 backend: Backend) -> str:
    """Backend SELECT text producing ``rows`` under ``columns`` (no rows: an empty result);
    ``backend`` spells binary values."""
    # Lower-case aliases: T-SQL names are case-insensitive, and PostgreSQL folds unquoted
    # names in the generated query to lower case.
    names = [f'"{n.lower()}"' for n, _s in columns]
    if not rows:
        # Typed where it matters: PostgreSQL compares an untyped NULL column as text.
        return "SELECT " + ", ".join(_typed_null(t) + f" AS {n}" for n, (_c, t) in
                                     zip(names, columns, strict=True)) + " WHERE 1 = 0"
    # The first row types each column (PostgreSQL takes an untyped NULL there as text).
    first = "SELECT " + ", ".join(
        f"{_typed_null(t) if v is None else _sql_literal(v, backend)} AS {n}"
        for v, n, (_c, t) in zip(rows[0], names, columns, strict=True))
    parts = [first] + ["SELECT " + ", ".join(f"{_sql_literal(v, backend)} AS {n}" for v, n in
                                             zip(row, names, strict=True)) for row in rows[1:]]
    return " UNION ALL ".join(parts)
