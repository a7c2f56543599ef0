"""What the transpiler's feature modules (APPLY, FOR XML, table-valued functions, UDF and
session function calls, query shapes, PIVOT, sequences) may ask of the statement being
bound. They take a :class:`BindContext` — the Binder is one — and import neither the Binder
nor the passes, so the passes may call them without an import cycle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from sqlglot import exp

from ...storage.backends.base import Backend
from ...storage.store import StoreConnection
from ..catalog import Catalog
from ..context import ExecContext
from .scope import Applied, Compiled, Source, TableKey

__all__ = ["BindContext", "BoundStatement"]


class BindContext(Protocol):
    """One statement being bound: its context, names, types and rewriting."""

    ctx: ExecContext
    conn: StoreConnection
    catalog: Catalog
    backend: Backend  # what the store's backend can do (flags) and its rewrites
    dialect: str  # sqlglot name of the generated SQL's dialect
    params: dict[str, tuple[Any, str | None]]  # variable name (lower) → (value, type spec)
    sources: dict[str, Source]  # alias (lower) → source; features add derived ones
    applied: dict[str, Applied]  # CROSS / OUTER APPLY aliases (SQLite)
    binds: dict[str, Any]  # bound parameter → backend value
    session_calls: dict[int, str]  # id(node) → its prepared session value's parameter
    sequences: dict[tuple[str, str, str], tuple[int, str]]  # NEXT VALUE FOR targets

    def resolve(self, key: TableKey) -> Source:
        """The source a table reference names (Msg 208 / 1087 when none)."""
        ...

    def table_columns(self, node: exp.Table) -> list[tuple[str, str | None]]:
        """The columns (name, type spec) of the table, view or synonym ``node`` names."""
        ...

    def describe(self, tree: exp.Expression
                 ) -> tuple[list[str] | None, list[str | None]]:
        """Output column names and type specs of a query."""
        ...

    def spec_of(self, node: exp.Expression | None) -> str | None:
        """The type spec of an expression when it is evident."""
        ...

    def kind_of(self, node: exp.Expression | None) -> str | None:
        """'string', 'binary', 'number' or None (not evident) for an expression."""
        ...

    def is_string(self, node: exp.Expression | None) -> bool:
        """Whether an expression is evidently a character string."""
        ...

    def is_concatenation(self, node: exp.Add) -> bool:
        """Whether T-SQL's ``+`` concatenates here (else it adds)."""
        ...

    def rewrite(self, node: exp.Expression) -> exp.Expression:
        """``node`` (a private copy) rewritten for the backend, bottom-up."""
        ...

    def rewrite_children(self, node: exp.Expression) -> exp.Expression:
        """``node`` with its children rewritten for the backend (itself left as it is)."""
        ...

    def converted(self, value: exp.Expression, spec: str, source: str | None,
                  style: exp.Expression | None = None, try_: bool = False
                  ) -> exp.Expression:
        """The backend form of ``CAST(value AS spec)`` for a rewritten ``value``."""
        ...

    def variable(self, name: str) -> exp.Expression:
        """The bound parameter of variable ``name`` ('@x' / '@@x', lower-case)."""
        ...

    def bind(self, key: str, value: Any, spec: str | None) -> exp.Placeholder:
        """Bind backend ``value`` (of type ``spec``) as parameter ``key``."""
        ...

    def depends_on(self, item: Any) -> None:
        """Make the compiled statement depend on ``item`` too (another value compiles
        anew; an ``object()`` never reuses the plan)."""
        ...

    def compile_apart(self, tree: exp.Expression, cache_key: Any
                      ) -> tuple[Compiled, dict[str, Any]]:
        """Compile ``tree`` with a binder of its own (same context and variables): the
        compiled statement and the parameter values it binds."""
        ...


class BoundStatement(BindContext, Protocol):
    """What the passes (resolve, annotate, rewrite, generate) ask of the binder besides
    what the features do: the statement's further state and the front's own steps."""

    resolved: dict[TableKey, Source]  # table reference → source
    ctes: set[str]  # CTE names (lower) of the statement
    functions: Mapping[str, tuple[int, Any]]  # Python functions the backend's SQL may call
    placeholder_specs: dict[str, str | None]  # bound parameter → its type spec
    dependencies: list[Any]  # what the compiled SQL depends on besides text and tables
    udf_calls: Any  # udf_calls.UdfCalls of the statement

    def collect(self, tree: exp.Expression) -> None:
        """Resolve every table reference in ``tree``."""
        ...

    def binder_for(self, ctx: ExecContext, params: dict[str, tuple[Any, str | None]]
                   ) -> BoundStatement:
        """A binder of its own for another statement (a view's query) in ``ctx``."""
        ...

    def compile(self, tree: exp.Expression, cache_key: Any, *, keep_tree: bool = False
                ) -> Compiled:
        """Bind and generate ``tree``."""
        ...

    def compile_text(self, sql: str, tag: str = "", *, keep_tree: bool = False
                     ) -> Compiled:
        """Parse, bind and generate a SELECT given as T-SQL text."""
        ...
