"""DDL besides CREATE TABLE: ALTER TABLE, indexes and views.

Indexes are engine-private child objects (type ``IX``, hidden from ``sys.objects``) with a
backend index for speed; a UNIQUE index is enforced by the row writer like a UNIQUE
constraint (Msg 2601). Views keep their T-SQL text as the definition (``sys.sql_modules``)
and are expanded into queries as subqueries, so a view always sees current tables.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlglot import exp

from ..errors import BindError, tsql_error
from ..storage.naming import quote_ident
from .catalog import Catalog
from .context import ExecContext
from .execsql import Marks, run_sql
from .parsing import not_supported
from .tableinfo import TableInfo, load_table
from .tables import (
    PendingConstraint,
    add_constraint,
    column_def,
    computed_spec,
    table_constraint,
)
from .transpiler.binder import Binder
from .transpiler.scope import datatype_spec, table_key, written_name
from .usertypes import column_alias_types, with_column_alias_type
from .writer import RowWriter, format_key


def _table(ctx: ExecContext, node: exp.Table) -> TableInfo:
    source = Binder(ctx, {}).resolve(table_key(node))
    if source.table is None:
        raise not_supported(f"ALTER on '{source.name}'")
    return source.table


def _touch(ctx: ExecContext, info: TableInfo) -> None:
    Catalog.get(ctx.conn.store).update_object(ctx.conn, info.object_id)


# -- ALTER TABLE ------------------------------------------------------------------------------
def alter_table(ctx: ExecContext, tree: exp.Alter) -> None:
    """``ALTER TABLE t ADD col …``, ``ADD CONSTRAINT …``, ``DROP COLUMN``,
    ``DROP CONSTRAINT``, ``ALTER COLUMN c type [NOT] NULL``."""
    node = tree.this
    assert isinstance(node, exp.Table)
    info = _table(ctx, node)
    ctx.txn.write()
    for action in tree.args.get("actions") or []:
        if isinstance(action, exp.ColumnDef):
            _add_column(ctx, info, action)
        elif isinstance(action, exp.AddConstraint):
            for c in action.expressions:
                inner = c.expressions if isinstance(c, exp.Constraint) else [c]
                for item in inner:
                    pc = table_constraint(item, c.name if isinstance(c, exp.Constraint)
                                           else None)
                    _validate_existing(ctx, info, pc)
                    add_constraint(ctx, info.db_id, info.schema, info.object_id,
                                   info.display_name, pc, info.backend_schema,
                                   info.physical)
        elif isinstance(action, exp.Drop):
            _drop_parts(ctx, info, action)
        elif isinstance(action, exp.AlterColumn) and action.args.get("default") is not None:
            _add_default(ctx, info, action, tree.meta.get("default_constraint"))
        elif isinstance(action, exp.AlterColumn):
            _alter_column(ctx, info, action)
        else:
            raise not_supported(f"ALTER TABLE {action.sql('tsql')}")
        _touch(ctx, info)
        info = _table(ctx, node)


def _add_column(ctx: ExecContext, info: TableInfo, action: exp.ColumnDef) -> None:
    pending: list[PendingConstraint] = []
    col = column_def(action, pending, ctx)
    if info.column(col["name"]) is not None:
        raise tsql_error(2705, col["name"], info.display_name)
    if col.get("computed") is not None:
        _add_computed_column(ctx, info, col)
        return
    has_rows = run_sql(
        ctx.conn, f"SELECT 1 FROM {info.sql_name} LIMIT 1").first() is not None
    if not col["nullable"] and col["default"] is None and col["identity"] is None and has_rows:
        raise tsql_error(4901, col["name"], info.display_name)
    catalog = Catalog.get(ctx.conn.store)
    c = catalog.t.columns
    top = ctx.conn.execute(select(func.max(c.c.column_id)).where(
        c.c.object_id == info.object_id)).scalar() or 0
    ident = col["identity"]
    ctx.conn.execute(c.insert().values(
        object_id=info.object_id, column_id=int(top) + 1, name=col["name"],
        type_spec=col["spec"], is_nullable=col["nullable"], is_identity=ident is not None,
        seed_value=ident[0] if ident else None, increment_value=ident[1] if ident else None,
        identity_next=None, default_sql=col["default"], is_computed=False))
    if col.get("alias_type") is not None:
        _set_alias_type(ctx, info, int(top) + 1, col["alias_type"])
    ddl_type = ctx.conn.backend.column_type(col["spec"]).compile(
        dialect=ctx.conn.conn.dialect)
    run_sql(ctx.conn, f"ALTER TABLE {info.sql_name} ADD COLUMN "
                             f"{ctx.conn.backend.quote_column(col['name'])} {ddl_type}")
    if col["default"] is not None:
        pending.append(PendingConstraint("D", col["default_name"], [col["name"]],
                                         check_sql=col["default"]))
    _touch(ctx, info)
    fresh = _reload(ctx, info)
    if has_rows and (col["default"] is not None and not col["nullable"] or ident):
        # Existing rows get the default (NOT NULL columns) or identity values, as SQL Server.
        writer = RowWriter(ctx, fresh, "ALTER TABLE")
        rid = writer.rowid
        column = fresh.column(col["name"])
        assert column is not None
        rowids = [r[0] for r in run_sql(
            ctx.conn, f"SELECT {rid} FROM {info.sql_name} ORDER BY {rid}")]
        changes: list[tuple[Any, dict[str, Any]]] = []
        next_id = ident[0] if ident else None
        for row_id in rowids:
            if ident and next_id is not None:
                _store(ctx, info, col["name"], rid, row_id, next_id)
                next_id += ident[1]
            else:
                changes.append((row_id, {col["name"]: writer.default_value(column)}))
        writer.update(changes)
        if ident and next_id is not None:
            ctx.conn.execute(update(c).where(c.c.object_id == info.object_id,
                                             c.c.name == col["name"]).values(
                identity_next=next_id))
    for pc in pending:
        _validate_existing(ctx, fresh, pc)
        add_constraint(ctx, info.db_id, info.schema, info.object_id, info.display_name, pc,
                       info.backend_schema, info.physical)


def _add_computed_column(ctx: ExecContext, info: TableInfo, col: dict[str, Any]) -> None:
    """``ALTER TABLE t ADD c AS expression [PERSISTED]``: typed as in CREATE TABLE, stored
    like the table's other computed columns, and computed for the rows already there."""
    spec = computed_spec(ctx, info, col["computed"])
    catalog = Catalog.get(ctx.conn.store)
    c = catalog.t.columns
    top = ctx.conn.execute(select(func.max(c.c.column_id)).where(
        c.c.object_id == info.object_id)).scalar() or 0
    ctx.conn.execute(c.insert().values(
        object_id=info.object_id, column_id=int(top) + 1, name=col["name"], type_spec=spec,
        is_nullable=True, is_identity=False, seed_value=None, increment_value=None,
        identity_next=None, default_sql=col["computed"], is_computed=True))
    ddl_type = ctx.conn.backend.column_type(spec).compile(dialect=ctx.conn.conn.dialect)
    run_sql(ctx.conn, f"ALTER TABLE {info.sql_name} ADD COLUMN "
                      f"{ctx.conn.backend.quote_column(col['name'])} {ddl_type}")
    if col.get("persisted"):
        obj = catalog.object_by_id(ctx.conn, None, info.object_id)
        assert obj is not None
        detail = json.loads(obj.detail or "{}")
        detail["persisted"] = [*detail.get("persisted", []), col["name"].lower()]
        catalog.update_object(ctx.conn, info.object_id, detail=json.dumps(detail))
    _touch(ctx, info)
    fresh = _reload(ctx, info)
    writer = RowWriter(ctx, fresh, "ALTER TABLE")
    rid = writer.rowid
    writer.recompute([r[0] for r in run_sql(
        ctx.conn, f"SELECT {rid} FROM {info.sql_name} ORDER BY {rid}")])


