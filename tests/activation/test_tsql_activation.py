"""Internal activation end to end in T-SQL: real sessions, real background threads.

Every wait is bounded: tests poll catalog views (``sys.dm_broker_activated_tasks``,
``sys.dm_broker_queue_monitors``, the queue itself) or call ``runtime.wait_idle``; procedures
that must pause wait on a *gate* table the test fills, so no test depends on timing luck.
The queue monitors' recheck period is made small (``runtime_for(…, recheck_seconds=…)``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tsql_client import Client

from tsqlbroker.interpreter.broker_runtime import BrokerRuntime, runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.repl.cli import main

RECHECK = 0.1
WAIT = 10.0  # upper bound of any single wait; tests normally finish far sooner




def wait_for(what: str, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def log_texts(rt: BrokerRuntime) -> list[str]:
    return [e.text for e in rt.log.entries()]


@pytest.fixture
def rt(instance: Instance) -> BrokerRuntime:
    return runtime_for(instance, recheck_seconds=RECHECK)


@pytest.fixture
def c(instance: Instance) -> Client:
    client = Client(instance)
    client.run("CREATE DATABASE app")
    client.run("USE app")
    client.run("CREATE QUEUE sender_q; CREATE SERVICE sender_svc ON QUEUE sender_q;")
    return client


def make_queue(c: Client, activation: str) -> None:
    """Queue ``q`` with ``activation`` options and a service ``target`` on it."""
    c.run(f"CREATE QUEUE q WITH ACTIVATION ({activation});\n"
          "CREATE SERVICE target ON QUEUE q ([DEFAULT]);")


def send(c: Client, n: int, body: str = "m", *, dialogs: bool = True) -> None:
    """Send ``n`` messages to service ``target`` (one dialog each, so that several readers
    can work at once: a conversation group is locked by the reader that receives from it)."""
    if dialogs:
        c.run(f"""DECLARE @h uniqueidentifier, @i int = 0;
WHILE @i < {n}
BEGIN
  BEGIN DIALOG @h FROM SERVICE sender_svc TO SERVICE 'target' WITH ENCRYPTION = OFF;
  SEND ON CONVERSATION @h (N'{body}');
  SET @i += 1;
END""")
    else:
        c.run(f"""DECLARE @h uniqueidentifier, @i int = 0;
BEGIN DIALOG @h FROM SERVICE sender_svc TO SERVICE 'target' WITH ENCRYPTION = OFF;
WHILE @i < {n} BEGIN SEND ON CONVERSATION @h (N'{body}'); SET @i += 1; END""")


def tasks(c: Client) -> list[tuple[Any, ...]]:
    return c.rows("SELECT spid, database_id, queue_id, procedure_name "
                  "FROM sys.dm_broker_activated_tasks")


def monitor(c: Client) -> tuple[str, int] | None:
    rows = c.rows("SELECT m.state, m.tasks_waiting FROM sys.dm_broker_queue_monitors m "
                  "JOIN sys.service_queues q ON q.object_id = m.queue_id WHERE q.name = 'q'")
    return rows[0] if rows else None


def queued(c: Client) -> int:
    return int(c.scalar("SELECT COUNT(*) FROM q"))


# --------------------------------------------------------------------------------------------
# a message starts the procedure as a background session
# --------------------------------------------------------------------------------------------
def test_message_starts_procedure_in_background_session(c: Client, rt: BrokerRuntime) -> None:
    c.run("""CREATE TABLE seen (spid int, body nvarchar(100));
CREATE TABLE gate (go int);
GO
CREATE PROCEDURE handler AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max), @spid int = @@SPID;
  PRINT 'handler says hello';
  SELECT 'a result set nobody sees' AS discarded;
  WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT 2000;
  SET @text = CAST(@body AS nvarchar(100));
  INSERT INTO seen VALUES (@spid, @text);
  WHILE NOT EXISTS (SELECT * FROM gate) WAITFOR DELAY '00:00:00.020';
  RAISERROR ('handler failed on purpose', 16, 1);
