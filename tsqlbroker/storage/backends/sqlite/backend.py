"""SQLite: in this process, one writer at a time, Python functions inside queries."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.types import TypeEngine

from ....engine import sqltypes  # issue15-c0: storage/stored_values.py in P5
from ....errors import TSqlError
from ..base import Backend, BackendConnection, SqlText


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
    plans_by_statistics = False
    folds_names = False
    rowid_column = "rowid"
    rowid_changes_on_update = False
    insert_lastrowid = True
    native_decimal = False
    ci_collation = sqltypes.CI_COLLATION
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

    def column_type(self, spec: str) -> TypeEngine[Any]:
        return sqltypes.column_type(spec, self.name)

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
        from ....engine import sqlfuncs  # issue15-c0: sqlfuncs imports the store

        sqlfuncs.prepare_connection(conn)  # type: ignore[arg-type]

    def connect_hook(self, store: Any) -> None:
        from ....engine import sqlfuncs  # issue15-c0: sqlfuncs imports the store

        sqlfuncs.install_connect_hook(store)

    def query_functions(self, store: Any) -> Mapping[str, tuple[int, Callable[..., Any]]]:
        from ....engine import sqlfuncs  # issue15-c0: sqlfuncs imports the store

        return sqlfuncs.registered_functions(store)

    def take_pending_error(self) -> TSqlError | None:
        from ....engine import sqlfuncs  # issue15-c0: sqlfuncs imports the store

        return sqlfuncs.take_pending_error()

    def clear_pending_error(self) -> None:
        from ....engine import sqlfuncs  # issue15-c0: sqlfuncs imports the store

        sqlfuncs.clear_pending_error()

    def run_sql(self, conn: BackendConnection, sql: SqlText,
                params: Mapping[str, Any] | None) -> Any:
        return conn.exec_driver_sql(sql.text, dict(params) if params else None)
