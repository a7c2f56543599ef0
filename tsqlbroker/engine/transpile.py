"""T-SQL statement text → backend SQL, with sqlglot.

Phases (parse once, then bind, then generate):

1. ``parsing.parse_statement`` parses one statement (cached per text).
2. :class:`Binder` resolves every table reference (user tables, ``#temp``, ``@table``
   variables, views, catalog views and broker queues through the virtual-table resolvers,
   three-part names across databases) and rewrites the tree for the backend: variables become
   bound parameters (never spliced text), ``+`` on strings becomes ``||`` (decided from the
   catalog's column types and the parameters' type specs), T-SQL functions become calls of
   the interpreter's registered implementations (``tsql_*``) or the engine's (``tsqlb_*``,
   mapping in ``funcmap.py``).
3. :meth:`Binder.compile` generates backend SQL, cached per (text, store, resolution).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from . import apply, forxml, jsonbuild, pivot, recursion, shapes, sysviews, tvf
from .catalog import TEMPDB, Catalog
from .context import ExecContext, VirtualTable, virtual_resolvers
from .execsql import generate
from .funcmap import (
    BUILTIN_FALLBACK,
    DATEPART_FIRST,
    PG_FALLBACK,
    PG_UNSUPPORTED,
    pg_cast,
    typed_call,
)
from .metafuncs import prepare as prepare_session_calls
from .metafuncs import replacement as session_call
from .metafuncs import spec_of as session_call_spec
from .naming import quote_ident
from .parsing import (
    Parsed,
    clear_parse_cache,
    not_supported,
    parse_statement,
    stats,
    syntax_error,
)
from .pgxml import pg_xml_method
from .seqcalls import resolve_sequences, sequence_call, sequence_spec
from .sqlfuncs import backend_value, functions_version, registered_functions
from .sqltypes import CI_COLLATION, STRING_TYPES, parse_spec, to_storage
from .synonyms import SYNONYM, synonym_target
from .tableinfo import TableInfo, load_table, table_by_physical
from .transpiler.scope import (
    PHYSICAL_MARK,
    Applied,
    Compiled,
    Source,
    datatype_spec,
    default_alias,
    param_name,
    projection_name,
    source_alias,
    table_key,
    written_name,
)
from .typeprec import arithmetic_spec, literal_spec
from .udfcall import UdfCalls
from .udfcall import spec_of as udf_call_spec

__all__ = ["Binder", "Compiled", "Parsed", "Source", "not_supported", "object_id_of",
           "parse_statement", "syntax_error", "table_key", "temp_table_object_id"]

_BACKEND_DIALECT = {"sqlite": "sqlite", "postgresql": "postgres"}
_COMPILE_CACHE_SIZE = 1024
_compile_lock = threading.Lock()

# -- phase 2: binding -----------------------------------------------------------------------
_SYSTEM_SCHEMAS = {"sys", "information_schema"}


class Binder:
    """Resolves names of one statement against the catalog and rewrites it for the backend."""

    def __init__(self, ctx: ExecContext, params: dict[str, tuple[Any, str | None]]) -> None:
        self.ctx = ctx
        self.conn = ctx.conn
        self.catalog = Catalog.get(ctx.conn.store)
        sysviews.install(ctx.conn.store)
        self.dialect = _BACKEND_DIALECT.get(ctx.conn.dialect, ctx.conn.dialect)
        self.params = {k.lower(): v for k, v in params.items()}
        self.sources: dict[str, Source] = {}  # alias (lower) → source
        self.resolved: dict[tuple[str, str, str, str], Source] = {}
        self.binds: dict[str, Any] = {}
        self.ctes: set[str] = set()
        # The interpreter's functions are Python: callable from SQLite only.
        self.functions = registered_functions(ctx.conn.store) if ctx.conn.dialect == "sqlite" \
            else {}
        self._extra_sig: list[Any] = []
        # NEXT VALUE FOR: (database, schema, name) → (sequence object id, type spec).
        self.sequences: dict[tuple[str, str, str], tuple[int, str]] = {}
        self._placeholder_specs: dict[str, str | None] = {}
        self._ci_order: set[int] = set()  # ORDER BY items to sort with TSQL_CI (SQLite)
        self._ci_items: set[tuple[int, str, int]] = set()  # other items to collate (SQLite)
        self.applied: dict[str, Applied] = {}  # CROSS / OUTER APPLY aliases (SQLite)
        self.udf_calls = UdfCalls(self)  # scalar UDF calls (udfcall.py)
        self.session_calls: dict[int, str] = {}  # session function values (metafuncs.py)
        # Types worked out per node (spec_of / _kind), each asked once however often the
        # nodes above ask again: without them, typing ``a + b + c …`` doubled its work per
        # term. Keyed by id with the node kept (no id reuse); valid while the sources and
        # the prepared session calls (what a type depends on) stay as they were.
        self._specs: dict[int, tuple[exp.Expression, str | None]] = {}
        self._kinds: dict[int, tuple[exp.Expression, str | None]] = {}
        self._typed_for = (0, 0)
        # Nodes of a long operator chain rewritten ahead of their parent (see rewrite).
        self._rewritten: dict[int, tuple[exp.Expression, exp.Expression]] = {}

    # -- tables ---------------------------------------------------------------------------
    def resolve(self, key: tuple[str, str, str, str]) -> Source:
        """Resolve a table reference (raises Msg 208 / 1087 when it does not exist)."""
        hit = self.resolved.get(key)
        if hit is not None:
            return hit
        source = self._resolve(key)
        self.resolved[key] = source
        return source

    def _resolve(self, key: tuple[str, str, str, str]) -> Source:
        catalog_name, schema, name, kind = key
        conn = self.conn
        if name.startswith(PHYSICAL_MARK):
            info = table_by_physical(conn, name[len(PHYSICAL_MARK):])
            if info is None:
                raise tsql_error(208, name, cls=BindError)
            return self._table_source(info, info.display_name)
        if kind == "@":
            physical = self.ctx.table_variables.get(name.lower())
            info = table_by_physical(conn, physical) if physical else None
            if info is None:
                raise tsql_error(1087, name, cls=BindError)
            return self._table_source(info, name)
        if kind == "#":
            if catalog_name and catalog_name.lower() != "tempdb":
                raise tsql_error(208, written_name(key), cls=BindError)
            physical = self.ctx.temp_tables.get(name.lower())
            info = table_by_physical(conn, physical) if physical else None
            if info is None:
                raise tsql_error(208, written_name(key), cls=BindError)
            return self._table_source(info, name)
        if not catalog_name and not schema and kind == "" \
                and name.lower() in ("inserted", "deleted") \
                and name.lower() in self.ctx.table_variables:
            # A trigger's inserted / deleted rows (table variables the trigger lends).
            info = table_by_physical(conn, self.ctx.table_variables[name.lower()])
            if info is not None:
                return self._table_source(info, name)
        if catalog_name:
            db_id = self.catalog.database_id(conn, catalog_name)
            if db_id is None:
                raise tsql_error(208, written_name(key), cls=BindError)
        else:
            db_id = self.ctx.db_id
        if not (schema and schema.lower() in _SYSTEM_SCHEMAS):
            obj = self.catalog.find_object(conn, db_id, schema or None, name)
            if obj is not None and obj.type == "U" and obj.physical_name:
                return self._table_source(load_table(conn, obj), name)
            if obj is not None and obj.type == "V":
                return self._view_source(obj, db_id, name)
            if obj is not None and obj.type == SYNONYM:
                return self._synonym_source(obj)
        db_row = self.catalog.database(conn, db_id)
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
        if database is None and self.ctx.db_id != obj.database_id:
            db_row = self.catalog.database(self.conn, obj.database_id)
            database = db_row.name if db_row is not None else None
        shown = f"{obj.schema_name}.{obj.name}"
        target = self.catalog.find_object(
            self.conn, self.catalog.database_id(self.conn, database) if database
            else self.ctx.db_id, schema, name)
        if target is not None and target.type == SYNONYM:
            raise tsql_error(5313, shown, cls=BindError)
        try:
            return self._resolve((database or "", schema or "", name, ""))
        except TSqlError as e:
            if e.number == 208:
                raise tsql_error(5313, shown, cls=BindError) from None
            raise

    def _ctx_for(self, db_id: int) -> ExecContext:
        if db_id == self.ctx.db_id:
            return self.ctx
        return ExecContext(self.ctx.conn, self.ctx.txn, db_id, self.ctx.session_id,
                           self.ctx.temp_tables, self.ctx.table_variables,
                           self.ctx.view_depth, max_recursion=self.ctx.max_recursion)

    def _table_source(self, info: TableInfo, name: str) -> Source:
        return Source("table", name, [(c.name, c.spec) for c in info.columns], table=info,
                      signature=("t", info.object_id, info.modify_date, info.backend_schema))

    def _view_source(self, obj: Any, db_id: int, name: str) -> Source:
        if self.ctx.view_depth >= 32:
            raise tsql_error(217)
        inner_ctx = ExecContext(self.ctx.conn, self.ctx.txn, db_id, self.ctx.session_id,
                                self.ctx.temp_tables, self.ctx.table_variables,
                                self.ctx.view_depth + 1, max_recursion=self.ctx.max_recursion)
        select_text = _view_select_text(obj.definition or "")
        inner = Binder(inner_ctx, {})
        compiled = inner.compile_text(select_text, tag="view", keep_tree=True)
        # Values the view's function calls bound (UDFs, USER_NAME() …) travel with its SQL.
        self.binds.update(inner.binds)
        self._extra_sig.extend(inner._extra_sig)
        columns = list(zip(compiled.names, compiled.types, strict=False))
        return Source("view", name, columns, tree=compiled.tree,
                      signature=("view", obj.object_id, obj.modify_date))

    def _virtual_sql(self, vt: VirtualTable) -> str:
        if isinstance(vt.sql, str):
            return vt.sql
        compiled = vt.sql.compile(dialect=_literal_dialect(self.conn.conn.dialect),
                                  compile_kwargs={"literal_binds": True})
        return str(compiled)

    def collect(self, tree: exp.Expression) -> None:
        """Resolve every table reference in ``tree`` (CTE names excepted)."""
        tvf.expand(self, tree)  # inline table-valued functions become derived tables
        pivot.expand(self, tree)  # so do PIVOT and UNPIVOT
        for cte in tree.find_all(exp.CTE):
            self.ctes.add(cte.alias_or_name.lower())
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
            if key[3] == "" and not key[0] and not key[1] and key[2].lower() in self.ctes:
                continue
            source = self.resolve(key)
            alias = node.alias_or_name.lower() if node.alias else default_alias(key)
            self.sources.setdefault(alias, source)
        apply.register(self, tree)
        resolve_sequences(self, tree)
        for sub in tree.find_all(exp.Subquery):
            self._register_derived(sub)
        for values in tree.find_all(exp.Values):
            derived = shapes.values_source(self, values)
            if derived is not None:
                self.sources.setdefault(derived.name.lower(), derived)

    def table_columns(self, node: exp.Table) -> list[tuple[str, str | None]]:
        """The columns (name, type spec) of the table, view or synonym ``node`` names."""
        return list(self.resolve(table_key(node)).columns)

    def depends_on(self, item: Any) -> None:
        """Make the compiled statement depend on ``item`` too (a catalog object's id and
        modification): another value compiles anew."""
        self._extra_sig.append(item)

    def compile_apart(self, tree: exp.Expression, cache_key: Any
                      ) -> tuple[Compiled, dict[str, Any]]:
        """Compile ``tree`` with a binder of its own (same context and variables): the
        compiled statement and the parameter values it binds."""
        inner = Binder(self.ctx, dict(self.params))
        compiled = inner.compile(tree, cache_key)
        return compiled, inner.binds

    def _register_derived(self, sub: exp.Subquery) -> None:
        """A derived table ``(SELECT …) AS x`` in FROM: its columns' types, so that
        ``x.total`` keeps the decimal scale (or type) of the expression it names. A set
        operation's columns are named (and here typed) by its first query."""
        body = sub.this
        while isinstance(body, (exp.Union, exp.Except, exp.Intersect, exp.Subquery)):
            body = body.this
        if not sub.alias or not isinstance(sub.parent, (exp.From, exp.Join)) \
                or not isinstance(body, exp.Select) or sub.alias.lower() in self.sources:
            return
        items = body.expressions
        if any(isinstance(i, exp.Star) or isinstance(i, exp.Column)
               and isinstance(i.this, exp.Star) for i in items):
            return  # star lists are expanded elsewhere; a partial list would mislead that
        alias_node = sub.args.get("alias")
        named = [c.name for c in alias_node.args.get("columns") or []] if alias_node else []
        if named and len(named) != len(items):
            return
        names = named or [i.alias_or_name for i in items]
        columns = [(n, self.spec_of(i)) for n, i in zip(names, items, strict=True)]
        self.sources[sub.alias.lower()] = Source("derived", sub.alias, columns)

    def signature(self) -> tuple[Any, ...]:
        """What the generated SQL depends on besides the text."""
        spec_sig = tuple(sorted((k, v[1]) for k, v in self.params.items()))
        tables = tuple(sorted((repr(k), s.signature) for k, s in self.resolved.items()))
        return (self.conn.store.url, self.ctx.db_id, tables, spec_sig,
                functions_version(self.conn.store), self.ctx.max_recursion,
                tuple(self._extra_sig))

    # -- rewriting ------------------------------------------------------------------------
    def rewrite(self, node: exp.Expression) -> exp.Expression:
        """Rewrite ``node`` (already a private copy) for the backend, bottom-up."""
        done = self._rewritten.pop(id(node), None)
        if done is not None and done[0] is node:
            return done[1]
        if isinstance(node, exp.Binary) and isinstance(node.this, exp.Binary) \
                and id(node.this) not in self._rewritten:
            self._rewrite_chain(node)
        before = self._before(node)
        if before is not None:
            return before
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [self.rewrite(v) if isinstance(v, exp.Expression) else v
                               for v in value])
        return self._after(node)

    def _rewrite_chain(self, top: exp.Binary) -> None:
        """``a + b + c …`` nests each operator in the next one's left operand: rewriting it
        by plain recursion would go as deep as the chain is long. The operators below
        ``top`` are rewritten first, from the innermost out, each kept aside for its
        parent's own rewrite to take — which still sees its original children, so type
        decisions are as before (and, typed in the same order, cost one step each)."""
        chain = _left_chain(top)
        if len(chain) < _CHAIN_MIN:
            return
        for node in reversed(chain[1:]):
            self._rewritten[id(node)] = (node, self.rewrite(node))

    def _before(self, node: exp.Expression) -> exp.Expression | None:
        """Rewrites that must see the original children (type decisions, tables)."""
        if isinstance(node, exp.Table):
            return self._rewrite_table(node)
        if isinstance(node, (exp.Div, exp.Mod)) and self.conn.dialect == "sqlite" \
                and _is_decimal(self.spec_of(node)):
            return self._sqlite_decimal_division(node)
        if isinstance(node, exp.Subquery) and self.conn.dialect == "sqlite":
            _inline_column_aliases(node)
        if self.conn.dialect == "sqlite" and isinstance(node, _QUANT_COMPARISONS) \
                and isinstance(node.expression, (exp.Any, exp.All)):
            self.ctes.add(_QUANT)
            return self.rewrite(_quantified(node))
        if isinstance(node, exp.With) and self.conn.dialect == "postgresql":
            _mark_recursive(node)
        if isinstance(node, exp.Select) and node.args.get("for_") is not None:
            formatted = forxml.rewrite_for(self, node)
            if formatted is not None:
                return self.rewrite(formatted)
        if isinstance(node, exp.Select):
            windowed = shapes.top_window(self, node)
            if windowed is not None:
                return self.rewrite(windowed)
        if isinstance(node, exp.Select) and self.conn.dialect == "sqlite":
            self._note_sqlite_order(node)
            self._note_sqlite_strings(node)
        if isinstance(node, exp.Limit):
            self._check_row_count(node.expression)
        if isinstance(node, exp.Parameter):
            return self.variable(param_name(node))
        if isinstance(node, exp.NextValueFor):
            return sequence_call(self, node)
        if isinstance(node, (exp.Add, exp.Sub)):
            shifted = self._date_arithmetic(node)
            if shifted is not None:
                return shifted
        if isinstance(node, exp.Add) and self.is_concatenation(node):
            left, right = self.rewrite(node.this), self.rewrite(node.expression)
            return exp.DPipe(this=left, expression=right, safe=True)
        if isinstance(node, exp.Anonymous) and node.name.lower() == "datalength" \
                and len(node.expressions) == 1:
            # The byte count depends on the argument's type (varchar 1, nvarchar 2 per char).
            spec = self.spec_of(node.expressions[0])
            return exp.Anonymous(this="tsqlb_datalength", expressions=[
                self.rewrite(node.expressions[0]), exp.Literal.string(spec or "")])
        if isinstance(node, exp.Select) and self.applied:
            apply.expand_stars(self, node)
        if isinstance(node, exp.Join) and isinstance(node.this, exp.Lateral) \
                and self.conn.dialect == "sqlite":
            return apply.sqlite_join_node(self, node)
        if isinstance(node, exp.Values) and self.conn.dialect == "sqlite" \
                and isinstance(node.args.get("alias"), exp.TableAlias) \
                and node.args["alias"].columns:
            return shapes.sqlite_values(self.rewrite_children(node))
        if isinstance(node, exp.Avg):
            averaged = shapes.integer_avg(self, node)
            if averaged is not None:
                return averaged
        if isinstance(node, exp.Sum):
            summed = shapes.integer_sum(self, node)
            if summed is not None:
                return summed
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
            return self._xml_method(forxml.pg_fragment_target(self, node))
        if isinstance(node, exp.Column) and self.applied:
            applied = apply.column_reference(self, node)
            if applied is not None:
                return applied
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            aliased = self._aliased_column(node)
            if aliased is not None:
                return aliased
        if isinstance(node, exp.Column) and (node.args.get("db") or node.args.get("catalog")):
            node.set("db", None)
            node.set("catalog", None)
        if isinstance(node, (exp.Cast, exp.TryCast, exp.Convert)):
            return self._rewrite_cast(node)
        if isinstance(node, _COMPARISONS):
            return self._rewrite_comparison(node)
        if isinstance(node, exp.GroupConcat) and isinstance(node.this, exp.Order) \
                and self.conn.dialect == "sqlite":
            order = node.this
            args = [self.rewrite(order.this), self.rewrite(node.args.get("separator")
                                                           or exp.Literal.string(","))]
            for item in order.expressions:
                args += [self.rewrite(item.this),
                         exp.Literal.number(1 if item.args.get("desc") else 0)]
            return exp.Anonymous(this="tsqlb_string_agg", expressions=args)
        return None

    def _date_arithmetic(self, node: exp.Expression) -> exp.Expression | None:
        """``datetime ± number`` adds days in T-SQL (``GETDATE() - 1`` is yesterday)."""
        left, right = self.spec_of(node.this), self.kind_of(node.expression)
        if left is None or right != "number":
            return None
        if parse_spec(left).name not in ("datetime", "smalldatetime"):
            return None
        days = self.rewrite(node.expression)
        if isinstance(node, exp.Sub):
            days = exp.Neg(this=exp.Paren(this=days))
        fn = "tsql_dateadd" if "dateadd" in self.functions else "tsqlb_dateadd"
        return exp.Anonymous(this=fn, expressions=[exp.Literal.string("day"), days,
                                                   self.rewrite(node.this)])

    def _rewrite_comparison(self, node: exp.Expression) -> exp.Expression | None:
        """Comparing a date/time or uniqueidentifier column with a string: SQL Server
        converts the string to the column's type (data type precedence), so '2024-01-01'
        equals midnight and GUID case does not matter. Convert the string side the same
        way, so that the stored canonical text compares correctly."""
        if isinstance(node, (exp.In, exp.Between)):
            column, others = node.this, (
                list(node.expressions) if isinstance(node, exp.In)
                else [node.args.get("low"), node.args.get("high")])
        else:
            column, others = node.this, [node.expression]
            if not isinstance(column, exp.Column) and isinstance(node.expression, exp.Column):
                column, others = node.expression, [node.this]
        spec = self.column_spec(column) if isinstance(column, exp.Column) else None
        replaced: dict[int, exp.Expression] = {}
        if self.conn.dialect != "sqlite" and (spec is not None and self.is_string(column)):
            # No case-insensitive collation on PostgreSQL: compare folded text instead.
            for operand in (column, *others):
                if operand is not None:
                    replaced[id(operand)] = _folded(self.rewrite(operand))
        elif spec is None or parse_spec(spec).name not in _CANONICAL_TEXT_TYPES or not any(o is not None and self.is_string(o) for o in others):
            return self._compare_strings(node, column, others)
        else:
            for other in others:
                if other is not None and self.is_string(other):
                    replaced[id(other)] = self._cast_to(self.rewrite(other), spec)
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, replaced.get(id(value)) or self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [replaced.get(id(v)) or self.rewrite(v)
                               if isinstance(v, exp.Expression) else v for v in value])
        return node

    def _compare_strings(self, node: exp.Expression, first: exp.Expression,
                         others: list[exp.Expression | None]) -> exp.Expression | None:
        """A comparison of computed strings (``UPPER(w) = 'ABC'``, ``@a = 'x'`` …) with no
        character column to lend its collation: SQL Server still compares them with the
        database's case-insensitive collation. PostgreSQL compares folded text; SQLite gets
        ``COLLATE TSQL_CI``. Left alone unless every operand is evidently a string."""
        operands = [o for o in (first, *others) if o is not None]
        if not operands or not all(self.is_string(o) for o in operands):
            return None
        if self.conn.dialect == "sqlite":
            if any(isinstance(o, exp.Column) for o in operands):
                return None  # a column brings COLLATE TSQL_CI itself
            node.set("this", exp.Collate(this=self.rewrite(node.this),
                                         expression=exp.Var(this=CI_COLLATION)))
            skip = {"this"}
        else:
            skip = set()
        replaced = {id(o): _folded(self.rewrite(o)) for o in operands} if not skip else {}
        for key, value in list(node.args.items()):
            if key in skip:
                continue
            if isinstance(value, exp.Expression):
                node.set(key, replaced.get(id(value)) or self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [replaced.get(id(v)) or self.rewrite(v)
                               if isinstance(v, exp.Expression) else v for v in value])
        return node

    def _cast_to(self, value: exp.Expression, spec: str) -> exp.Expression:
        """``value`` (already rewritten) converted to ``spec``'s storage form."""
        if self.conn.dialect != "sqlite":
            return pg_cast(value, spec)
        return exp.Anonymous(this="tsqlb_cast", expressions=[value, exp.Literal.string(spec)])

    def _rewrite_table(self, node: exp.Table) -> exp.Expression:
        if not node.name and not isinstance(node.this, exp.Parameter):
            return node
        key = table_key(node)
        if key[3] == "" and not key[0] and not key[1] and key[2].lower() in self.ctes:
            return node
        source = self.resolve(key)
        alias_node = node.args.get("alias")
        alias = alias_node.name if alias_node is not None else default_alias(key)
        if source.kind == "table" and source.table is not None:
            schema = source.table.backend_schema
            new = exp.Table(this=exp.Identifier(this=source.table.physical, quoted=True),
                            db=exp.Identifier(this=schema, quoted=True) if schema else None,
                            alias=exp.TableAlias(this=exp.Identifier(this=alias,
                                                                      quoted=True)))
            return new
        inner = source.query(self.dialect)
        return exp.Subquery(this=inner, alias=exp.TableAlias(
            this=exp.Identifier(this=alias, quoted=True)))

    def _rewrite_cast(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Convert):
            target, value, style = node.this, node.expression, node.args.get("style")
        else:
            target, value, style = node.args.get("to"), node.this, None
        spec = datatype_spec(target) if isinstance(target, exp.DataType) else None
        if spec is None:
            return self.rewrite_children(node)
        if _implicit_text_cast(node) and self.is_string(value):
            # sqlglot's own CAST(… AS TEXT) around a string argument of LEFT / RIGHT / LEN:
            # no conversion, so the value keeps its column's case-insensitive collation.
            return self.rewrite(value)
        try_ = isinstance(node, exp.TryCast) or bool(node.args.get("safe"))
        return self.converted(self.rewrite(value), spec, self.spec_of(value),
                              self.rewrite(style) if style is not None else None, try_)

    def converted(self, value: exp.Expression, spec: str, source: str | None,
                  style: exp.Expression | None = None, try_: bool = False) -> exp.Expression:
        """The backend form of ``CAST(value AS spec)`` for an already rewritten ``value``
        of type ``source`` (T-SQL's conversion rules and errors)."""
        fn = "try_convert" if try_ else "convert"
        if fn in self.functions:
            # The interpreter's conversion rules (styles, string forms of dates and
            # numbers): convert(value, target spec, style, source spec or NULL).
            return exp.Anonymous(this=f"tsql_{fn}", expressions=[
                value, exp.Literal.string(spec),
                style if style is not None else exp.Null(),
                exp.Literal.string(source) if source else exp.Null()])
        if self.conn.dialect != "sqlite":
            return pg_cast(value, spec, source, style, try_)
        fn = "tsqlb_try_cast" if try_ else "tsqlb_cast"
        args: list[exp.Expression] = [value, exp.Literal.string(spec)]
        if style is not None and fn == "tsqlb_cast":
            args.append(style)
        return exp.Anonymous(this=fn, expressions=args)

    def rewrite_children(self, node: exp.Expression) -> exp.Expression:
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [self.rewrite(v) if isinstance(v, exp.Expression) else v
                               for v in value])
        return node

    def _xml_method(self, node: exp.Dot) -> exp.Expression:
        udf = self.udf_calls.replacement(node)
        if udf is not None:
            return udf
        method = node.expression
        assert isinstance(method, exp.Anonymous)
        name = f"xml_{method.name.lower()}"
        if name not in self.functions and self.conn.dialect != "sqlite":
            translator = registered_functions(self.conn.store).get("xml_xpath")
            return pg_xml_method(method.name.lower(), self.rewrite(self._xml_target(node)),
                                 list(method.expressions),
                                 translator[1] if translator is not None else None)
        if name not in self.functions:
            raise not_supported(f"The XML method '{method.name}' in a query")
        args = [self.rewrite(self._xml_target(node))] + [self.rewrite(a)
                                                          for a in method.expressions]
        return exp.Anonymous(this=f"tsql_{name}", expressions=args)

    @staticmethod
    def _xml_target(node: exp.Dot) -> exp.Expression:
        """The xml value an xml method is called on (``col.value``, ``t.col.value`` …)."""
        target = node.this
        if isinstance(target, exp.Dot):
            return exp.Column(this=target.expression, table=target.this)
        if isinstance(target, exp.Identifier):
            return exp.Column(this=target)
        return target

    def _after(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Div, exp.Mod)) and self.conn.dialect == "sqlite":
            node.set("expression", _checked_divisor(node.expression))
        if self._ci_items and isinstance(node, (exp.Select, exp.Group, exp.Distinct)):
            self._sqlite_collate_items(node)
        if isinstance(node, exp.National):
            return exp.Literal.string(node.name)
        if isinstance(node, exp.Round) and node.args.get("truncate") is not None \
                and self.conn.dialect != "sqlite":  # SQLite: a 3-argument round (sqlfuncs)
            raise not_supported("ROUND with a third (function) argument in a query on "
                                "PostgreSQL")
        if isinstance(node, exp.HexString):
            # T-SQL pads an odd number of digits on the left (0xABC is 0x0ABC); both
            # backends refuse odd hex.
            digits = str(node.this)
            digits = "0" + digits if len(digits) % 2 else digits
            if self.conn.dialect == "postgresql":
                # PostgreSQL reads X'00FF' as a bit string; T-SQL's 0x00FF is binary (bytea).
                return exp.Cast(this=exp.Literal.string("\\x" + digits),
                                to=exp.DataType.build("bytea", dialect="postgres"))
            return exp.HexString(this=digits)
        if isinstance(node, exp.SessionParameter):
            return self.variable("@@" + node.name.lower())
        built = jsonbuild.json_build(node, self.conn.dialect, self._placeholder_specs)
        if built is not None:
            return built
        return self._function(node)

    def _check_row_count(self, count: exp.Expression | None) -> None:
        """TOP (n) with a constant or variable n: an integer, not negative (Msg 1060 /
        Msg 127), as SQL Server checks it; the backends would take '2' or 1.5 or read -1 as
        no limit at all."""
        while isinstance(count, exp.Paren):
            count = count.this
        negative = isinstance(count, exp.Neg)
        if negative:
            count = count.this
        if isinstance(count, exp.Literal):
            if count.is_string or not count.name.isdigit():
                raise tsql_error(1060, cls=BindError)
            if negative and int(count.name):
                raise tsql_error(127, cls=BindError)
        elif isinstance(count, exp.Parameter) and not negative:
            value, spec = self.params.get(param_name(count), (None, None))
            if spec is not None and spec.split("(")[0] not in _INTEGER_SPECS:
                raise tsql_error(1060, cls=BindError)
            if isinstance(value, int) and value < 0:
                raise tsql_error(127, cls=BindError)

    def variable(self, name: str) -> exp.Placeholder:
        """The bound parameter of variable ``name`` ('@x' / '@@x', lower-case); Msg 137
        when the statement has no such variable."""
        if name not in self.params:
            if name.startswith("@@"):
                raise not_supported(f"{name.upper()} inside a query")
            raise tsql_error(137, name, cls=BindError)
        value, spec = self.params[name]
        key = "v_" + re.sub(r"\W", "_", name.lstrip("@")) + ("_s" if name.startswith(
            "@@") else "")
        return self.bind(key, backend_value(to_storage(value, spec, self.conn.dialect)), spec)

    def bind(self, key: str, value: Any, spec: str | None) -> exp.Placeholder:
        """Bind backend ``value`` (of type ``spec``) as parameter ``key``."""
        self.binds[key] = value
        self._placeholder_specs[key] = spec
        return exp.Placeholder(this=key)

    def _function(self, node: exp.Expression) -> exp.Expression:
        session_fn = session_call(self, node)
        if session_fn is not None:
            return session_fn
        if isinstance(node, exp.Anonymous):
            low = node.name.lower()
            args = list(node.expressions)
            if low in DATEPART_FIRST and args and isinstance(args[0], exp.Column) \
                    and not args[0].table:
                args[0] = exp.Literal.string(args[0].name)
            if low in self.functions:
                return exp.Anonymous(this=f"tsql_{low}", expressions=args)
            if self.conn.dialect != "sqlite" and low in PG_FALLBACK:
                return exp.Anonymous(this=PG_FALLBACK[low], expressions=args)
            node.set("expressions", args)
            return self._anonymous(node, low)
        if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like) \
                and "like" in self.functions:
            like = node.this
            call = exp.Anonymous(this="tsql_like", expressions=[
                like.this, like.expression, node.expression])
            return exp.Not(this=call) if like.args.get("negate") else call
        if self.conn.dialect != "sqlite" and isinstance(node, (exp.Like, exp.Escape)):
            return self._pg_like(node)
        if isinstance(node, exp.Ordered):
            if self.conn.dialect == "sqlite":
                return self._sqlite_order_item(node)
            return self._pg_order_item(node)
        mapped = typed_call(node)
        if mapped is None:
            return node
        name, args = mapped
        if name in self.functions:
            call = exp.Anonymous(this=f"tsql_{name}", expressions=args)
            if isinstance(node, exp.Like) and node.args.get("negate"):
                return exp.Not(this=call)
            return call
        builtin = BUILTIN_FALLBACK.get(name)
        if builtin is None and self.conn.dialect != "sqlite":
            if name in PG_UNSUPPORTED:
                raise not_supported(f"{name.upper()} inside a query on PostgreSQL")
            builtin = PG_FALLBACK.get(name)
        if builtin is None:
            if isinstance(node, exp.ObjectId):
                return self._object_id(node.this)
            return node
        if name in ("year", "month", "day"):
            args = [exp.Literal.string(name), *args]
        return exp.Anonymous(this=builtin, expressions=args)

    def _pg_like(self, node: exp.Like | exp.Escape) -> exp.Expression:
        """LIKE on PostgreSQL: ``tsqlb_like`` (T-SQL patterns with ``[…]``, case-insensitive,
        and usable on ``tsqlb_ci`` columns, where PostgreSQL 15 refuses LIKE)."""
        if isinstance(node, exp.Like) and isinstance(node.parent, exp.Escape):
            return node  # the ESCAPE around it makes the call
        like, escape = (node.this, node.expression) if isinstance(node, exp.Escape) \
            else (node, None)
        if not isinstance(like, exp.Like):
            return node
        args = [like.this, like.expression] + ([escape] if escape is not None else [])
        call: exp.Expression = exp.Anonymous(this="tsqlb_like", expressions=args)
        return exp.Not(this=call) if like.args.get("negate") else call

    def _note_sqlite_strings(self, select: exp.Select) -> None:
        """Before rewriting a SELECT on SQLite: which select-list items, GROUP BY items and
        DISTINCT aggregate arguments are computed strings (``LEFT(w, 1)``, ``a + b``). SQLite
        gives a function's result no collation, so DISTINCT, GROUP BY and UNION would tell
        'a' from 'A'; SQL Server keeps the case-insensitive collation."""
        def computed(e: exp.Expression) -> bool:
            return not isinstance(e, (exp.Column, exp.Literal, exp.Star, exp.Collate)) \
                and self.kind_of(e) == "string"

        for i, proj in enumerate(select.expressions):
            inner = proj.this if isinstance(proj, exp.Alias) else proj
            if computed(inner):
                self._ci_items.add((id(select), "expressions", i))
        group = select.args.get("group")
        for i, item in enumerate(group.expressions if group is not None else []):
            if computed(item):
                self._ci_items.add((id(group), "expressions", i))
        for distinct in select.find_all(exp.Distinct):
            if isinstance(distinct.parent, exp.AggFunc):
                for i, item in enumerate(distinct.expressions):
                    if computed(item):
                        self._ci_items.add((id(distinct), "expressions", i))

    def _sqlite_collate_items(self, node: exp.Expression) -> None:
        """After rewriting: ``COLLATE TSQL_CI`` on the items :meth:`_note_sqlite_strings`
        chose."""
        items = node.args.get("expressions") or []
        for i, item in enumerate(items):
            if (id(node), "expressions", i) not in self._ci_items:
                continue
            target = item.this if isinstance(item, exp.Alias) else item
            wrapped = exp.Collate(this=target, expression=exp.Var(this=CI_COLLATION))
            if isinstance(item, exp.Alias):
                item.set("this", wrapped)
            else:
                items[i] = wrapped
        node.set("expressions", items)

    def _note_sqlite_order(self, select: exp.Select) -> None:
        """Before rewriting a SELECT on SQLite: which ORDER BY items sort a computed string
        (``UPPER(w)``, a select-list alias of one) — they get ``COLLATE TSQL_CI``, as SQL
        Server keeps the collation through string functions where SQLite would compare the
        result byte by byte. Columns are declared with it already."""
        order = select.args.get("order")
        for ordered in order.expressions if order is not None else []:
            item = ordered.this
            source: exp.Expression | None = item
            if isinstance(item, (exp.Collate, exp.Literal)):
                continue
            if isinstance(item, exp.Column):
                source = next((p.this for p in select.expressions if isinstance(p, exp.Alias)
                               and p.alias.lower() == item.name.lower()), None) \
                    if not item.table else None
                if source is None or isinstance(source, exp.Column):
                    continue
            if self.kind_of(source) == "string":
                self._ci_order.add(id(ordered))

    def _sqlite_order_item(self, node: exp.Ordered) -> exp.Expression:
        if id(node) in self._ci_order:
            node.set("this", exp.Collate(this=node.this, expression=exp.Var(this=CI_COLLATION)))
        return node

    def _pg_order_item(self, node: exp.Ordered) -> exp.Expression:
        """ORDER BY a character column on PostgreSQL sorts by ``rtrim(column)``: the
        column's ``tsqlb_ci`` collation ignores case, SQL Server also ignores trailing spaces.
        Left alone where ORDER BY may only name select-list items (DISTINCT, UNION) and
        for names of select-list aliases."""
        column = node.this
        select = node.parent.parent if isinstance(node.parent, exp.Order) else None
        if not isinstance(column, exp.Column) or not isinstance(select, exp.Select) \
                or select.args.get("distinct") is not None:
            return node
        if not column.table and any(isinstance(p, exp.Alias) and p.alias.lower()
                                    == column.name.lower() for p in select.expressions):
            return node
        spec = self.column_spec(column)
        if spec is None or parse_spec(spec).name not in STRING_TYPES:
            return node
        node.set("this", exp.Anonymous(this="rtrim", expressions=[column]))
        return node

    def _anonymous(self, node: exp.Anonymous, low: str) -> exp.Expression:
        args = node.expressions
        if low in ("getutcdate", "sysutcdatetime"):
            return exp.Anonymous(this="tsqlb_getutcdate", expressions=[])
        if low in ("sysdatetime", "sysdatetimeoffset"):
            return exp.Anonymous(this="tsqlb_getdate", expressions=[])
        if low == "db_id":
            if not args:
                return exp.Literal.number(self.ctx.db_id)
            return self._database_lookup("database_id", "name_key", exp.Lower(this=args[0]))
        if low == "db_name":
            if not args:
                name = self.catalog.database(self.conn, self.ctx.db_id)
                return exp.Literal.string(name.name if name else "")
            return self._database_lookup("name", "database_id", args[0])
        if low == "choose" and len(args) >= 2:
            return exp.Case(this=args[0], ifs=[
                exp.If(this=exp.Literal.number(i), true=a) for i, a in enumerate(args[1:], 1)])
        if low in ("scope_identity", "ident_current"):
            return self._placeholder_or_unsupported("scope_identity()", node)
        if low in ("error_number", "error_message", "error_severity", "error_state",
                   "error_line", "error_procedure", "newsequentialid"):
            raise not_supported(f"{low.upper()}() inside a query")
        return node

    def _database_lookup(self, column: str, key: str, value: exp.Expression
                         ) -> exp.Expression:
        """``(SELECT column FROM databases WHERE key = value)`` with the catalog's columns
        renamed in a derived table, so that a column of the outer query in ``value``
        (``DB_NAME(database_id)`` over sys.dm_exec_sessions) is not captured by the
        catalog table's column of the same name."""
        d = self.catalog.t.databases
        inner = sqlglot.select(exp.alias_(exp.column(column), "tsqlb_d_value"),
                               exp.alias_(exp.column(key), "tsqlb_d_key")).from_(
            exp.Table(this=exp.Identifier(this=d.name, quoted=True)))
        return exp.Subquery(this=sqlglot.select(exp.column("tsqlb_d_value")).from_(
            exp.alias_(inner.subquery(), "tsqlb_d", table=True)).where(
            exp.EQ(this=exp.column("tsqlb_d_key"), expression=value)))

    def _placeholder_or_unsupported(self, name: str, node: exp.Expression) -> exp.Expression:
        if name in self.params:
            return self.variable(name)
        raise not_supported(f"{node.sql('tsql')} inside a query")

    def _object_id(self, arg: exp.Expression) -> exp.Expression:
        if not isinstance(arg, (exp.Literal, exp.National)) or not arg.is_string \
                and not isinstance(arg, exp.National):
            raise not_supported("OBJECT_ID with a non-constant argument inside a query")
        oid = object_id_of(self.ctx, arg.name)
        self._extra_sig.append(("object_id", arg.name, oid))
        return exp.Null() if oid is None else exp.Literal.number(oid)

    # -- typing ---------------------------------------------------------------------------
    def spec_of(self, node: exp.Expression | None) -> str | None:
        """The type spec of an expression when it is evident (column, cast, parameter …)."""
        if node is None:
            return None
        return self._typed(self._specs, node, self._spec_of)

    def _typed(self, table: dict[int, tuple[exp.Expression, str | None]],
               node: exp.Expression, work: Callable[[exp.Expression], str | None]
               ) -> str | None:
        """``work(node)``, remembered in ``table`` (forgotten once what types depend on
        has grown)."""
        now = (len(self.sources), len(self.session_calls))
        if now != self._typed_for:
            self._specs.clear()
            self._kinds.clear()
            self._typed_for = now
        hit = table.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        self._type_chain(node)
        found = work(node)
        table[id(node)] = (node, found)
        return found

    def _type_chain(self, node: exp.Expression) -> None:
        """Type the operators of a long chain below ``node`` from the innermost out, so
        that typing ``node`` (which asks its left operand, which asks its own …) never
        recurses deeper than one step."""
        if not isinstance(node, exp.Binary) or not isinstance(node.this, exp.Binary) \
                or id(node.this) in self._specs:
            return
        chain = _left_chain(node)
        if len(chain) < _CHAIN_MIN:
            return
        for inner in reversed(chain[1:]):
            self.spec_of(inner)
            self.kind_of(inner)

    def _spec_of(self, node: exp.Expression) -> str | None:
        if isinstance(node, exp.Paren):
            return self.spec_of(node.this)
        called = udf_call_spec(self, node) or session_call_spec(self, node)
        if called is not None:
            return called
        if isinstance(node, exp.Alias):
            return self.spec_of(node.this)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) \
                and node.this.args.get("for_") is not None:
            return forxml.result_spec(node.this)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) \
                and len(node.this.expressions) == 1:
            return self.spec_of(node.this.expressions[0])  # a scalar subquery
        if isinstance(node, exp.National):
            return f"nvarchar({max(len(node.name), 1)})"
        if isinstance(node, exp.NextValueFor):
            return sequence_spec(self, node)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return f"varchar({max(len(node.name), 1)})"
            return "int" if re.fullmatch(r"\d+", node.name) and int(node.name) < 2**31 \
                else None
        if isinstance(node, exp.Column):
            return self.column_spec(node)
        if isinstance(node, exp.Parameter):
            entry = self.params.get(param_name(node))
            return entry[1] if entry else None
        if isinstance(node, exp.Placeholder):
            return self._placeholder_specs.get(node.name)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            to = node.args.get("to")
            return datatype_spec(to) if isinstance(to, exp.DataType) else None
        if isinstance(node, exp.Convert):
            return datatype_spec(node.this) if isinstance(node.this, exp.DataType) else None
        if isinstance(node, exp.CurrentTimestamp):
            return "datetime"
        if isinstance(node, exp.LastDay):
            return "date"
        if isinstance(node, exp.Uuid):
            return "uniqueidentifier"
        if isinstance(node, (exp.Count, exp.DateDiff, exp.Extract, exp.Year, exp.Month,
                             exp.Day, exp.ObjectId)):
            return "int"
        if isinstance(node, exp.DateAdd):
            spec = self.spec_of(node.this)
            return spec if spec in ("date", "datetime2", "smalldatetime") else "datetime"
        if isinstance(node, (exp.Length, exp.StrPosition)):
            return "int"
        if isinstance(node, exp.Anonymous):
            low = node.name.lower()
            if low in ("getutcdate", "sysdatetime", "sysutcdatetime"):
                return "datetime2" if low.startswith("sys") else "datetime"
            if low in ("datalength", "db_id"):
                return "int"
            if low == "db_name":
                return "nvarchar(128)"
        if isinstance(node, (exp.Upper, exp.Lower, exp.Substring, exp.Left, exp.Right,
                             exp.Replace, exp.Trim, exp.DPipe, exp.Concat)):
            return self._string_result(node)
        if isinstance(node, exp.Coalesce):
            return self.spec_of(node.this)
        if isinstance(node, (exp.Max, exp.Min)):
            return self.spec_of(node.this)
        if isinstance(node, (exp.Sum, exp.Avg)):
            return shapes.aggregate_result_spec(self, node)
        if isinstance(node, exp.Window) and isinstance(node.this, (exp.Sum, exp.Avg)):
            return shapes.aggregate_result_spec(self, node.this)
        if isinstance(node, (exp.Add, exp.Sub)):
            left = self.spec_of(node.this)
            if left in ("datetime", "smalldatetime") and self.kind_of(node.expression) == "number":
                return left
        if isinstance(node, exp.Add) and self.is_string(node):
            return self._string_result(node)
        if isinstance(node, exp.Case):
            ifs = node.args.get("ifs") or []
            return self.spec_of(ifs[0].args.get("true")) if ifs else None
        if isinstance(node, (exp.Floor, exp.Ceil, exp.Round)):
            return self._rounding_spec(node)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            op = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}.get(type(node), "%")
            left, right = self._operand_spec(node.this), self._operand_spec(node.expression)
            # An integer constant next to a decimal is decimal(digits,0), not decimal(10,0).
            if isinstance(left, tuple):
                left = left[1] if _is_decimal(right) else "int"
            if isinstance(right, tuple):
                right = right[1] if _is_decimal(left) else "int"
            return arithmetic_spec(op, left, right)
        return None

    def _operand_spec(self, node: exp.Expression) -> str | tuple[str, str] | None:
        """spec_of, with numeric constants typed as SQL Server types them (2.50 is
        decimal(3,2)); an integer constant is ("int", its decimal(digits,0))."""
        inner = node.this if isinstance(node, (exp.Neg, exp.Paren)) else node
        if isinstance(inner, exp.Literal) and not inner.is_string:
            spec = literal_spec(inner.name, False)
            if spec == "int":
                return "int", f"decimal({len(inner.name.lstrip('0')) or 1},0)"
            return spec
        return self.spec_of(node)

    def _sqlite_decimal_division(self, node: exp.Div | exp.Mod) -> exp.Expression:
        """Decimal ``/`` and ``%`` on SQLite: a decimal holding a whole number is stored as
        an integer there, and SQLite would divide (7 / 3.00 gave 2) or take the remainder
        (2.50 % 2 gave 0) in integers."""
        left = self.rewrite(node.this)
        right = _checked_divisor(self.rewrite(node.expression))
        real = exp.DataType.build("REAL")
        if isinstance(node, exp.Div):
            return exp.Div(this=exp.Cast(this=left, to=real), expression=right)
        return exp.Anonymous(this="mod", expressions=[exp.Cast(this=left, to=real), right])

    def _rounding_spec(self, node: exp.Expression) -> str | None:
        """FLOOR / CEILING give decimal(p,0) for a decimal, ROUND keeps its argument's
        scale (one more digit for the carry), both keep int and float as they are — so
        ``FLOOR(-2.1)`` is -3 and ``ROUND(2.5, 0)`` 3.0 on both backends."""
        arg = node.this
        inner = arg.this if isinstance(arg, exp.Neg) else arg
        if isinstance(inner, exp.Literal) and not inner.is_string:
            spec = literal_spec(inner.name, False)
        else:
            spec = self.spec_of(arg)
        if spec is None:
            return None
        m = re.fullmatch(r"(?:decimal|numeric)\((\d+),\s*(\d+)\)", spec)
        if m is None:
            return spec if spec in ("int", "bigint", "smallint", "tinyint", "float",
                                    "real", "money") else None
        p, sc = int(m.group(1)), int(m.group(2))
        if isinstance(node, exp.Round):
            return f"decimal({min(p + 1, 38)},{sc})"
        return f"decimal({min(p - sc + 1, 38)},0)"

    def _string_result(self, node: exp.Expression) -> str:
        """varchar(max) or nvarchar(max) for a string function or concatenation: nvarchar
        when an operand is unicode (data type precedence), as SQL Server types it — so a
        conversion error names the right type."""
        if isinstance(node, (exp.Concat, exp.Add, exp.DPipe)):
            operands = list(node.expressions) if isinstance(node, exp.Concat) \
                else [node.this, node.expression]
        else:
            operands = [node.this]
        for operand in operands:
            spec = self.spec_of(operand)
            if spec is None and not isinstance(operand, exp.Literal):
                return "nvarchar(max)"  # unknown: the widest
            if spec is not None and spec.split("(")[0] in ("nchar", "nvarchar", "ntext",
                                                           "sysname", "xml"):
                return "nvarchar(max)"
        return "varchar(max)"

    def is_concatenation(self, node: exp.Add) -> bool:
        """T-SQL ``+`` concatenates when both sides are strings, or one is a string and the
        other is not evidently numeric (int + '1' is arithmetic, as data type precedence
        converts the string)."""
        left, right = self.kind_of(node.this), self.kind_of(node.expression)
        if left == "string" and right == "string":
            return True
        return (left == "string" and right != "number") or (
            right == "string" and left != "number")

    def kind_of(self, node: exp.Expression | None) -> str | None:
        """'string', 'number' or None (not evident) for an expression."""
        if node is None:
            return None
        return self._typed(self._kinds, node, self._kind_of)

    def _kind_of(self, node: exp.Expression) -> str | None:
        if isinstance(node, exp.Paren):
            return self.kind_of(node.this)
        if isinstance(node, exp.Add):
            return "string" if self.is_concatenation(node) else self.kind_of(node.this)
        spec = self.spec_of(node)
        if spec is None:
            return None
        try:
            t = parse_spec(spec)
        except TSqlError:
            return None
        if t.name in STRING_TYPES or t.name == "xml":
            return "string"
        return "number" if t.is_numeric else None

    def is_string(self, node: exp.Expression | None) -> bool:
        """Whether an expression is evidently a character string (for ``+``)."""
        return self.kind_of(node) == "string"

    def _aliased_column(self, node: exp.Column) -> exp.Expression | None:
        """A virtual table's other name for a column (a queue's ``service_instance_id``):
        the real column, keeping the written name as the output name in a select list."""
        name = node.name.lower()
        table = node.table.lower() if node.table else ""
        sources = [self.sources.get(table)] if table else list(self.sources.values())
        for source in sources:
            vt = source.virtual if source is not None else None
            if vt is None or name not in vt.column_aliases or source.has_column(name):
                continue
            column = exp.Column(this=exp.to_identifier(vt.column_aliases[name]),
                                table=node.args.get("table"))
            if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
                return exp.alias_(column, node.name, quoted=True)
            return column
        return None

    def column_spec(self, node: exp.Column) -> str | None:
        name = node.name
        table = node.table.lower() if node.table else ""
        if table:
            source = self.sources.get(table)
            return _source_spec(source, name) if source else None
        for source in self.sources.values():
            spec = _source_spec(source, name)
            if spec is not None:
                return spec
        return None

    # -- generation -----------------------------------------------------------------------
    def compile_text(self, sql: str, tag: str = "", *, keep_tree: bool = False) -> Compiled:
        """Parse, bind and generate a SELECT given as T-SQL text."""
        parsed = parse_statement(sql)
        return self.compile(parsed.tree, (sql, tag), keep_tree=keep_tree)

    def compile(self, tree: exp.Expression, cache_key: Any, *, keep_tree: bool = False
                ) -> Compiled:
        """Bind and generate ``tree`` (a private copy), cached per key and resolution;
        ``keep_tree``: the result keeps the rewritten tree too (a view's, which goes into
        the trees of the statements reading it)."""
        self.collect(tree)
        self.ctes.update(recursion.bound_recursive_ctes(
            tree, self.ctx.max_recursion, lambda select: self.describe(select)[0]))
        # Values decided before the statement runs (session functions, UDF calls) are bound
        # parameters, so they are prepared on cache hits too.
        prepare_session_calls(self, tree, cache_key[0] if isinstance(cache_key, tuple)
                          and isinstance(cache_key[0], str) else "")
        self.udf_calls.prepare(tree)
        key = (cache_key, self.signature())
        with _compile_lock:
            hit = _compile_cache.get(key)
        if hit is not None:
            stats["compile_hits"] += 1
            # Parameters still need binding for this execution.
            self._bind_only(hit)
            return hit
        stats["compile_misses"] += 1
        names, types = self.describe(tree)
        out = self.rewrite(tree)
        if self.conn.dialect != "sqlite":
            # Backend names are lower-case there (naming.column_name): fold every name.
            for ident in out.find_all(exp.Identifier):
                ident.set("this", ident.name.lower())
                ident.set("quoted", True)
        compiled = Compiled(generate(out, self.conn.dialect), names, types,
                            tuple(sorted(self.binds_used(out))), out if keep_tree else None)
        with _compile_lock:
            _compile_cache[key] = compiled
            while len(_compile_cache) > _COMPILE_CACHE_SIZE:
                _compile_cache.popitem(last=False)
        return compiled

    def _bind_only(self, compiled: Compiled) -> None:
        for key, name in compiled.param_keys:
            value, spec = self.params[name]
            self.binds[key] = backend_value(to_storage(value, spec, self.conn.dialect))

    def binds_used(self, tree: exp.Expression) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        reverse = {("v_" + re.sub(r"\W", "_", n.lstrip("@")) + ("_s" if n.startswith("@@")
                                                                 else "")): n
                   for n in self.params}
        for ph in tree.find_all(exp.Placeholder):
            if ph.name in reverse:
                out.append((ph.name, reverse[ph.name]))
        return list(dict.fromkeys(out))

    def describe(self, tree: exp.Expression) -> tuple[list[str] | None, list[str | None]]:
        """Output column names (None when the backend's names must be used) and specs of
        a query, from the original tree."""
        select = tree
        while isinstance(select, (exp.Subquery, exp.Paren)):
            select = select.this
        if isinstance(select, exp.SetOperation):
            select = select.left
            while isinstance(select, exp.SetOperation):
                select = select.left
        if not isinstance(select, exp.Select):
            return None, []
        names: list[str] = []
        types: list[str | None] = []
        for proj in select.expressions:
            if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column)
                                               and isinstance(proj.this, exp.Star)):
                table = proj.table.lower() if isinstance(proj, exp.Column) else ""
                expanded = self._expand_star(select, table)
                if expanded is None:
                    return None, []
                for n, s in expanded:
                    names.append(n)
                    types.append(s)
                continue
            names.append(projection_name(proj))
            types.append(self.spec_of(proj))
        return names, types

    def _expand_star(self, select: exp.Select, table: str) -> list[tuple[str, str | None]] | None:
        order: list[str] = []
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None:
            order.append(source_alias(from_.this))
        for join in select.args.get("joins") or []:
            order.append(source_alias(join.this))
        out: list[tuple[str, str | None]] = []
        for alias in order:
            if table and alias != table:
                continue
            source = self.sources.get(alias)
            if source is None:
                return None
            out.extend(source.columns)
        return out or None