def _set_alias_type(ctx: ExecContext, info: TableInfo, column_id: int,
                    alias_id: int | None) -> None:
    """Record (None: forget) the alias type column ``column_id`` was declared with."""
    catalog = Catalog.get(ctx.conn.store)
    obj = catalog.object_by_id(ctx.conn, None, info.object_id)
    assert obj is not None
    if alias_id is None and column_id not in column_alias_types(obj.detail):
        return
    catalog.update_object(ctx.conn, info.object_id,
                          detail=with_column_alias_type(obj.detail, column_id, alias_id))


def _reload(ctx: ExecContext, info: TableInfo) -> TableInfo:
    obj = Catalog.get(ctx.conn.store).object_by_id(ctx.conn, None, info.object_id)
    assert obj is not None
    return load_table(ctx.conn, obj)


def _validate_existing(ctx: ExecContext, info: TableInfo, pc: PendingConstraint) -> None:
    """Existing rows must satisfy a constraint being added (1505 / 547)."""
    for name in pc.columns:
        if info.column(name) is None:
            raise tsql_error(1911, name, cls=BindError)
    phys = info.sql_name
    if pc.kind in ("PK", "UQ") and pc.columns:
        cols = ", ".join(ctx.conn.backend.quote_column(c) for c in pc.columns)
        dup = run_sql(
            ctx.conn,
            f"SELECT {cols} FROM {phys} GROUP BY {cols} HAVING COUNT(*) > 1 LIMIT 1").first()
        if dup is not None:
            name = pc.name or "PK"
            raise tsql_error(1505, info.two_part_name, name, format_key(list(dup)))
        if pc.kind == "PK":
            for c in pc.columns:
                col = info.column(c)
                if col is not None and col.nullable:
                    Catalog.get(ctx.conn.store)
                    cols_t = Catalog.get(ctx.conn.store).t.columns
                    ctx.conn.execute(update(cols_t).where(
                        cols_t.c.object_id == info.object_id,
                        cols_t.c.column_id == col.column_id).values(is_nullable=False))


