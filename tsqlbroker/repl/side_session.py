"""A second session for the REPL's own questions: completion catalog and broker views.

Everything here runs T-SQL through an ordinary session of the same instance (with a
:class:`~tsqlbroker.interpreter.sink.CollectingSink`), so completion and the ``:queues`` family
show exactly what the catalog views hold. The helper session lives on one background thread;
catalog refreshes are queued there and never block typing: the completer reads whichever
:class:`~tsqlbroker.repl.catalog_snapshot.CatalogSnapshot` was built last.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.repl.catalog_snapshot import CatalogSnapshot

# Batches after which the catalog may have changed.
_DDL = re.compile(r"\b(create|alter|drop|use|sp_rename|select\s+.*\binto)\b",
                  re.IGNORECASE | re.DOTALL)


def changes_catalog(batch: str) -> bool:
    """True when ``batch`` may have created, altered or dropped objects or changed database."""
    return bool(_DDL.search(batch))


def bracket(name: str) -> str:
    """``[name]`` with ``]`` doubled, for building catalog queries safely."""
    return "[" + name.replace("]", "]]") + "]"


class HelperSession:
    """A session of ``instance`` on its own thread, answering T-SQL with result sets."""

    def __init__(self, instance: Any) -> None:
        self._sink = CollectingSink()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tsql-helper")
        try:
            self._session: Any = self._pool.submit(
                lambda: instance.session(self._sink, database="master")).result()
        except BaseException:
            self._pool.shutdown(wait=False)
            raise

    def submit(self, fn: Callable[[HelperSession], Any]) -> Future[Any]:
        """Run ``fn(self)`` on the helper thread."""
        return self._pool.submit(fn, self)

    def query(self, sql: str, database: str | None = None) -> list[ResultSet]:
        """Result sets of ``sql`` run in ``database``; raises the first error. Helper thread."""
        if database and str(self._session.current_database).lower() != database.lower():
            self._run(f"USE {bracket(database)}")
        return self._run(sql)

    def _run(self, sql: str) -> list[ResultSet]:
        self._sink.events.clear()
        self._session.execute(sql)
        errors = self._sink.errors()
        if errors:
            raise errors[0]
        return self._sink.resultsets()

    def close(self) -> None:
        """Close the session and stop the thread."""
        def _close() -> None:
            close = getattr(self._session, "close", None)
            if close is not None:
                close()

        try:
            self._pool.submit(_close).result(timeout=5)
        except Exception:  # noqa: BLE001, S110 - closing must not fail the REPL's exit
            pass
        self._pool.shutdown(wait=False, cancel_futures=True)


def _names(helper: HelperSession, sql: str, database: str) -> tuple[str, ...]:
    """The first column of ``sql`` as sorted names; () when the view is not there."""
    try:
        sets = helper.query(sql, database)
    except TSqlError:
        return ()
    return tuple(sorted({str(r[0]) for rs in sets for r in rs.rows if r and r[0] is not None},
                        key=str.lower))


def read_catalog(helper: HelperSession, database: str) -> CatalogSnapshot:
    """Build a snapshot of ``database``'s objects through the helper session."""
    columns: dict[str, list[str]] = {}
    try:
        for rs in helper.query("SELECT t.name, c.name FROM sys.columns AS c "
                               "JOIN sys.tables AS t ON t.object_id = c.object_id", database):
            for table, column in rs.rows:
                columns.setdefault(str(table), []).append(str(column))
    except TSqlError:
        pass
    return CatalogSnapshot(
        database=database,
        databases=_names(helper, "SELECT name FROM sys.databases", database),
        tables=_names(helper, "SELECT name FROM sys.tables", database),
        columns={t: tuple(cs) for t, cs in columns.items()},
        procedures=_names(helper, "SELECT name FROM sys.procedures", database),
        queues=_names(helper, "SELECT name FROM sys.service_queues", database),
        services=_names(helper, "SELECT name FROM sys.services", database),
        contracts=_names(helper, "SELECT name FROM sys.service_contracts", database),
        message_types=_names(helper, "SELECT name FROM sys.service_message_types", database),
    )


class CatalogCache:
    """The latest catalog snapshot, refreshed in the background on request."""

    def __init__(self, helper: HelperSession) -> None:
        self.helper = helper
        self._snapshot = CatalogSnapshot()

    def snapshot(self) -> CatalogSnapshot:
        """The last snapshot built (never waits)."""
        return self._snapshot

    def refresh(self, database: str) -> Future[Any]:
        """Queue a rebuild for ``database`` on the helper thread (requests run in order, so
        the last one asked for is the one that stays)."""

        def build(helper: HelperSession) -> None:
            self._snapshot = read_catalog(helper, database)

        return self.helper.submit(build)
