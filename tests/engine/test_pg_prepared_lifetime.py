"""The broker's statements prepared on a PostgreSQL connection (``postgres/libpq``) live exactly
as long as the server keeps them: on every path a pooled connection takes — a ROLLBACK after a
PREPARE in the same transaction, an error mid-transaction, psycopg's own ROLLBACK / DROP /
savepoint handling, the pool's reset on return, a connection the server dropped — the next
use of each statement finds it, or prepares it again; never ``prepared statement "tsqlb_N"
does not exist``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool
from tsql_client import Client

from tsqlbroker.engine.broker.fastsql import run
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.backends.postgres import libpq as pgexec
from tsqlbroker.storage.store import Store, StoreConnection

if TYPE_CHECKING:
    from conftest import FreshPostgres

HOT = "SELECT count(*) FROM t WHERE i = ?"


@pytest.fixture
def url(fresh_postgres: FreshPostgres) -> str:
    return fresh_postgres.url()


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    s = Store(url)
    conn = s.connect()
    conn.exec_driver_sql("CREATE TABLE t (i integer PRIMARY KEY)")
    conn.close()
    try:
        yield s
    finally:
        s.close()


def _dbapi(conn: StoreConnection) -> Any:
    return conn.conn.connection.dbapi_connection


def _server_names(conn: StoreConnection) -> set[str]:
    """The names of the connection's prepared statements, as the server has them."""
    rows = conn.exec_driver_sql("SELECT name FROM pg_prepared_statements").all()
    return {r[0] for r in rows}


def _prepared(conn: StoreConnection) -> str:
    """Run HOT twice (it is prepared at its second use); its name on the connection."""
    for _ in range(2):
        assert run(conn, HOT, (1,)).fetchone() == (0,)
    name = pgexec.prepared_names(_dbapi(conn))[HOT].decode()
    assert name in _server_names(conn)
    return name


def _still_prepared(conn: StoreConnection, name: str) -> None:
    assert run(conn, HOT, (1,)).fetchone() == (0,)
    assert pgexec.prepared_names(_dbapi(conn))[HOT].decode() == name
    assert name in _server_names(conn)


def test_psycopgs_rollback_drop_and_savepoints_leave_our_statements_alone(
        store: Store) -> None:
    conn = store.connect()
    name = _prepared(conn)
    # What used to make psycopg send DEALLOCATE ALL: statements it had prepared itself (run
    # five times), then a ROLLBACK TO SAVEPOINT, a DROP and a ROLLBACK through its cursor.
    for i in range(6):
        conn.exec_driver_sql("SELECT %(i)s::int", {"i": i})
    conn.write()
    conn.savepoint("sp")
    conn.exec_driver_sql("INSERT INTO t VALUES (1)")
    conn.rollback_to("sp")
    conn.exec_driver_sql("CREATE TABLE gone (x int)")
    conn.exec_driver_sql("DROP TABLE gone")
    conn.commit()
    conn.exec_driver_sql("SELECT 1")
    _still_prepared(conn, name)
    _dbapi(conn).rollback()             # what the pool's reset-on-return calls
    _still_prepared(conn, name)
    conn.close()


def test_a_statement_prepared_in_a_rolled_back_transaction_stays_usable(
        store: Store) -> None:
    conn = store.connect()
    conn.write()
    name = _prepared(conn)
    conn.rollback()
    _still_prepared(conn, name)
    conn.close()


def test_an_error_mid_transaction_records_no_statement(store: Store) -> None:
    conn = store.connect()
    conn.write()
    with pytest.raises(DBAPIError) as failed:
        run(conn, "SELECT 1 / ?", (0,))
    assert failed.value.orig.sqlstate == "22012"
    # The transaction is aborted: the PREPARE at the second use fails as well, and the
    # statement must not be taken for prepared afterwards.
    for _ in range(2):
        with pytest.raises(DBAPIError) as aborted:
            run(conn, HOT, (1,))
        assert aborted.value.orig.sqlstate == "25P02"
    assert HOT not in pgexec.prepared_names(_dbapi(conn))
    conn.rollback()
    name = _prepared(conn)
    _still_prepared(conn, name)
    conn.close()


