"""User tables: CREATE TABLE (also ``#temp`` tables and table variables), DROP and TRUNCATE.

A table is a catalog object of type ``U`` with its columns in ``tsqlb_columns`` and its
constraints (PK, UQ, F, C, D) as child objects; the backend table only stores values under a
derived physical name (``naming.py``) — on PostgreSQL in its database's backend schema
(``Catalog.database_schema``), temp tables and table variables in the home schema. Constraint names are generated the way SQL Server
shapes them (``PK__orders__3213E83F1A2B3C4D``). Rows are written by ``writer.RowWriter``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, MetaData, Table, select, update
from sqlalchemy.schema import CreateTable
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from ..storage.backends.integer_types import ARITHMETIC_OPERATORS
from ..storage.naming import (
    physical_table_name,
    physical_table_variable_name,
    physical_temp_name,
    qualified_name,
    quote_ident,
)
from ..values.precedence import arithmetic_spec, common_spec
from ..values.types import literal_spec, parse_spec
from .catalog import TEMPDB, Catalog
from .context import ExecContext
from .execsql import Marks, run_sql
from .parsing import not_supported, parse_statement
from .tableinfo import TableInfo, load_table, referencing_constraints
from .transpiler.binder import Binder
from .transpiler.scope import datatype_spec, table_key, written_name
from .usertypes import alias_type_object, with_column_alias_type
from .writer import physical_table_ref


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
class PendingConstraint:
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


def _inline_index(item: exp.Expression) -> bool:
    """CREATE TABLE's ``INDEX ix [NONCLUSTERED] (a)``, which sqlglot reads as a column named
    INDEX (a column of that name must be quoted: INDEX is a reserved word)."""
    return isinstance(item, exp.ColumnDef) and isinstance(item.this, exp.Identifier) \
        and not item.this.quoted and item.name.upper() == "INDEX"


def _parse_definition(schema: exp.Schema, ctx: ExecContext
                      ) -> tuple[list[dict[str, Any]], list[PendingConstraint]]:
    columns: list[dict[str, Any]] = []
    constraints: list[PendingConstraint] = []
    for item in schema.expressions:
        if _inline_index(item):
            continue  # INDEX ix (a): an index only speeds reads up; the storage keeps none
        if isinstance(item, exp.ColumnDef):
            columns.append(column_def(item, constraints, ctx))
        elif isinstance(item, exp.Constraint):
            for inner in item.expressions:
                constraints.append(table_constraint(inner, item.name))
        else:
            constraints.append(table_constraint(item, None))
    return columns, constraints


# The longest char / binary column of each type (Msg 131 beyond it).
_MAX_COLUMN_SIZE = {"char": 8000, "varchar": 8000, "binary": 8000, "varbinary": 8000,
                    "nchar": 4000, "nvarchar": 4000}


def _check_column_size(name: str, spec: str) -> None:
    t = parse_spec(spec)
    limit = _MAX_COLUMN_SIZE.get(t.name)
    if limit is not None and not t.is_max and t.length is not None and t.length > limit:
        raise tsql_error(131, t.length, "column", name, limit, state=2, cls=BindError)


def column_def(item: exp.ColumnDef, constraints: list[PendingConstraint],
               ctx: ExecContext | None = None) -> dict[str, Any]:
    """A column definition as a dict (name, spec, nullable, identity, default …); a column
    of an alias type gets its base type and, unless it says otherwise, its nullability."""
    name = item.name
    if not name:  # [] or "": SQL Server's parser refuses an empty name
        raise tsql_error(1038, cls=BindError)
    kind = item.args.get("kind")
    if not isinstance(kind, exp.DataType):
        return _computed_column(item)
    spec = datatype_spec(kind)
    nullable = True
    alias_id = None
    if spec is None:
        alias = alias_type_object(ctx.conn, ctx.db_id, kind.sql("tsql")) \
            if ctx is not None else None
        if alias is None:
            raise tsql_error(2715, len(constraints) + 1, kind.sql("tsql"))
        detail = json.loads(alias.detail or "{}")
        spec, nullable, alias_id = str(detail["base"]), bool(detail["nullable"]), alias.object_id
    _check_column_size(name, spec)
    col: dict[str, Any] = {"name": name, "spec": spec, "nullable": nullable, "identity": None,
                           "default": None, "default_name": None, "alias_type": alias_id}
    for cc in item.args.get("constraints") or []:
        cname = cc.name if isinstance(cc, exp.ColumnConstraint) and cc.this else None
        k = cc.args.get("kind") if isinstance(cc, exp.ColumnConstraint) else cc
        if isinstance(k, exp.NotNullColumnConstraint):
            col["nullable"] = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            col["nullable"] = False
            constraints.append(PendingConstraint("PK", cname, [name]))
        elif isinstance(k, exp.UniqueColumnConstraint):
            constraints.append(PendingConstraint("UQ", cname, [name]))
        elif isinstance(k, exp.PrimaryKey):
            # "b int NOT NULL PRIMARY KEY (a, b)": the table's key, written without a comma.
            constraints.append(PendingConstraint("PK", cname, _names(k.expressions)))
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
            constraints.append(PendingConstraint("C", cname, [name],
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


def _computed_column(item: exp.ColumnDef) -> dict[str, Any]:
    """``name AS expression [PERSISTED]``: its type is decided once the table's other
    columns are known (:func:`_computed_specs`)."""
    found = next((cc.args.get("kind") for cc in item.args.get("constraints") or []
                  if isinstance(cc.args.get("kind"), exp.ComputedColumnConstraint)), None)
    if found is None:
        raise not_supported(f"The column definition '{item.sql('tsql')}'")
    body = found.this.this if isinstance(found.this, exp.Paren) else found.this
    return {"name": item.name, "spec": None, "nullable": True, "identity": None,
            "default": None, "default_name": None, "computed": body.sql("tsql"),
            "persisted": bool(found.args.get("persisted"))}


def _computed_specs(ctx: ExecContext, oid: int, columns: list[dict[str, Any]]) -> None:
    """The types of the computed columns of new table ``oid``: their expressions' types
    over the other columns (Msg 207 for an unknown column), recorded in the catalog."""
    catalog = Catalog.get(ctx.conn.store)
    obj = catalog.object_by_id(ctx.conn, None, oid)
    assert obj is not None
    info = load_table(ctx.conn, obj)
    c = catalog.t.columns
    for i, col in enumerate(columns, start=1):
        if col.get("computed") is None:
            continue
        col["spec"] = computed_spec(ctx, info, col["computed"])
        ctx.conn.execute(update(c).where(c.c.object_id == oid, c.c.column_id == i).values(
            type_spec=col["spec"]))
    catalog.update_object(ctx.conn, oid)


def computed_spec(ctx: ExecContext, info: TableInfo, expression: str) -> str:
    """The type of computed column expression ``expression`` over table ``info``'s columns
    (Msg 207 for an unknown column, 1759 for another computed column)."""
    parsed = parse_statement(f"SELECT {expression}").tree
    assert isinstance(parsed, exp.Select)
    for ref in parsed.find_all(exp.Column):
        if not isinstance(ref.this, exp.Star) and info.column(ref.name) is None:
            raise tsql_error(207, ref.name, cls=BindError)
        found = info.column(ref.name)
        if found is not None and found.computed:
            raise tsql_error(1759, found.name, info.display_name)
    tree = parsed.from_(physical_table_ref(info))
    binder = Binder(ctx, {})
    binder.collect(tree)
    _names, types = binder.describe(tree)
    spec = types[0] or _arithmetic_spec(binder, tree.expressions[0])
    return spec or "sql_variant"


# A money operand meets a decimal one as decimal (decimal's precedence is higher).
_MONEY_AS_DECIMAL = {"money": "decimal(19,4)", "smallmoney": "decimal(10,4)"}


def _arithmetic_spec(binder: Binder, node: exp.Expression) -> str | None:
    """The type of integer, money and decimal arithmetic the binder leaves untyped
    (``QtyAvailable * UnitPrice * 1.5``): decimal by SQL Server's precision and scale
    rules when a decimal takes part, else the operands' type of higher precedence."""
    while isinstance(node, exp.Paren):
        node = node.this
    op = ARITHMETIC_OPERATORS.get(type(node))
    if op is None:
        if isinstance(node, exp.Literal) and not node.is_string:
            return literal_spec(node.this, False)
        return binder.spec_of(node)
    left = _arithmetic_spec(binder, node.this)
    right = _arithmetic_spec(binder, node.expression)
    if left is None or right is None:
        return None
    names = {parse_spec(x).name for x in (left, right)}
    if names & {"decimal", "numeric"}:
        spec = arithmetic_spec(op, *(_MONEY_AS_DECIMAL.get(parse_spec(x).name, x)
                                     for x in (left, right)))
        if spec is not None:
            return spec
    return common_spec([left, right])