_compile_cache: OrderedDict[Any, Compiled] = OrderedDict()
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


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between)
# Operator chains at least this long are typed and rewritten from the innermost operator
# out rather than by recursion (shorter ones recurse: that is cheaper).
_CHAIN_MIN = 16


def _left_chain(top: exp.Expression) -> list[exp.Expression]:
    """``top`` and the binary operators nested in each one's left operand, outermost first."""
    chain = [top]
    node = top.this
    while isinstance(node, exp.Binary):
        chain.append(node)
        node = node.this
    return chain
# Types stored as canonical text whose comparisons with strings need a conversion first.
_CANONICAL_TEXT_TYPES = {"date", "time", "datetime", "datetime2", "smalldatetime",
                         "datetimeoffset", "uniqueidentifier"}


def _source_spec(source: Source, name: str) -> str | None:
    """The type spec of column ``name`` of ``source``, also under a virtual table's alias."""
    if source.has_column(name):
        return source.spec_of(name)
    vt = source.virtual
    if vt is not None and name.lower() in vt.column_aliases:
        return source.spec_of(vt.column_aliases[name.lower()])
    return None


def _implicit_text_cast(node: exp.Expression) -> bool:
    """Whether ``node`` is the CAST to TEXT sqlglot wraps around the string argument of
    LEFT / RIGHT / LEN (T-SQL's ``text`` type is not what the user wrote there)."""
    to = node.args.get("to")
    return (isinstance(node, exp.Cast) and isinstance(to, exp.DataType)
            and to.this == exp.DataType.Type.TEXT and not to.expressions
            and isinstance(node.parent, (exp.Left, exp.Right, exp.Length))
            and node.arg_key == "this")


