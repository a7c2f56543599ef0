"""Synonyms: ``CREATE SYNONYM name FOR [server.][database.][schema.]object`` and
``DROP SYNONYM``.

A synonym is a catalog object of type ``SN``; its definition is the base object's name as
``sys.synonyms.base_object_name`` shows it (each part bracket-quoted) and its detail the
parts. Nothing is checked at CREATE (the base object may come later, as in SQL Server); a
statement naming the synonym uses the base object then, or fails with Msg 5313.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Integer, cast, false, literal, select

from ..errors import BindError, tsql_error
from ..storage.store import StoreConnection
from .catalog import OBJECT_COLUMNS, Catalog, ObjectRow

SYNONYM = "SN"
SYNONYM_COLUMNS: list[tuple[str, str | None]] = [
    *OBJECT_COLUMNS, ("base_object_name", "nvarchar(1035)")]


def _quoted(part: str) -> str:
    return "[" + part.replace("]", "]]") + "]"


def create_synonym(conn: StoreConnection, db_id: int, schema: str | None, name: str,
                   base: tuple[str | None, str | None, str | None, str]) -> int:
    """Record synonym ``schema.name`` for ``base`` = (server, database, schema, object)."""
    shown = ".".join(_quoted(p) for p in base if p)
    if base[1] and not base[2]:  # db..object: the default schema
        shown = f"{_quoted(base[1])}..{_quoted(base[3])}"
    detail = {"server": base[0], "database": base[1], "schema": base[2], "name": base[3]}
    return Catalog.get(conn.store).create_object(conn, db_id, schema, name, SYNONYM,
                                                 definition=shown, detail=json.dumps(detail))


def synonym_target(row: ObjectRow) -> tuple[str | None, str | None, str]:
    """``(database, schema, object)`` a synonym stands for (Msg 5313 for a base object on
    another server: linked servers do not exist here)."""
    detail: dict[str, Any] = json.loads(row.detail or "{}")
    if detail.get("server"):
        raise tsql_error(5313, f"{row.schema_name}.{row.name}", cls=BindError)
    return detail.get("database"), detail.get("schema"), str(detail["name"])


def synonyms_query(conn: StoreConnection, db_id: int) -> Any:
    """``sys.synonyms`` of database ``db_id`` (columns :data:`SYNONYM_COLUMNS`)."""
    o = Catalog.get(conn.store).t.objects
    return select(
        o.c.name.label("name"), o.c.object_id.label("object_id"),
        cast(literal(None), Integer).label("principal_id"), o.c.schema_id.label("schema_id"),
        literal(0).label("parent_object_id"), literal(SYNONYM).label("type"),
        literal("SYNONYM").label("type_desc"), o.c.create_date.label("create_date"),
        o.c.modify_date.label("modify_date"), false().label("is_ms_shipped"),
        false().label("is_published"), false().label("is_schema_published"),
        o.c.definition.label("base_object_name"),
    ).where(o.c.database_id == db_id, o.c.type == SYNONYM)
