"""Server introspection: sp_who / sp_who2, sys.dm_exec_sessions / requests, sys.dm_tran_locks,
KILL, SET STATISTICS TIME / IO, sp_helpdb, SERVERPROPERTY.

Real sessions on both backends; a session that must wait does so on a thread of its own, and
every wait is bounded (``wait_for``)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tsql_client import Client, wait_for

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

WAIT = 10.0


@pytest.fixture
def app(instance: Instance) -> Client:
    c = Client(instance)
    c.run("CREATE DATABASE app")
    c.run("USE app")
    c.run("CREATE QUEUE q; CREATE SERVICE s ON QUEUE q ([DEFAULT]);")
    return c


def dialog_with_message(c: Client) -> str:
    """A dialog on service s with one message waiting in q; the message's group id."""
    return str(c.scalar(
        "DECLARE @h uniqueidentifier; BEGIN DIALOG @h FROM SERVICE s TO SERVICE 's' "
        "WITH ENCRYPTION = OFF; SEND ON CONVERSATION @h ('m');\n"
        "SELECT conversation_group_id FROM q"))


@pytest.fixture
def background() -> Iterator[Callable[[Callable[[], Any]], threading.Thread]]:
    threads: list[threading.Thread] = []

    def start(fn: Callable[[], Any]) -> threading.Thread:
        t = threading.Thread(target=fn, daemon=True)
        t.start()
        threads.append(t)
        return t

    yield start
    for t in threads:
        t.join(WAIT)
        assert not t.is_alive()


def who(c: Client, arg: str = "") -> dict[int, tuple[Any, ...]]:
    return {r[0]: r for r in c.rows(f"EXEC sp_who {arg}")}


def test_sp_who_lists_sessions_and_the_caller(instance: Instance, app: Client) -> None:
    other = Client(instance)
    rs = app.run("EXEC sp_who").resultsets()[0]
    assert rs.columns == ["spid", "ecid", "status", "loginame", "hostname", "blk", "dbname",
                          "cmd", "request_id"]
    rows = {r[0]: r for r in rs.rows}
    me, idle = rows[app.session.id], rows[other.session.id]
    assert me[2] == "runnable" and me[6] == "app" and me[3] == "sa" and me[7] == "EXECUTE"
    assert idle[2] == "sleeping" and idle[7] == "AWAITING COMMAND" and idle[5] == "0"
    assert set(who(app, "'active'")) == {app.session.id}
    assert set(who(app, str(other.session.id))) == {other.session.id}
    two = app.run("EXEC sp_who2").resultsets()[0]
    assert two.columns == ["SPID", "Status", "Login", "HostName", "BlkBy", "DBName", "Command",
                           "CPUTime", "DiskIO", "LastBatch", "ProgramName", "SPID",
                           "REQUESTID"]
    mine = next(r for r in two.rows if r[0] == str(app.session.id))
    assert mine[1] == "RUNNABLE" and mine[4] == "  ." and re.fullmatch(
        r"\d\d/\d\d \d\d:\d\d:\d\d", mine[9])
    assert app.run("EXEC sp_who 'nobody'", expect_errors=True).errors()[0].number == 15007