END""")
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = handler, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    send(c, 1, "hello")
    wait_for("the row of the activated procedure", lambda: c.scalar(
        "SELECT COUNT(*) FROM seen") == 1)
    spid, body = c.rows("SELECT spid, body FROM seen")[0]
    assert body == "hello" and spid != c.session.id
    # While it runs, sys.dm_broker_activated_tasks shows it.
    db_id = c.scalar("SELECT DB_ID()")
    queue_id = c.scalar("SELECT object_id FROM sys.service_queues WHERE name = 'q'")
    assert tasks(c) == [(spid, db_id, queue_id, "[app].[dbo].[handler]")]
    assert c.rows("SELECT execute_as FROM sys.dm_broker_activated_tasks") == [(-2,)]
    c.run("INSERT INTO gate VALUES (1)")
    assert rt.wait_idle(WAIT)
    assert tasks(c) == []
    texts = log_texts(rt)
    prefix = "The activated proc '[app].[dbo].[handler]' running on queue '[app].[dbo].[q]' " \
             "output the following: "
    assert prefix + "'handler says hello'" in texts
    raised = [t for t in texts if t.startswith(prefix) and "Msg 50000" in t]
    assert len(raised) == 1 and "handler failed on purpose" in raised[0]
    assert not any("nobody sees" in t for t in texts)
    sources = {e.source for e in rt.log.entries() if e.text.startswith(prefix)}
    assert sources == {f"spid{spid}s"}
    # A procedure that ends is not relaunched while nothing new arrives.
    assert queued(c) == 0 and tasks(c) == []


# --------------------------------------------------------------------------------------------
# more readers up to MAX_QUEUE_READERS, never beyond; ALTER QUEUE while running
# --------------------------------------------------------------------------------------------
SLOW_READER = """CREATE TABLE seen (spid int, readers int, body nvarchar(100));
CREATE TABLE gate (go int);
GO
CREATE PROCEDURE reader AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max), @spid int = @@SPID, @readers int;
  WHILE 1 = 1
  BEGIN
    BEGIN TRANSACTION;
    RECEIVE TOP (1) @body = message_body FROM q;
    IF @@ROWCOUNT = 0 BEGIN COMMIT; RETURN; END
    WAITFOR DELAY '00:00:00.150';
    WHILE NOT EXISTS (SELECT * FROM gate) WAITFOR DELAY '00:00:00.020';
    SELECT @readers = COUNT(*) FROM sys.dm_broker_activated_tasks
      WHERE queue_id = OBJECT_ID('q');
    SET @text = CAST(@body AS nvarchar(100));
    INSERT INTO seen VALUES (@spid, @readers, @text);
    COMMIT;
  END