def _drop_parts(ctx: ExecContext, info: TableInfo, action: exp.Drop) -> None:
    kind = (action.args.get("kind") or "").upper()
    catalog = Catalog.get(ctx.conn.store)
    for node in action.args.get("tables") or []:
        name = node.name
        if kind == "CONSTRAINT":
            found = next((k for k in info.constraints if k.name.lower() == name.lower()), None)
            if found is None:
                raise tsql_error(3728, name)
            catalog.drop_object(ctx.conn, found.object_id)
            if found.kind == "D":
                c = catalog.t.columns
                ctx.conn.execute(update(c).where(
                    c.c.object_id == info.object_id,
                    func.lower(c.c.name) == found.columns[0].lower()).values(default_sql=None))
        elif kind == "COLUMN":
            col = info.column(name)
            if col is None:
                raise tsql_error(4924, name, info.display_name)
            using = [k for k in info.constraints if col.name.lower() in
                     {c.lower() for c in k.columns}]
            if using:
                raise tsql_error(5074, "object", using[0].name, col.name)
            c = catalog.t.columns
            ctx.conn.execute(delete(c).where(c.c.object_id == info.object_id,
                                             c.c.column_id == col.column_id))
            _set_alias_type(ctx, info, col.column_id, None)
            run_sql(ctx.conn, f"ALTER TABLE {info.sql_name} DROP COLUMN "
                                     f"{ctx.conn.backend.quote_column(col.name)}")
        else:
            raise not_supported(f"ALTER TABLE DROP {kind}")


def set_constraint_checking(ctx: ExecContext, node: exp.Table, name: str | None,
                            enabled: bool) -> None:
    """``ALTER TABLE t CHECK | NOCHECK CONSTRAINT name | ALL``: a disabled CHECK or FOREIGN
    KEY constraint is not checked on writes (Msg 4917 for a name the table lacks)."""
    info = _table(ctx, node)
    ctx.txn.write()
    targets = [k for k in info.constraints if k.kind in ("C", "F")]
    if name is not None:
        targets = [k for k in targets if k.name.lower() == name.lower()]
        if not targets:
            raise tsql_error(4917, name)
    catalog = Catalog.get(ctx.conn.store)
    for k in targets:
        row = catalog.object_by_id(ctx.conn, None, k.object_id)
        detail: dict[str, Any] = json.loads(row.detail or "{}") if row is not None else {}
        detail["disabled"] = not enabled
        catalog.update_object(ctx.conn, k.object_id, detail=json.dumps(detail))
    _touch(ctx, info)