def _fk(name: str | None, columns: list[str], ref: exp.Expression | None) -> PendingConstraint:
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
    return PendingConstraint("F", name, columns, ref=table, ref_columns=ref_cols or None,
                              on_delete=on_delete)


def table_constraint(item: exp.Expression, name: str | None) -> PendingConstraint:
    if isinstance(item, exp.PrimaryKey):
        return PendingConstraint("PK", name, _names(item.expressions))
    if isinstance(item, exp.UniqueColumnConstraint):
        target = item.this
        cols = _names(target.expressions) if isinstance(target, exp.Schema) else []
        return PendingConstraint("UQ", name, cols)
    if isinstance(item, exp.ForeignKey):
        return _fk(name, _names(item.expressions), item.args.get("reference"))
    if isinstance(item, exp.CheckColumnConstraint):
        return PendingConstraint("C", name, [], check_sql=item.this.sql("tsql"))
    raise not_supported(f"The table constraint '{item.sql('tsql')}'")


def create_table(ctx: ExecContext, create: exp.Create, *, variable: str | None = None) -> TableInfo:
    """``CREATE TABLE`` (also ``#temp``) or, with ``variable='@t'``, a table variable."""
    schema_node = create.this
    if not isinstance(schema_node, exp.Schema) or not isinstance(schema_node.this, exp.Table):
        raise not_supported("CREATE TABLE without a column list")
    columns, constraints = _parse_definition(schema_node, ctx)
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
        if not name:
            raise tsql_error(1038, cls=BindError)
        if catalog.find_object(ctx.conn, db_id, schema, name) is not None:
            raise tsql_error(2714, name)
        oid = catalog.next_object_id(ctx.conn)
        physical = physical_table_name(db_id, oid, name)
    # Errors name a table variable as written (@t), not by its internal #name.
    _validate_columns(columns, constraints, local_name if variable is not None else name)
    persisted = [col["name"].lower() for col in columns if col.get("persisted")]
    details: dict[str, Any] = {"local_name": local_name} if local_name else {}
    if persisted:
        details["persisted"] = persisted
    detail = json.dumps(details) if details else None
    for i, col in enumerate(columns, start=1):
        if col.get("alias_type") is not None:
            detail = with_column_alias_type(detail, i, col["alias_type"])
    catalog.create_object(ctx.conn, db_id, schema, name, "U", physical_name=physical,
                          detail=detail, session_id=session_id, object_id=oid)
    c = catalog.t.columns
    for i, col in enumerate(columns, start=1):
        ident = col["identity"]
        computed = col.get("computed")
        ctx.conn.execute(c.insert().values(
            object_id=oid, column_id=i, name=col["name"], type_spec=col["spec"] or "sql_variant",
            is_nullable=col["nullable"], is_identity=ident is not None,
            seed_value=ident[0] if ident else None, increment_value=ident[1] if ident else None,
            identity_next=None, default_sql=computed or col["default"],
            is_computed=computed is not None))
    if any(col.get("computed") is not None for col in columns):
        _computed_specs(ctx, oid, columns)
    backend_schema = None if session_id is not None else catalog.database_schema(ctx.conn, db_id)
    _create_physical(ctx, backend_schema, physical, columns)
    display = local_name or name
    for col in columns:
        if col["default"] is not None:
            constraints.append(PendingConstraint("D", col["default_name"], [col["name"]],
                                                  check_sql=col["default"]))
    for pc in constraints:
        add_constraint(ctx, db_id, schema, oid, display, pc, backend_schema, physical)
    obj = catalog.object_by_id(ctx.conn, db_id, oid)
    assert obj is not None
    info = load_table(ctx.conn, obj)
    if local_name and variable is None:
        low = local_name.lower()
        ctx.temp_tables[low] = physical
        ctx.txn.on_undo(lambda: ctx.temp_tables.pop(low, None))
    return info


