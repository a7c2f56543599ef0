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
from .catalog import Catalog, ObjectRow

ALIAS = "AT"
FIRST_USER_TYPE_ID = 257


def split_type_name(type_name: str) -> tuple[str | None, str]:
    """``(schema, name)`` of a written type name (``dbo.SSN``, ``[dbo].[SSN]``, ``SSN``)."""
    schema, _, name = type_name.replace("[", "").replace("]", "").rpartition(".")
    return (schema or None), name


def alias_type_object(conn: StoreConnection, db_id: int, type_name: str
                      ) -> ObjectRow | None:
    """The catalog object of alias type ``type_name`` in ``db_id``, or None."""
    schema, name = split_type_name(type_name)
    return Catalog.get(conn.store).find_object(conn, db_id, schema, name, {ALIAS})


def alias_type(conn: StoreConnection, db_id: int, type_name: str
               ) -> tuple[str, bool] | None:
    """``(base spec, allows NULL)`` of alias type ``type_name`` in ``db_id``, or None."""
    row = alias_type_object(conn, db_id, type_name)
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


def alias_user_type_id(conn: StoreConnection, db_id: int, schema: str | None, name: str
                       ) -> int | None:
    """The ``user_type_id`` of alias type ``[schema.]name`` (the major_id of a permission on
    ``TYPE::``), or None."""
    row = Catalog.get(conn.store).find_object(conn, db_id, schema, name, {ALIAS})
    return None if row is None else int(json.loads(row.detail or "{}")["user_type_id"])


def alias_type_rows(conn: StoreConnection, db_id: int) -> list[tuple[Any, ...]]:
    """``(name, schema_id, base spec, user_type_id, allows NULL)`` of every alias type."""
    out = []
    for row in Catalog.get(conn.store).objects(conn, db_id, {ALIAS}):
        detail = json.loads(row.detail or "{}")
        out.append((row.name, row.schema_id, detail["base"], detail["user_type_id"],
                    bool(detail["nullable"])))
    return out


# A table's columns declared with an alias type: its detail's "alias_types" maps the column_id
# (text, as JSON keys are) to the alias type's object id; sys.columns shows that type's
# user_type_id and DROP TYPE refuses a type a column uses (Msg 3732).
_COLUMN_TYPES = "alias_types"


def column_alias_types(table_detail: str | None) -> dict[int, int]:
    """column_id → alias type object id of a table's columns declared with an alias type."""
    found = json.loads(table_detail or "{}").get(_COLUMN_TYPES) or {}
    return {int(k): int(v) for k, v in found.items()}


def with_column_alias_type(table_detail: str | None, column_id: int,
                           alias_id: int | None) -> str:
    """A table's detail JSON recording (or, for None, forgetting) the alias type of one
    column."""
    detail: dict[str, Any] = json.loads(table_detail or "{}")
    found = dict(detail.get(_COLUMN_TYPES) or {})
    if alias_id is None:
        found.pop(str(column_id), None)
    else:
        found[str(column_id)] = alias_id
    if found:
        detail[_COLUMN_TYPES] = found
    else:
        detail.pop(_COLUMN_TYPES, None)
    return json.dumps(detail)


def user_type_ids(conn: StoreConnection, db_id: int) -> dict[int, int]:
    """Alias type object id → its ``user_type_id``, for the alias types of ``db_id``."""
    return {row.object_id: int(json.loads(row.detail or "{}").get("user_type_id", 0))
            for row in Catalog.get(conn.store).objects(conn, db_id, {ALIAS})}


def referencing_table(conn: StoreConnection, db_id: int, alias_id: int) -> ObjectRow | None:
    """A table of ``db_id`` with a column of alias type ``alias_id`` (DROP TYPE: Msg 3732)."""
    for row in Catalog.get(conn.store).objects(conn, db_id, {"U"}):
        if alias_id in column_alias_types(row.detail).values():
            return row
    return None
