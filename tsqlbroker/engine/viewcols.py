"""The columns of a view as the catalog's column rows read them (sys.columns,
INFORMATION_SCHEMA.COLUMNS, COL_LENGTH, COLUMNPROPERTY): the catalog keeps none for views,
so they are described from the view's query when asked, as the binder resolves it now."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ..errors import TSqlError
from ..storage.store import StoreConnection
from .catalog import Catalog, ObjectRow
from .parsing import view_query
from .transpiler.scope import Source, TableKey, table_key

# Resolves a table or view name as a query would (the binder's resolve).
Resolve = Callable[[TableKey], Source]


def describer(resolve: Resolve, conn: StoreConnection, db_id: int
              ) -> Callable[[ObjectRow], list[dict[str, Any]]]:
    """A function giving a view's column rows, names resolved by ``resolve`` (views of
    database ``db_id``)."""
    return lambda row: view_columns(resolve, conn, db_id, row, 0)


def view_columns(resolve: Resolve, conn: StoreConnection, db_id: int, row: ObjectRow,
                 depth: int) -> list[dict[str, Any]]:
    """The columns of view ``row`` (name, column_id, type_spec, is_nullable, is_identity,
    is_computed): the types the view's query gives; a column that is a base table's column
    (or a view's below it) keeps its nullability and IDENTITY property, as SQL Server's
    sys.columns shows them; any other is nullable. A view that no longer binds has none."""
    try:
        source = resolve(table_key(exp.Table(
            this=exp.to_identifier(row.name, quoted=True),
            db=exp.to_identifier(row.schema_name, quoted=True))))
        query, _names = view_query(row.definition or "")
    except TSqlError:  # a view whose tables changed (Msg 208 …): no columns
        return []
    bases = _base_columns(resolve, conn, db_id, query, depth) if depth < 32 else []
    out = []
    for i, (name, spec) in enumerate(source.columns, 1):
        base = bases[i - 1] if i - 1 < len(bases) else None
        out.append({"name": name, "column_id": i, "type_spec": spec or "sql_variant",
                    "is_nullable": True if base is None else base[0],
                    "is_identity": base is not None and base[1],
                    "is_computed": False, "default_sql": None})
    return out


def _source_columns(resolve: Resolve, conn: StoreConnection, db_id: int, item: exp.Table,
                    depth: int) -> dict[str, tuple[bool, bool]] | None:
    """{column (lower): (nullable, identity)} of a FROM item that is a table or view."""
    key = table_key(item)
    try:
        source = resolve(key)
    except TSqlError:
        return None
    if source.table is not None:
        return {c.name.lower(): (c.nullable, c.identity is not None)
                for c in source.table.columns}
    if source.kind != "view" or key[0] or key[3]:
        return None
    row = Catalog.get(conn.store).find_object(conn, db_id, key[1] or None, key[2], {"V"})
    if row is None:
        return None
    return {c["name"].lower(): (bool(c["is_nullable"]), bool(c["is_identity"]))
            for c in view_columns(resolve, conn, db_id, row, depth + 1)}


def _base_columns(resolve: Resolve, conn: StoreConnection, db_id: int,
                  query: exp.Expression, depth: int) -> list[tuple[bool, bool] | None]:
    """Per select-list item of a one-SELECT view query, (nullable, identity) of the table
    or view column it names, None for any other item."""
    if not isinstance(query, exp.Select) or query.args.get("from_") is None:
        return []
    joins = query.args.get("joins") or []
    items = [query.args["from_"].this, *(j.this for j in joins)]
    # The side of an outer join that may have no row: its columns are nullable in the view
    # whatever the table says (SQL Server's sys.columns: a LEFT JOIN's right table's).
    outer: set[int] = set()
    for i, join in enumerate(joins, 1):
        side = str(join.args.get("side") or "").upper()
        if side in ("LEFT", "FULL"):
            outer.add(i)
        if side in ("RIGHT", "FULL"):
            outer.update(range(i))
    tables: dict[str, dict[str, tuple[bool, bool]] | None] = {}
    order: dict[str, list[str]] = {}
    for i, item in enumerate(items):
        if isinstance(item, exp.Table) and item.name:
            alias = (item.alias or item.name).lower()
            cols = _source_columns(resolve, conn, db_id, item, depth)
            if cols is not None and i in outer:
                cols = {name: (True, identity) for name, (_null, identity) in cols.items()}
            tables[alias] = cols
            order[alias] = list(cols or {})
    out: list[tuple[bool, bool] | None] = []
    for e in query.expressions:
        inner = e.this if isinstance(e, exp.Alias) else e
        if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column)
                                           and isinstance(inner.this, exp.Star)):
            owner = inner.table.lower() if isinstance(inner, exp.Column) else ""
            for alias, cols in tables.items():
                if cols is not None and owner in ("", alias):
                    out.extend(cols[n] for n in order[alias])
            continue
        found = None
        if isinstance(inner, exp.Column):
            sources = [tables.get(inner.table.lower())] if inner.table \
                else list(tables.values())
            hits = [cols[inner.name.lower()] for cols in sources
                    if cols is not None and inner.name.lower() in cols]
            found = hits[0] if len(hits) == 1 else None
        out.append(found)
    return out
