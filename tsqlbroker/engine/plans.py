"""Compiled plans: repeated execution of the same INSERT … VALUES text without sqlglot work.

A T-SQL loop that runs ``INSERT INTO t (a, b) VALUES (@i, 'x')`` ten thousand times would
otherwise parse (copy) the statement, resolve ``t`` in the catalog and build the row writer's
SQL every time. The first execution records a *shape* per statement text (syntactic: target
name, column list, each VALUES item as a constant or a variable name) and a *plan* per
(text, database, temp-table / table-variable binding, catalog version): the resolved
:class:`~tsqlbroker.engine.tableinfo.TableInfo` and the row writer's compiled DEFAULT and CHECK
queries. A hit costs one read of the catalog version and no sqlglot work, catalog query or
tree copy; rows still go through :class:`~tsqlbroker.engine.writer.RowWriter`, so conversion,
constraints (515, 2627, 547 …), IDENTITY and SET IDENTITY_INSERT behave exactly as before.

Queries (SELECT, also ``SELECT @v = …``) and UPDATE / DELETE without OUTPUT get a plan too
once they have run: the generated
backend SQL, which variables it binds, the result columns' names and type specs (the readers
that convert stored values back) and the assignment targets — for texts whose tables are user
tables or views (catalog views and broker queues are resolved anew each time) and that use no
``OBJECT_ID('…')`` constant. Their key adds the variables' type specs and the registered
functions' version, on which the generated SQL depends.

Invalidation reuses the catalog's version token (``Catalog.version``): every catalog write
(CREATE / ALTER / DROP of tables, temp tables, table variables …) stores a fresh random token
in its own transaction, so another session or process that changes the catalog changes the
key, a rolled-back change restores the old key, and a plan never outlives its tables.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ..errors import BindError, tsql_error
from ..storage.function_registry import functions_version
from ..storage.store import Store
from ..storage.stored_values import backend_value, to_storage
from ..values.variant_props import variant_spec_key
from .catalog import Catalog
from .context import ExecContext, Params
from .execsql import BackendSql
from .parsing import Parsed
from .shapes import constant_spec
from .tableinfo import TableInfo
from .transpiler.scope import Source, table_key

_MAX_SHAPES = 2048
_MAX_PLANS = 4096
# One VALUES item: (False, (constant, its type spec)) or (True, '@name' lower-case).
Item = tuple[bool, Any]


@dataclass(frozen=True)
class InsertShape:
    """The syntax of an ``INSERT [INTO] target [(cols)] VALUES (…)[, (…)]`` statement whose
    items are all constants or variables (what needs no backend evaluation)."""

    target: exp.Table
    key: tuple[str, str, str, str]
    columns: list[str] | None
    rows: tuple[tuple[Item, ...], ...]

    def binding(self, ctx: ExecContext) -> str | None:
        """The physical table a ``#temp`` / ``@table`` name means in this context (part of
        the plan key: two sessions' ``#t`` are different tables)."""
        kind, name = self.key[3], self.key[2].lower()
        if kind == "#":
            return ctx.temp_tables.get(name)
        if kind == "@":
            return ctx.table_variables.get(name)
        return None

    def values(self, params: Params) -> list[tuple[Any, ...]]:
        """The rows with the variables' current values (Msg 137 for an undeclared one)."""
        return [tuple(v for v, _s in row) for row in self._typed(params)]

    def typed_values(self, params: Params
                     ) -> tuple[list[tuple[Any, ...]], list[tuple[str | None, ...]]]:
        """The rows as :meth:`values` gives them, and each value's type spec (a variable's
        declared type, a constant's: :func:`constant_spec`)."""
        typed = self._typed(params)
        return ([tuple(v for v, _s in row) for row in typed],
                [tuple(s for _v, s in row) for row in typed])

    def _typed(self, params: Params) -> list[list[tuple[Any, str | None]]]:
        lowered: dict[str, Any] | None = None
        rows = []
        for row in self.rows:
            out: list[tuple[Any, str | None]] = []
            for is_var, item in row:
                if not is_var:
                    out.append(item)
                    continue
                entry = params.get(item)
                if entry is None:
                    if lowered is None:
                        lowered = {k.lower(): v for k, v in params.items()}
                    entry = lowered.get(item)
                    if entry is None:
                        raise tsql_error(137, item, cls=BindError)
                out.append((entry[0], entry[1]))
            rows.append(out)
        return rows


