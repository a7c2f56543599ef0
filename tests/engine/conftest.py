"""Fixtures for the storage-layer tests: a private store, connections, execution contexts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.dml import ExecContext, SqlResult, execute_sql
from tsqlbroker.storage.store import Store, StoreConnection
from tsqlbroker.storage.txn import Txn


@pytest.fixture
def store(backend_url: str) -> Iterator[Store]:
    s = Store(backend_url)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def conn(store: Store) -> Iterator[StoreConnection]:
    c = store.connect()
    Catalog.get(store).ensure_schema(c)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def catalog(store: Store) -> Catalog:
    return Catalog.get(store)


@pytest.fixture
def ctx(store: Store, conn: StoreConnection) -> ExecContext:
    """A session (id 51) in a fresh database 'd', with one open transaction."""
    db_id = Catalog.get(store).create_database(conn, "d")
    conn.commit()
    return ExecContext(conn, Txn(conn), db_id, 51)


@pytest.fixture
def sqlite_ctx() -> Iterator[ExecContext]:
    """Like ``ctx`` but always on SQLite: for what only SQLite can do (calling the
    interpreter's Python functions from SQL)."""
    s = Store("sqlite://")
    c = s.connect()
    try:
        db_id = Catalog.get(s).create_database(c, "d")
        c.commit()
        yield ExecContext(c, Txn(c), db_id, 51)
    finally:
        c.close()
        s.close()


def run(ctx: ExecContext, sql: str, **params: tuple[Any, str | None]) -> SqlResult:
    """Execute ``sql`` with ``name=(value, spec)`` keyword parameters as ``@name``."""
    return execute_sql(ctx, sql, {f"@{k}": v for k, v in params.items()})


def rows(ctx: ExecContext, sql: str, **params: tuple[Any, str | None]) -> list[tuple[Any, ...]]:
    """The rows of the single result set of ``sql``."""
    result = run(ctx, sql, **params)
    assert len(result.resultsets) == 1
    return result.resultsets[0].rows


def new_session(store: Store, db_id: int, session_id: int) -> ExecContext:
    """Another session on its own connection."""
    c = store.connect()
    return ExecContext(c, Txn(c), db_id, session_id)
