"""Physical names of user data in the backend.

One backend database holds every T-SQL database, so each user table gets a derived physical
name. It is built from the database id and the object id (unique and stable, so renames and
odd characters never matter) plus a sanitized hint of the T-SQL name for people reading the
backend, and is kept within PostgreSQL's 63-byte identifier limit.

On PostgreSQL each T-SQL database also gets a backend schema of its own
(:func:`database_schema_name`), next to the store's *home* schema (the first entry of the
connection's ``search_path``) that keeps the engine's system tables, temp tables and table
variables. On SQLite everything stays in the one file's single namespace.
"""

from __future__ import annotations

import re
import zlib

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


def database_schema_name(home: str, db_id: int, name: str) -> str:
    """The PostgreSQL schema holding the user tables of T-SQL database ``name`` (id
    ``db_id``) of the store whose home schema is ``home``.

    ``<home>$<name>`` with the name lower-cased (T-SQL database names compare
    case-insensitively), e.g. ``public$sales``. A name with characters other than
    ``[a-z0-9_]`` is sanitized and gets ``$<db_id>`` appended (``public$my_db$7`` for
    ``My-DB``), so two databases never share a schema: a clean name cannot contain ``$``.
    The ``$`` after the home keeps different stores (homes) of one server apart, and no
    name can start with the reserved ``pg_`` or equal ``public``. Beyond 63 bytes the parts
    are shortened and a checksum of the full name keeps it unique.
    """
    key = name.lower()
    full = f"{home}${key}" if re.fullmatch(r"[a-z0-9_]+", key) else \
        f"{home}${_hint(name) or 'db'}${db_id}"
    if len(full.encode()) <= _MAX_IDENT:
        return full
    crc = f"{zlib.crc32(full.encode()):08x}"
    short_home = home.encode()[:20].decode(errors="ignore")
    return f"{short_home}${(_hint(name) or 'db')[:22]}${db_id}${crc}"


def qualified_name(schema: str | None, table: str) -> str:
    """A table's quoted backend name: ``"schema"."table"``, or just ``"table"`` when it
    lives in the home schema (``schema`` None: always on SQLite)."""
    if schema is None:
        return quote_ident(table)
    return f"{quote_ident(schema)}.{quote_ident(table)}"


def quote_ident(name: str) -> str:
    """Quote a backend identifier (ANSI double quotes: SQLite and PostgreSQL agree)."""
    return '"' + name.replace('"', '""') + '"'