def _folded(node: exp.Expression) -> exp.Expression:
    """``lower(rtrim(x))``: SQL Server's default comparison (case and trailing spaces
    ignored) where the backend has no such collation."""
    return exp.Lower(this=exp.Anonymous(this="rtrim", expressions=[
        exp.Cast(this=node, to=exp.DataType.build("text"))]))


def _view_select_text(definition: str) -> str:
    m = re.search(r"\bAS\b", definition, re.IGNORECASE)
    parsed = parse_statement(definition)
    tree = parsed.tree
    if isinstance(tree, exp.Create) and tree.expression is not None:
        return tree.expression.sql("tsql")
    return definition[m.end():] if m else definition


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


def quoted(name: str) -> str:
    """Quote a backend identifier."""
    return quote_ident(name)


def clear_caches() -> None:
    """Forget parsed and generated statements (tests)."""
    clear_parse_cache()
    with _compile_lock:
        _compile_cache.clear()


def _mark_recursive(node: exp.With) -> None:
    """T-SQL writes a recursive CTE without RECURSIVE; PostgreSQL needs ``WITH RECURSIVE``
    as soon as one CTE of the list reads itself (the keyword changes nothing for the others)."""
    for cte in node.expressions:
        name = cte.alias_or_name.lower()
        if any(not t.args.get("db") and not t.args.get("catalog") and t.name.lower() == name
               for t in cte.this.find_all(exp.Table)):
            node.set("recursive", True)
            return


