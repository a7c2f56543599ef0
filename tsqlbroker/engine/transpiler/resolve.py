"""Pass 2 of the transpiler: names. Every table reference of a statement resolves to a
:class:`~.scope.Source` — user tables, ``#temp`` tables, ``@table`` variables, views (bound
by a binder of their own), synonyms, catalog views and broker queues through the
virtual-table resolvers, three-part names across databases — and so do the derived sources
the features add (table-valued functions, PIVOT, APPLY, derived tables, VALUES)."""

from __future__ import annotations

import weakref
from typing import Any

from sqlglot import exp

from ...errors import BindError, TSqlError, tsql_error
from .. import apply, forxml, pivot, shapes, tvf
from ..catalog import TEMPDB, Catalog
from ..context import ExecContext, VirtualTable, virtual_resolvers
from ..parsing import PARENTHESISED_QUERY, not_supported, view_query
from ..seqcalls import resolve_sequences
from ..synonyms import SYNONYM, synonym_target
from ..tableinfo import TableInfo, load_table, table_by_physical
from .annotate import TypeAnnotator
from .interface import BoundStatement
from .scope import (
    PHYSICAL_MARK,
    Source,
    default_alias,
    projection_name,
    require_column_names,
    table_key,
    written_name,
)

__all__ = ["Resolver", "object_id_of", "temp_table_object_id", "view_query",
           "view_select_text"]

_SYSTEM_SCHEMAS = {"sys", "information_schema"}


