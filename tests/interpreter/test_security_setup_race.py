"""The security tables are made on first use by whichever session comes first; a session
waiting to make them must not hold up one that is inside a write transaction and needs them
too (the REPL's catalog reader against a batch's CREATE LOGIN deadlocked on a fresh store)."""

from __future__ import annotations

import threading

from tests.tsql_client import Client
from tsqlbroker.interpreter.instance import Instance


def test_a_reader_waiting_to_make_the_security_tables_lets_a_writer_go_on(
        instance: Instance) -> None:
    writer, reader = Client(instance), Client(instance)
    writer.run("BEGIN TRANSACTION; CREATE TABLE dbo.race_t (a int)")   # holds the write lock
    got: list[object] = []
    t = threading.Thread(target=lambda: got.append(
        reader.rows("SELECT COUNT(*) FROM sys.server_principals WHERE name = 'race_lg'")))
    t.start()
    t.join(0.5)                   # the reader now waits for the write lock to make the tables
    writer.run("CREATE LOGIN race_lg WITH PASSWORD = 'Str0ng!Passw0rd'; COMMIT")
    t.join(30)
    assert not t.is_alive(), "the reader never finished: the two sessions deadlocked"
    assert got and got[0] in ([(0,)], [(1,)])
