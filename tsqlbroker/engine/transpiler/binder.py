"""The transpiler's front: :class:`Binder` holds one statement's state (what the passes and
the feature modules share, through :class:`~.interface.BindContext`) and runs the passes of
:data:`PASSES` for the executor."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from .. import parsing, sysviews
from ..catalog import Catalog
from ..context import ExecContext
from ..udf_calls import UdfCalls
from . import annotate, generate, resolve, rewrite
from .annotate import TypeAnnotator
from .resolve import Resolver
from .rewrite import Rewriter
from .scope import Applied, Compiled, Source, TableKey

__all__ = ["PASSES", "Binder"]

PASSES = (parsing, resolve, annotate, rewrite, generate)

class Binder:
    """Resolves names of one statement against the catalog and rewrites it for the backend."""

    def __init__(self, ctx: ExecContext, params: dict[str, tuple[Any, str | None]]) -> None:
        self.ctx = ctx
        self.conn = ctx.conn
        self.catalog = Catalog.get(ctx.conn.store)
        sysviews.install(ctx.conn.store)
        self.backend = ctx.conn.backend
        self.dialect = self.backend.sqlglot_dialect
        self.params = {k.lower(): v for k, v in params.items()}
        self.sources: dict[str, Source] = {}  # alias (lower) → source
        self.resolved: dict[TableKey, Source] = {}
        self.binds: dict[str, Any] = {}
        self.ctes: set[str] = set()
        # The interpreter's functions where queries may call Python ({} elsewhere).
        self.functions = self.backend.query_functions(ctx.conn.store)
        self.dependencies: list[Any] = []  # see depends_on
        # NEXT VALUE FOR: (database, schema, name) → (sequence object id, type spec).
        self.sequences: dict[tuple[str, str, str], tuple[int, str]] = {}
        self.placeholder_specs: dict[str, str | None] = {}  # bound parameter → type spec
        self.applied: dict[str, Applied] = {}  # CROSS / OUTER APPLY aliases (SQLite)
        self.udf_calls = UdfCalls(self)  # scalar UDF calls (udf_calls.py)
        self.session_calls: dict[int, str] = {}  # session function values (metafuncs.py)
        self.types = TypeAnnotator(self)
        self.resolver = Resolver(self, self.types)
        self.rewriter = Rewriter(self, self.types)

    # -- names (resolve) --------------------------------------------------------------------
    def resolve(self, key: TableKey) -> Source:
        """Resolve a table reference (raises Msg 208 / 1087 when it does not exist)."""
        return self.resolver.resolve(key)

    def collect(self, tree: exp.Expression) -> None:
        """Resolve every table reference in ``tree`` (CTE names excepted)."""
        self.resolver.collect(tree)

    def table_columns(self, node: exp.Table) -> list[tuple[str, str | None]]:
        """The columns (name, type spec) of the table, view or synonym ``node`` names."""
        return self.resolver.table_columns(node)

    # -- types (annotate) -------------------------------------------------------------------
    def spec_of(self, node: exp.Expression | None) -> str | None:
        """The type spec of an expression when it is evident (column, cast, parameter …)."""
        return self.types.spec_of(node)

    def kind_of(self, node: exp.Expression | None) -> str | None:
        """'string', 'binary', 'number' or None (not evident) for an expression."""
        return self.types.kind_of(node)

    def is_string(self, node: exp.Expression | None) -> bool:
        """Whether an expression is evidently a character string (for ``+``)."""
        return self.types.is_string(node)

    def is_concatenation(self, node: exp.Add) -> bool:
        """Whether T-SQL's ``+`` concatenates here (else it adds)."""
        return self.types.is_concatenation(node)

    def column_spec(self, node: exp.Column) -> str | None:
        """The type spec of a column reference (None when no source has it)."""
        return self.types.column_spec(node)

    def describe(self, tree: exp.Expression) -> tuple[list[str] | None, list[str | None]]:
        """Output column names (None when the backend's names must be used) and specs of
        a query, from the original tree."""
        return self.types.describe(tree)

    # -- the backend's tree (rewrite) -------------------------------------------------------
    def rewrite(self, node: exp.Expression) -> exp.Expression:
        """Rewrite ``node`` (already a private copy) for the backend, bottom-up."""
        return self.rewriter.rewrite(node)

    def rewrite_children(self, node: exp.Expression) -> exp.Expression:
        """``node`` with its children rewritten for the backend."""
        return self.rewriter.rewrite_children(node)

    def converted(self, value: exp.Expression, spec: str, source: str | None,
                  style: exp.Expression | None = None, try_: bool = False) -> exp.Expression:
        """The backend form of ``CAST(value AS spec)`` for an already rewritten ``value``
        of type ``source`` (T-SQL's conversion rules and errors)."""
        return self.rewriter.converted(value, spec, source, style, try_)

    def variable(self, name: str) -> exp.Placeholder:
        """The bound parameter of variable ``name`` ('@x' / '@@x', lower-case)."""
        return self.rewriter.variable(name)

    def bind(self, key: str, value: Any, spec: str | None) -> exp.Placeholder:
        """Bind backend ``value`` (of type ``spec``) as parameter ``key``."""
        return self.rewriter.bind(key, value, spec)

    # -- SQL (generate) ---------------------------------------------------------------------
    def depends_on(self, item: Any) -> None:
        """Make the compiled statement depend on ``item`` too (a catalog object's id and
        modification): another value compiles anew."""
        self.dependencies.append(item)

    def signature(self) -> tuple[Any, ...]:
        """What the generated SQL depends on besides the text."""
        return generate.signature(self)

    def binds_used(self, tree: exp.Expression) -> list[tuple[str, str]]:
        """The (parameter, variable name) pairs of the variables ``tree`` binds."""
        return generate.binds_used(self, tree)

    def compile_text(self, sql: str, tag: str = "", *, keep_tree: bool = False) -> Compiled:
        """Parse, bind and generate a SELECT given as T-SQL text."""
        parsed = parsing.parse_statement(sql)
        return self.compile(parsed.tree, (sql, tag), keep_tree=keep_tree)

    def compile(self, tree: exp.Expression, cache_key: Any, *, keep_tree: bool = False
                ) -> Compiled:
        """Bind and generate ``tree`` (a private copy), cached per key and resolution;
        ``keep_tree``: the result keeps the rewritten tree too (a view's, which goes into
        the trees of the statements reading it)."""
        return generate.compile_tree(self, tree, cache_key, keep_tree)

    def binder_for(self, ctx: ExecContext, params: dict[str, tuple[Any, str | None]]
                   ) -> Binder:
        """A binder of its own for another statement (a view's query) in ``ctx``."""
        return Binder(ctx, params)

    def compile_apart(self, tree: exp.Expression, cache_key: Any
                      ) -> tuple[Compiled, dict[str, Any]]:
        """Compile ``tree`` with a binder of its own (same context and variables): the
        compiled statement and the parameter values it binds."""
        inner = Binder(self.ctx, dict(self.params))
        compiled = inner.compile(tree, cache_key)
        return compiled, inner.binds