def _add_default(ctx: ExecContext, info: TableInfo, action: exp.AlterColumn,
                 name: str | None) -> None:
    """``ADD [CONSTRAINT name] DEFAULT expr FOR column`` (parsing.py gives it as ALTER
    COLUMN … SET DEFAULT): Msg 1781 for a column that has a default already."""
    col = info.column(action.name)
    if col is None:
        raise tsql_error(1911, action.name, cls=BindError)
    if col.default_sql is not None:
        raise tsql_error(1781)
    default_sql = action.args["default"].sql("tsql")
    c = Catalog.get(ctx.conn.store).t.columns
    ctx.conn.execute(update(c).where(c.c.object_id == info.object_id,
                                     c.c.column_id == col.column_id).values(
        default_sql=default_sql))
    add_constraint(ctx, info.db_id, info.schema, info.object_id, info.display_name,
                   PendingConstraint("D", name, [col.name], check_sql=default_sql),
                   info.backend_schema, info.physical)


def _alter_column(ctx: ExecContext, info: TableInfo, action: exp.AlterColumn) -> None:
    col = info.column(action.name)
    if col is None:
        raise tsql_error(4924, action.name, info.display_name)
    dtype = action.args.get("dtype")
    spec = datatype_spec(dtype) if isinstance(dtype, exp.DataType) else col.spec
    nullable = col.nullable
    if action.args.get("allow_null") is not None:
        nullable = bool(action.args.get("allow_null"))
    c = Catalog.get(ctx.conn.store).t.columns
    ctx.conn.execute(update(c).where(c.c.object_id == info.object_id,
                                     c.c.column_id == col.column_id).values(
        type_spec=spec, is_nullable=nullable))
    if isinstance(dtype, exp.DataType):  # a new type: no longer the alias type it had
        _set_alias_type(ctx, info, col.column_id, None)
    _touch(ctx, info)
    fresh = _reload(ctx, info)
    # Existing values must convert and fit (245 / 8152 / 515), as SQL Server checks.
    writer = RowWriter(ctx, fresh, "UPDATE")
    new_col = fresh.column(col.name)
    assert new_col is not None
    rows = run_sql(
        ctx.conn,
        f"SELECT {writer.rowid}, {ctx.conn.backend.quote_column(col.name)} FROM {info.sql_name}"
    ).fetchall()
    for row_id, value in rows:
        _store(ctx, info, col.name, writer.rowid, row_id, writer.convert(new_col, value))


def _store(ctx: ExecContext, info: TableInfo, column: str, rowid_column: str, row_id: Any,
           stored: Any) -> None:
    """Write a value already in storage form into one row's column, unchecked."""
    mark = Marks(ctx.conn.backend.numbered_placeholders)
    run_sql(ctx.conn, mark.sql(
        f"UPDATE {info.sql_name} SET {ctx.conn.backend.quote_column(column)} = {mark('v')} "
        f"WHERE {rowid_column} = {mark('r')}"), {"v": stored, "r": row_id})


# -- indexes ----------------------------------------------------------------------------------
def create_index(ctx: ExecContext, tree: exp.Create) -> None:
    """``CREATE [UNIQUE] INDEX name ON t (cols)``; Msg 1913 when the name exists."""
    index = tree.this
    assert isinstance(index, exp.Index)
    table = index.args.get("table")
    assert isinstance(table, exp.Table)
    info = _table(ctx, table)
    params = index.args.get("params")
    cols = []
    for item in (params.args.get("columns") if params is not None else None) or []:
        node = item.this if isinstance(item, exp.Ordered) else item
        if info.column(node.name) is None:
            raise tsql_error(1911, node.name, cls=BindError)
        cols.append(node.name)
    name = index.name
    if info.index(name) is not None:
        raise tsql_error(1913, name, "table", info.display_name)
    unique = bool(tree.args.get("unique"))
    ctx.txn.write()
    if unique:
        pc = PendingConstraint("UQ", name, cols)
        _validate_existing(ctx, info, pc)
    catalog = Catalog.get(ctx.conn.store)
    oid = catalog.next_object_id(ctx.conn)
    catalog.create_object(ctx.conn, info.db_id, info.schema, f"{name}$ix${info.object_id}",
                          "IX", parent_id=info.object_id, object_id=oid,
                          detail=json.dumps({"columns": cols, "unique": unique, "name": name}))
    col_sql = ", ".join(ctx.conn.backend.quote_column(c) for c in cols)
    run_sql(
        ctx.conn,
        f"CREATE INDEX {quote_ident(f'ix_{oid}')} ON {info.sql_name} ({col_sql})")
    _touch(ctx, info)