_INTEGER_SPECS = frozenset({"bigint", "int", "smallint", "tinyint", "bit"})


def _is_decimal(spec: object) -> bool:
    return isinstance(spec, str) and spec.split("(")[0].strip().lower() in ("decimal", "numeric")


def _checked_divisor(node: exp.Expression) -> exp.Expression:
    """SQLite divides by zero into NULL: a divisor that is not a non-zero constant goes
    through ``tsqlb_divisor``, which raises Msg 8134 as SQL Server does."""
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            if float(node.name) != 0:
                return node
        except ValueError:
            pass
    return exp.Anonymous(this="tsqlb_divisor", expressions=[node])


def _inline_column_aliases(sub: exp.Subquery) -> None:
    """SQLite has no ``(SELECT …) AS y (c, a)``: the names move onto the select items."""
    alias = sub.args.get("alias")
    names = alias.args.get("columns") if alias is not None else None
    body = sub.this
    if not names or not isinstance(body, exp.Select) or len(names) != len(body.expressions) \
            or any(isinstance(i, exp.Star) for i in body.expressions):
        return
    body.set("expressions", [exp.alias_(i.this if isinstance(i, exp.Alias) else i, n.name,
                                        quoted=True)
                             for i, n in zip(body.expressions, names, strict=True)])
    alias.set("columns", None)