# The types an IDENTITY column may have (Msg 2749 for others).
_IDENTITY_TYPES = frozenset({"int", "bigint", "smallint", "tinyint", "decimal", "numeric"})


def _identity_type(spec: str | None) -> bool:
    """Whether a column of type ``spec`` may be an IDENTITY column: an integer type, or
    decimal / numeric with scale 0."""
    if spec is None:
        return False
    t = parse_spec(spec)
    return t.name in _IDENTITY_TYPES and not t.scale


def _validate_columns(columns: list[dict[str, Any]], constraints: list[PendingConstraint],
                      table: str) -> None:
    seen: set[str] = set()
    for col in columns:
        if not col["name"]:
            raise tsql_error(1038)  # a column named [] or ""
        low = col["name"].lower()
        if low in seen:
            raise tsql_error(2705, col["name"], table)
        seen.add(low)
    if sum(1 for col in columns if col["identity"] is not None) > 1:
        raise tsql_error(2744, table)
    for col in columns:
        if col["identity"] is not None and not _identity_type(col["spec"]):
            raise tsql_error(2749, col["name"])
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


def _create_physical(ctx: ExecContext, backend_schema: str | None, physical: str,
                     columns: list[dict[str, Any]]) -> None:
    md = MetaData()
    backend = ctx.conn.backend
    table = Table(physical, md, *[Column(backend.column_name(col["name"]),
                                         backend.column_type(col["spec"])) for col in columns],
                  schema=backend_schema)
    ctx.conn.execute(CreateTable(table))