END"""


class Watcher:
    """Samples the number of activated tasks every time it is asked (max seen)."""

    def __init__(self, c: Client) -> None:
        self.c = c
        self.max_seen = 0

    def count(self) -> int:
        n = len(tasks(self.c))
        self.max_seen = max(self.max_seen, n)
        return n


def test_readers_grow_to_max_queue_readers_and_never_beyond(c: Client,
                                                             rt: BrokerRuntime) -> None:
    c.run(SLOW_READER + "\nGO\nINSERT INTO gate VALUES (1)")
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = reader, MAX_QUEUE_READERS = 3, "
                  "EXECUTE AS SELF")
    send(c, 24)
    w = Watcher(c)
    wait_for("three readers", lambda: w.count() == 3)
    wait_for("the queue to drain", lambda: w.count() >= 0 and queued(c) == 0)
    assert rt.wait_idle(WAIT)
    assert w.max_seen == 3
    assert c.scalar("SELECT COUNT(*) FROM seen") == 24
    assert c.scalar("SELECT MAX(readers) FROM seen") == 3
    assert c.scalar("SELECT COUNT(DISTINCT spid) FROM seen") >= 3
    assert tasks(c) == []


def test_alter_queue_max_readers_while_running(c: Client, rt: BrokerRuntime) -> None:
    c.run(SLOW_READER)  # the gate stays shut: readers hold their first message
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = reader, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    send(c, 12)
    w = Watcher(c)
    wait_for("the first reader", lambda: w.count() == 1)
    # Several recheck periods pass with messages unread: MAX_QUEUE_READERS = 1 holds.
    deadline = time.monotonic() + 8 * RECHECK
    while time.monotonic() < deadline:
        assert w.count() == 1
        time.sleep(0.02)
    c.run("ALTER QUEUE q WITH ACTIVATION (MAX_QUEUE_READERS = 3)")
    wait_for("readers up to the raised maximum", lambda: w.count() == 3)
    # Lowering the maximum stops none of them.
    c.run("ALTER QUEUE q WITH ACTIVATION (MAX_QUEUE_READERS = 1)")
    assert c.scalar("SELECT max_readers FROM sys.service_queues WHERE name = 'q'") == 1
    deadline = time.monotonic() + 4 * RECHECK
    while time.monotonic() < deadline:
        assert w.count() == 3
        time.sleep(0.02)
    c.run("INSERT INTO gate VALUES (1)")
    wait_for("the queue to drain", lambda: queued(c) == 0)
    assert rt.wait_idle(WAIT)
    assert w.max_seen == 3
    assert c.scalar("SELECT COUNT(*) FROM seen") == 12
    assert c.scalar("SELECT MAX(readers) FROM seen") == 3


DRAIN = """CREATE TABLE seen (body nvarchar(100));
GO
CREATE PROCEDURE drain AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max);
  WHILE 1 = 1
  BEGIN
    WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT 100;
    IF @@ROWCOUNT = 0 RETURN;
    SET @text = CAST(@body AS nvarchar(100));
    INSERT INTO seen VALUES (@text);
  END
END"""


def test_activation_status_off_on_and_drop(c: Client, rt: BrokerRuntime) -> None:
    c.run(DRAIN)
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = drain, MAX_QUEUE_READERS = 2, "
                  "EXECUTE AS OWNER")
    send(c, 2, "first")
    assert rt.wait_idle(WAIT)
    assert c.scalar("SELECT COUNT(*) FROM seen") == 2
    # (Idle includes a task waiting in RECEIVE: it would still take what comes next.)
    wait_for("the activated tasks to end", lambda: tasks(c) == [])
    # STATUS = OFF: no new starts; the messages stay.
    c.run("ALTER QUEUE q WITH ACTIVATION (STATUS = OFF)")
    send(c, 3, "while off")
    assert rt.wait_idle(WAIT)
    assert queued(c) == 3 and tasks(c) == []
    # A queue monitor exists only while activation is on (reference §5.13).
    assert monitor(c) is None
    assert c.scalar("SELECT is_activation_enabled FROM sys.service_queues "
                    "WHERE name = 'q'") == 0
    # ON again: messages waiting activate at once (no new message needed).
    c.run("ALTER QUEUE q WITH ACTIVATION (STATUS = ON)")
    wait_for("the waiting messages to be processed", lambda: queued(c) == 0)
    assert rt.wait_idle(WAIT)
    assert c.scalar("SELECT COUNT(*) FROM seen WHERE body = 'while off'") == 3
    wait_for("the activated tasks to end", lambda: tasks(c) == [])
    # ACTIVATION (DROP): the settings are gone and nothing is started any more.
    c.run("ALTER QUEUE q WITH ACTIVATION (DROP)")
    assert c.rows("SELECT activation_procedure, is_activation_enabled FROM "
                  "sys.service_queues WHERE name = 'q'") == [(None, 0)]
    send(c, 1, "after drop")
    assert rt.wait_idle(WAIT)
    assert queued(c) == 1 and tasks(c) == []
    # Only queues with activation have a monitor (not sender_q, not q any more).
    assert c.scalar("SELECT COUNT(*) FROM sys.dm_broker_queue_monitors") == 0
    assert c.scalar("SELECT COUNT(*) FROM seen WHERE body = 'after drop'") == 0


# --------------------------------------------------------------------------------------------
# queue monitor states
# --------------------------------------------------------------------------------------------
def test_queue_monitor_states(c: Client, rt: BrokerRuntime) -> None:
    c.run("""CREATE TABLE gate (step int);