class Resolver:
    """Resolves the names of one statement (the binder's ``resolve`` and ``collect``)."""

    def __init__(self, binder: BoundStatement, types: TypeAnnotator) -> None:
        # Weak: the binder holds this pass; a strong cycle would keep the statement's
        # transaction alive until the cyclic collector runs.
        self.b: BoundStatement = weakref.proxy(binder)
        self.types = types

    def resolve(self, key: tuple[str, str, str, str]) -> Source:
        """Resolve a table reference (raises Msg 208 / 1087 when it does not exist)."""
        hit = self.b.resolved.get(key)
        if hit is not None:
            return hit
        source = self._resolve(key)
        self.b.resolved[key] = source
        return source

    def _resolve(self, key: tuple[str, str, str, str]) -> Source:
        catalog_name, schema, name, kind = key
        conn = self.b.conn
        if name.startswith(PHYSICAL_MARK):
            info = table_by_physical(conn, name[len(PHYSICAL_MARK):])
            if info is None:
                raise tsql_error(208, name, cls=BindError)
            return self._table_source(info, info.display_name)
        if kind == "@":
            physical = self.b.ctx.table_variables.get(name.lower())
            info = table_by_physical(conn, physical) if physical else None
            if info is None:
                raise tsql_error(1087, name, cls=BindError)
            return self._table_source(info, name)
        if kind == "#":
            if catalog_name and catalog_name.lower() != "tempdb":
                raise tsql_error(208, written_name(key), cls=BindError)
            physical = self.b.ctx.temp_tables.get(name.lower())
            info = table_by_physical(conn, physical) if physical else None
            if info is None:
                raise tsql_error(208, written_name(key), cls=BindError)
            return self._table_source(info, name)
        if not catalog_name and not schema and kind == "" \
                and name.lower() in ("inserted", "deleted") \
                and name.lower() in self.b.ctx.table_variables:
            # A trigger's inserted / deleted rows (table variables the trigger lends).
            info = table_by_physical(conn, self.b.ctx.table_variables[name.lower()])
            if info is not None:
                return self._table_source(info, name)
        if catalog_name:
            db_id = self.b.catalog.database_id(conn, catalog_name)
            if db_id is None:
                raise tsql_error(208, written_name(key), cls=BindError)
        else:
            db_id = self.b.ctx.db_id
        if not (schema and schema.lower() in _SYSTEM_SCHEMAS):
            obj = self.b.catalog.find_object(conn, db_id, schema or None, name)
            if obj is not None and obj.type == "U" and obj.physical_name:
                return self._table_source(load_table(conn, obj), name)
            if obj is not None and obj.type == "V":
                return self._view_source(obj, db_id, name)
            if obj is not None and obj.type == SYNONYM:
                return self._synonym_source(obj)
        db_row = self.b.catalog.database(conn, db_id)
        db_name = db_row.name if db_row else None
        for resolver in virtual_resolvers(conn.store):
            vt = resolver(self._ctx_for(db_id), db_name, schema or None, name)
            if vt is not None:
                sql = self._virtual_sql(vt)
                return Source("virtual", name, list(vt.columns), sql=sql, virtual=vt,
                              signature=("v", db_id, sql))
        raise tsql_error(208, written_name(key), cls=BindError)

    def _synonym_source(self, obj: Any) -> Source:
        """The base object of synonym ``obj`` (Msg 5313 when there is none, or it is
        another synonym)."""
        database, schema, name = synonym_target(obj)
        if database is None and self.b.ctx.db_id != obj.database_id:
            db_row = self.b.catalog.database(self.b.conn, obj.database_id)
            database = db_row.name if db_row is not None else None
        shown = f"{obj.schema_name}.{obj.name}"
        target = self.b.catalog.find_object(
            self.b.conn, self.b.catalog.database_id(self.b.conn, database) if database
            else self.b.ctx.db_id, schema, name)
        if target is not None and target.type == SYNONYM:
            raise tsql_error(5313, shown, cls=BindError)
        try:
            return self._resolve((database or "", schema or "", name, ""))
        except TSqlError as e:
            if e.number == 208:
                raise tsql_error(5313, shown, cls=BindError) from None
            raise

    def _ctx_for(self, db_id: int) -> ExecContext:
        if db_id == self.b.ctx.db_id:
            return self.b.ctx
        return ExecContext(self.b.ctx.conn, self.b.ctx.txn, db_id, self.b.ctx.session_id,
                           self.b.ctx.temp_tables, self.b.ctx.table_variables,
                           self.b.ctx.view_depth, max_recursion=self.b.ctx.max_recursion)

    def _table_source(self, info: TableInfo, name: str) -> Source:
        return Source("table", name, [(c.name, c.spec) for c in info.columns], table=info,
                      signature=("t", info.object_id, info.modify_date, info.backend_schema))

    def _view_source(self, obj: Any, db_id: int, name: str) -> Source:
        if self.b.ctx.view_depth >= 32:
            raise tsql_error(217)
        inner_ctx = ExecContext(self.b.ctx.conn, self.b.ctx.txn, db_id, self.b.ctx.session_id,
                                self.b.ctx.temp_tables, self.b.ctx.table_variables,
                                self.b.ctx.view_depth + 1, max_recursion=self.b.ctx.max_recursion)
        select_text = view_select_text(obj.definition or "")
        inner = self.b.binder_for(inner_ctx, {})
        compiled = inner.compile_text(select_text, tag="view", keep_tree=True)
        # Values the view's function calls bound (UDFs, USER_NAME() …) travel with its SQL.
        self.b.binds.update(inner.binds)
        self.b.dependencies.extend(inner.dependencies)
        columns = list(zip(compiled.names, compiled.types, strict=False))
        return Source("view", name, columns, tree=compiled.tree,
                      signature=("view", obj.object_id, obj.modify_date))

    def _virtual_sql(self, vt: VirtualTable) -> str:
        if isinstance(vt.sql, str):
            sql = vt.sql
        else:
            sql = str(vt.sql.compile(dialect=_literal_dialect(self.b.conn.conn.dialect),
                                     compile_kwargs={"literal_binds": True}))
        return self.b.backend.virtual_sql(sql, vt.columns)

    def collect(self, tree: exp.Expression) -> None:
        """Resolve every table reference in ``tree`` (CTE names excepted)."""
        tvf.expand(self.b, tree)  # inline table-valued functions become derived tables
        pivot.expand(self.b, tree)  # so do PIVOT and UNPIVOT
        for cte in tree.find_all(exp.CTE):
            self.b.ctes.add(cte.alias_or_name.lower())
            require_column_names(cte.this, cte.args.get("alias"), cte.alias)
        for select in tree.find_all(exp.Select):
            forxml.options_of(select)  # refuses FOR XML EXPLICIT and unknown options
        for node in tree.find_all(exp.Table):
            if node.args.get("sample") is not None:
                raise not_supported("TABLESAMPLE")
            if isinstance(node.this, exp.Anonymous):
                raise not_supported(f"The table-valued function '{node.this.name}' in FROM")
            if not node.name and not isinstance(node.this, exp.Parameter):
                continue
            key = table_key(node)
            if key[3] == "" and not key[0] and not key[1] and key[2].lower() in self.b.ctes:
                continue
            source = self.resolve(key)
            alias = node.alias_or_name.lower() if node.alias else default_alias(key)
            self.b.sources.setdefault(alias, source)
        apply.register(self.b, tree)
        resolve_sequences(self.b, tree)
        for sub in tree.find_all(exp.Subquery):
            if isinstance(sub.parent, (exp.From, exp.Join)) and sub.alias \
                    and sub.alias != PARENTHESISED_QUERY:
                require_column_names(sub.this, sub.args.get("alias"), sub.alias)
            self._register_derived(sub)
        for values in tree.find_all(exp.Values):
            derived = shapes.values_source(self.b, values)
            if derived is not None:
                self.b.sources.setdefault(derived.name.lower(), derived)
        shapes.refuse_aliases_in_order_expressions(self.b, tree)

    def table_columns(self, node: exp.Table) -> list[tuple[str, str | None]]:
        """The columns (name, type spec) of the table, view or synonym ``node`` names."""
        return list(self.resolve(table_key(node)).columns)

    def _register_derived(self, sub: exp.Subquery) -> None:
        """A derived table ``(SELECT …) AS x`` in FROM: its columns' types, so that
        ``x.total`` keeps the decimal scale (or type) of the expression it names. A set
        operation's columns are named (and here typed) by its first query."""
        body = sub.this
        while isinstance(body, (exp.Union, exp.Except, exp.Intersect, exp.Subquery)):
            body = body.this
        if not sub.alias or not isinstance(sub.parent, (exp.From, exp.Join)) \
                or not isinstance(body, exp.Select) or sub.alias.lower() in self.b.sources:
            return
        items = body.expressions
        if any(isinstance(i, exp.Star) or isinstance(i, exp.Column)
               and isinstance(i.this, exp.Star) for i in items):
            return  # star lists are expanded elsewhere; a partial list would mislead that
        alias_node = sub.args.get("alias")
        named = [c.name for c in alias_node.args.get("columns") or []] if alias_node else []
        if named and len(named) != len(items):
            return
        # A query in parentheses the parser made a derived table keeps SQL Server's names.
        names = named or [projection_name(i) if sub.alias == PARENTHESISED_QUERY
                          else i.alias_or_name for i in items]
        columns = [(n, self.types.spec_of(i)) for n, i in zip(names, items, strict=True)]
        self.b.sources[sub.alias.lower()] = Source("derived", sub.alias, columns)


