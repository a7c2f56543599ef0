"""The tables one statement touched, for ``SET STATISTICS IO ON``.

SQL Server counts 8 KB pages; the backends here keep no such counts per statement, so a
table's *logical reads* are rows: all of them for each scan of a table the statement reads
(or updates / deletes with a search), the rows written for the target of an INSERT (which
scans nothing: scan count 0). Views, catalog views, queues, CTEs and table variables are not
listed (SQL Server lists a view's base tables; the engine's are not visible here).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select, table
from sqlglot import exp

from .catalog import Catalog
from .context import ExecContext
from .parsing import parse_statement
from .tableinfo import TableInfo, load_table, table_by_physical
from .transpiler.resolve import object_id_of
from .transpiler.scope import table_key, written_name


@dataclass(frozen=True)
class TableReads:
    """One line of STATISTICS IO: the table's name, scans, logical reads."""

    name: str
    scans: int
    reads: int


def _table_info(ctx: ExecContext, key: tuple[str, str, str, str]) -> TableInfo | None:
    _catalog, _db, name, kind = key
    if kind == "#":
        physical = ctx.temp_tables.get(name.lower())
        return None if physical is None else table_by_physical(ctx.conn, physical)
    oid = object_id_of(ctx, written_name(key))
    if oid is None:
        return None
    row = Catalog.get(ctx.conn.store).object_by_id(ctx.conn, None, oid)
    if row is None or row.type.strip().upper() != "U":
        return None
    return load_table(ctx.conn, row)


def _row_count(ctx: ExecContext, info: TableInfo) -> int:
    t = table(info.physical, schema=info.backend_schema)
    return int(ctx.conn.execute(select(func.count()).select_from(t)).scalar() or 0)


def table_reads(ctx: ExecContext, sql: str, rows_written: int) -> list[TableReads]:
    """The user tables statement ``sql`` referenced, in order of first mention."""
    try:
        tree = parse_statement(sql).tree
    except Exception:  # noqa: BLE001 - the statement ran; a report must not fail it now
        return []
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    target = None
    if isinstance(tree, exp.Insert):
        into = tree.this
        target = into.this if isinstance(into, exp.Schema) else into
    order: list[tuple[str, str, str, str]] = []
    scans: dict[tuple[str, str, str, str], int] = {}
    for node in tree.find_all(exp.Table):
        key = table_key(node)
        if key[3] == "@" or (not key[1] and key[2].lower() in ctes) \
                or key[1].lower() in ("sys", "information_schema"):
            continue
        if key not in scans:
            order.append(key)
            scans[key] = 0
        if node is not target:
            scans[key] += 1
    out = []
    for key in order:
        info = _table_info(ctx, key)
        if info is None:
            continue
        reads = _row_count(ctx, info) * scans[key] if scans[key] else max(rows_written, 0)
        out.append(TableReads(info.local_name or info.name, scans[key], reads))
    return out