_QUANT_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_QUANT = "tsqlb_q"


def _quantified(node: exp.Expression) -> exp.Expression:
    """SQLite has no ``x op ANY / SOME / ALL (subquery)``: ANY is EXISTS over the rows
    where ``x op value`` holds; ALL is NOT EXISTS over the rows where it does not hold
    (false or unknown), so an empty subquery makes ALL true, as in SQL Server."""
    quant = node.expression
    body = quant.this.this if isinstance(quant.this, exp.Subquery) else quant.this
    value = exp.column("v", table=_QUANT, quoted=True)
    compare = type(node)(this=node.this.copy(), expression=value)
    cte = exp.CTE(this=body.copy(), alias=exp.TableAlias(
        this=exp.to_identifier(_QUANT), columns=[exp.to_identifier("v", quoted=True)]))
    if isinstance(quant, exp.Any):
        cond: exp.Expression = compare
    else:
        cond = exp.or_(exp.Not(this=exp.Paren(this=compare)), exp.Is(
            this=value.copy(), expression=exp.Null()), exp.Is(
            this=node.this.copy(), expression=exp.Null()))
    probe = exp.select("1").from_(_QUANT).where(cond)
    probe.set("with_", exp.With(expressions=[cte]))
    found = exp.Exists(this=probe)
    return found if isinstance(quant, exp.Any) else exp.Not(this=found)
