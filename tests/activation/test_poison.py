"""Poison-message handling (reference §5.12) in T-SQL.

Five consecutive rollbacks of transactions that received from a queue disable it
(``is_receive_enabled = 0``, RECEIVE → Msg 9617) and log a Broker:Queue Disabled event; a
committed RECEIVE resets the count; rolling back to a savepoint is not a rollback;
POISON_MESSAGE_HANDLING (STATUS = OFF) turns it off. The disabling happens as the fifth
transaction ends, so the plain-session tests check at once; the activated one polls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from tsql_client import Client

from tsqlbroker.engine.activation import POISON_THRESHOLD
from tsqlbroker.engine.broker import group_locks
from tsqlbroker.interpreter.broker_runtime import BrokerRuntime, runtime_for
from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

WAIT = 10.0




def wait_for(what: str, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture
def rt(instance: Instance) -> BrokerRuntime:
    return runtime_for(instance, recheck_seconds=0.1)


def setup_queue(c: Client, options: str = "") -> None:
    """Database ``app``: queue ``q`` (``WITH options``) behind service ``target``."""
    c.run("CREATE DATABASE app")
    c.run("USE app")
    c.run(f"CREATE QUEUE q{' WITH ' + options if options else ''};\n"
          "CREATE QUEUE sender_q; CREATE SERVICE sender_svc ON QUEUE sender_q;\n"
          "CREATE SERVICE target ON QUEUE q ([DEFAULT]);")


def send(c: Client, n: int = 1) -> None:
    c.run(f"""DECLARE @h uniqueidentifier, @i int = 0;
BEGIN DIALOG @h FROM SERVICE sender_svc TO SERVICE 'target' WITH ENCRYPTION = OFF;
WHILE @i < {n} BEGIN SEND ON CONVERSATION @h (N'poison'); SET @i += 1; END""")


ROLLED_BACK_RECEIVE = """BEGIN TRANSACTION;
RECEIVE TOP (1) * FROM q;
ROLLBACK TRANSACTION;"""

COMMITTED_RECEIVE = """BEGIN TRANSACTION;
RECEIVE TOP (1) * FROM q;
COMMIT TRANSACTION;"""


def receive_enabled(c: Client) -> int:
    return int(c.scalar("SELECT is_receive_enabled FROM sys.service_queues WHERE name = 'q'"))


def disabled_events(rt: BrokerRuntime) -> list[str]:
    return [e.text for e in rt.log.entries() if "Broker:Queue Disabled" in e.text]


def test_five_consecutive_rollbacks_disable_the_queue(instance: Instance,
                                                      rt: BrokerRuntime) -> None:
    c = Client(instance)
    setup_queue(c)
    send(c)
    for _ in range(POISON_THRESHOLD - 1):
        c.run(ROLLED_BACK_RECEIVE)
        assert receive_enabled(c) == 1
    assert disabled_events(rt) == []
    c.run(ROLLED_BACK_RECEIVE)
    assert receive_enabled(c) == 0
    assert c.scalar("SELECT is_enqueue_enabled FROM sys.service_queues "
                    "WHERE name = 'q'") == 0
    (event,) = disabled_events(rt)
    assert "[app].[dbo].[q]" in event
    errors = c.run("RECEIVE TOP (1) * FROM q", expect_errors=True).errors()
    assert [(e.number, e.message) for e in errors] == [
        (9617, 'The service queue "q" is currently disabled.')]
    # The poison message is still there; STATUS = ON brings the queue back.
    assert c.scalar("SELECT COUNT(*) FROM q") == 1
    c.run("ALTER QUEUE q WITH STATUS = ON")
    assert receive_enabled(c) == 1
    c.run(COMMITTED_RECEIVE)
    assert c.scalar("SELECT COUNT(*) FROM q") == 0


def test_a_committed_receive_resets_the_count(instance: Instance, rt: BrokerRuntime) -> None:
    c = Client(instance)
    setup_queue(c)
    send(c, 2)
    for _ in range(POISON_THRESHOLD - 1):
        c.run(ROLLED_BACK_RECEIVE)
    c.run(COMMITTED_RECEIVE)
    for _ in range(POISON_THRESHOLD - 1):
        c.run(ROLLED_BACK_RECEIVE)
    assert receive_enabled(c) == 1 and disabled_events(rt) == []
    c.run(ROLLED_BACK_RECEIVE)
    assert receive_enabled(c) == 0 and len(disabled_events(rt)) == 1


def test_rollback_to_a_savepoint_is_not_a_rollback(instance: Instance,
                                                   rt: BrokerRuntime) -> None:
    # The handling-poison-messages sample: undo the RECEIVE to a savepoint, then commit.
    c = Client(instance)
    setup_queue(c)
    send(c)
    for _ in range(POISON_THRESHOLD + 2):
        c.run("""BEGIN TRANSACTION;
