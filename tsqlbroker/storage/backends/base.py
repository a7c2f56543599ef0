"""What differs between storage backends: :class:`Backend`, its flags and hooks.

The engine asks flags and calls hooks; it never compares a backend's name (SQLAlchemy's
dialects and sqlglot's generators are built the same way). Modules under ``backends/`` never
import the store module (it imports :func:`~tsqlbroker.storage.backends.backend_named`):
hooks are typed with the protocols below.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Protocol, TypeVar

from sqlalchemy import URL, Engine
from sqlalchemy.types import TypeEngine

from ...errors import TSqlError
from ...values.types import parse_type
from ..naming import quote_ident
from .leases import HostLease, LocalLease, NoSlot, ReaderSlotLike

T = TypeVar("T")


class BackendConnection(Protocol):
    """What a hook may use of a store connection (``StoreConnection``)."""

    store: Any
    conn: Any                       # the SQLAlchemy Connection
    sends_with_commit: bool
    cancel_requested: Callable[[], bool] | None     # the owner's pending-cancel flag

    def execute(self, statement: Any, params: Any = None) -> Any: ...

    def exec_driver_sql(self, sql: str, params: Any = None) -> Any: ...

    def driver_call(self, fn: Callable[..., T], *args: Any) -> T: ...

    def execute_fast(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...

    def flush_begin(self) -> None: ...


class PrivateFiles(Protocol):
    """Files a store made for itself alone (a private ``sqlite://`` store's directory),
    removed when the store closes."""

    def remove(self) -> None: ...


class BackendStore(Protocol):
    """What a backend module may use of a store (``Store``)."""

    backend: Backend
    url: str
    requested_url: str | None
    engine: Engine

    def on_close(self, fn: Callable[[], Any]) -> None: ...

    def connect(self) -> Any: ...


class CommitTxn(Protocol):
    """What :meth:`Backend.execute_with_commit` uses of an engine transaction (``Txn``)."""

    conn: Any
    flushing_last: bool

    def before_commit(self, fn: Callable[[], str | None]) -> None: ...


class SqlText(Protocol):
    """A statement in the driver's form (``BackendSql``): text and, for numbered
    placeholders, the parameter name behind each number."""

    text: str
    names: tuple[str, ...] | None


class QueryRewriter(Protocol):
    """What a backend's rewrites (``<backend>/rewrites.py``) may ask of the transpiler."""

    def rewrite(self, node: Any) -> Any: ...

    def rewrite_children(self, node: Any) -> Any: ...

    def spec_of(self, node: Any) -> str | None: ...

    def kind_of(self, node: Any) -> str | None: ...

    def column_spec(self, node: Any) -> str | None: ...

    def add_cte(self, name: str) -> None: ...

    def scratch(self) -> dict[str, Any]: ...


class Backend:
    """One storage backend: flags the engine asks and hooks it calls."""

    name: ClassVar[str]                  # SQLAlchemy backend name, read by backend_named only
    sqlglot_dialect: ClassVar[str]       # sqlglot's name of the SQL generated for it
    # -- processes and transactions ------------------------------------------------------
    in_process: ClassVar[bool]           # runs in this process: cancel via progress handler
    single_writer: ClassVar[bool]        # one write transaction per store at a time
    row_locks: ClassVar[bool]            # FOR UPDATE [SKIP LOCKED] seen by other processes
    commit_notices: ClassVar[bool]       # other processes hear of a commit inside it (NOTIFY)
    errors_abort_transaction: ClassVar[bool]  # a failed statement dooms the txn (savepoints)
    write_begin_sql: ClassVar[str]       # what opens a write transaction
    deferred_begin: ClassVar[bool]       # BEGIN travels with the first statement (a server)
    plans_by_statistics: ClassVar[bool]  # plans may follow stale table statistics (bursts)
    # -- stored data ---------------------------------------------------------------------
    folds_names: ClassVar[bool]          # user column names stored lower-case
    rowid_column: ClassVar[str]          # the hidden row id column
    rowid_changes_on_update: ClassVar[bool]   # UPDATE … RETURNING the new row id
    insert_lastrowid: ClassVar[bool]     # cursor.lastrowid gives an inserted row's id
    native_decimal: ClassVar[bool]       # decimal/money stored exactly (else int/float)
    ci_collation: ClassVar[str]          # the case-insensitive collation's name
    ci_collation_everywhere: ClassVar[bool]   # usable in =, LIKE, GROUP BY (else lower(rtrim))
    untyped_parameters_are_text: ClassVar[bool]  # parameters need CAST to their type
    numbered_placeholders: ClassVar[bool]     # $n (else :name)
    schemas_per_database: ClassVar[bool]      # a backend schema per T-SQL database
    # -- SQL the transpiler may write ----------------------------------------------------
    python_functions: ClassVar[bool]     # queries call Python functions on the connection
    supports_lateral: ClassVar[bool]     # LATERAL (else APPLY is emulated)
    derived_column_aliases: ClassVar[bool]    # (SELECT …) AS t(a, b)
    values_column_aliases: ClassVar[bool]     # (VALUES …) AS t(a, b)
    quantified_subqueries: ClassVar[bool]     # x op ANY/ALL (subquery)
    recursive_keyword: ClassVar[bool]    # WITH RECURSIVE needed
    xpath_in_sql: ClassVar[bool]         # xml methods run in SQL (else through Python)

    # -- hooks ---------------------------------------------------------------------------
    def column_name(self, name: str) -> str:
        """The backend name of a user column. T-SQL names are case-insensitive; SQLite
        agrees, PostgreSQL folds unquoted names to lower case, so there columns are stored
        lower-case (``folds_names``) and every generated identifier is lower-cased to match."""
        return name.lower() if self.folds_names else name

    def quote_column(self, name: str) -> str:
        """A user column's quoted backend name."""
        return quote_ident(self.column_name(name))

    def column_type(self, spec: str) -> TypeEngine[Any]:
        """The SQLAlchemy type of a column storing values of type ``spec``."""
        raise NotImplementedError

    def bytes_literal(self, value: bytes) -> str:
        """``value`` as a SQL literal."""
        raise NotImplementedError

    def xact_lock(self, conn: BackendConnection, key: str, *, schema_scoped: bool = True
                  ) -> None:
        """Serialise the transactions of every process that take lock ``key``, until the
        transaction of ``conn`` ends (``schema_scoped``: per store, not per server)."""
        raise NotImplementedError

    def execute_fast(self, conn: BackendConnection, sql: str, params: tuple[Any, ...]) -> Any:
        """Run hot-path SQL (``?`` placeholders) on the connection's driver connection, in
        its transaction; a cursor-like object (``fetchone`` / ``fetchall`` / iteration)."""
        raise NotImplementedError

    def merged_text(self, conn: BackendConnection, sql: str, params: tuple[Any, ...]) -> str:
        """Hot-path SQL with its parameters written in, to travel with the COMMIT (only
        where ``conn.sends_with_commit``)."""
        raise NotImplementedError

    def execute_with_commit(self, txn: CommitTxn, sql: str, params: tuple[Any, ...]) -> bool:
        """While the last deferred operation of ``txn`` flushes: send this final statement
        (no result wanted) together with the COMMIT, one round trip for both. True when so
        arranged; False: the caller runs it."""
        conn = txn.conn
        if not txn.flushing_last or not conn.sends_with_commit:
            return False
        text = self.merged_text(conn, sql, params)
        txn.before_commit(lambda: text)
        return True

    def time_param(self, value: datetime | None) -> Any:
        """A naive UTC time as the backend stores it (hot-path parameters)."""
        raise NotImplementedError

    def virtual_sql(self, sql: str, columns: Sequence[tuple[str, str | None]]) -> str:
        """The SELECT text a virtual table (a queue, a catalog view over the engine's own
        tables) is read through in a query, given its columns and their type specs: its
        date/time columns read as :meth:`read_date` says, so every function and comparison
        over them sees the T-SQL type's value (``message_enqueue_time`` is a datetime)."""
        items, changed = [], False
        for name, spec in columns:
            column = self.quote_column(name)
            read = self.read_date(column, spec) \
                if spec and parse_type(spec).is_datetime else None
            changed = changed or read is not None
            items.append(column if read is None else f"{read} AS {column}")
        return f"SELECT {', '.join(items)} FROM ({sql}) AS tsqlb_virtual" if changed else sql

    def read_date(self, column: str, spec: str) -> str | None:
        """SQL reading an engine table's date/time ``column`` (SQLAlchemy ``DateTime``) as
        the storage form of T-SQL type ``spec``, rounded as that type stores it; None: as
        it is."""
        return None

    def prepare_connection(self, conn: BackendConnection) -> None:
        """Make the connection's backend session ready for the engine's SQL (functions,
        collation); cheap when nothing changed since the last call."""

    def connect_hook(self, store: Any) -> None:
        """Prepare every new connection of ``store`` the same way (once per store)."""

    def query_functions(self, store: Any) -> Mapping[str, tuple[int, Callable[..., Any]]]:
        """The Python functions SQL may call on ``store``'s connections (name → (nargs, fn))."""
        return {}

    def take_pending_error(self) -> TSqlError | None:
        """The TSqlError a Python function called by the last statement raised, if any."""
        return None

    def clear_pending_error(self) -> None:
        """Forget any such error (before a statement)."""

    def run_sql(self, conn: BackendConnection, sql: SqlText,
                params: Mapping[str, Any] | None) -> Any:
        """Run a statement in the driver's form with ``params`` by placeholder name."""
        raise NotImplementedError

    # -- hooks of the store (storage/ calls them) ---------------------------------------
    def resolve_url(self, url: str) -> tuple[str, PrivateFiles | None]:
        """The URL to open for ``url`` and the private files to remove at close, or None."""
        return url, None

    def create_engine(self, url: URL, busy_timeout_ms: int,
                      on_connect: Callable[[Any], None]) -> Engine:
        """The SQLAlchemy engine of a store (driver autocommit: the store sends BEGIN and
        COMMIT itself); ``on_connect(dbapi_connection)`` runs on each new connection of an
        in-process backend."""
        raise NotImplementedError

    def control(self, conn: BackendConnection, sql: str) -> None:
        """Run transaction control (BEGIN, COMMIT, ``…; COMMIT``) straight on the driver:
        SQLAlchemy's per-statement bookkeeping costs several times the statement."""
        raise NotImplementedError

    def control_rows(self, conn: BackendConnection, sql: str, index: int
                     ) -> list[tuple[Any, ...]]:
        """Run parameterless SQL of several statements in one round trip (where
        ``conn.sends_with_commit``) and return the rows of the statement at ``index``."""
        raise NotImplementedError

    def note_statement_error(self, conn: BackendConnection, err: Any) -> None:
        """A statement failed on a live connection: note on ``err`` (a ``DBAPIError``)
        what the error mapping reports with it."""

    def read_row(self, conn: BackendConnection, sql: str) -> Any:
        """The first row of a parameterless read (or None), the cheapest way the backend
        has: for reads made on every lookup."""
        return conn.exec_driver_sql(sql).first()

    def table_exists(self, conn: BackendConnection, name: str, schema: str | None) -> bool:
        """Whether the backend has table ``name`` in backend schema ``schema`` (None: the
        store's home schema)."""
        raise NotImplementedError

    def install_schema_objects(self, conn: BackendConnection) -> None:
        """Create (or replace) what the engine's SQL needs besides tables (functions,
        collations) in the store, in the caller's write transaction."""

    def schema_objects_source(self) -> str:
        """The text of what :meth:`install_schema_objects` creates: part of the store's
        schema stamp (``storage/schema_stamp.py``), so a change to it is installed."""
        return ""

    def shared_file(self, store: Any) -> Path | None:
        """The database file of ``store`` that other processes can open (they then share
        it through sidecar files beside it), or None."""
        return None

    def host_lease(self, store: BackendStore, lockdir: Any) -> HostLease:
        """The lease on hosting ``store``'s background broker work (``lockdir``: the lock
        directory of a file other processes share, or None)."""
        return LocalLease()

    def reader_slot(self, store: BackendStore, lockdir: Any, db_id: int, queue_id: int
                    ) -> ReaderSlotLike:
        """A (not yet taken) activation reader slot of queue ``queue_id``."""
        return NoSlot()

    @property
    def rewrites(self) -> ModuleType:
        """This backend's query rewrites (``<backend>/rewrites.py``), loaded on first use
        (start-up laziness: they bring sqlglot)."""
        package = type(self).__module__.rpartition(".")[0]
        return importlib.import_module(package + ".rewrites")
