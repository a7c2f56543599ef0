"""User tables: DDL (CREATE/ALTER/DROP/TRUNCATE TABLE, indexes), temp tables, table
variables, and the row writer that enforces SQL Server's rules.

Rows are written by Python rather than by backend ``INSERT … SELECT`` so that the engine
decides what SQL Server decides: IDENTITY values (any column, any backend), defaults, type
conversion and truncation (8152), NOT NULL (515), PRIMARY KEY / UNIQUE (2627 / 2601, NULLs
compare equal as in SQL Server), FOREIGN KEY and CHECK (547) — with SQL Server's texts. The
backend table only stores values; constraint metadata lives in the catalog
(``tableinfo.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlalchemy import Column, MetaData, Table, select, update
from sqlalchemy.schema import CreateTable
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from .catalog import TEMPDB, Catalog
from .context import ExecContext
from .execsql import run_sql
from .naming import (
    physical_table_name,
    physical_table_variable_name,
    physical_temp_name,
    quote_ident,
)
from .sqlfuncs import backend_value
from .sqltypes import check_length, column_type, pad_fixed, to_storage
from .tableinfo import ColumnInfo, ConstraintInfo, TableInfo, load_table, referencing_constraints
from .transpile import (
    PHYSICAL_MARK,
    Binder,
    datatype_spec,
    not_supported,
    table_key,
    written_name,
)

KIND_TEXT = {"PK": "PRIMARY KEY", "UQ": "UNIQUE KEY"}


def rowid_column(dialect: str) -> str:
    """The backend's row identity used to address rows (SQLite rowid, PostgreSQL ctid)."""
    return "rowid" if dialect == "sqlite" else "ctid"


def _hex(n: int, width: int) -> str:
    return f"{(n * 2654435761 + 0x9E3779B97F4A7C15) & ((1 << (4 * width)) - 1):0{width}X}"


def constraint_name(kind: str, table: str, column: str | None, oid: int) -> str:
    """SQL Server-shaped generated names: ``PK__orders__3213E83F1A2B3C4D``,
    ``DF__orders__status__5AEE82B9``."""
    base = table.lstrip("#@")
    if kind in ("PK", "UQ"):
        return f"{kind}__{base[:8]}__{_hex(oid, 16)}"
    prefix = {"F": "FK", "C": "CK", "D": "DF"}[kind]
    return f"{prefix}__{base[:9]}__{(column or '')[:5]}__{_hex(oid, 8)}"


# -- CREATE TABLE ---------------------------------------------------------------------------
@dataclass
class _PendingConstraint:
    kind: str
    name: str | None
    columns: list[str]
    ref: exp.Expression | None = None
    ref_columns: list[str] | None = None
    check_sql: str | None = None
    on_delete: str | None = None
    default_for: str | None = None


def _names(nodes: Sequence[exp.Expression]) -> list[str]:
    out = []
    for n in nodes:
        while isinstance(n, exp.Ordered):
            n = n.this
        out.append(n.name)
    return out


def _parse_definition(schema: exp.Schema) -> tuple[list[dict[str, Any]], list[_PendingConstraint]]:
    columns: list[dict[str, Any]] = []
    constraints: list[_PendingConstraint] = []
    for item in schema.expressions:
        if isinstance(item, exp.ColumnDef):
            columns.append(_column_def(item, constraints))
        elif isinstance(item, exp.Constraint):
            for inner in item.expressions:
                constraints.append(_table_constraint(inner, item.name))
        else:
            constraints.append(_table_constraint(item, None))
    return columns, constraints


