"""Catalog views: ``sys.databases``, ``sys.schemas``, ``sys.objects``, ``sys.tables``,
``sys.views``, ``sys.procedures``, ``sys.columns``, ``sys.types``, ``sys.sql_modules``,
``sys.messages``,
``INFORMATION_SCHEMA.TABLES`` / ``COLUMNS``.

They are virtual tables (see ``context.VirtualTable``): SQLAlchemy selects over the engine's
system tables, filtered to the database named in the query (``db.sys.objects``) or the current
one. Views whose columns SQL Server derives from type metadata (``sys.columns``, ``sys.types``,
``INFORMATION_SCHEMA.COLUMNS``) are computed in Python and handed to the backend as literal
rows. All are read-only: writing to them raises Msg 259.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from sqlalchemy import (
    Select,
    and_,
    case,
    cast,
    false,
    func,
    literal,
    literal_column,
    or_,
    select,
    true,
)

from ..errors import MESSAGES, tsql_error
from ..values.types import TypeSpec, parse_spec
from . import owners, visibility
from .catalog import OBJECT_COLUMNS, TYPE_DESC, Catalog
from .context import ExecContext, VirtualTable, describe_view, register_virtual_table
from .literal_rows import literal_rows
from .security import BUILTIN_LOGINS, Security
from .security_views import VIEWS as SECURITY_VIEWS
from .sequences import SEQUENCE_COLUMNS, sequences_query
from .synonyms import SYNONYM_COLUMNS, synonyms_query
from .triggers import trigger_from_row
from .typeids import SYS_SCHEMA_ID, SYSTEM_TYPES, SYSTEM_USER_TYPE_IDS, type_sight
from .usertypes import ALIAS, alias_type_rows, column_alias_types, user_type_ids

_TYPE_BY_NAME = {t[0]: t for t in SYSTEM_TYPES}
_COLLATION = "SQL_Latin1_General_CP1_CI_AS"
_OBJECT_COLUMNS = OBJECT_COLUMNS


def _db(ctx: ExecContext, database: str | None) -> int | None:
    if database is None:
        return ctx.db_id
    return Catalog.get(ctx.conn.store).database_id(ctx.conn, database)


def _objects_select(catalog: Catalog, db_id: int, types: Sequence[str] | None,
                    sec: Security) -> Select[Any]:
    o = catalog.t.objects
    type_desc = case(*[(o.c.type == k, literal(v)) for k, v in _TYPE_DESCS.items()],
                     else_=o.c.type)
    conds = [o.c.database_id == db_id, o.c.type.notin_(["IX", ALIAS])]
    if types:
        conds.append(o.c.type.in_(list(types)))
    return select(
        o.c.name.label("name"), o.c.object_id.label("object_id"),
        # an owner of its own (ALTER AUTHORIZATION), else NULL: its schema's owner's
        owners.owner_column(sec, owners.OBJECT, o.c.database_id, o.c.object_id)
        .label("principal_id"), o.c.schema_id.label("schema_id"),
        o.c.parent_object_id.label("parent_object_id"), o.c.type.label("type"),
        type_desc.label("type_desc"), o.c.create_date.label("create_date"),
        o.c.modify_date.label("modify_date"), false().label("is_ms_shipped"),
        false().label("is_published"), false().label("is_schema_published"),
    ).where(and_(*conds))


def _type_descs() -> dict[str, str]:
    return dict(TYPE_DESC)


_TYPE_DESCS = _type_descs()


def _objects_view(types: Sequence[str] | None, extra: list[tuple[str, str | None]]
                  ) -> Callable[[ExecContext, int], VirtualTable]:
    def build(ctx: ExecContext, db_id: int) -> VirtualTable:
        catalog = Catalog.get(ctx.conn.store)
        sec = Security.get(ctx.conn.store)
        sec.ensure(ctx.conn)
        query = _objects_select(catalog, db_id, types, sec)
        query = query.where(_seen(ctx, db_id, catalog.t.objects))
        cols = list(_OBJECT_COLUMNS)
        for name, spec in extra:
            query = query.add_columns(literal(0).label(name))
            cols.append((name, spec))
        return VirtualTable(query, cols, refuse_error=_refuse())
    return build


def _seen(ctx: ExecContext, db_id: int, o: Any, *,
          only: frozenset[str] | None = None) -> Any:
    """The condition on the objects table ``o`` the session's metadata visibility allows
    (:mod:`visibility`); ``only``: the permissions that count (a module's definition)."""
    principals = visibility.viewer(ctx, db_id)
    if principals is None:
        return true()
    seen = visibility.visible(Security.get(ctx.conn.store), ctx.conn, db_id, principals,
                              visibility.OBJECT, only=only)
    parent = o.alias()
    # a constraint or trigger is seen with its table
    children = o.c.parent_object_id.in_(select(parent.c.object_id).where(
        parent.c.database_id == db_id,
        visibility.condition(seen, parent.c.object_id, parent.c.schema_id, parent.c.type)))
    return or_(visibility.condition(seen, o.c.object_id, o.c.schema_id, o.c.type), children)


def _sees(ctx: ExecContext, db_id: int) -> Callable[[int, int, str], bool]:
    """``sees(object_id, schema_id, type)``: :func:`_seen` for rows built in Python."""
    principals = visibility.viewer(ctx, db_id)
    if principals is None:
        return lambda _o, _s, _t: True
    seen = visibility.visible(Security.get(ctx.conn.store), ctx.conn, db_id, principals,
                              visibility.OBJECT)
    return (lambda _o, _s, _t: True) if seen is None else seen.covers


def _refuse() -> Any:
    return tsql_error(259)


SA_SID = BUILTIN_LOGINS[0].sid


def _databases(ctx: ExecContext, _db_id: int) -> VirtualTable:
    d = Catalog.get(ctx.conn.store).t.databases
    sec = Security.get(ctx.conn.store)
    settings = sec.database_settings(ctx.conn)
    sids = {lg.principal_id: lg.sid for lg in sec.logins(ctx.conn)}

    def sid(value: bytes | None) -> Any:
        return literal_column(ctx.conn.backend.bytes_literal(value or SA_SID))
    owners_sid: Any = sid(SA_SID)
    chaining: Any = false()
    if settings:
        owners_sid = case(*((d.c.database_id == db, sid(sids.get(owner)))
                            for db, (owner, _on) in settings.items()), else_=sid(SA_SID))
        on = [db for db, (_owner, is_on) in settings.items() if is_on]
        if on:
            chaining = d.c.database_id.in_(on)
    query = select(
        d.c.name.label("name"), d.c.database_id.label("database_id"),
        d.c.create_date.label("create_date"), literal(150).label("compatibility_level"),
        literal(_COLLATION).label("collation_name"), literal(0).label("state"),
        literal("ONLINE").label("state_desc"), d.c.is_broker_enabled.label("is_broker_enabled"),
        d.c.service_broker_guid.label("service_broker_guid"),
        d.c.is_honor_broker_priority_on.label("is_honor_broker_priority_on"),
        d.c.is_trustworthy_on.label("is_trustworthy_on"),
        # The pre-release name of service_broker_guid (the chapter's "family_id").
        d.c.service_broker_guid.label("family_id"),
        owners_sid.label("owner_sid"), chaining.label("is_db_chaining_on"))
    cols: list[tuple[str, str | None]] = [
        ("name", "sysname"), ("database_id", "int"), ("create_date", "datetime"),
        ("compatibility_level", "tinyint"), ("collation_name", "sysname"), ("state", "tinyint"),
        ("state_desc", "nvarchar(60)"), ("is_broker_enabled", "bit"),
        ("service_broker_guid", "uniqueidentifier"), ("is_honor_broker_priority_on", "bit"),
        ("is_trustworthy_on", "bit"), ("family_id", "uniqueidentifier"),
        ("owner_sid", "varbinary(85)"), ("is_db_chaining_on", "bit")]
    return VirtualTable(query, cols, refuse_error=_refuse())


def _schemas(ctx: ExecContext, db_id: int) -> VirtualTable:
    # Not filtered: sys.schemas is among the catalog views SQL Server shows to public
    # (Metadata Visibility Configuration, "metadata accessible to all database users").
    s = Catalog.get(ctx.conn.store).t.schemas
    sec = Security.get(ctx.conn.store)
    sec.ensure(ctx.conn)
    # Built-in schemas belong to the principal of the same id (dbo 1, guest 2,
    # INFORMATION_SCHEMA 3, sys 4); created ones to dbo unless an owner was named
    # (engine/owners.py).
    named = owners.owner_column(sec, owners.SCHEMA, s.c.database_id, s.c.schema_id)
    owner = case((s.c.schema_id < 5, s.c.schema_id), else_=func.coalesce(named, literal(1)))
    query = select(s.c.name.label("name"), s.c.schema_id.label("schema_id"),
                   owner.label("principal_id")).where(s.c.database_id == db_id)
    return VirtualTable(query, [("name", "sysname"), ("schema_id", "int"),
                                ("principal_id", "int")], refuse_error=_refuse())


def _sql_modules(ctx: ExecContext, db_id: int) -> VirtualTable:
    o = Catalog.get(ctx.conn.store).t.objects
    # A module's text needs VIEW DEFINITION (or ALTER, CONTROL …); another permission on it
    # (EXECUTE) shows the row with a NULL definition.
    readable = _seen(ctx, db_id, o, only=visibility.DEFINITION)
    definition = case((readable, o.c.definition), else_=cast(literal(None), o.c.definition.type))
    sec = Security.get(ctx.conn.store)
    sec.ensure(ctx.conn)
    query = select(o.c.object_id.label("object_id"), definition.label("definition"),
                   true().label("uses_ansi_nulls"), true().label("uses_quoted_identifier"),
                   false().label("is_schema_bound"),
                   owners.module_principal_column(sec, o.c.database_id, o.c.object_id)
                   .label("execute_as_principal_id")).where(
        o.c.database_id == db_id, o.c.type.in_(["P", "V", "FN", "IF", "TF", "TR"]),
        _seen(ctx, db_id, o))
    return VirtualTable(query, [("object_id", "int"), ("definition", "nvarchar(max)"),
                                ("uses_ansi_nulls", "bit"), ("uses_quoted_identifier", "bit"),
                                ("is_schema_bound", "bit"), ("execute_as_principal_id", "int")],
                        refuse_error=_refuse())


def _info_tables(ctx: ExecContext, db_id: int) -> VirtualTable:
    catalog = Catalog.get(ctx.conn.store)
    o = catalog.t.objects
    db = catalog.database(ctx.conn, db_id)
    query = select(
        literal(db.name if db else "").label("table_catalog"),
        o.c.schema_name.label("table_schema"), o.c.name.label("table_name"),
        case((o.c.type == "V", literal("VIEW")), else_=literal("BASE TABLE")).label(
            "table_type")).where(o.c.database_id == db_id, o.c.type.in_(["U", "V"]),
                                 _seen(ctx, db_id, o))
    return VirtualTable(query, [("TABLE_CATALOG", "nvarchar(128)"),
                                ("TABLE_SCHEMA", "nvarchar(128)"),
                                ("TABLE_NAME", "sysname"), ("TABLE_TYPE", "varchar(10)")],
                        refuse_error=_refuse())


# -- views computed in Python -----------------------------------------------------------------
def type_facts(spec: str) -> tuple[str, int, int, int, int, int | None]:
    """(type name, system_type_id, max_length, precision, scale, char length) of a spec."""
    t: TypeSpec = parse_spec(spec)
    name = t.name
    base = _TYPE_BY_NAME.get(name, _TYPE_BY_NAME["sql_variant"])
    max_length, precision, scale = base[2], base[3], base[4]
    chars: int | None = None
    if name in ("char", "varchar", "binary", "varbinary", "nchar", "nvarchar"):
        wide = name.startswith("n")
        if t.is_max:
            max_length, chars = -1, -1
        else:
            chars = t.length or 1
            max_length = chars * (2 if wide else 1)
    elif name in ("decimal", "numeric"):
        precision, scale = t.precision or 18, t.scale or 0
        max_length = 5 if precision <= 9 else 9 if precision <= 19 else 13 if precision <= 28 \
            else 17
    elif name in ("text", "ntext", "xml"):
        chars = -1 if name == "xml" else 2147483647
    return name, base[1], max_length, precision, scale, chars


class _ColumnRow(NamedTuple):
    """One column as sys.columns and INFORMATION_SCHEMA.COLUMNS read it."""

    object_id: int
    schema_name: str
    table_name: str
    column_id: int
    name: str
    type_spec: str
    is_nullable: bool
    is_identity: bool
    default_sql: str | None
    is_computed: bool
    table_detail: str | None


def _columns_rows(ctx: ExecContext, db_id: int) -> list[Any]:
    """The columns of the tables and views of ``db_id`` the session sees (a view's as its
    query describes them now: the catalog keeps none)."""
    catalog = Catalog.get(ctx.conn.store)
    o, c = catalog.t.objects, catalog.t.columns
    query = select(o.c.object_id, o.c.schema_name, o.c.name.label("table_name"), c.c.column_id,
                   c.c.name, c.c.type_spec, c.c.is_nullable, c.c.is_identity,
                   c.c.default_sql, c.c.is_computed, o.c.detail.label("table_detail")
                   ).join(c, c.c.object_id == o.c.object_id).where(
        o.c.database_id == db_id, _seen(ctx, db_id, o))
    rows: list[Any] = list(ctx.conn.execute(query))
    views = select(o.c.object_id).where(o.c.database_id == db_id, o.c.type == "V",
                                        _seen(ctx, db_id, o))
    for (object_id,) in ctx.conn.execute(views):
        view = catalog.object_by_id(ctx.conn, db_id, int(object_id))
        if view is None:
            continue
        rows.extend(_ColumnRow(view.object_id, view.schema_name, view.name, col["column_id"],
                               col["name"], col["type_spec"], col["is_nullable"],
                               col["is_identity"], None, False, None)
                    for col in describe_view(ctx, view))
    return sorted(rows, key=lambda r: (int(r.object_id), int(r.column_id)))


def _columns(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: list[tuple[str, str | None]] = [
        ("object_id", "int"), ("name", "sysname"), ("column_id", "int"),
        ("system_type_id", "tinyint"), ("user_type_id", "int"), ("max_length", "smallint"),
        ("precision", "tinyint"), ("scale", "tinyint"), ("collation_name", "sysname"),
        ("is_nullable", "bit"), ("is_identity", "bit"), ("is_computed", "bit")]
    rows = []
    user_types = user_type_ids(ctx.conn, db_id)
    for r in _columns_rows(ctx, db_id):
        name, type_id, max_length, precision, scale, _chars = type_facts(r.type_spec)
        is_text = name in ("char", "varchar", "nchar", "nvarchar", "text", "ntext", "sysname")
        alias = column_alias_types(r.table_detail).get(r.column_id)
        user_type = user_types.get(alias, type_id) if alias is not None else type_id
        rows.append((r.object_id, r.name, r.column_id, type_id, user_type, max_length, precision,
                     scale, _COLLATION if is_text else None, bool(r.is_nullable),
                     bool(r.is_identity), bool(r.is_computed)))
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _computed_columns(ctx: ExecContext, db_id: int) -> VirtualTable:
    """sys.computed_columns: sys.columns' columns of the computed ones, with their
    definition and whether they were declared PERSISTED."""
    cols: list[tuple[str, str | None]] = [
        ("object_id", "int"), ("name", "sysname"), ("column_id", "int"),
        ("system_type_id", "tinyint"), ("user_type_id", "int"), ("max_length", "smallint"),
        ("precision", "tinyint"), ("scale", "tinyint"), ("is_nullable", "bit"),
        ("is_computed", "bit"), ("definition", "nvarchar(max)"),
        ("uses_database_collation", "bit"), ("is_persisted", "bit")]
    rows = []
    for r in _columns_rows(ctx, db_id):
        if not r.is_computed:
            continue
        _name, type_id, max_length, precision, scale, _chars = type_facts(r.type_spec)
        persisted = json.loads(r.table_detail or "{}").get("persisted") or []
        rows.append((r.object_id, r.name, r.column_id, type_id, type_id, max_length,
                     precision, scale, bool(r.is_nullable), True, f"({r.default_sql})", True,
                     r.name.lower() in persisted))
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _info_columns(ctx: ExecContext, db_id: int) -> VirtualTable:
    catalog = Catalog.get(ctx.conn.store)
    db = catalog.database(ctx.conn, db_id)
    cols: list[tuple[str, str | None]] = [
        ("TABLE_CATALOG", "nvarchar(128)"), ("TABLE_SCHEMA", "nvarchar(128)"),
        ("TABLE_NAME", "sysname"), ("COLUMN_NAME", "sysname"), ("ORDINAL_POSITION", "int"),
        ("COLUMN_DEFAULT", "nvarchar(4000)"), ("IS_NULLABLE", "varchar(3)"),
        ("DATA_TYPE", "nvarchar(128)"), ("CHARACTER_MAXIMUM_LENGTH", "int"),
        ("NUMERIC_PRECISION", "tinyint"), ("NUMERIC_SCALE", "int")]
    rows = []
    for r in _columns_rows(ctx, db_id):
        name, _tid, _ml, precision, scale, chars = type_facts(r.type_spec)
        numeric = name in ("tinyint", "smallint", "int", "bigint", "decimal", "numeric",
                           "money", "smallmoney", "float", "real")
        rows.append((db.name if db else "", r.schema_name, r.table_name, r.name, r.column_id,
                     f"({r.default_sql})" if r.default_sql and not r.is_computed else None,
                     "YES" if r.is_nullable else "NO", name, chars,
                     precision if numeric else None, scale if numeric else None))
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _types(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols: list[tuple[str, str | None]] = [
        ("name", "sysname"), ("system_type_id", "tinyint"), ("user_type_id", "int"),
        ("schema_id", "int"), ("principal_id", "int"), ("max_length", "smallint"),
        ("precision", "tinyint"), ("scale", "tinyint"), ("is_nullable", "bit"),
        ("is_user_defined", "bit")]
    rows = [(n, tid, SYSTEM_USER_TYPE_IDS[n], SYS_SCHEMA_ID, None, ml, p, s,
             n != "sysname", False) for n, tid, ml, p, s in SYSTEM_TYPES]
    # the owner ALTER AUTHORIZATION gave a type (NULL: its schema's owner, as SQL Server shows)
    named = owners.owned_map(Security.get(ctx.conn.store), ctx.conn, db_id, owners.TYPE)
    # user-defined types: their owner (dbo) or a permission on them, their schema or the
    # database; built-in types to everyone
    seen = type_sight(ctx.conn, ctx.session_id, db_id)
    for name, schema_id, spec, user_type_id, nullable in alias_type_rows(ctx.conn, db_id):
        if seen is not None and not seen.covers(user_type_id, schema_id, ""):
            continue
        _base, tid, ml, p, s, _chars = type_facts(spec)
        rows.append((name, tid, user_type_id, schema_id, named.get(int(user_type_id)), ml, p,
                     s, nullable, True))
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _messages(ctx: ExecContext, _db_id: int) -> VirtualTable:
    """sys.messages: the texts of every error tsqlbroker raises (us_english, 1033), with
    their printf-style placeholders as SQL Server stores them."""
    cols: list[tuple[str, str | None]] = [
        ("message_id", "int"), ("language_id", "smallint"), ("severity", "tinyint"),
        ("is_event_logged", "bit"), ("text", "nvarchar(2048)")]
    rows = [(number, 1033, severity, False, text)
            for number, (severity, text) in sorted(MESSAGES.items())]
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _constraint_rows(ctx: ExecContext, db_id: int, kinds: set[str]
                     ) -> list[tuple[Any, dict[str, Any], dict[str, int]]]:
    """(object row, detail, {lower column name: column_id of the parent}) per constraint."""
    catalog = Catalog.get(ctx.conn.store)
    c = catalog.t.columns
    sees = _sees(ctx, db_id)
    out = []
    for obj in catalog.objects(ctx.conn, db_id, kinds):
        if not sees(obj.parent_object_id, obj.schema_id, "U"):
            continue  # a constraint is seen with its table
        ids = {r.name.lower(): int(r.column_id) for r in ctx.conn.execute(
            select(c.c.name, c.c.column_id).where(c.c.object_id == obj.parent_object_id))}
        out.append((obj, json.loads(obj.detail or "{}"), ids))
    return out


def _constraint_base(obj: Any) -> tuple[Any, ...]:
    return (obj.name, obj.object_id, None, obj.schema_id, obj.parent_object_id, obj.type,
            obj.type_desc, obj.create_date, obj.modify_date, False, False, False)


def _key_constraints(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols = [*_OBJECT_COLUMNS, ("unique_index_id", "int"), ("is_system_named", "bit")]
    rows = [(*_constraint_base(o), 1 if o.type == "PK" else 2,
             o.name.startswith(("PK__", "UQ__")))
            for o, _d, _ids in _constraint_rows(ctx, db_id, {"PK", "UQ"})]
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _foreign_keys(ctx: ExecContext, db_id: int) -> VirtualTable:
    cols = [*_OBJECT_COLUMNS, ("referenced_object_id", "int"), ("is_disabled", "bit"),
            ("delete_referential_action_desc", "nvarchar(60)"), ("is_system_named", "bit")]
    rows = [(*_constraint_base(o), d.get("ref_object_id"), bool(d.get("disabled")),
             (d.get("on_delete") or "NO ACTION").replace(" ", "_"), o.name.startswith("FK__"))
            for o, d, _ids in _constraint_rows(ctx, db_id, {"F"})]
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())


def _definition_constraints(kind: str) -> Callable[[ExecContext, int], VirtualTable]:
    def build(ctx: ExecContext, db_id: int) -> VirtualTable:
        cols = [*_OBJECT_COLUMNS, ("parent_column_id", "int"), ("definition", "nvarchar(max)"),
                ("is_system_named", "bit")]
        rows = []
        for o, d, ids in _constraint_rows(ctx, db_id, {kind}):
            columns = d.get("columns") or []
            parent_col = ids.get(columns[0].lower(), 0) if len(columns) == 1 else 0
            rows.append((*_constraint_base(o), parent_col, o.definition,
                         o.name.startswith(("CK__", "DF__"))))
        return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols, refuse_error=_refuse())
    return build


def _sequences(ctx: ExecContext, db_id: int) -> VirtualTable:
    query = sequences_query(ctx, db_id)
    return VirtualTable(query.where(_seen(ctx, db_id, Catalog.get(ctx.conn.store).t.objects)),
                        SEQUENCE_COLUMNS, refuse_error=_refuse())


def _triggers(ctx: ExecContext, db_id: int) -> VirtualTable:
    """sys.triggers: the DML triggers of the database's tables."""
    cols: list[tuple[str, str | None]] = [
        ("name", "sysname"), ("object_id", "int"), ("parent_class", "tinyint"),
        ("parent_class_desc", "nvarchar(60)"), ("parent_id", "int"), ("type", "char(2)"),
        ("type_desc", "nvarchar(60)"), ("create_date", "datetime"),
        ("modify_date", "datetime"), ("is_ms_shipped", "bit"), ("is_disabled", "bit"),
        ("is_not_for_replication", "bit"), ("is_instead_of_trigger", "bit")]
    rows = []
    sees = _sees(ctx, db_id)
    for o in Catalog.get(ctx.conn.store).objects(ctx.conn, db_id, {"TR"}):
        if not sees(o.parent_object_id, o.schema_id, "U"):
            continue  # a trigger is seen with its table
        t = trigger_from_row(o)
        rows.append((o.name, o.object_id, 1, "OBJECT_OR_COLUMN", o.parent_object_id, "TR",
                     "SQL_TRIGGER", o.create_date, o.modify_date, False, t.disabled, False,
                     t.instead_of))
    return VirtualTable(literal_rows(cols, rows, ctx.conn.backend), cols,
                        refuse_error=_refuse())


def _synonyms(ctx: ExecContext, db_id: int) -> VirtualTable:
    query = synonyms_query(ctx.conn, db_id)
    return VirtualTable(query.where(_seen(ctx, db_id, Catalog.get(ctx.conn.store).t.objects)),
                        SYNONYM_COLUMNS, refuse_error=_refuse())


# sys.sysobjects (the SQL Server 2000 compatibility view): its columns as its page lists
# them; those SQL Server keeps for internal use only are 0.
_SYSOBJECTS_COLUMNS: list[tuple[str, str | None]] = [
    ("name", "sysname"), ("id", "int"), ("xtype", "char(2)"), ("uid", "smallint"),
    ("info", "smallint"), ("status", "int"), ("base_schema_ver", "int"), ("replinfo", "int"),
    ("parent_obj", "int"), ("crdate", "datetime"), ("ftcatid", "smallint"),
    ("schema_ver", "int"), ("stats_schema_ver", "int"), ("type", "char(2)"),
    ("userstat", "smallint"), ("sysstat", "smallint"), ("indexdel", "smallint"),
    ("refdate", "datetime"), ("version", "int"), ("deltrig", "int"), ("instrig", "int"),
    ("updtrig", "int"), ("seltrig", "int"), ("category", "int"), ("cache", "smallint"),
]


def _sysobjects(ctx: ExecContext, db_id: int) -> VirtualTable:
    """``sysobjects``: one row per object of sys.objects, in the old column names."""
    catalog = Catalog.get(ctx.conn.store)
    sec = Security.get(ctx.conn.store)
    sec.ensure(ctx.conn)
    objects = _objects_select(catalog, db_id, None, sec).where(
        _seen(ctx, db_id, catalog.t.objects)).subquery()
    o = objects.c
    zero = {"info", "status", "base_schema_ver", "replinfo", "ftcatid", "schema_ver",
            "stats_schema_ver", "sysstat", "indexdel", "version", "deltrig", "instrig",
            "updtrig", "seltrig", "category", "cache"}
    named = {"name": o.name, "id": o.object_id, "xtype": o.type, "uid": o.schema_id,
             "parent_obj": o.parent_object_id, "crdate": o.create_date, "type": o.type,
             # 1 for a user table (the page: "Used for user tables"), else 0
             "userstat": case((o.type == "U", literal(1)), else_=literal(0)),
             "refdate": o.create_date}
    columns = [(literal(0) if name in zero else named[name]).label(name)
               for name, _spec in _SYSOBJECTS_COLUMNS]
    return VirtualTable(select(*columns), list(_SYSOBJECTS_COLUMNS), refuse_error=_refuse())


_SYS_VIEWS: dict[str, Callable[[ExecContext, int], VirtualTable]] = {
    "key_constraints": _key_constraints, "foreign_keys": _foreign_keys,
    "check_constraints": _definition_constraints("C"),
    "default_constraints": _definition_constraints("D"),
    "databases": _databases, "schemas": _schemas,
    "objects": _objects_view(None, []),
    "tables": _objects_view(["U"], [("lob_data_space_id", "int"), ("max_column_id_used", "int"),
                                    ("temporal_type", "tinyint")]),
    "views": _objects_view(["V"], []),
    "procedures": _objects_view(["P"], []),
    "columns": _columns, "types": _types, "sql_modules": _sql_modules,
    "messages": _messages, "sequences": _sequences, "synonyms": _synonyms,
    "computed_columns": _computed_columns, "triggers": _triggers,
    "sysobjects": _sysobjects,
}


# The security catalog views (principals, certificates, permissions, keys).
_SYS_VIEWS.update(SECURITY_VIEWS)

# The SQL Server 2000 compatibility views kept (``sysobjects`` alone, ``dbo.sysobjects``).
_COMPATIBILITY_VIEWS = frozenset({"sysobjects"})

_INFO_VIEWS: dict[str, Callable[[ExecContext, int], VirtualTable]] = {
    "tables": _info_tables, "columns": _info_columns,
}


def resolve(ctx: ExecContext, database: str | None, schema: str | None, name: str
            ) -> VirtualTable | None:
    """The engine's virtual-table resolver for catalog views."""
    if name.lower() in _COMPATIBILITY_VIEWS and (schema is None or schema.lower() == "dbo"):
        schema = "sys"  # the compatibility views are found under any schema, as in SQL Server
    if schema is None:
        return None
    views = {"sys": _SYS_VIEWS, "information_schema": _INFO_VIEWS}.get(schema.lower())
    if views is None:
        return None
    build = views.get(name.lower())
    if build is None:
        return None
    db_id = _db(ctx, database)
    if db_id is None:
        return None
    return build(ctx, db_id)


def install(store: Any) -> None:
    """Register the catalog-view resolver once per store (before any other resolver)."""
    def factory(s: Any) -> bool:
        register_virtual_table(s, resolve)
        return True
    store.extension("sysviews_installed", factory)
