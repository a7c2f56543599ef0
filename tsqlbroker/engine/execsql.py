"""Backend SQL text with ``:name`` parameters, on any backend.

SQLite's driver takes ``:name`` natively (and leaves ``%`` alone), so its text goes straight
to the DBAPI. Other drivers (psycopg: ``%(name)s``, with literal ``%`` doubled) get the text
through SQLAlchemy's ``text()``, which translates both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import CursorResult

from .store import StoreConnection

_PYFORMAT = re.compile(r"%\((\w+)\)s")
_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")


def run_sql(conn: StoreConnection, sql: str, params: Mapping[str, Any] | None = None
            ) -> CursorResult[Any]:
    """Execute backend SQL whose parameters are written ``:name``."""
    if conn.dialect == "sqlite":
        return conn.exec_driver_sql(sql, dict(params) if params else None)
    # text() would read ':1' inside a literal ('{"a":1}') as a parameter: escape them.
    sql = _STRING_LITERAL.sub(lambda m: m.group(0).replace(":", "\\:"), sql)
    return conn.execute(text(sql), dict(params or {}))


def named_placeholders(sql: str, dialect: str) -> str:
    """Generated SQL with ``:name`` placeholders whatever the dialect's own style."""
    if dialect == "sqlite":
        return sql
    return _PYFORMAT.sub(r":\1", sql)