def drop_index(ctx: ExecContext, node: exp.Table, on: exp.Expression | None,
               exists: bool) -> None:
    """``DROP INDEX ix ON t`` / ``DROP INDEX t.ix``."""
    if on is not None:
        table_node = on.this if isinstance(on, exp.OnProperty) else on
        name = node.name
    else:
        name = node.name
        table_node = exp.Table(this=exp.to_identifier(node.db), db=exp.to_identifier(
            node.catalog) if node.catalog else None)
    assert isinstance(table_node, exp.Table)
    info = _table(ctx, table_node)
    found = info.index(name)
    if found is None:
        if exists:
            return
        raise tsql_error(3703, "index", f"{info.display_name}.{name}", cls=BindError)
    ctx.txn.write()
    Catalog.get(ctx.conn.store).drop_object(ctx.conn, found.object_id)
    run_sql(ctx.conn, f"DROP INDEX IF EXISTS {info.index_sql_name(f'ix_{found.object_id}')}")
    _touch(ctx, info)


# -- views ------------------------------------------------------------------------------------
def create_view(ctx: ExecContext, tree: exp.Expression, text: str, *, replace: bool,
                alter: bool = False) -> None:
    """``CREATE [OR ALTER] VIEW`` / ``ALTER VIEW``: the query is bound now (Msg 208 / 207
    for unknown names) and kept as T-SQL text."""
    node = tree.this
    if isinstance(node, exp.Schema):  # CREATE VIEW v (a, b) AS …: names of its columns
        node = node.this
    assert isinstance(node, exp.Table)
    query = tree.expression if isinstance(tree, exp.Create) else (
        (tree.args.get("actions") or [None])[0])
    if not isinstance(query, exp.Query):
        raise not_supported("This view definition")
    key = table_key(node)
    catalog = Catalog.get(ctx.conn.store)
    db_id = ctx.db_id
    if key[0]:
        raise tsql_error(166, "CREATE/ALTER VIEW")
    binder = Binder(ctx, {})
    compiled = binder.compile(query.copy(), (text, "view-check"))
    if compiled.names is not None and any(not n for n in compiled.names):
        raise tsql_error(4511, compiled.names.index("") + 1)
    existing = catalog.find_object(ctx.conn, db_id, key[1] or None, key[2])
    ctx.txn.write()
    definition = text.strip()
    if existing is not None and existing.type == "V" and (replace or alter):
        catalog.update_object(ctx.conn, existing.object_id, definition=definition)
        return
    if alter:
        raise tsql_error(208, written_name(key), cls=BindError)
    catalog.create_object(ctx.conn, db_id, key[1] or None, key[2], "V", definition=definition)


def drop_view(ctx: ExecContext, node: exp.Table, exists: bool) -> None:
    """``DROP VIEW [IF EXISTS] v``."""
    key = table_key(node)
    catalog = Catalog.get(ctx.conn.store)
    db_id = ctx.db_id
    if key[0]:
        found_db = catalog.database_id(ctx.conn, key[0])
        db_id = found_db if found_db is not None else -1
    obj = catalog.find_object(ctx.conn, db_id, key[1] or None, key[2], {"V"})
    if obj is None:
        if exists:
            return
        raise tsql_error(3701, "view", written_name(key), cls=BindError)
    ctx.txn.write()
    catalog.drop_object(ctx.conn, obj.object_id)