@dataclass
class InsertPlan:
    """A resolved INSERT shape: the target table and the writer's compiled side queries."""

    shape: InsertShape
    info: TableInfo
    # May run without a statement savepoint: one row on SQLite into a table with no
    # IDENTITY and no CHECK constraint, so the only write is one backend INSERT, which the
    # backend applies whole or not at all; every other failure happens before it.
    single_write: bool
    defaults: dict[str, BackendSql] = field(default_factory=dict)
    checks: dict[int, BackendSql] = field(default_factory=dict)


# SELECT @s = @s + expr …: item index -> whether it concatenates, or for
# ``ISNULL(@s + sep, start) + expr`` the (separator, start) strings (engine/query.py).
Folds = dict[int, "bool | tuple[str, str]"]


@dataclass(frozen=True)
class QueryPlan:
    """A compiled query: backend SQL, its binders and the readers of its result."""

    sql: BackendSql
    param_keys: tuple[tuple[str, str], ...]  # (placeholder, '@variable')
    names: list[str]
    types: list[str | None]
    targets: list[tuple[str, str]]  # SELECT @v = …: (variable, operator)
    folds: Folds
    formatted: bool = False  # FOR XML / FOR JSON: no row when the document is NULL


@dataclass(frozen=True)
class ModifyPlan:
    """A compiled UPDATE / DELETE (without OUTPUT): the backend query that yields the
    target rows' ids (and the new values), its binders and the target table; the row writer
    still applies the changes with every constraint."""

    kind: str  # 'UPDATE' / 'DELETE'
    sql: BackendSql
    param_keys: tuple[tuple[str, str], ...]
    info: TableInfo
    set_names: tuple[str, ...] = ()
    set_types: tuple[str | None, ...] = ()  # the new values' type specs, where known