def _column_def(item: exp.ColumnDef, constraints: list[_PendingConstraint]) -> dict[str, Any]:
    name = item.name
    kind = item.args.get("kind")
    if not isinstance(kind, exp.DataType):
        raise not_supported("A computed column")
    spec = datatype_spec(kind)
    if spec is None:
        raise tsql_error(2715, len(constraints) + 1, kind.sql("tsql"))
    col: dict[str, Any] = {"name": name, "spec": spec, "nullable": True, "identity": None,
                           "default": None, "default_name": None}
    for cc in item.args.get("constraints") or []:
        cname = cc.name if isinstance(cc, exp.ColumnConstraint) and cc.this else None
        k = cc.args.get("kind") if isinstance(cc, exp.ColumnConstraint) else cc
        if isinstance(k, exp.NotNullColumnConstraint):
            col["nullable"] = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            col["nullable"] = False
            constraints.append(_PendingConstraint("PK", cname, [name]))
        elif isinstance(k, exp.UniqueColumnConstraint):
            constraints.append(_PendingConstraint("UQ", cname, [name]))
        elif isinstance(k, exp.GeneratedAsIdentityColumnConstraint):
            start = k.args.get("start")
            inc = k.args.get("increment")
            col["identity"] = (int(start.sql("tsql")) if start is not None else 1,
                               int(inc.sql("tsql")) if inc is not None else 1)
            col["nullable"] = False
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            col["identity"] = (1, 1)
            col["nullable"] = False
        elif isinstance(k, exp.DefaultColumnConstraint):
            col["default"] = k.this.sql("tsql")
            col["default_name"] = cname
        elif isinstance(k, exp.CheckColumnConstraint):
            constraints.append(_PendingConstraint("C", cname, [name],
                                                  check_sql=k.this.sql("tsql")))
        elif isinstance(k, exp.ForeignKey):
            ref = k.args.get("reference")
            constraints.append(_fk(cname, [name], ref))
        elif isinstance(k, exp.Reference):
            constraints.append(_fk(cname, [name], k))
        elif isinstance(k, (exp.CollateColumnConstraint, exp.CommentColumnConstraint)):
            continue
        elif k is not None:
            raise not_supported(f"The column option '{k.sql('tsql')}'")
    return col


def _fk(name: str | None, columns: list[str], ref: exp.Expression | None) -> _PendingConstraint:
    if not isinstance(ref, exp.Reference):
        raise not_supported("This FOREIGN KEY form")
    target = ref.this
    table = target.this if isinstance(target, exp.Schema) else target
    ref_cols = _names(target.expressions) if isinstance(target, exp.Schema) else []
    on_delete = None
    for opt in ref.args.get("options") or []:
        text = str(opt).upper()
        if text.startswith("ON DELETE"):
            on_delete = text.removeprefix("ON DELETE").strip()
            if on_delete == "NO ACTION":
                on_delete = None
    return _PendingConstraint("F", name, columns, ref=table, ref_columns=ref_cols or None,
                              on_delete=on_delete)


def _table_constraint(item: exp.Expression, name: str | None) -> _PendingConstraint:
    if isinstance(item, exp.PrimaryKey):
        return _PendingConstraint("PK", name, _names(item.expressions))
    if isinstance(item, exp.UniqueColumnConstraint):
        target = item.this
        cols = _names(target.expressions) if isinstance(target, exp.Schema) else []
        return _PendingConstraint("UQ", name, cols)
    if isinstance(item, exp.ForeignKey):
        return _fk(name, _names(item.expressions), item.args.get("reference"))
    if isinstance(item, exp.CheckColumnConstraint):
        return _PendingConstraint("C", name, [], check_sql=item.this.sql("tsql"))
    raise not_supported(f"The table constraint '{item.sql('tsql')}'")


