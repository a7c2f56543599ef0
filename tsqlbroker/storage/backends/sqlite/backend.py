"""SQLite: in this process, one writer at a time, Python functions inside queries."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import QueuePool
from sqlalchemy.types import TypeEngine

from ....errors import TSqlError
from ..base import Backend, BackendConnection, BackendStore, SqlText
from ..column_types import column_type
from ..leases import HostLease, LocalLease, NoSlot, ReaderSlotLike
from . import functions
from .file_locks import LockDir
from .leases import FileLease, FileReaderSlot
from .private_store import PrivateDir, create_private_dir


def create_private_file(path: str) -> None:
    """Create the SQLite file ``path`` 0600 before SQLite creates it with the umask's mode
    (SQLite gives its -wal and -shm files the database file's mode). An existing file is
    left as it is; a failure is left to SQLite to report."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass


class SqliteBackend(Backend):
    """The embedded backend (SQLAlchemy ``sqlite``)."""

    name = "sqlite"
    sqlglot_dialect = "sqlite"
    in_process = True
    single_writer = True
    row_locks = False
    commit_notices = False
    errors_abort_transaction = False
    write_begin_sql = "BEGIN IMMEDIATE"  # the write lock first: a reader never upgrades
    deferred_begin = False
    plans_by_statistics = False
    folds_names = False
    rowid_column = "rowid"
    rowid_changes_on_update = False
    insert_lastrowid = True
    native_decimal = False
    ci_collation = functions.CI_COLLATION
    ci_collation_everywhere = True
    untyped_parameters_are_text = False
    numbered_placeholders = False
    schemas_per_database = False
    python_functions = True
    supports_lateral = False
    derived_column_aliases = False
    values_column_aliases = False
    quantified_subqueries = False
    recursive_keyword = False
    xpath_in_sql = False

    def resolve_url(self, url: str) -> tuple[str, PrivateDir | None]:
        """``sqlite://`` (in memory) → a private file in memory-backed storage, so that
        several sessions get real isolation, which a shared in-memory connection cannot
        give; a named file is created private to the user first."""
        database = make_url(url).database
        if database in (None, "", ":memory:"):
            private = create_private_dir()  # 0700: its file needs no more
            return private.url, private
        if not database.startswith("file:"):
            create_private_file(database)
        return url, None

    def create_engine(self, url: URL, busy_timeout_ms: int,
                      on_connect: Callable[[Any], None]) -> Engine:
        engine = create_engine(
            url,
            isolation_level="AUTOCOMMIT",
            poolclass=QueuePool,
            pool_size=8,
            max_overflow=64,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()
            on_connect(dbapi_conn)

        return engine

    def control(self, conn: BackendConnection, sql: str) -> None:
        cursor = conn.conn.connection.dbapi_connection.cursor()
        try:
            cursor.execute(sql)
        finally:
            cursor.close()

    def read_row(self, conn: BackendConnection, sql: str) -> Any:
        # Straight on the DBAPI cursor: SQLAlchemy's result set-up costs several times the
        # query itself.
        cursor = conn.conn.connection.dbapi_connection.cursor()
        try:
            return cursor.execute(sql).fetchone()
        finally:
            cursor.close()

    def table_exists(self, conn: BackendConnection, name: str, schema: str | None) -> bool:
        q = text("SELECT 1 FROM sqlite_master WHERE type='table' AND name=:n")
        return conn.execute(q, {"n": name}).first() is not None

    def shared_file(self, store: Any) -> Path | None:
        # Not the private temporary file of ``sqlite://``.
        requested = make_url(store.requested_url or store.url)
        if requested.database in (None, "", ":memory:"):
            return None
        return Path(str(make_url(store.url).database)).resolve()

    def host_lease(self, store: BackendStore, lockdir: LockDir | None) -> HostLease:
        return LocalLease() if lockdir is None else FileLease(lockdir)

    def reader_slot(self, store: BackendStore, lockdir: LockDir | None, db_id: int,
                    queue_id: int) -> ReaderSlotLike:
        return NoSlot() if lockdir is None else FileReaderSlot(lockdir, db_id, queue_id)

    def column_type(self, spec: str) -> TypeEngine[Any]:
        return column_type(spec, small_integers=False, collation=self.ci_collation)

    def bytes_literal(self, value: bytes) -> str:
        return f"X'{value.hex()}'"

    def xact_lock(self, conn: BackendConnection, key: str, *, schema_scoped: bool = True
                  ) -> None:
        """Nothing to take: a write transaction holds the file's one write lock."""

    def execute_fast(self, conn: BackendConnection, sql: str, params: tuple[Any, ...]) -> Any:
        cursor = conn.conn.connection.dbapi_connection.cursor()
        cursor.execute(sql, params)
        return cursor

    def time_param(self, value: datetime | None) -> Any:
        # Text in SQLAlchemy's own DateTime format, so both paths read alike.
        if value is None:
            return None
        if value.year >= 1000 and value.microsecond:
            # Same text as the strftime form below (naive values), about 4x faster.
            return value.isoformat(" ")
        return f"{value:%Y-%m-%d %H:%M:%S.%f}"

    def prepare_connection(self, conn: BackendConnection) -> None:
        functions.prepare_connection(conn)

    def connect_hook(self, store: Any) -> None:
        functions.install_connect_hook(store)

    def read_date(self, column: str, spec: str) -> str | None:
        # SQLAlchemy keeps microseconds (a datetime's 1/300 s steps are not): the
        # conversion every CAST in a query runs, from datetime2 text.
        spec_text = spec.replace("'", "''")
        return f"tsqlb_cast({column}, '{spec_text}', NULL, 'datetime2')"

    def query_functions(self, store: Any) -> Mapping[str, tuple[int, Callable[..., Any]]]:
        return functions.query_functions(store)

    def take_pending_error(self) -> TSqlError | None:
        return functions.take_pending_error()

    def clear_pending_error(self) -> None:
        functions.clear_pending_error()

    def run_sql(self, conn: BackendConnection, sql: SqlText,
                params: Mapping[str, Any] | None) -> Any:
        return conn.exec_driver_sql(sql.text, dict(params) if params else None)