def add_constraint(ctx: ExecContext, db_id: int, schema: str, table_oid: int, display: str,
                   pc: PendingConstraint, backend_schema: str | None, physical: str) -> None:
    """Record constraint ``pc`` of table ``table_oid`` (backend table ``physical`` in backend
    schema ``backend_schema``) and give a PRIMARY KEY / UNIQUE one a backend index."""
    catalog = Catalog.get(ctx.conn.store)
    oid = catalog.next_object_id(ctx.conn)
    name = pc.name or constraint_name(pc.kind, display, pc.columns[0] if pc.columns else None,
                                      oid)
    detail: dict[str, Any] = {"columns": pc.columns}
    if pc.kind == "F":
        ref_info = _resolve_ref(ctx, pc, name, db_id)
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
        cols = ", ".join(ctx.conn.backend.quote_column(c) for c in pc.columns)
        run_sql(
            ctx.conn,
            f"CREATE INDEX {quote_ident(f'ix_{oid}')} ON "
            f"{qualified_name(backend_schema, physical)} ({cols})")


def _resolve_ref(ctx: ExecContext, pc: PendingConstraint, name: str, db_id: int) -> TableInfo:
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
    if ref.db_id != db_id:
        raise tsql_error(1763, name)
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


@dataclass(frozen=True)
class SavedRows:
    """The rows of one table variable, kept across a ROLLBACK (:func:`save_rows`)."""

    physical: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


def save_rows(ctx: ExecContext, physical: str) -> SavedRows | None:
    """The rows a table variable holds now (None when its table is gone)."""
    try:
        result = run_sql(ctx.conn, f"SELECT * FROM {quote_ident(physical)}")
    except Exception:  # noqa: BLE001 - a table the rollback will not find either
        return None
    return SavedRows(physical, tuple(result.keys()), tuple(tuple(r) for r in result))


def restore_rows(ctx: ExecContext, saved: SavedRows) -> None:
    """Put a table variable back as :func:`save_rows` saw it: table variables are not part
    of transactions, so ROLLBACK leaves them as they were."""
    ctx.txn.write()
    table = quote_ident(saved.physical)
    run_sql(ctx.conn, f"DELETE FROM {table}")
    if not saved.rows:
        return
    marks = Marks(ctx.conn.backend.numbered_placeholders)
    names = [f"c{i}" for i in range(len(saved.columns))]
    sql = marks.sql(f"INSERT INTO {table} ({', '.join(quote_ident(c) for c in saved.columns)}) "
                    f"VALUES ({', '.join(marks(n) for n in names)})")
    for row in saved.rows:
        run_sql(ctx.conn, sql, dict(zip(names, row, strict=True)))


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
    run_sql(ctx.conn, f"DELETE FROM {info.sql_name}")
    c = Catalog.get(ctx.conn.store).t.columns
    ctx.conn.execute(update(c).where(c.c.object_id == info.object_id).values(identity_next=None))