def create_table(ctx: ExecContext, create: exp.Create, *, variable: str | None = None) -> TableInfo:
    """``CREATE TABLE`` (also ``#temp``) or, with ``variable='@t'``, a table variable."""
    schema_node = create.this
    if not isinstance(schema_node, exp.Schema) or not isinstance(schema_node.this, exp.Table):
        raise not_supported("CREATE TABLE without a column list")
    columns, constraints = _parse_definition(schema_node)
    key = table_key(schema_node.this)
    catalog = Catalog.get(ctx.conn.store)
    ctx.txn.write()
    local_name: str | None = None
    session_id: int | None = None
    if variable is not None or key[3] == "#":
        db_id, schema = TEMPDB, "dbo"
        oid = catalog.next_object_id(ctx.conn)
        if variable is not None:
            local_name = variable
            name = f"#{_hex(oid, 8)}"
            physical = physical_table_variable_name(oid, variable.lstrip("@"))
        else:
            local_name = key[2]
            if local_name.lower() in ctx.temp_tables:
                raise tsql_error(2714, local_name)
            name = local_name + "_" * max(116 - len(local_name), 1) + f"{oid:012X}"
            physical = physical_temp_name(ctx.session_id, oid, local_name.lstrip("#"))
        session_id = ctx.session_id
    else:
        db_id = ctx.db_id
        if key[0]:
            found = catalog.database_id(ctx.conn, key[0])
            if found is None:
                raise tsql_error(911, key[0], cls=BindError)
            db_id = found
        schema = key[1] or "dbo"
        name = key[2]
        if catalog.find_object(ctx.conn, db_id, schema, name) is not None:
            raise tsql_error(2714, name)
        oid = catalog.next_object_id(ctx.conn)
        physical = physical_table_name(db_id, oid, name)
    _validate_columns(columns, constraints, name)
    detail = json.dumps({"local_name": local_name}) if local_name else None
    catalog.create_object(ctx.conn, db_id, schema, name, "U", physical_name=physical,
                          detail=detail, session_id=session_id, object_id=oid)
    c = catalog.t.columns
    for i, col in enumerate(columns, start=1):
        ident = col["identity"]
        ctx.conn.execute(c.insert().values(
            object_id=oid, column_id=i, name=col["name"], type_spec=col["spec"],
            is_nullable=col["nullable"], is_identity=ident is not None,
            seed_value=ident[0] if ident else None, increment_value=ident[1] if ident else None,
            identity_next=None, default_sql=col["default"], is_computed=False))
    _create_physical(ctx, physical, columns)
    display = local_name or name
    for col in columns:
        if col["default"] is not None:
            constraints.append(_PendingConstraint("D", col["default_name"], [col["name"]],
                                                  check_sql=col["default"]))
    for pc in constraints:
        _add_constraint(ctx, db_id, schema, oid, display, pc, physical)
    obj = catalog.object_by_id(ctx.conn, db_id, oid)
    assert obj is not None
    info = load_table(ctx.conn, obj)
    if local_name and variable is None:
        low = local_name.lower()
        ctx.temp_tables[low] = physical
        ctx.txn.on_undo(lambda: ctx.temp_tables.pop(low, None))
    return info


def _validate_columns(columns: list[dict[str, Any]], constraints: list[_PendingConstraint],
                      table: str) -> None:
    seen: set[str] = set()
    for col in columns:
        low = col["name"].lower()
        if low in seen:
            raise tsql_error(2705, col["name"], table)
        seen.add(low)
    if sum(1 for c in constraints if c.kind == "PK") > 1:
        raise tsql_error(8110, table)
    for pc in constraints:
        for name in pc.columns:
            if name.lower() not in seen:
                raise tsql_error(1911, name, cls=BindError)
        if pc.kind == "PK":
            for col in columns:
                if col["name"].lower() in {n.lower() for n in pc.columns}:
                    col["nullable"] = False


def _create_physical(ctx: ExecContext, physical: str, columns: list[dict[str, Any]]) -> None:
    md = MetaData()
    table = Table(physical, md, *[Column(col["name"], column_type(col["spec"], ctx.conn.dialect))
                                  for col in columns])
    ddl = str(CreateTable(table).compile(dialect=ctx.conn.conn.dialect))
    run_sql(ctx.conn, ddl)