GO
CREATE PROCEDURE stepper AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max);
  -- NOTIFIED: launched, no RECEIVE yet.
  WHILE NOT EXISTS (SELECT * FROM gate WHERE step = 1) WAITFOR DELAY '00:00:00.020';
  RECEIVE TOP (1) @body = message_body FROM q;
  -- RECEIVES_OCCURRING: one message received, another still unread.
  WHILE NOT EXISTS (SELECT * FROM gate WHERE step = 2) WAITFOR DELAY '00:00:00.020';
  RECEIVE TOP (1) @body = message_body FROM q;
  -- Waiting in RECEIVE on the empty queue (tasks_waiting = 1) until told to stop.
  WHILE NOT EXISTS (SELECT * FROM gate WHERE step = 3)
    WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT 100;
END""")
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = stepper, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    # A queue with activation has its monitor from the start.
    assert monitor(c) == ("INACTIVE", 0)
    send(c, 2)
    wait_for("NOTIFIED", lambda: monitor(c) == ("NOTIFIED", 0))
    c.run("INSERT INTO gate VALUES (1)")
    wait_for("RECEIVES_OCCURRING", lambda: monitor(c) == ("RECEIVES_OCCURRING", 0))
    assert queued(c) == 1
    c.run("INSERT INTO gate VALUES (2)")
    # Drained, the task waits in RECEIVE: INACTIVE with one task waiting.
    wait_for("a task waiting in RECEIVE", lambda: monitor(c) == ("INACTIVE", 1))
    assert queued(c) == 0
    row = c.rows("SELECT last_activated_time, last_empty_rowset_time "
                 "FROM sys.dm_broker_queue_monitors")[0]
    assert row[0] is not None and row[1] is not None
    c.run("INSERT INTO gate VALUES (3)")
    assert rt.wait_idle(WAIT)
    wait_for("the task to end", lambda: tasks(c) == [])
    assert monitor(c) == ("INACTIVE", 0)


# --------------------------------------------------------------------------------------------
# failures written to the broker log: 8415, 9648, 9653
# --------------------------------------------------------------------------------------------
def test_open_transaction_at_exit_is_msg_8415(c: Client, rt: BrokerRuntime) -> None:
    c.run("""CREATE TABLE t (a int);
GO
CREATE PROCEDURE leaves_open AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max);
  RECEIVE TOP (1) @body = message_body FROM q;
  BEGIN TRANSACTION;
  INSERT INTO t VALUES (1);
