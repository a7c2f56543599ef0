"""Storage failures that reach a statement's end become SQL Server's errors, never Msg 3624:
a deadlock victim or serialization failure is Msg 1205, a lock timeout Msg 1222, a lost
connection SQL Server's severe-error message (its transaction gone, the session going on with
a new connection); which of them are transient (not the work's fault)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool
from tsql_client import Client

from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.interpreter.compiler import internal_error
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.failures import connection_lost, is_transient, storage_error

if TYPE_CHECKING:
    from conftest import FreshPostgres


def _wrapped(exc: Exception, *, lost: bool = False) -> DBAPIError:
    err = DBAPIError.instance(None, None, exc, psycopg.Error, connection_invalidated=lost)
    assert isinstance(err, DBAPIError)
    return err


@pytest.mark.parametrize(("error", "number", "severity"), [
    (psycopg.errors.DeadlockDetected("deadlock detected"), 1205, 13),
    (psycopg.errors.SerializationFailure("could not serialize access"), 1205, 13),
    (psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"), 1222, 16),
])
def test_retryable_server_errors_become_sql_servers(error: Exception, number: int,
                                                    severity: int) -> None:
    wrapped = _wrapped(error)
    for exc in (wrapped, error):
        assert is_transient(exc)
    mapped = storage_error(wrapped)
    assert mapped is not None and (mapped.number, mapped.severity) == (number, severity)
    assert internal_error(wrapped).number == number
    assert is_transient(mapped)


def test_a_lost_connection_is_a_severe_error_that_ends_the_transaction() -> None:
    wrapped = _wrapped(psycopg.OperationalError("the connection is lost"), lost=True)
    mapped = storage_error(wrapped)
    assert mapped is not None
    assert (mapped.number, mapped.severity) == (0, 20)
    assert mapped.message.startswith("A severe error occurred on the current command.")
    assert connection_lost(wrapped) and connection_lost(mapped) and is_transient(mapped)


def test_other_failures_are_not_transient() -> None:
    assert storage_error(ValueError("x")) is None
    assert internal_error(ValueError("x")).number == 3624
    unique = _wrapped(psycopg.errors.UniqueViolation("duplicate key"))
    assert not is_transient(unique) and not connection_lost(unique)
    assert storage_error(sqlite3.OperationalError("database is locked")).number == 1222
    assert not is_transient(tsql_error(8429, "DI"))
    assert is_transient(tsql_error(1205, 1, "lock")) and is_transient(tsql_error(1222))
    assert not is_transient(TSqlError(50000, "raised by the procedure"))


def test_a_session_whose_connection_is_killed_goes_on_with_a_new_one(
        fresh_postgres: FreshPostgres) -> None:
    url = fresh_postgres.url()
    inst = Instance(url)
    try:
        Client(inst).run("CREATE DATABASE lc")
        c = Client(inst, "lc")
        c.run("CREATE TABLE t (i int)")
        c.run("BEGIN TRAN; INSERT INTO t VALUES (1)")
        pid = c.session.conn.conn.connection.dbapi_connection.info.backend_pid
        engine = create_engine(url, poolclass=NullPool)
        with engine.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        engine.dispose()
        sink = c.run("INSERT INTO t VALUES (2); SELECT 'not reached'", expect_errors=True)
        assert [(e.number, e.severity) for e in sink.errors()] == [(0, 20)]
        assert sink.resultsets() == []
        assert c.rows("SELECT @@TRANCOUNT") == [(0,)]
        c.run("BEGIN TRAN; INSERT INTO t VALUES (3); COMMIT")
        assert c.rows("SELECT i FROM t") == [(3,)]
    finally:
        inst.close()