def _add_constraint(ctx: ExecContext, db_id: int, schema: str, table_oid: int, display: str,
                    pc: _PendingConstraint, physical: str) -> None:
    catalog = Catalog.get(ctx.conn.store)
    oid = catalog.next_object_id(ctx.conn)
    name = pc.name or constraint_name(pc.kind, display, pc.columns[0] if pc.columns else None,
                                      oid)
    detail: dict[str, Any] = {"columns": pc.columns}
    if pc.kind == "F":
        ref_info = _resolve_ref(ctx, pc, name)
        detail["ref_object_id"] = ref_info.object_id
        detail["ref_columns"] = pc.ref_columns
        if pc.on_delete:
            detail["on_delete"] = pc.on_delete
    if pc.kind in ("C", "D"):
        detail["check"] = pc.check_sql
    catalog.create_object(ctx.conn, db_id, schema, name, pc.kind, parent_id=table_oid,
                          detail=json.dumps(detail), object_id=oid,
                          definition=f"({pc.check_sql})" if pc.check_sql else None)
    if pc.kind in ("PK", "UQ") and pc.columns:
        cols = ", ".join(quote_ident(c) for c in pc.columns)
        run_sql(ctx.conn, 
            f"CREATE INDEX {quote_ident(f'ix_{oid}')} ON {quote_ident(physical)} ({cols})")


def _resolve_ref(ctx: ExecContext, pc: _PendingConstraint, name: str) -> TableInfo:
    assert isinstance(pc.ref, exp.Table)
    key = table_key(pc.ref)
    binder = Binder(ctx, {})
    try:
        source = binder.resolve(key)
    except TSqlError:
        raise tsql_error(1767, name, written_name(key)) from None
    if source.table is None:
        raise tsql_error(1767, name, written_name(key))
    ref = source.table
    wanted = [c.lower() for c in pc.ref_columns] if pc.ref_columns else None
    for k in ref.constraints:
        if k.kind in ("PK", "UQ") and (wanted is None and k.kind == "PK"
                                      or wanted == [c.lower() for c in k.columns]):
            pc.ref_columns = list(k.columns)
            return ref
    raise tsql_error(1776, ref.two_part_name, name)


# -- table variables and temp tables ----------------------------------------------------------
def declare_table_variable(ctx: ExecContext, name: str, columns_sql: str) -> str:
    """``DECLARE @t TABLE (…)``: create the table variable and return its physical name.
    The interpreter records it in the frame and calls :func:`drop_table_variable`."""
    from .transpile import parse_statement

    body = columns_sql.strip()
    if not body.startswith("("):
        body = f"({body})"
    parsed = parse_statement(f"CREATE TABLE tv {body}")
    if not isinstance(parsed.tree, exp.Create):
        raise not_supported("This table variable definition")
    info = create_table(ctx, parsed.tree, variable=name if name.startswith("@") else "@" + name)
    return info.physical


def drop_table_variable(ctx: ExecContext, physical: str) -> None:
    """Drop a table variable at the end of its frame."""
    _drop_by_physical(ctx, physical)


def drop_temp_tables(ctx: ExecContext) -> None:
    """Drop every temp table of the session (at session end)."""
    for physical in list(ctx.temp_tables.values()):
        _drop_by_physical(ctx, physical)
    ctx.temp_tables.clear()


def _drop_by_physical(ctx: ExecContext, physical: str) -> None:
    catalog = Catalog.get(ctx.conn.store)
    o = catalog.t.objects
    oid = ctx.conn.execute(select(o.c.object_id).where(o.c.physical_name == physical)).scalar()
    ctx.txn.write()
    if oid is not None:
        catalog.drop_object(ctx.conn, int(oid))
    else:
        run_sql(ctx.conn, f"DROP TABLE IF EXISTS {quote_ident(physical)}")


# -- DROP / TRUNCATE --------------------------------------------------------------------------
def drop_table(ctx: ExecContext, info: TableInfo) -> None:
    """``DROP TABLE``: refused (3726) while another table's FOREIGN KEY references it."""
    refs = [(t, fk) for t, fk in referencing_constraints(ctx.conn, info)
            if t.object_id != info.object_id]
    if refs:
        raise tsql_error(3726, info.two_part_name if not info.local_name else info.local_name)
    ctx.txn.write()
    Catalog.get(ctx.conn.store).drop_object(ctx.conn, info.object_id)
    if info.local_name and info.local_name.startswith("#"):
        low = info.local_name.lower()
        physical = ctx.temp_tables.pop(low, None)
        if physical is not None:
            ctx.txn.on_undo(lambda: ctx.temp_tables.__setitem__(low, physical))