END""")
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = leaves_open, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    send(c, 1)
    wait_for("Msg 8415 in the log", lambda: any("Msg 8415" in t for t in log_texts(rt)))
    (entry,) = [e for e in rt.log.entries() if "Msg 8415" in e.text]
    assert entry.source.startswith("spid") and entry.source.endswith("s")
    assert "The activated task was aborted because the invoked stored procedure " \
           "'[app].[dbo].[leaves_open]' did not issue COMMIT or ROLLBACK" in entry.text
    assert rt.wait_idle(WAIT)
    # The open transaction was rolled back; the RECEIVE before it had committed.
    assert c.scalar("SELECT COUNT(*) FROM t") == 0
    assert queued(c) == 0


def test_zero_max_queue_readers_is_msg_9648(c: Client, rt: BrokerRuntime) -> None:
    c.run(DRAIN)
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = drain, MAX_QUEUE_READERS = 0, "
                  "EXECUTE AS OWNER")
    send(c, 2)
    wait_for("Msg 9648 in the log", lambda: any("Msg 9648" in t for t in log_texts(rt)))
    assert rt.wait_idle(WAIT)
    texts = [t for t in log_texts(rt) if "Msg 9648" in t]
    assert texts == [("Msg 9648, Level 20, State 1, The queue '[app].[dbo].[q]' has been "
                     "enabled for activation, but the MAX_QUEUE_READERS is zero. No procedures "
                     "will be activated. Consider increasing the number of MAX_QUEUE_READERS.")]
    assert queued(c) == 2 and tasks(c) == []
    c.run("ALTER QUEUE q WITH ACTIVATION (MAX_QUEUE_READERS = 1)")
    wait_for("the messages to be processed", lambda: queued(c) == 0)
    assert rt.wait_idle(WAIT)


def test_procedure_with_parameters_is_msg_9653_at_activation(c: Client,
                                                              rt: BrokerRuntime) -> None:
    c.run("""CREATE TABLE t (a int);
GO
CREATE PROCEDURE takes_args @x int = 1 AS
BEGIN
  INSERT INTO t VALUES (@x);
  RECEIVE TOP (1) * FROM q;
END""")
    # CREATE QUEUE accepts it (SQL Server checks the signature when it activates).
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = takes_args, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    send(c, 1)
    wait_for("Msg 9653 in the log", lambda: any("Msg 9653" in t for t in log_texts(rt)))
    assert rt.wait_idle(WAIT)
    texts = log_texts(rt)
    assert [t for t in texts if "Msg 9653" in t] == [
        ("Msg 9653, Level 16, State 1, The signature of activation stored procedure "
        "'[app].[dbo].[takes_args]' is invalid. Parameters are not allowed.")]
    assert not any("Msg 28087" in t for t in texts)
    # The procedure never ran and the message waits.
    assert c.scalar("SELECT COUNT(*) FROM t") == 0
    assert queued(c) == 1 and tasks(c) == []


# --------------------------------------------------------------------------------------------
# start-up scan on a persisted store
# --------------------------------------------------------------------------------------------
def test_messages_waiting_at_startup_are_processed(persistent_url: str) -> None:
    url = persistent_url
    first = Instance(url)
    try:
        c = Client(first)
        c.run("CREATE DATABASE app; USE app;"
              "CREATE QUEUE sender_q; CREATE SERVICE sender_svc ON QUEUE sender_q;")
        # While 'ready' is empty the procedure returns before RECEIVE: the monitor stays
        # NOTIFIED (Msg 28087) and the messages wait, as on a server that goes down.
        c.run("""CREATE TABLE ready (a int);
CREATE TABLE seen (body nvarchar(100));
GO
CREATE PROCEDURE drain AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max);
  IF NOT EXISTS (SELECT * FROM ready) RETURN;
  WHILE 1 = 1
  BEGIN
    WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT 100;
    IF @@ROWCOUNT = 0 RETURN;
    SET @text = CAST(@body AS nvarchar(100));
    INSERT INTO seen VALUES (@text);
  END
