"""Alias types: ``CREATE TYPE name FROM base_type [NULL | NOT NULL]``.

An alias type is a catalog object of the engine-private type ``AT`` (not in ``sys.objects``;
``sys.types`` lists it) whose detail holds the base type spec, whether it allows NULL and its
``user_type_id`` (from 257 per database, as SQL Server numbers them). Columns, variables and
parameters declared with it get the base type (and, for columns, its nullability unless the
column says otherwise).
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import BindError, tsql_error
from ..storage.store import StoreConnection
from .catalog import Catalog

ALIAS = "AT"
FIRST_USER_TYPE_ID = 257


def split_type_name(type_name: str) -> tuple[str | None, str]:
    """``(schema, name)`` of a written type name (``dbo.SSN``, ``[dbo].[SSN]``, ``SSN``)."""
    schema, _, name = type_name.replace("[", "").replace("]", "").rpartition(".")
    return (schema or None), name


def alias_type(conn: StoreConnection, db_id: int, type_name: str
               ) -> tuple[str, bool] | None:
    """``(base spec, allows NULL)`` of alias type ``type_name`` in ``db_id``, or None."""
    schema, name = split_type_name(type_name)
    row = Catalog.get(conn.store).find_object(conn, db_id, schema, name, {ALIAS})
    if row is None:
        return None
    detail: dict[str, Any] = json.loads(row.detail or "{}")
    return str(detail["base"]), bool(detail["nullable"])


def create_alias_type(conn: StoreConnection, db_id: int, schema: str | None, name: str,
                      base_spec: str, nullable: bool) -> int:
    """Record alias type ``schema.name``: Msg 219 when a type of that name exists."""
    catalog = Catalog.get(conn.store)
    shown = f"{schema}.{name}" if schema else name
    if catalog.find_object(conn, db_id, schema, name, {ALIAS, "TT"}) is not None:
        raise tsql_error(219, shown, cls=BindError)
    ids = [json.loads(r.detail or "{}").get("user_type_id", 0)
           for r in catalog.objects(conn, db_id, {ALIAS})]
    user_type_id = max([FIRST_USER_TYPE_ID - 1, *ids]) + 1
    conn.write()
    return catalog.create_object(conn, db_id, schema, name, ALIAS, detail=json.dumps(
        {"base": base_spec, "nullable": nullable, "user_type_id": user_type_id}))


def alias_type_rows(conn: StoreConnection, db_id: int) -> list[tuple[Any, ...]]:
    """``(name, schema_id, base spec, user_type_id, allows NULL)`` of every alias type."""
    out = []
    for row in Catalog.get(conn.store).objects(conn, db_id, {ALIAS}):
        detail = json.loads(row.detail or "{}")
        out.append((row.name, row.schema_id, detail["base"], detail["user_type_id"],
                    bool(detail["nullable"])))
    return out
