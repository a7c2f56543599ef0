"""The execution context of one SQL statement and the virtual-table registry.

:class:`ExecContext` carries what a statement needs besides its text: the session's
connection and transaction, the current database, the session's temp tables and the table
variables visible in the calling frame. :class:`VirtualTable` is what a resolver returns for
names that are not user tables (catalog views, Service Broker queues and views).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import TSqlError
from ..storage.store import Store, StoreConnection
from ..storage.txn import Txn
from .results import ResultSet


@dataclass
class ExecContext:
    """Everything a statement runs against (one per statement or per frame)."""

    conn: StoreConnection
    txn: Txn
    db_id: int
    session_id: int
    # '#t' (lower-case) → physical name; per session.
    temp_tables: dict[str, str] = field(default_factory=dict)
    # '@t' (lower-case) → physical name; the table variables visible in the frame chain.
    table_variables: dict[str, str] = field(default_factory=dict)
    # Nesting of views being expanded (Msg 217 beyond 32, as for modules).
    view_depth: int = 0
    # Object ids of the tables with SET IDENTITY_INSERT ON in the session (at most one).
    identity_insert: set[int] = field(default_factory=set)
    # The statement's OPTION (MAXRECURSION n) for its recursive CTEs (0: no limit).
    max_recursion: int = 100
    # DML triggers: what the statement's writes did (triggers.TriggerEvent, filled by the
    # row writer for tables with triggers) and the tables whose INSTEAD OF trigger is
    # running (their writes happen as written).
    fired: list[Any] = field(default_factory=list)
    instead_active: frozenset[int] = frozenset()


@dataclass
class VirtualTable:
    """A named row source that is not a user table.

    ``sql`` is backend-dialect SELECT text or a SQLAlchemy selectable; ``columns`` gives the
    output columns with their type specs (values are converted back per spec). INSERT,
    UPDATE and DELETE on a non-writable virtual table raise ``refuse_error``.
    """

    sql: Any
    columns: list[tuple[str, str | None]]
    writable: bool = False
    refuse_error: TSqlError | None = None
    # Other names accepted for some columns (not shown by SELECT *): a queue's pre-release
    # service_instance_id is its conversation_group_id.
    column_aliases: dict[str, str] = field(default_factory=dict)


@dataclass
class SqlResult:
    """What one statement produced."""

    resultsets: list[ResultSet] = field(default_factory=list)
    rowcount: int = 0
    identity: int | None = None
    # For ``SELECT @v = expr …``: (variable, operator) per select item; the result set's rows
    # hold the values and the interpreter assigns the last row's.
    assign_targets: list[tuple[str, str]] = field(default_factory=list)


# '@name' (any case) → (Python value, type spec): a statement's variables.
Params = dict[str, tuple[Any, "str | None"]]


# resolver(ctx, database, schema, name) -> VirtualTable | None
Resolver = Callable[[ExecContext, "str | None", "str | None", str], "VirtualTable | None"]


def register_virtual_table(store: Store, resolver: Resolver) -> None:
    """Add a resolver consulted for names that are not user tables or views (newest
    registration wins ties, so the broker can shadow nothing of the catalog by accident:
    catalog views are resolved by the engine's own resolver, registered first)."""
    resolvers: list[Resolver] = store.extension("virtual_table_resolvers", lambda _s: [])
    if resolver not in resolvers:
        resolvers.append(resolver)


def virtual_resolvers(store: Store) -> list[Resolver]:
    """The registered resolvers, in registration order."""
    resolvers: list[Resolver] = store.extension("virtual_table_resolvers", lambda _s: [])
    return list(resolvers)


# describer(ctx, view's catalog row) -> its column rows (engine/viewcols.py): how catalog
# views list a view's columns. It needs the binder, which the catalog views' module cannot
# import (the binder imports it), so the engine registers it once loaded.
ViewDescriber = Callable[[ExecContext, Any], "list[dict[str, Any]]"]
_VIEW_DESCRIBERS: list[ViewDescriber] = []


def register_view_describer(describer: ViewDescriber) -> None:
    """Set how a view's columns are described (the engine does, on import)."""
    _VIEW_DESCRIBERS[:] = [describer]


def describe_view(ctx: ExecContext, row: Any) -> list[dict[str, Any]]:
    """The column rows of view ``row`` (none before the engine registered its describer)."""
    return _VIEW_DESCRIBERS[0](ctx, row) if _VIEW_DESCRIBERS else []
