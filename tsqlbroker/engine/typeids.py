"""The types of a database by name and by id, as ``sys.types`` lists them: the built-in
types (schema ``sys``) and the alias types a session may see (metadata visibility), for
``TYPE_ID`` / ``TYPE_NAME`` and the catalog view."""

from __future__ import annotations

from ..storage.store import StoreConnection
from . import visibility
from .security import Security
from .udf_bridge import bridge_of
from .usertypes import alias_type_object, alias_type_rows, alias_user_type_id, split_type_name

# name, system_type_id, max_length, precision, scale (as sys.types lists them)
SYSTEM_TYPES: list[tuple[str, int, int, int, int]] = [
    ("image", 34, 16, 0, 0), ("text", 35, 16, 0, 0), ("uniqueidentifier", 36, 16, 0, 0),
    ("date", 40, 3, 10, 0), ("time", 41, 5, 16, 7), ("datetime2", 42, 8, 27, 7),
    ("datetimeoffset", 43, 10, 34, 7), ("tinyint", 48, 1, 3, 0), ("smallint", 52, 2, 5, 0),
    ("int", 56, 4, 10, 0), ("smalldatetime", 58, 4, 16, 0), ("real", 59, 4, 24, 0),
    ("money", 60, 8, 19, 4), ("datetime", 61, 8, 23, 3), ("float", 62, 8, 53, 0),
    ("sql_variant", 98, 8016, 0, 0), ("ntext", 99, 16, 0, 0), ("bit", 104, 1, 1, 0),
    ("decimal", 106, 17, 38, 38), ("numeric", 108, 17, 38, 38), ("smallmoney", 122, 4, 10, 4),
    ("bigint", 127, 8, 19, 0), ("varbinary", 165, 8000, 0, 0), ("varchar", 167, 8000, 0, 0),
    ("binary", 173, 8000, 0, 0), ("char", 175, 8000, 0, 0), ("timestamp", 189, 8, 0, 0),
    ("nvarchar", 231, 8000, 0, 0), ("nchar", 239, 8000, 0, 0), ("xml", 241, -1, 0, 0),
    ("sysname", 231, 256, 0, 0),
]
SYS_SCHEMA_ID = 4
# A built-in type's user_type_id is its system_type_id, but sysname's (an alias of nvarchar).
SYSTEM_USER_TYPE_IDS = {name: 256 if name == "sysname" else tid for name, tid, *_ in SYSTEM_TYPES}
_SYSTEM_NAMES = {tid: name for name, tid in SYSTEM_USER_TYPE_IDS.items()}


def type_sight(conn: StoreConnection, session_id: int, db_id: int
               ) -> visibility.Visible | None:
    """The alias types of ``db_id`` session ``session_id`` may see (None: all of them): its
    own, those it holds a permission on, on their schema or on the database."""
    bridge = bridge_of(conn.store)
    principals = None if bridge is None else bridge.viewer(session_id, db_id)
    if principals is None:
        return None
    return visibility.visible(Security.get(conn.store), conn, db_id, principals,
                              visibility.TYPE)


def type_id(conn: StoreConnection, session_id: int, db_id: int, name: str) -> int | None:
    """``TYPE_ID(name)``: the user_type_id of the type ``[schema.]name`` (a built-in type
    in schema ``sys`` or unqualified), None for no such type or one the session cannot see."""
    schema, base = split_type_name(name)
    if schema is None or schema.lower() == "sys":
        found = SYSTEM_USER_TYPE_IDS.get(base.lower())
        if found is not None or schema is not None:
            return found
    row = alias_type_object(conn, db_id, name)
    user_type_id = alias_user_type_id(conn, db_id, schema, base)
    if row is None or user_type_id is None:
        return None
    return user_type_id if _sees(conn, session_id, db_id, user_type_id, row.schema_id) \
        else None


def type_name(conn: StoreConnection, session_id: int, db_id: int, user_type_id: int
              ) -> str | None:
    """``TYPE_NAME(id)``: the name of the type whose user_type_id is ``user_type_id``, None
    for no such type or one the session cannot see."""
    found = _SYSTEM_NAMES.get(user_type_id)
    if found is not None:
        return found
    for name, schema_id, _spec, alias_id, _nullable in alias_type_rows(conn, db_id):
        if alias_id == user_type_id:
            return name if _sees(conn, session_id, db_id, alias_id, schema_id) else None
    return None


def _sees(conn: StoreConnection, session_id: int, db_id: int, user_type_id: int,
          schema_id: int) -> bool:
    seen = type_sight(conn, session_id, db_id)
    return seen is None or seen.covers(user_type_id, schema_id, "")