SAVE TRANSACTION UndoReceive;
RECEIVE TOP (1) * FROM q;
ROLLBACK TRANSACTION UndoReceive;
COMMIT TRANSACTION;""")
    assert receive_enabled(c) == 1 and disabled_events(rt) == []
    assert c.scalar("SELECT COUNT(*) FROM q") == 1


def test_a_transaction_that_received_nothing_does_not_count(instance: Instance,
                                                            rt: BrokerRuntime) -> None:
    c = Client(instance)
    setup_queue(c)
    for _ in range(POISON_THRESHOLD + 1):
        c.run(ROLLED_BACK_RECEIVE)  # the queue is empty: nothing received, nothing counted
    assert receive_enabled(c) == 1 and disabled_events(rt) == []


# A RECEIVE whose column list fails (the body is no number): rolled back as a statement.
FAILED_RECEIVE = "RECEIVE TOP (1) CAST(CAST(message_body AS nvarchar(10)) AS int) FROM q;"


@pytest.mark.parametrize("xact_abort", ["OFF", "ON"])
def test_a_transaction_whose_receive_failed_counts_when_it_rolls_back(
        instance: Instance, rt: BrokerRuntime, xact_abort: str) -> None:
    """The failed RECEIVE's group stays locked by the transaction, which received from the
    queue: its rollback (in the CATCH block, or XACT_ABORT's) counts (docs/decisions.md)."""
    c = Client(instance)
    setup_queue(c)
    send(c)
    for _ in range(POISON_THRESHOLD):
        assert receive_enabled(c) == 1
        assert c.rows(f"""DECLARE @failed int;
SET XACT_ABORT {xact_abort};
BEGIN TRANSACTION;
BEGIN TRY {FAILED_RECEIVE} END TRY
BEGIN CATCH SET @failed = ERROR_NUMBER(); ROLLBACK TRANSACTION; END CATCH;
SET XACT_ABORT OFF;
SELECT @failed, @@TRANCOUNT;""") == [(245, 0)]
    assert receive_enabled(c) == 0 and len(disabled_events(rt)) == 1
    assert c.scalar("SELECT COUNT(*) FROM q WHERE status = 1") == 1


def test_the_failed_receives_statement_rollback_is_no_rollback(instance: Instance,
                                                               rt: BrokerRuntime) -> None:
    """The statement's own rollback does not count; its transaction's COMMIT resets the
    count, as any committed RECEIVE does."""
    c = Client(instance)
    setup_queue(c)
    send(c)
    for _ in range(2):
        for _ in range(POISON_THRESHOLD - 1):
            c.run(ROLLED_BACK_RECEIVE)
        assert c.rows(f"""DECLARE @failed int;
BEGIN TRANSACTION;
BEGIN TRY {FAILED_RECEIVE} END TRY
BEGIN CATCH SET @failed = ERROR_NUMBER(); END CATCH;
COMMIT TRANSACTION;
SELECT @failed;""") == [(245,)]
    assert receive_enabled(c) == 1 and disabled_events(rt) == []
    assert c.scalar("SELECT COUNT(*) FROM q WHERE status = 1") == 1


def test_poison_message_handling_off_keeps_the_queue_enabled(instance: Instance,
                                                             rt: BrokerRuntime) -> None:
    c = Client(instance)
    setup_queue(c, "POISON_MESSAGE_HANDLING (STATUS = OFF)")
    assert c.scalar("SELECT is_poison_message_handling_enabled FROM sys.service_queues "
                    "WHERE name = 'q'") == 0
    send(c)
    for _ in range(2 * POISON_THRESHOLD):
        c.run(ROLLED_BACK_RECEIVE)
    assert receive_enabled(c) == 1 and disabled_events(rt) == []
    # ALTER QUEUE turns it on again: the next five rollbacks disable the queue.
    c.run("ALTER QUEUE q WITH POISON_MESSAGE_HANDLING (STATUS = ON)")
    for _ in range(POISON_THRESHOLD):
        c.run(ROLLED_BACK_RECEIVE)
    assert receive_enabled(c) == 0 and len(disabled_events(rt)) == 1


@pytest.mark.parametrize("receive", [
    "WAITFOR (RECEIVE TOP (1) @body = message_body FROM q), TIMEOUT 1000;",
    # The RECEIVE itself fails (rolled back as a statement), the CATCH block rolls back.
    ("BEGIN TRY WAITFOR (RECEIVE TOP (1) @body = CAST(CAST(CAST(message_body AS nvarchar(10)) "
     "AS int) AS varbinary(max)) FROM q), TIMEOUT 1000; END TRY BEGIN CATCH END CATCH;"),
], ids=["received", "failed_receive"])
def test_activated_procedure_that_rolls_back_ends_disabled(instance: Instance,
                                                          rt: BrokerRuntime,
                                                          receive: str) -> None:
    """The classic poison loop: the procedure fails on the message and rolls back, broker
    activates it again, … until the fifth rollback disables the queue; then nothing more is
    launched and the message stays for a person to look at."""
    c = Client(instance)
    c.run("CREATE DATABASE app")
    c.run("USE app")
    c.run("""CREATE PROCEDURE choke AS
BEGIN
  DECLARE @body varbinary(max);
  PRINT 'attempt';
  BEGIN TRANSACTION;
  """ + receive + """
  ROLLBACK TRANSACTION;
END""")
    setup_queue_activated = ("CREATE QUEUE q WITH ACTIVATION (STATUS = ON, "
                             "PROCEDURE_NAME = choke, MAX_QUEUE_READERS = 1, "
                             "EXECUTE AS OWNER);\n"
                             "CREATE QUEUE sender_q; CREATE SERVICE sender_svc ON QUEUE "
                             "sender_q;\nCREATE SERVICE target ON QUEUE q ([DEFAULT]);")
    c.run(setup_queue_activated)
    send(c)
    wait_for("the queue to be disabled", lambda: receive_enabled(c) == 0)
    assert rt.wait_idle(WAIT)
    wait_for("the activated task to end", lambda: c.scalar(
        "SELECT COUNT(*) FROM sys.dm_broker_activated_tasks") == 0)
    attempts = [e for e in rt.log.entries() if e.text.endswith("output the following: "
                                                               "'attempt'")]
    assert len(attempts) == POISON_THRESHOLD
    assert len(disabled_events(rt)) == 1
    assert c.scalar("SELECT COUNT(*) FROM q") == 1
    # Not relaunched: the monitor does nothing for a disabled queue, even on a new message
    # (which cannot be enqueued: the sender's copy waits in its transmission queue).
    send(c)
    assert rt.wait_idle(WAIT)
    assert c.scalar("SELECT COUNT(*) FROM sys.dm_broker_activated_tasks") == 0
    assert c.scalar("SELECT COUNT(*) FROM q") == 1
    assert c.scalar("SELECT COUNT(*) FROM sys.transmission_queue") == 1
    assert len([e for e in rt.log.entries() if e.text.endswith("'attempt'")]) \
        == POISON_THRESHOLD


def test_rollback_by_shutdown_is_not_counted(instance: Instance, rt: BrokerRuntime) -> None:
    """An activated task cancelled by shutdown in the middle of its transaction rolls back;
    that is not a poison message's fault and must not disable the queue."""
    c = Client(instance)
    setup_queue(c)
    c.run("""CREATE PROCEDURE holder AS
BEGIN
  DECLARE @body varbinary(max);
  BEGIN TRANSACTION;
  RECEIVE TOP (1) @body = message_body FROM q;
  PRINT 'holding';
  WHILE 1 = 1 WAITFOR DELAY '00:00:00.020';
END""")
    send(c)
    for _ in range(POISON_THRESHOLD - 1):
        c.run(ROLLED_BACK_RECEIVE)
    c.run("ALTER QUEUE q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = holder, "
          "MAX_QUEUE_READERS = 1, EXECUTE AS OWNER)")
    wait_for("the task to hold the message", lambda: any(
        e.text.endswith("'holding'") for e in rt.log.entries()))
    rt.stop()
    assert c.scalar("SELECT COUNT(*) FROM sys.dm_broker_activated_tasks") == 0
    assert receive_enabled(c) == 1 and disabled_events(rt) == []
    assert c.scalar("SELECT COUNT(*) FROM q") == 1


# A session that received, then could not SEND: the dialog's initiator group is held by
# another session (the lock wait times out, Msg 1222), and its CATCH block rolls back.
BLOCKED_AFTER_RECEIVE = """DECLARE @h uniqueidentifier = (SELECT h FROM H);
BEGIN TRANSACTION;
RECEIVE TOP (1) * FROM q;
BEGIN TRY
    SEND ON CONVERSATION @h (N'more');
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER();
    ROLLBACK TRANSACTION;
END CATCH"""


def test_rollbacks_after_transient_failures_are_not_counted(
        fresh_postgres: FreshPostgres, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deadlock victim, a lock timeout, a lost connection or a cancellation is not the
    message's fault: the rollback that follows neither counts toward the five nor resets
    the count (docs/decisions.md). On PostgreSQL, where processes sharing the store meet
    such failures more often than one SQL Server instance does."""
    monkeypatch.setattr(group_locks, "LOCK_TIMEOUT_S", 0.2)
    instance = Instance(fresh_postgres.url())
    try:
        rt = runtime_for(instance, recheck_seconds=0.1)
        c, holder = Client(instance), Client(instance)
        setup_queue(c)
        c.run("CREATE TABLE H (h uniqueidentifier)")
        c.run("DECLARE @h uniqueidentifier;\n"
              "BEGIN DIALOG @h FROM SERVICE sender_svc TO SERVICE 'target' "
              "WITH ENCRYPTION = OFF;\n"
              "INSERT INTO H VALUES (@h); SEND ON CONVERSATION @h (N'poison')")
        holder.run("USE app")
        for _ in range(POISON_THRESHOLD - 1):
            c.run(ROLLED_BACK_RECEIVE)
        # The holder's open SEND holds the dialog's initiator group.
        holder.run("DECLARE @h uniqueidentifier = (SELECT h FROM H); BEGIN TRANSACTION; "
                   "SEND ON CONVERSATION @h (N'held')")
        for _ in range(2 * POISON_THRESHOLD):
            assert c.rows(BLOCKED_AFTER_RECEIVE) == [(1222,)]
        assert receive_enabled(c) == 1 and disabled_events(rt) == []
        holder.run("ROLLBACK")
        # Nor did they reset the count: one ordinary rollback makes the fifth.
        c.run(ROLLED_BACK_RECEIVE)
        assert receive_enabled(c) == 0 and len(disabled_events(rt)) == 1
    finally:
        instance.close()
