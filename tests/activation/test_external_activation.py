"""External activation: QUEUE_ACTIVATION event notifications follow the queue monitor's
states (one notification, then nothing more until someone RECEIVEs; again after the recheck
period while messages stay unread), and BROKER_QUEUE_DISABLED reaches its notification when
poison-message handling disables the queue. Real sessions and monitor threads, a small
recheck period, every wait bounded."""

from __future__ import annotations

import time

import pytest
from tsql_client import Client, wait_for

from tsqlbroker.interpreter.broker_runtime import BrokerRuntime, runtime_for
from tsqlbroker.interpreter.instance import Instance

RECHECK = 0.2


@pytest.fixture
def rt(instance: Instance) -> BrokerRuntime:
    return runtime_for(instance, recheck_seconds=RECHECK)


@pytest.fixture
def c(instance: Instance, rt: BrokerRuntime) -> Client:
    client = Client(instance)
    client.run("CREATE DATABASE app")
    client.run("USE app")
    client.run("""CREATE QUEUE notify_q;
CREATE SERVICE notify_svc ON QUEUE notify_q
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
CREATE QUEUE work_q;
CREATE SERVICE work_svc ON QUEUE work_q ([DEFAULT]);""")
    return client


def notifications(c: Client, event: str = "QUEUE_ACTIVATION") -> int:
    return int(c.scalar(
        "SELECT COUNT(*) FROM notify_q WHERE CAST(message_body AS xml).value("
        f"'(/EVENT_INSTANCE/EventType)[1]', 'sysname') = '{event}'"))


def send(c: Client, n: int) -> None:
    """``n`` messages on one dialog (one conversation group: RECEIVE * takes them all)."""
    c.run(f"""DECLARE @h uniqueidentifier, @i int = 0;
BEGIN DIALOG @h FROM SERVICE work_svc TO SERVICE 'work_svc' WITH ENCRYPTION = OFF;
WHILE @i < {n}
BEGIN
  SEND ON CONVERSATION @h (N'job');
  SET @i += 1;
END""")


def test_notified_once_then_again_while_messages_stay_unread(c: Client) -> None:
    c.run("CREATE EVENT NOTIFICATION en ON QUEUE work_q FOR QUEUE_ACTIVATION "
          "TO SERVICE 'notify_svc', 'current database'")
    send(c, 3)
    wait_for("the first notification", lambda: notifications(c) == 1)
    # NOTIFIED: nothing more until someone receives, however long the messages wait.
    time.sleep(RECHECK * 4)
    assert notifications(c) == 1
    # A reader takes one message and leaves two: after the recheck period, another one.
    c.run("RECEIVE TOP (1) * FROM work_q")
    wait_for("the second notification", lambda: notifications(c) == 2)
    # Every notification of the queue goes on one dialog.
    assert c.scalar("SELECT COUNT(DISTINCT conversation_handle) FROM notify_q") == 1
    # The queue drained: the monitor goes quiet.
    c.run("RECEIVE * FROM work_q")
    time.sleep(RECHECK * 4)
    assert notifications(c) == 2
    # Dropped: messages no longer notify.
    c.run("DROP EVENT NOTIFICATION en ON QUEUE work_q")
    send(c, 1)
    time.sleep(RECHECK * 4)
    assert notifications(c) == 2


def test_a_new_dialog_when_the_target_ended_the_old_one(c: Client) -> None:
    c.run("CREATE EVENT NOTIFICATION en ON QUEUE work_q FOR QUEUE_ACTIVATION "
          "TO SERVICE 'notify_svc', 'current database'")
    send(c, 1)
    wait_for("the first notification", lambda: notifications(c) == 1)
    c.run("""DECLARE @h uniqueidentifier;
RECEIVE TOP (1) @h = conversation_handle FROM notify_q;
END CONVERSATION @h;
RECEIVE * FROM work_q;""")
    send(c, 1)
    wait_for("a notification on a new dialog", lambda: notifications(c) == 1)


def test_broker_queue_disabled_is_notified(c: Client) -> None:
    c.run("CREATE EVENT NOTIFICATION en ON QUEUE work_q FOR BROKER_QUEUE_DISABLED "
          "TO SERVICE 'notify_svc', 'current database'")
    send(c, 1)
    for _ in range(5):
        c.run("BEGIN TRAN; RECEIVE TOP (1) * FROM work_q; ROLLBACK;")
    assert c.scalar("SELECT is_receive_enabled FROM sys.service_queues "
                    "WHERE name = 'work_q'") == 0
    wait_for("BROKER_QUEUE_DISABLED", lambda: notifications(c, "BROKER_QUEUE_DISABLED") == 1)
    assert notifications(c) == 0