END""")
        make_queue(c, "STATUS = ON, PROCEDURE_NAME = drain, MAX_QUEUE_READERS = 1, "
                      "EXECUTE AS OWNER")
        send(c, 5, "early")
        first_rt = runtime_for(first)
        wait_for("Msg 28087", lambda: any("Msg 28087" in t for t in log_texts(first_rt)))
        assert queued(c) == 5
        c.run("INSERT INTO ready VALUES (1)")
        assert queued(c) == 5  # nothing relaunches a stranded monitor in this instance
    finally:
        first.close()
    second = Instance(url)
    try:
        c2 = Client(second, "app")
        assert c2.scalar("SELECT COUNT(*) FROM q") == 5
        rt2 = runtime_for(second, recheck_seconds=RECHECK)
        wait_for("the start-up scan to process the queue", lambda: queued(c2) == 0)
        assert rt2.wait_idle(WAIT)
        assert c2.rows("SELECT body, COUNT(*) FROM seen GROUP BY body") == [("early", 5)]
    finally:
        second.close()


# --------------------------------------------------------------------------------------------
# tsqlbroker run waits for quiescence
# --------------------------------------------------------------------------------------------
RUN_SCRIPT = """CREATE DATABASE app;
GO
USE app;
CREATE TABLE seen (n int);
GO
CREATE PROCEDURE worker AS
BEGIN
  DECLARE @text nvarchar(100), @body varbinary(max);
  WHILE 1 = 1
  BEGIN
    WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT {timeout};
    IF @@ROWCOUNT = 0 RETURN;
    SET @text = CAST(@body AS nvarchar(20));
    INSERT INTO seen VALUES (CAST(@text AS int));
  END
END
GO
CREATE QUEUE q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = worker,
  MAX_QUEUE_READERS = 2, EXECUTE AS OWNER);
CREATE QUEUE sender_q;
CREATE SERVICE target ON QUEUE q ([DEFAULT]);
CREATE SERVICE sender_svc ON QUEUE sender_q;
GO
DECLARE @h uniqueidentifier, @i int = 0;
BEGIN DIALOG @h FROM SERVICE sender_svc TO SERVICE 'target' WITH ENCRYPTION = OFF;
WHILE @i < 50
BEGIN
  SET @i += 1;
  SEND ON CONVERSATION @h (CAST(@i AS nvarchar(20)));