def test_a_blocked_receive_shows_who_blocks_it(instance: Instance, app: Client,
                                               background: Any) -> None:
    group = dialog_with_message(app)
    app.run("BEGIN TRAN; RECEIVE * FROM q;")   # holds the conversation group's lock
    waiter = Client(instance, "app")
    background(lambda: waiter.run(
        "WAITFOR (RECEIVE * FROM q WHERE conversation_group_id = "
        f"'{group}'), TIMEOUT 8000"))
    wait_for("the waiter to block", lambda: who(app).get(waiter.session.id, ())[5:6]
             == (str(app.session.id),))
    row = who(app)[waiter.session.id]
    assert row[2] == "suspended" and row[7] == "WAITFOR"
    req = app.rows("SELECT status, command, blocking_session_id, wait_type, wait_resource "
                   f"FROM sys.dm_exec_requests WHERE session_id = {waiter.session.id}")
    assert req[0][:4] == ("suspended", "WAITFOR", app.session.id, "LCK_M_X")
    assert group.upper() in req[0][4]
    locks = app.rows("SELECT resource_type, resource_subtype, resource_description, "
                     "request_mode, request_status, request_session_id FROM sys.dm_tran_locks "
                     "ORDER BY request_status")
    desc = f"conversation_group_id = {group.upper()}"
    assert ("METADATA", "CONVERSATION_GROUP", desc, "X", "GRANT", app.session.id) in locks
    assert ("METADATA", "CONVERSATION_GROUP", desc, "X", "WAIT", waiter.session.id) in locks
    app.run("ROLLBACK")
    wait_for("the waiter to get the message", lambda: who(app)[waiter.session.id][2]
             == "sleeping")


def test_sessions_view(instance: Instance, app: Client) -> None:
    other = Client(instance)
    other.run("BEGIN TRAN")
    rows = {r[0]: r for r in app.rows(
        "SELECT session_id, status, login_name, is_user_process, open_transaction_count, "
        "DB_NAME(database_id), program_name FROM sys.dm_exec_sessions")}
    assert rows[app.session.id][1:6] == ("running", "sa", 1, 0, "app")
    assert rows[other.session.id][1:6] == ("sleeping", "sa", 1, 1, "master")
    assert [r[0] for r in app.rows("SELECT session_id FROM sys.dm_exec_requests")] \
        == [app.session.id]


def test_kill_errors(instance: Instance, app: Client) -> None:
    other = Client(instance)
    cases = {f"KILL {app.session.id}": 6104, "KILL 9999": 6106, "KILL 7": 6107,
             f"KILL {other.session.id} WITH STATUSONLY": 6120}
    for text, number in cases.items():
        assert app.run(text, expect_errors=True).errors()[0].number == number, text
    app.run("BEGIN TRAN")
    assert app.run(f"KILL {other.session.id}", expect_errors=True).errors()[0].number == 6115
    app.run("ROLLBACK")


def test_kill_an_idle_session_rolls_its_transaction_back(instance: Instance,
                                                         app: Client) -> None:
    app.run("CREATE TABLE t (a int)")
    other = Client(instance, "app")
    other.run("BEGIN TRAN; INSERT t VALUES (1);")
    app.run(f"KILL {other.session.id}")
    assert app.scalar("SELECT COUNT(*) FROM t") == 0
    err = other.run("SELECT 1", expect_errors=True).errors()[0]
    assert (err.number, err.severity) == (596, 21)


def test_kill_an_activated_task_rolls_back_and_the_message_returns(instance: Instance,
                                                                   app: Client) -> None:
    runtime_for(instance, recheck_seconds=0.1)
    app.run("CREATE TABLE gate (a int);\n"
            "CREATE QUEUE aq; CREATE SERVICE asvc ON QUEUE aq ([DEFAULT]);")
    app.run("CREATE PROCEDURE handler AS BEGIN\n"
            "  BEGIN TRAN; RECEIVE TOP (1) * FROM aq;\n"
            "  WHILE NOT EXISTS (SELECT * FROM gate) WAITFOR DELAY '00:00:00.05';\n"
            "  COMMIT;\n"
            "END")
    app.run("DECLARE @h uniqueidentifier; BEGIN DIALOG @h FROM SERVICE asvc TO SERVICE "
            "'asvc' WITH ENCRYPTION = OFF; SEND ON CONVERSATION @h ('m');")
    app.run("ALTER QUEUE aq WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = handler, "
            "MAX_QUEUE_READERS = 1, EXECUTE AS SELF)")
    spids: list[int] = []

    def task_running() -> bool:
        spids[:] = [r[0] for r in app.rows("SELECT spid FROM sys.dm_broker_activated_tasks "
                                           "WHERE spid IS NOT NULL")]
        return bool(spids)

    wait_for("the activated task", task_running)
    first = spids[0]
    # The task mostly waits in WAITFOR DELAY; in between it is background work.
    wait_for("the task to wait", lambda: who(app)[first][2:8:5] == ("suspended", "WAITFOR"))
    assert who(app)[first][2] in ("suspended", "background")
    assert app.rows(f"SELECT is_user_process FROM sys.dm_exec_sessions WHERE session_id = "
                    f"{first}") == [(0,)]
    app.run(f"KILL {first}")
    # The RECEIVE rolled back: the message is back (a new task takes it; let it commit).
    wait_for("the killed task to end", lambda: first not in who(app))
    app.run("INSERT gate VALUES (1)")
    wait_for("the message to be received again",
             lambda: app.scalar("SELECT COUNT(*) FROM aq") == 0
             and not app.rows("SELECT spid FROM sys.dm_broker_activated_tasks"))
    logged = [e.text for e in runtime_for(instance).log.entries()]
    assert any("Msg 596" in t and "kill state" in t for t in logged), logged