class PlanCache:
    """The plans of one store (thread-safe; bounded)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._shapes: dict[str, InsertShape | None] = {}
        self._plans: dict[tuple[Any, ...], Any] = {}
        # Query text → the #temp / @table names it references (part of the key).
        self._query_deps: dict[str, tuple[tuple[str, str], ...]] = {}
        self._lock = threading.Lock()
        self.stats = {"hits": 0, "misses": 0}

    @classmethod
    def get(cls, store: Store) -> PlanCache:
        """The plan cache of ``store``."""
        cache: PlanCache = store.extension("plan_cache", cls)
        return cache

    def shape_known(self, sql: str) -> InsertShape | None | bool:
        """The recorded shape of ``sql``: an :class:`InsertShape`, None when the text is
        known not to be plannable, False when it has not been seen."""
        return self._shapes.get(sql, False)

    def record_shape(self, sql: str, parsed: Parsed) -> InsertShape | None:
        """Work out (once per text) whether ``parsed`` is a plannable INSERT."""
        shape = insert_shape(parsed)
        with self._lock:
            if len(self._shapes) >= _MAX_SHAPES:
                self._shapes.clear()
            self._shapes[sql] = shape
        return shape

    def key(self, ctx: ExecContext, sql: str, shape: InsertShape) -> tuple[Any, ...]:
        """The plan key: text, database, name binding and catalog version."""
        version = Catalog.get(ctx.conn.store).version(ctx.conn)
        return (sql, ctx.db_id, shape.binding(ctx), version)

    def query_key(self, ctx: ExecContext, sql: str, params: Params) -> tuple[Any, ...] | None:
        """The key of a query text that has a plan recorded (None: it has none)."""
        deps = self._query_deps.get(sql)
        if deps is None:
            return None
        return self._query_key(ctx, sql, deps, params)

    def _query_key(self, ctx: ExecContext, sql: str, deps: tuple[tuple[str, str], ...],
                   params: Params) -> tuple[Any, ...]:
        bindings = tuple((ctx.temp_tables if kind == "#" else ctx.table_variables).get(name)
                         for kind, name in deps)
        specs = tuple(sorted((k.lower(), variant_spec_key(v[1])) for k, v in params.items()))
        store = ctx.conn.store
        return ("query", sql, ctx.db_id, bindings, specs, functions_version(store),
                Catalog.get(store).version(ctx.conn))

    def record_query(self, ctx: ExecContext, sql: str, params: Params,
                     resolved: dict[tuple[str, str, str, str], Source], signature: Any,
                     plan: QueryPlan | ModifyPlan) -> None:
        """Remember the plan of a query that just ran, when it may be reused: only user
        tables and views resolved, no constant baked in from the catalog (OBJECT_ID)."""
        if signature or any(src.kind == "virtual" for src in resolved.values()):
            return
        deps = tuple(sorted({(key[3], key[2].lower()) for key in resolved if key[3]}))
        key = self._query_key(ctx, sql, deps, params)
        with self._lock:
            if len(self._query_deps) >= _MAX_SHAPES:
                self._query_deps.clear()
            self._query_deps[sql] = deps
        self.store_plan(key, plan)

    def lookup(self, key: tuple[Any, ...]) -> Any:
        """The plan stored under ``key``, counting hits and misses."""
        plan = self._plans.get(key)
        with self._lock:
            self.stats["hits" if plan is not None else "misses"] += 1
        return plan

    def store_plan(self, key: tuple[Any, ...], plan: Any) -> None:
        """Remember ``plan`` (a version of None means no token yet: not cached)."""
        if key[-1] is None:
            return
        with self._lock:
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            self._plans[key] = plan

    def clear(self) -> None:
        """Forget every shape and plan (tests)."""
        with self._lock:
            self._shapes.clear()
            self._plans.clear()
            self._query_deps.clear()
            self.stats = {"hits": 0, "misses": 0}


def query_binds(plan: QueryPlan | ModifyPlan, params: Params, native_decimal: bool
                ) -> dict[str, Any]:
    """The backend values of the variables a query plan binds."""
    lowered = {k.lower(): v for k, v in params.items()}
    binds = {}
    for key, name in plan.param_keys:
        value, spec = lowered[name]
        binds[key] = backend_value(to_storage(value, spec, native_decimal))
    return binds


def new_plan(ctx: ExecContext, shape: InsertShape, info: TableInfo) -> InsertPlan:
    """The plan of ``shape`` resolved to ``info`` in ``ctx``."""
    single = (ctx.conn.backend.insert_lastrowid and len(shape.rows) == 1
              and info.identity_column is None
              and not any(k.kind == "C" for k in info.constraints))
    return InsertPlan(shape, info, single)


def insert_shape(parsed: Parsed) -> InsertShape | None:
    """The shape of a plannable INSERT, or None (anything else runs the general path)."""
    tree = parsed.tree
    if not isinstance(tree, exp.Insert) or parsed.output is not None \
            or parsed.output_into is not None or parsed.top is not None:
        return None
    allowed = {"this", "expression"}
    if any(v not in (None, False, []) for k, v in tree.args.items() if k not in allowed):
        return None
    target = tree.this
    columns: list[str] | None = None
    if isinstance(target, exp.Schema):
        if not all(isinstance(c, exp.Identifier) for c in target.expressions):
            return None
        columns = [c.name for c in target.expressions]
        target = target.this
    source = tree.expression
    if not isinstance(target, exp.Table) or not isinstance(source, exp.Values) \
            or source.args.get("alias") is not None:
        return None
    rows: list[tuple[Item, ...]] = []
    for tup in source.expressions:
        items = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
        row: list[Item] = []
        for node in items:
            item = _item(node)
            if item is None:
                return None
            row.append(item)
        rows.append(tuple(row))
    return InsertShape(target, table_key(target), columns, tuple(rows))


def _item(node: exp.Expression) -> Item | None:
    """A constant or variable VALUES item, as ``modify._simple_value`` reads it."""
    if isinstance(node, exp.Null):
        return (False, (None, None))
    if isinstance(node, exp.National):
        return (False, (node.name, constant_spec(node)))
    if isinstance(node, exp.Literal):
        if node.is_string:
            return (False, (node.name, constant_spec(node)))
        return (False, (int(node.name), constant_spec(node))) if node.name.isdigit() else None
    if isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter):
        return (True, "@" + node.name.lower())
    return None