END
"""


def _json_records(text: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("timeout", [200, 60000], ids=["proc-exits", "proc-idle-in-waitfor"])
def test_run_returns_after_activation_processed_everything(
        tmp_path: Path, persistent_url: str, capsys: pytest.CaptureFixture[str],
        timeout: int) -> None:
    url = persistent_url
    script = tmp_path / "send.sql"
    script.write_text(RUN_SCRIPT.format(timeout=timeout), encoding="utf-8")
    started = time.monotonic()
    assert main(["--url", url, "run", str(script)]) == 0
    elapsed = time.monotonic() - started
    # A procedure idle in WAITFOR (RECEIVE …), TIMEOUT 60000 counts as quiescent: run does
    # not wait for it (nor for the --wait-idle bound).
    assert elapsed < 8.0
    capsys.readouterr()
    # Read the result with a fresh instance whose broker runtime is not started (plain
    # SELECTs do not start it), so its start-up scan cannot finish what run left undone.
    later = Instance(url)
    try:
        c = Client(later, "app")
        assert c.rows("SELECT COUNT(*), SUM(n) FROM seen") == [(50, 50 * 51 // 2)]
        assert c.scalar("SELECT COUNT(*) FROM q") == 0
        assert not runtime_for(later, start=False).started
    finally:
        later.close()
    # The same through the command line's JSON output.
    assert main(["--url", url, "--format", "json", "-Q",
                 "SELECT COUNT(*) AS n FROM app.dbo.seen"]) == 0
    sets = [r for r in _json_records(capsys.readouterr().out) if r["type"] == "resultset"]
    assert [s["rows"] for s in sets] == [[[50]]]


def test_drop_queue_ends_its_activated_task(c: Client, rt: BrokerRuntime) -> None:
    c.run(DRAIN.replace("TIMEOUT 100", "TIMEOUT 60000"))
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = drain, MAX_QUEUE_READERS = 1, "
                  "EXECUTE AS OWNER")
    send(c, 1)
    wait_for("the task waiting in RECEIVE", lambda: monitor(c) == ("INACTIVE", 1))
    (spid,) = [row[0] for row in tasks(c)]
    c.run("DROP SERVICE target; DROP QUEUE q;")
    wait_for("the task to end", lambda: tasks(c) == [])
    assert rt.wait_idle(WAIT)
    assert c.scalar("SELECT COUNT(*) FROM sys.dm_broker_queue_monitors") == 0
    dropped = [e for e in rt.log.entries() if "Msg 28085" in e.text]
    assert [(e.source, e.text) for e in dropped] == [
        (f"spid{spid}s", ("Msg 28085, Level 16, State 1, The activated task was ended because "
                         "the associated queue was dropped."))]
    # What failed in the procedure after that (its queue is gone) is not logged as its error.
    assert not any("output the following" in e.text for e in rt.log.entries())


def test_monitor_stays_receives_occurring_while_a_reader_holds_the_group(
        c: Client, rt: BrokerRuntime) -> None:
    # One conversation: the reader's RECEIVE locks its group, so the other messages cannot be
    # received by anyone else, yet they are not gone — the monitor is not INACTIVE.
    c.run(SLOW_READER)
    make_queue(c, "STATUS = ON, PROCEDURE_NAME = reader, MAX_QUEUE_READERS = 2, "
                  "EXECUTE AS OWNER")
    send(c, 4, dialogs=False)
    wait_for("RECEIVES_OCCURRING", lambda: monitor(c) == ("RECEIVES_OCCURRING", 0))
    deadline = time.monotonic() + 5 * RECHECK
    while time.monotonic() < deadline:  # several rechecks: no second reader for one group
        assert monitor(c) == ("RECEIVES_OCCURRING", 0) and len(tasks(c)) == 1
        time.sleep(0.02)
    c.run("INSERT INTO gate VALUES (1)")
    wait_for("the queue to drain", lambda: queued(c) == 0)
    assert rt.wait_idle(WAIT)
    wait_for("INACTIVE", lambda: monitor(c) == ("INACTIVE", 0) and tasks(c) == [])
    # (Between the reader's commits the group is free: a second reader may then start, and
    # one that finds the group locked gets nothing and ends.)
    assert c.scalar("SELECT COUNT(*) FROM seen") == 4
    assert c.scalar("SELECT MAX(readers) FROM seen") <= 2


# --------------------------------------------------------------------------------------------
# EXECUTE AS OWNER: the queue's owner (issue 19: owners other than dbo)
# --------------------------------------------------------------------------------------------
def test_execute_as_owner_runs_as_the_queue_owner(c: Client, rt: BrokerRuntime) -> None:
    """A queue in a schema owned by u1 activates its procedure as u1 (USER_NAME() u1, and
    u1's permissions: it owns the queue, so it may RECEIVE); moved to a role, the task is
    not run and Msg 15517 is logged."""
    c.run("""CREATE USER u1 WITHOUT LOGIN;
CREATE ROLE r1;
GO
CREATE SCHEMA s1 AUTHORIZATION u1;
GO
CREATE TABLE s1.seen (who sysname, body nvarchar(100));
GO
CREATE PROCEDURE s1.handler AS
BEGIN
  DECLARE @body varbinary(max);
  WAITFOR (RECEIVE TOP (1) @body = message_body FROM s1.q), TIMEOUT 1000;
  IF @body IS NOT NULL INSERT INTO s1.seen VALUES (USER_NAME(), CAST(@body AS nvarchar(100)));
END
GO
CREATE QUEUE s1.q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = s1.handler,
  MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE SERVICE target ON QUEUE s1.q ([DEFAULT]);""")
    send(c, 1, "owned")
    wait_for("the activated procedure's row", lambda: c.scalar(
        "SELECT COUNT(*) FROM s1.seen") == 1)
    assert c.rows("SELECT who, body FROM s1.seen") == [("u1", "owned")]
    assert rt.wait_idle(WAIT)
    c.run("ALTER AUTHORIZATION ON s1.q TO r1")
    send(c, 1, "role")
    wait_for("Msg 15517 in the log", lambda: any(
        "15517" in t and "r1" in t for t in log_texts(rt)))
    assert c.scalar("SELECT COUNT(*) FROM s1.seen") == 1
