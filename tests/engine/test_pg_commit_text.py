"""What travels with a PostgreSQL COMMIT (issue 18): the transaction's BEGIN goes with its
first statement (or with the COMMIT, or nowhere when nothing ran); statements sent with the
COMMIT that fail leave no failed transaction behind; a guarded statement whose check fails
is undone alone and the transaction goes on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tsqlbroker.storage.store import GUARD_FAILED, Store, StoreConnection

if TYPE_CHECKING:
    from conftest import FreshPostgres


@pytest.fixture
def conn(fresh_postgres: FreshPostgres) -> Iterator[StoreConnection]:
    store = Store(fresh_postgres.url())
    c = store.connect()
    c.execute(text("CREATE TABLE t (v int)"))
    try:
        yield c
    finally:
        c.close()
        store.close()


def rows(conn: StoreConnection) -> list[int]:
    return [r[0] for r in conn.execute(text("SELECT v FROM t ORDER BY v"))]


def test_a_failing_statement_sent_with_the_commit_leaves_no_failed_transaction(
        conn: StoreConnection) -> None:
    conn.write()
    conn.execute(text("INSERT INTO t VALUES (1)"))
    with pytest.raises(DBAPIError):
        conn.commit("INSERT INTO t VALUES (2); SELECT 1 / 0")
    assert not conn.in_write_txn
    assert rows(conn) == []               # usable, and nothing of it committed


def test_a_guard_that_fails_is_undone_alone(conn: StoreConnection) -> None:
    conn.write()
    conn.execute(text("INSERT INTO t VALUES (1)"))
    failing = f"INSERT INTO t VALUES (2); SELECT ('{GUARD_FAILED}:' || 0)::integer"
    assert not conn.commit_guarded(failing, "INSERT INTO t VALUES (3)")
    assert conn.in_write_txn                # still open: the caller finishes it
    conn.execute(text("INSERT INTO t VALUES (4)"))
    conn.commit()
    assert rows(conn) == [1, 4]


def test_a_guard_that_holds_commits_with_everything_along(conn: StoreConnection) -> None:
    conn.write()
    assert conn.commit_guarded("INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)")
    assert not conn.in_write_txn
    assert rows(conn) == [2, 3]


def test_a_transaction_that_ran_nothing_sends_nothing(conn: StoreConnection) -> None:
    dbapi = conn.conn.connection.dbapi_connection
    conn.write()
    conn.commit()
    conn.write()
    conn.rollback()
    assert dbapi.pgconn.transaction_status == 0      # IDLE: no BEGIN was left open
    conn.write()
    conn.commit("INSERT INTO t VALUES (5)")          # BEGIN travels with it
    assert rows(conn) == [5]