def truncate_table(ctx: ExecContext, info: TableInfo) -> None:
    """``TRUNCATE TABLE``: delete every row, reseed IDENTITY; refused (4712) when referenced."""
    if any(t.object_id != info.object_id for t, _fk in referencing_constraints(ctx.conn, info)):
        raise tsql_error(4712, info.two_part_name)
    ctx.txn.write()
    run_sql(ctx.conn, f"DELETE FROM {quote_ident(info.physical)}")
    c = Catalog.get(ctx.conn.store).t.columns
    ctx.conn.execute(update(c).where(c.c.object_id == info.object_id).values(identity_next=None))


# -- row writing ------------------------------------------------------------------------------
def _table_text(info: TableInfo) -> str:
    """The table as Msg 515 names it."""
    if info.local_name and info.local_name.startswith("@"):
        return info.local_name
    return info.three_part_name


def format_key(values: Sequence[Any]) -> str:
    """``(1, abc)`` as SQL Server shows duplicate key values."""
    parts = []
    for v in values:
        if v is None:
            parts.append("<NULL>")
        elif isinstance(v, float) and v.is_integer():
            parts.append(str(int(v)))
        else:
            parts.append(str(v))
    return "(" + ", ".join(parts) + ")"


class RowWriter:
    """Writes rows of one statement into one table, enforcing its constraints."""

    def __init__(self, ctx: ExecContext, info: TableInfo, statement: str) -> None:
        self.ctx = ctx
        self.info = info
        self.statement = statement  # 'INSERT' / 'UPDATE' / 'DELETE'
        self.conn = ctx.conn
        self.dialect = ctx.conn.dialect
        self.rowid = rowid_column(self.dialect)
        self.last_identity: int | None = None
        self._defaults: dict[str, str] = {}
        self._checks: dict[int, str] = {}

    # -- values ---------------------------------------------------------------------------
    def convert(self, col: ColumnInfo, value: Any) -> Any:
        """Convert to the column's type; 8152 on truncation, 515 on NULL into NOT NULL."""
        stored = to_storage(value, col.spec, self.dialect)
        if stored is None:
            if not col.nullable:
                raise tsql_error(515, col.name, _table_text(self.info), self.statement)
            return None
        if not check_length(stored, col.spec):
            raise tsql_error(8152)
        return backend_value(pad_fixed(stored, col.spec))

    def default_value(self, col: ColumnInfo) -> Any:
        if col.default_sql is None:
            return None
        sql = self._defaults.get(col.name)
        if sql is None:
            binder = Binder(self.ctx, {})
            sql = binder.compile_text(f"SELECT {col.default_sql}", tag="default").sql
            self._defaults[col.name] = sql
        return run_sql(self.conn, sql).scalar()

    # -- INSERT ---------------------------------------------------------------------------
    def insert(self, columns: list[str] | None, rows: Sequence[Sequence[Any]],
               *, from_values: bool = False) -> list[Any]:
        """Insert ``rows`` (Python or backend values) for ``columns`` (None: every
        non-identity column in order). Returns the backend row ids."""
        info = self.info
        ident = info.identity_column
        if columns is None:
            targets = [c for c in info.columns if c.identity is None]
        else:
            targets = []
            for name in columns:
                col = info.column(name)
                if col is None:
                    raise tsql_error(207, name, cls=BindError)
                if col.identity is not None:
                    raise tsql_error(544, info.display_name)
                targets.append(col)
        for row in rows:
            if len(row) != len(targets):
                if columns is None:
                    raise tsql_error(213)
                if from_values:
                    raise tsql_error(109 if len(row) < len(targets) else 110)
                raise tsql_error(120 if len(row) < len(targets) else 121)
        self.ctx.txn.write()
        next_id = self._identity_start(ident) if ident is not None else None
        rowids: list[Any] = []
        given = {c.name.lower() for c in targets}
        names = [c.name for c in info.columns]
        sql = (f"INSERT INTO {quote_ident(info.physical)} ("
               + ", ".join(quote_ident(n) for n in names) + ") VALUES ("
               + ", ".join(f":c{i}" for i in range(len(names))) + ")")
        for row in rows:
            values: dict[str, Any] = {}
            by_name = {c.name.lower(): v for c, v in zip(targets, row, strict=True)}
            for col in info.columns:
                low = col.name.lower()
                if col.identity is not None:
                    assert next_id is not None
                    values[low] = next_id
                    self.last_identity = next_id
                    next_id += col.identity[1]
                elif low in given:
                    values[low] = self.convert(col, by_name[low])
                else:
                    values[low] = self.convert(col, self.default_value(col))
            self._check_unique(values, None)
            self._check_foreign_keys(values)
            params = {f"c{i}": values[n.lower()] for i, n in enumerate(names)}
            rid = self._execute_insert(sql, params)
            self._check_checks(rid)
            rowids.append(rid)
        if ident is not None and next_id is not None:
            self._identity_save(ident, next_id)
        return rowids

    def _execute_insert(self, sql: str, params: dict[str, Any]) -> Any:
        if self.dialect == "sqlite":
            cur = self.conn.conn.connection.dbapi_connection.cursor()
            try:
                cur.execute(sql, params)
                return cur.lastrowid
            finally:
                cur.close()
        from sqlalchemy import text
        return self.conn.execute(text(sql + " RETURNING ctid"), params).scalar()

    def _identity_start(self, col: ColumnInfo) -> int:
        c = Catalog.get(self.conn.store).t.columns
        value = self.conn.execute(select(c.c.identity_next).where(
            c.c.object_id == self.info.object_id, c.c.column_id == col.column_id)).scalar()
        assert col.identity is not None
        return int(value) if value is not None else col.identity[0]

    def _identity_save(self, col: ColumnInfo, next_id: int) -> None:
        c = Catalog.get(self.conn.store).t.columns
        self.conn.execute(update(c).where(
            c.c.object_id == self.info.object_id, c.c.column_id == col.column_id).values(
            identity_next=next_id))

    # -- constraint checks ------------------------------------------------------------------
    def _null_safe_eq(self, column: str, param: str) -> str:
        op = "IS" if self.dialect == "sqlite" else "IS NOT DISTINCT FROM"
        return f"{quote_ident(column)} {op} :{param}"

    def _check_unique(self, values: dict[str, Any], rowid: Any) -> None:
        """2627 / 2601 when another row has the same key (NULLs equal, as SQL Server)."""
        for k in self.info.constraints:
            if k.kind not in ("PK", "UQ") and not (k.kind == "IX" and k.unique):
                continue
            keyvals = [values[c.lower()] for c in k.columns]
            conds = [self._null_safe_eq(c, f"k{i}") for i, c in enumerate(k.columns)]
            params: dict[str, Any] = {f"k{i}": v for i, v in enumerate(keyvals)}
            sql = f"SELECT 1 FROM {quote_ident(self.info.physical)} WHERE " + " AND ".join(conds)
            if rowid is not None:
                sql += f" AND {self.rowid} <> :rid"
                params["rid"] = rowid
            if run_sql(self.conn, sql + " LIMIT 1", params).first() is not None:
                shown = [self._display(c, v) for c, v in zip(k.columns, keyvals, strict=True)]
                if k.kind == "IX":
                    raise tsql_error(2601, self.info.two_part_name, k.name, format_key(shown))
                raise tsql_error(2627, KIND_TEXT[k.kind], k.name, self.info.two_part_name,
                                 format_key(shown))

    def _display(self, column: str, value: Any) -> Any:
        from .sqltypes import from_storage
        col = self.info.column(column)
        return from_storage(value, col.spec) if col else value

    def _check_foreign_keys(self, values: dict[str, Any]) -> None:
        """547 when a referenced parent row is missing."""
        for k in self.info.constraints:
            if k.kind != "F":
                continue
            keyvals = [values[c.lower()] for c in k.columns]
            if any(v is None for v in keyvals):
                continue
            parent = self._table(k.ref_object_id)
            if parent is None:
                continue
            conds = " AND ".join(f"{quote_ident(c)} = :k{i}"
                                 for i, c in enumerate(k.ref_columns))
            sql = f"SELECT 1 FROM {quote_ident(parent.physical)} WHERE {conds} LIMIT 1"
            params = {f"k{i}": v for i, v in enumerate(keyvals)}
            if run_sql(self.conn, sql, params).first() is None:
                self._raise_547("FOREIGN KEY", k.name, parent, k.ref_columns)

    def _raise_547(self, kind: str, name: str, table: TableInfo,
                   columns: Sequence[str]) -> None:
        col_part = (", column '", columns[0], "'") if len(columns) == 1 else ("", "", "")
        raise tsql_error(547, self.statement, kind, name, table.db_name, table.two_part_name,
                         *col_part)

    def _table(self, object_id: int | None) -> TableInfo | None:
        if object_id is None:
            return None
        obj = Catalog.get(self.conn.store).object_by_id(self.conn, None, object_id)
        return None if obj is None else load_table(self.conn, obj)

    def _check_checks(self, rowid: Any) -> None:
        """547 when a CHECK constraint is FALSE for the written row (NULL passes)."""
        for k in self.info.constraints:
            if k.kind != "C" or not k.check_sql:
                continue
            sql = self._checks.get(k.object_id)
            if sql is None:
                condition = sqlglot.parse_one(k.check_sql, read="tsql")
                query = exp.select("1").from_(physical_table_ref(self.info)).where(
                    exp.and_(exp.not_(exp.paren(condition)), exp.EQ(
                        this=exp.column(self.rowid), expression=exp.Placeholder(this="rid"))))
                sql = Binder(self.ctx, {}).compile(query, ("check", k.object_id)).sql
                self._checks[k.object_id] = sql
            if run_sql(self.conn, sql, {"rid": rowid}).first() is not None:
                self._raise_547("CHECK", k.name, self.info, k.columns)

    # -- UPDATE -----------------------------------------------------------------------------
    def update(self, changes: list[tuple[Any, dict[str, Any]]]) -> None:
        """Apply ``(rowid, {column: new value})`` changes, then check constraints."""
        if not changes:
            return
        self.ctx.txn.write()
        info = self.info
        touched = {name.lower() for _rid, vals in changes for name in vals}
        refs = referencing_constraints(self.conn, info) if any(
            k.kind in ("PK", "UQ") and touched & {c.lower() for c in k.columns}
            for k in info.constraints) else []
        old_rows = self.fetch([rid for rid, _v in changes]) if refs else {}
        for rid, vals in changes:
            converted: dict[str, Any] = {}
            for name, value in vals.items():
                col = info.column(name)
                if col is None:
                    raise tsql_error(207, name, cls=BindError)
                if col.identity is not None:
                    raise tsql_error(8102, col.name)
                converted[col.name] = self.convert(col, value)
            sets = ", ".join(f"{quote_ident(n)} = :u{i}" for i, n in enumerate(converted))
            params = {f"u{i}": v for i, v in enumerate(converted.values())}
            params["rid"] = rid
            run_sql(self.conn, 
                f"UPDATE {quote_ident(info.physical)} SET {sets} WHERE {self.rowid} = :rid",
                params)
        current = self.fetch([rid for rid, _v in changes])
        for rid, _vals in changes:
            values = current.get(rid)
            if values is None:
                continue
            self._check_unique(values, rid)
            if any(k.kind == "F" and touched & {c.lower() for c in k.columns}
                   for k in info.constraints):
                self._check_foreign_keys(values)
            self._check_checks(rid)
        for child, fk in refs:
            for rid, _vals in changes:
                old = old_rows.get(rid)
                new = current.get(rid)
                if old is None or new is None:
                    continue
                if all(old[c.lower()] == new[c.lower()] for c in fk.ref_columns):
                    continue
                self._check_not_referenced(child, fk, [old[c.lower()] for c in fk.ref_columns])

    def fetch(self, rowids: Sequence[Any]) -> dict[Any, dict[str, Any]]:
        """Current backend values of rows by row id (column names lower-cased)."""
        out: dict[Any, dict[str, Any]] = {}
        names = [c.name for c in self.info.columns]
        cols = ", ".join([self.rowid] + [quote_ident(n) for n in names])
        for start in range(0, len(rowids), 500):
            chunk = list(rowids[start:start + 500])
            marks = ", ".join(f":r{i}" for i in range(len(chunk)))
            rows = run_sql(self.conn, 
                f"SELECT {cols} FROM {quote_ident(self.info.physical)} "
                f"WHERE {self.rowid} IN ({marks})", {f"r{i}": r for i, r in enumerate(chunk)})
            for row in rows:
                out[row[0]] = {n.lower(): v for n, v in zip(names, row[1:], strict=True)}
        return out

    # -- DELETE -----------------------------------------------------------------------------
    def delete(self, rowids: Sequence[Any]) -> None:
        """Delete rows by row id; 547 (REFERENCE) while child rows reference them."""
        if not rowids:
            return
        self.ctx.txn.write()
        refs = referencing_constraints(self.conn, self.info)
        if refs:
            old_rows = self.fetch(rowids)
            for child, fk in refs:
                for rid in rowids:
                    old = old_rows.get(rid)
                    if old is None:
                        continue
                    keyvals = [old[c.lower()] for c in fk.ref_columns]
                    if fk.on_delete == "CASCADE" and child.object_id != self.info.object_id:
                        self._cascade(child, fk, keyvals)
                    elif child.object_id != self.info.object_id:
                        self._check_not_referenced(child, fk, keyvals)
        for start in range(0, len(rowids), 500):
            chunk = list(rowids[start:start + 500])
            marks = ", ".join(f":r{i}" for i in range(len(chunk)))
            run_sql(self.conn, 
                f"DELETE FROM {quote_ident(self.info.physical)} WHERE {self.rowid} IN ({marks})",
                {f"r{i}": r for i, r in enumerate(chunk)})

    def _cascade(self, child: TableInfo, fk: ConstraintInfo, keyvals: list[Any]) -> None:
        conds = " AND ".join(f"{quote_ident(c)} = :k{i}" for i, c in enumerate(fk.columns))
        params = {f"k{i}": v for i, v in enumerate(keyvals)}
        rids = [r[0] for r in run_sql(self.conn, 
            f"SELECT {self.rowid} FROM {quote_ident(child.physical)} WHERE {conds}", params)]
        RowWriter(self.ctx, child, self.statement).delete(rids)

    def _check_not_referenced(self, child: TableInfo, fk: ConstraintInfo,
                              keyvals: list[Any]) -> None:
        if any(v is None for v in keyvals):
            return
        conds = " AND ".join(f"{quote_ident(c)} = :k{i}" for i, c in enumerate(fk.columns))
        params = {f"k{i}": v for i, v in enumerate(keyvals)}
        if run_sql(self.conn, 
                f"SELECT 1 FROM {quote_ident(child.physical)} WHERE {conds} LIMIT 1",
                params).first() is not None:
            self._raise_547("REFERENCE", fk.name, child, fk.columns)


def physical_table_ref(info: TableInfo, alias: str | None = None) -> exp.Table:
    """A table node the binder resolves straight to ``info`` (any kind of table)."""
    return exp.Table(this=exp.Identifier(this=PHYSICAL_MARK + info.physical, quoted=True),
                     alias=exp.TableAlias(this=exp.to_identifier(alias)) if alias else None)