_literal_dialects: dict[type, Any] = {}


def _literal_dialect(dialect: Any) -> Any:
    """The SQLAlchemy dialect to render a selectable's SQL text with literal values: the
    connection's own, but with named parameters, since the ``pyformat`` style of psycopg
    would double every ``%`` of a literal or a name in the text."""
    if dialect.paramstyle not in ("format", "pyformat"):
        return dialect
    cls = type(dialect)
    found = _literal_dialects.get(cls)
    if found is None:
        found = _literal_dialects[cls] = cls(paramstyle="named")
    return found


def view_select_text(definition: str) -> str:
    """The T-SQL query of a view's stored definition, its column list (``CREATE VIEW v (a,
    b) AS …``) applied as the select list's names."""
    query, names = view_query(definition)
    if names is not None:
        query = exp.select(*[exp.column(n, quoted=True) for n in names]).from_(
            exp.Subquery(this=query, alias=exp.TableAlias(
                this=exp.to_identifier("tsqlb_view"),
                columns=[exp.to_identifier(n, quoted=True) for n in names])))
    return query.sql("tsql")


def object_id_of(ctx: ExecContext, name: str) -> int | None:
    """``OBJECT_ID('name')``: one-, two- or three-part names, ``#temp`` and
    ``tempdb..#temp`` in the session, or None."""
    parts = [p.strip().strip("[]\"") for p in name.split(".")]
    local = parts[-1]
    catalog = Catalog.get(ctx.conn.store)
    if local.startswith("#"):
        if len(parts) == 3 and parts[0] and parts[0].lower() != "tempdb":
            return None
        return temp_table_object_id(ctx, local)
    schema = parts[-2] if len(parts) >= 2 and parts[-2] else None
    db_id = ctx.db_id
    if len(parts) >= 3 and parts[-3]:
        found = catalog.database_id(ctx.conn, parts[-3])
        if found is None:
            return None
        db_id = found
    obj = catalog.find_object(ctx.conn, db_id, schema, local)
    return None if obj is None else obj.object_id


def temp_table_object_id(ctx: ExecContext, name: str) -> int | None:
    """The object id (in tempdb) of this session's temp table ``#name``, or None."""
    physical = ctx.temp_tables.get(name.lower())
    if physical is None:
        return None
    info = table_by_physical(ctx.conn, physical)
    return None if info is None or info.db_id != TEMPDB else info.object_id