def test_a_connection_back_from_the_pool_keeps_its_statements(store: Store) -> None:
    conn = store.connect()
    dbapi = _dbapi(conn)
    name = _prepared(conn)
    conn.write()
    run(conn, "INSERT INTO t VALUES (?)", (5,))
    conn.conn.close()           # back to the pool with the transaction open: reset rolls back
    again = store.connect()
    assert _dbapi(again) is dbapi
    _still_prepared(again, name)
    assert run(again, "SELECT count(*) FROM t", ()).fetchone() == (0,)
    again.close()


def test_statements_deallocated_behind_our_back_are_prepared_again(store: Store) -> None:
    conn = store.connect()
    _prepared(conn)
    conn.exec_driver_sql("DEALLOCATE ALL")
    # Outside a transaction the statement simply runs again.
    assert run(conn, HOT, (1,)).fetchone() == (0,)
    _prepared(conn)
    conn.exec_driver_sql("DEALLOCATE ALL")
    # Inside one it fails once (the transaction is aborted) and is prepared anew afterwards.
    conn.write()
    with pytest.raises(DBAPIError) as gone:
        run(conn, HOT, (1,))
    assert gone.value.orig.sqlstate == "26000"
    conn.rollback()
    name = _prepared(conn)
    _still_prepared(conn, name)
    conn.close()


def _kill(url: str, pid: int) -> None:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as c:
        c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
    engine.dispose()


def test_a_lost_connection_is_replaced_by_one_without_statements(url: str,
                                                                 store: Store) -> None:
    conn = store.connect()
    _prepared(conn)
    old = _dbapi(conn)
    conn.write()
    _kill(url, old.info.backend_pid)
    with pytest.raises(DBAPIError) as lost:
        run(conn, HOT, (1,))
    assert lost.value.connection_invalidated
    assert not conn.in_write_txn              # the transaction went with the connection
    assert run(conn, HOT, (1,)).fetchone() == (0,)
    assert _dbapi(conn) is not old and HOT not in pgexec.prepared_names(_dbapi(conn))
    _prepared(conn)
    conn.close()


SETUP = """
CREATE MESSAGE TYPE [//pl/m] VALIDATION = NONE;
CREATE CONTRACT [//pl/c] ([//pl/m] SENT BY ANY);
CREATE QUEUE IQ; CREATE QUEUE TQ;
CREATE SERVICE [//pl/i] ON QUEUE IQ;
CREATE SERVICE [//pl/t] ON QUEUE TQ ([//pl/c]);
CREATE TABLE u (id int PRIMARY KEY);
"""

# The sequence: the initiator receives the target's EndDialog, SEND fails with 8429
# (a statement error, caught), END CONVERSATION then ends the conversation.
AFTER_END_DIALOG = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier, @th uniqueidentifier, @mt sysname;
BEGIN DIALOG @h FROM SERVICE [//pl/i] TO SERVICE '//pl/t' ON CONTRACT [//pl/c]
    WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE [//pl/m] ('x');
RECEIVE TOP (1) @th = conversation_handle FROM TQ;
END CONVERSATION @th;
RECEIVE TOP (1) @mt = message_type_name FROM IQ;
BEGIN TRY
    SEND ON CONVERSATION @h MESSAGE TYPE [//pl/m] ('y');
END TRY
BEGIN CATCH
    PRINT ERROR_NUMBER();
END CATCH;
END CONVERSATION @h;
SELECT @mt, (SELECT COUNT(*) FROM sys.conversation_endpoints WHERE is_initiator = 1);
"""


def test_a_long_session_with_failing_statements_never_loses_its_statements(url: str) -> None:
    inst = Instance(url)
    try:
        Client(inst).run("CREATE DATABASE pl")
        c = Client(inst, "pl")
        c.run(SETUP)
        for i in range(3):
            # DML often enough for psycopg to have prepared it, then a failing statement
            # whose savepoint is rolled back, then a table variable dropped at the batch end.
            for _ in range(6):
                c.run(f"DELETE FROM u WHERE id = {i}; INSERT INTO u VALUES ({i})")
            sink = c.run(f"DECLARE @v TABLE (x int); INSERT INTO u VALUES ({i})",
                         expect_errors=True)
            assert [e.number for e in sink.errors()] == [2627]
            sink = c.run(AFTER_END_DIALOG)
            assert sink.messages() == ["8429"]
            assert sink.resultsets()[-1].rows == [
                ("http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog", 0)]
    finally:
        inst.close()
