"""Physical names of user data in the backend.

One backend database holds every T-SQL database, so each user table gets a derived physical
name. It is built from the database id and the object id (unique and stable, so renames and
odd characters never matter) plus a sanitized hint of the T-SQL name for people reading the
backend, and is kept within PostgreSQL's 63-byte identifier limit.
"""

from __future__ import annotations

import re

_MAX_IDENT = 63
_UNSAFE = re.compile(r"[^a-z0-9_]+")


def _hint(name: str) -> str:
    return _UNSAFE.sub("_", name.lower()).strip("_")


def physical_table_name(db_id: int, object_id: int, name: str) -> str:
    """The backend name of user table ``name`` (object ``object_id`` in database ``db_id``)."""
    return f"u{db_id}_{object_id}_{_hint(name)}"[:_MAX_IDENT].rstrip("_")


def physical_temp_name(session_id: int, object_id: int, name: str) -> str:
    """The backend name of session ``session_id``'s temp table ``#name``."""
    return f"tmp{session_id}_{object_id}_{_hint(name)}"[:_MAX_IDENT].rstrip("_")


def physical_table_variable_name(object_id: int, name: str) -> str:
    """The backend name of a table variable ``@name``."""
    return f"tv{object_id}_{_hint(name)}"[:_MAX_IDENT].rstrip("_")


def quote_ident(name: str) -> str:
    """Quote a backend identifier (ANSI double quotes: SQLite and PostgreSQL agree)."""
    return '"' + name.replace('"', '""') + '"'


def column_name(name: str, dialect: str) -> str:
    """The backend name of a user column. T-SQL names are case-insensitive; SQLite agrees,
    PostgreSQL folds unquoted names to lower case, so there columns are stored lower-case
    and every generated identifier is lower-cased to match."""
    return name if dialect == "sqlite" else name.lower()


def quote_column(name: str, dialect: str) -> str:
    """A user column's quoted backend name."""
    return quote_ident(column_name(name, dialect))
