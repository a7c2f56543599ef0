"""PostgreSQL: a server shared by processes; row locks, NOTIFY, SQL functions of its own."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import URL, Engine, create_engine, text
from sqlalchemy.pool import NullPool, QueuePool
from sqlalchemy.types import TypeEngine

from ..base import Backend, BackendConnection, BackendStore, SqlText
from ..column_types import column_type
from ..leases import HostLease, ReaderSlotLike
from . import functions, libpq, strings_sql
from .advisory import PgLease, ReaderSlot

# SQLite's ``+column`` planner hint (keeps an index out of a plan): not PostgreSQL syntax.
_UNARY_PLUS = re.compile(r"(?<=\s)\+(?=[a-z_])")
_SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || :k))"
_SERVER_LOCK = "SELECT pg_advisory_xact_lock(hashtext(:k))"


@lru_cache(maxsize=4096)        # texts with IN lists of every length: bounded
def server_sql(sql: str) -> str:
    """Hot-path SQL (``?`` placeholders, written for both backends) as PostgreSQL takes it:
    without SQLite's ``+column`` planner hints; placeholders still ``?``."""
    return _UNARY_PLUS.sub("", sql)


class PostgresBackend(Backend):
    """The server backend (SQLAlchemy ``postgresql``, driver psycopg)."""

    name = "postgresql"
    sqlglot_dialect = "postgres"
    in_process = False
    single_writer = False
    row_locks = True
    commit_notices = True
    errors_abort_transaction = True
    write_begin_sql = "BEGIN"
    deferred_begin = True       # one round trip saved per transaction
    plans_by_statistics = True
    folds_names = True
    rowid_column = "ctid"
    rowid_changes_on_update = True
    insert_lastrowid = False
    native_decimal = True
    ci_collation = strings_sql.CI_COLLATION
    ci_collation_everywhere = False
    untyped_parameters_are_text = True
    numbered_placeholders = True
    schemas_per_database = True
    python_functions = False
    supports_lateral = True
    derived_column_aliases = True
    values_column_aliases = True
    quantified_subqueries = True
    recursive_keyword = True
    xpath_in_sql = True

    def create_engine(self, url: URL, busy_timeout_ms: int,
                      on_connect: Callable[[Any], None]) -> Engine:
        # psycopg's automatic preparing stays off: after any ROLLBACK or DROP it runs
        # (a statement savepoint rolled back, a table variable dropped …) it sends
        # DEALLOCATE ALL, which took libpq.py's statements with it on a live connection.
        # libpq.py prepares the hot statements itself; see that module.
        # No hstore: the engine stores none, and looking its type up costs the first
        # connection of every process three round trips (BEGIN, the lookup, COMMIT).
        return create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool
                             if os.environ.get("TSQLBROKER_NULLPOOL") else QueuePool,
                             pool_size=8, max_overflow=64, use_native_hstore=False,
                             connect_args={"prepare_threshold": None})

    def control(self, conn: BackendConnection, sql: str) -> None:
        conn.driver_call(libpq.execute_text, sql)       # libpq directly: see that module

    def control_rows(self, conn: BackendConnection, sql: str, index: int
                     ) -> list[tuple[Any, ...]]:
        return conn.driver_call(libpq.execute_text_rows, sql, index, conn.cancel_requested)

    def note_statement_error(self, conn: BackendConnection, err: Any) -> None:
        # SQL Server names the deadlock victim's process: the server's, here.
        info = getattr(conn.conn.connection.dbapi_connection, "info", None)
        err.backend_pid = getattr(info, "backend_pid", 0)

    def table_exists(self, conn: BackendConnection, name: str, schema: str | None) -> bool:
        q = text("SELECT 1 FROM information_schema.tables WHERE table_name = :n "
                 "AND table_schema = coalesce(:s, current_schema())")
        return conn.execute(q, {"n": name, "s": schema}).first() is not None

    def install_schema_objects(self, conn: BackendConnection) -> None:
        functions.install(conn)

    def schema_objects_source(self) -> str:
        return "\n".join(functions.ALL)

    def host_lease(self, store: BackendStore, lockdir: Any) -> HostLease:
        return PgLease(store)

    def reader_slot(self, store: BackendStore, lockdir: Any, db_id: int, queue_id: int
                    ) -> ReaderSlotLike:
        return ReaderSlot(store, db_id, queue_id)

    def column_type(self, spec: str) -> TypeEngine[Any]:
        return column_type(spec, small_integers=True, collation=self.ci_collation)

    def bytes_literal(self, value: bytes) -> str:
        return f"'\\x{value.hex()}'::bytea"

    def xact_lock(self, conn: BackendConnection, key: str, *, schema_scoped: bool = True
                  ) -> None:
        conn.execute(text(_SCHEMA_LOCK if schema_scoped else _SERVER_LOCK), {"k": key})

    def execute_fast(self, conn: BackendConnection, sql: str, params: tuple[Any, ...]) -> Any:
        # libpq directly: its failures are SQLAlchemy's DBAPIError as on every other path.
        return conn.driver_call(libpq.execute, server_sql(sql), params)

    def merged_text(self, conn: BackendConnection, sql: str, params: tuple[Any, ...]) -> str:
        return conn.driver_call(libpq.merged, server_sql(sql), params)

    def time_param(self, value: datetime | None) -> Any:
        return value

    def read_date(self, column: str, spec: str) -> str | None:
        # The engine's tables keep dates as timestamp, user tables (and so every date
        # function: tsqlb_datediff …) as storage text.
        spec_text = spec.replace("'", "''")
        return f"tsqlb_read_date({column}, '{spec_text}')"

    def run_sql(self, conn: BackendConnection, sql: SqlText,
                params: Mapping[str, Any] | None) -> Any:
        values = [params[n] for n in sql.names or ()] if params else []
        return conn.driver_call(libpq.run_raw, sql.text, values)
