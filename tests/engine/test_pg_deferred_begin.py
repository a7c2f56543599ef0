"""PostgreSQL: a storage transaction's BEGIN travels with its first statement (pgcursor), yet
every statement of the transaction is inside it, whichever way it is issued."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import text

from tsqlbroker.engine.store import Store, StoreConnection

if TYPE_CHECKING:
    from conftest import FreshPostgres


@pytest.fixture
def pg(fresh_postgres: FreshPostgres) -> Iterator[tuple[Store, StoreConnection]]:
    store = Store(fresh_postgres.url())
    conn = store.connect()
    conn.exec_driver_sql("CREATE TABLE t (id int PRIMARY KEY, v text)")
    try:
        yield store, conn
    finally:
        conn.close()
        store.close()


def _count(store: Store) -> int:
    other = store.connect()
    try:
        return int(other.exec_driver_sql("SELECT count(*) FROM t").scalar())
    finally:
        other.close()


def _dbapi(conn: StoreConnection) -> Any:
    return conn.conn.connection.dbapi_connection


def _status(conn: StoreConnection) -> str:
    return _dbapi(conn).info.transaction_status.name


def test_begin_goes_with_a_parameterised_first_statement(
        pg: tuple[Store, StoreConnection]) -> None:
    store, conn = pg
    conn.write()
    assert _status(conn) == "IDLE"             # nothing sent yet
    cur = _dbapi(conn).cursor()
    cur.execute("INSERT INTO t VALUES (%s, %s) RETURNING id", (1, "a"))
    assert cur.fetchone() == (1,)
    assert _status(conn) == "INTRANS"
    assert _count(store) == 0                  # not visible: inside the transaction
    conn.rollback()
    assert _count(store) == 0
    conn.write()
    conn.execute(text("INSERT INTO t VALUES (:i, :v)"), {"i": 2, "v": "b"})   # SQLAlchemy
    conn.commit()
    assert _count(store) == 1


def test_begin_goes_in_front_of_parameterless_statements(
        pg: tuple[Store, StoreConnection]) -> None:
    store, conn = pg
    conn.write()
    cur = _dbapi(conn).cursor()
    cur.execute("INSERT INTO t VALUES (3, 'x%'); SELECT v FROM t WHERE v LIKE 'x%'")
    assert cur.rowcount == 1                   # the caller's first result, not BEGIN's
    assert cur.nextset() and cur.fetchall() == [("x%",)]
    assert _count(store) == 0
    conn.rollback()
    assert _count(store) == 0
    conn.write()
    # Empty parameters: %% is still unescaped, as without a deferred BEGIN.
    cur = _dbapi(conn).cursor()
    cur.execute("SELECT 'a%%b'", ())
    assert cur.fetchone() == ("a%b",)
    assert _status(conn) == "INTRANS"
    conn.commit()


def test_a_transaction_without_statements_sends_nothing(
        pg: tuple[Store, StoreConnection]) -> None:
    _store, conn = pg
    sent: list[str] = []
    dbapi = _dbapi(conn)
    dbapi.add_notice_handler(lambda n: sent.append(n.message_primary))
    conn.write()
    conn.commit()
    conn.write()
    conn.rollback()
    # A COMMIT or ROLLBACK outside a transaction would have drawn a warning notice.
    assert sent == []
    assert _status(conn) == "IDLE"
    conn.write()
    conn.savepoint("sp1")                      # SQLAlchemy, parameterless: BEGIN in front
    assert _status(conn) == "INTRANS"
    conn.rollback()
    assert _status(conn) == "IDLE"


def test_a_failing_first_statement_leaves_the_transaction_to_roll_back(
        pg: tuple[Store, StoreConnection]) -> None:
    store, conn = pg
    conn.write()
    cur = _dbapi(conn).cursor()
    cur.execute("INSERT INTO t VALUES (%s, %s)", (5, "e"))
    conn.commit()
    conn.write()
    with pytest.raises(Exception, match="duplicate key"):
        _dbapi(conn).cursor().execute("INSERT INTO t VALUES (%s, %s)", (5, "again"))
    assert _status(conn) == "INERROR"          # inside the transaction, as with a plain BEGIN
    conn.rollback()
    assert _status(conn) == "IDLE" and _count(store) == 1


def test_a_connection_given_back_mid_transaction_does_not_begin_the_next_owners(
        pg: tuple[Store, StoreConnection]) -> None:
    store, _conn = pg
    abandoned = store.connect()
    abandoned.write()                          # never committed, never closed
    dbapi = _dbapi(abandoned)
    abandoned.conn.close()                     # back to the pool (as when garbage collected)
    reused = store.connect()
    try:
        assert _dbapi(reused) is dbapi         # the pool hands the same connection out
        reused.exec_driver_sql("INSERT INTO t VALUES (7, 'g')")
        assert _status(reused) == "IDLE"       # autocommitted: no transaction was begun
        assert _count(store) == 1
    finally:
        reused.close()