def test_statistics_time_and_io(app: Client) -> None:
    app.run("CREATE TABLE t (a int); INSERT t VALUES (1), (2), (3);")
    out = app.run("SET STATISTICS IO ON; SET STATISTICS TIME ON;").messages()
    out = app.run("SELECT * FROM t x JOIN t y ON x.a = y.a;\n"
                  "INSERT t VALUES (4);\n"
                  "SET STATISTICS TIME OFF; SET STATISTICS IO OFF; SELECT 1").messages()
    assert re.fullmatch(r"SQL Server parse and compile time: \n   CPU time = \d+ ms, "
                        r"elapsed time = \d+ ms\.", out[0])
    io = [m for m in out if m.startswith("Table ")]
    rest = ("physical reads 0, page server reads 0, read-ahead reads 0, page server "
            "read-ahead reads 0, lob logical reads 0, lob physical reads 0, lob page server "
            "reads 0, lob read-ahead reads 0, lob page server read-ahead reads 0.")
    assert io == [f"Table 't'. Scan count 2, logical reads 6, {rest}",
                  f"Table 't'. Scan count 0, logical reads 1, {rest}"]
    times = [m for m in out if "Execution Times" in m]
    assert times and all(re.fullmatch(r" SQL Server Execution Times:\n   CPU time = \d+ ms,  "
                                      r"elapsed time = \d+ ms\.", m) for m in times)
    assert not [m for m in app.run("SELECT 1").messages() if "Time" in m or "Table" in m]


def test_sp_helpdb(app: Client) -> None:
    rs = app.run("EXEC sp_helpdb").resultsets()
    assert rs[0].columns == ["name", "db_size", "owner", "dbid", "created", "status",
                             "compatibility_level"]
    names = [r[0] for r in rs[0].rows]
    assert names[:4] == ["master", "tempdb", "model", "msdb"] and "app" in names
    one = app.run("EXEC sp_helpdb 'app'").resultsets()
    assert len(one) == 2 and one[0].rows[0][0] == "app" and one[0].rows[0][6] == 150
    assert "Recovery=FULL" in one[0].rows[0][5]
    assert re.fullmatch(r"[A-Z][a-z]{2} [ \d]\d \d{4}", one[0].rows[0][4])
    assert one[1].rows[0][3:4] == ("PRIMARY",)
    err = app.run("EXEC sp_helpdb 'nope'", expect_errors=True).errors()[0]
    assert err.number == 15010


def test_serverproperty_inside_a_query(app: Client) -> None:
    assert app.rows("SELECT TOP (1) SERVERPROPERTY('ProductMajorVersion'), "
                    "SERVERPROPERTY('EngineEdition') FROM sys.databases") == [("15", 3)]
