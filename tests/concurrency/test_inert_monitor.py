"""A queue without activation costs its queue monitor nothing per SEND and RECEIVE (the
monitor is *inert* until the queue is altered), and ALTER QUEUE … ACTIVATION still wakes it:
messages already waiting are then processed by the activated procedure.

Runs on both backends (``backend_url``): the monitor is the broker runtime's, but the events
that wake it come from the store's SENDs, RECEIVEs and rollbacks."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from cc_env import Client
from tsql_client import send_batch

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

# One dialog into InertQ; its handle is kept in a table for the SEND batches.
SETUP = """
CREATE QUEUE SendQ;
CREATE QUEUE InertQ;
CREATE SERVICE [//inert/Send] ON QUEUE SendQ;
CREATE SERVICE [//inert/Inert] ON QUEUE InertQ ([DEFAULT]);
CREATE TABLE Dialog (h uniqueidentifier);
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//inert/Send] TO SERVICE '//inert/Inert' WITH ENCRYPTION = OFF;
INSERT Dialog VALUES (@h);
"""

# ``{n}`` messages in one transaction.
SEND = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier = (SELECT h FROM Dialog);
""" + send_batch("{n}")

DRAIN_PROC = """
CREATE TABLE Drained (body varbinary(100));
GO
CREATE PROCEDURE DrainInert AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @b varbinary(100);
    WHILE 1 = 1
    BEGIN
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @b = message_body FROM InertQ), TIMEOUT 500;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT;
            BREAK;
        END;
        INSERT INTO Drained (body) VALUES (@b);
        COMMIT;
    END;
END;
"""


@pytest.fixture
def broker_instance(backend_url: str) -> Iterator[Instance]:
    """An instance on a fresh store of the backend under test (not the file/memory/
    PostgreSQL trio of conftest.py: the SQLite file adds nothing here)."""
    inst = Instance(backend_url)
    try:
        yield inst
    finally:
        inst.close()


def test_queue_without_activation_is_not_reevaluated_until_altered(
        broker_instance: Instance) -> None:
    instance = broker_instance
    admin = Client(instance, "master")
    admin.run("CREATE DATABASE inert")
    admin.run("USE inert")
    admin.run(SETUP)
    manager = runtime_for(instance).manager
    queue_id = admin.rows("SELECT object_id FROM sys.service_queues WHERE name = 'InertQ'")
    key = (admin.session.db_id, queue_id[0][0])
    admin.run(SEND.format(n=4))
    deadline = time.monotonic() + 10
    monitor = None
    while monitor is None or not monitor.inert:       # the first event's evaluation
        assert time.monotonic() < deadline, "the monitor never evaluated the queue"
        monitor = next((m for m in manager.monitors()
                        if (m.db_id, m.queue_id) == key), None)
        time.sleep(0.02)
    evaluated = monitor.last_evaluated_monotonic
    # More traffic: SENDs, RECEIVEs, a rollback; no evaluation of the inert monitor.
    admin.run(SEND.format(n=4))
    admin.run("BEGIN TRAN; RECEIVE TOP (1) * FROM InertQ; ROLLBACK;")
    admin.run("RECEIVE TOP (1) * FROM InertQ")
    time.sleep(0.3)
    assert monitor.last_evaluated_monotonic == evaluated
    assert monitor.state == "INACTIVE" and not monitor.tasks
    left = admin.rows("SELECT COUNT(*) FROM InertQ")[0][0]
    assert left == 7

    # ALTER QUEUE turns activation on: the waiting messages are drained by the procedure.
    admin.run(DRAIN_PROC)
    admin.run("ALTER QUEUE InertQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = DrainInert, "
              "MAX_QUEUE_READERS = 1, EXECUTE AS OWNER)")
    deadline = time.monotonic() + 20
    reader = Client(instance, "inert")
    try:
        while reader.rows("SELECT COUNT(*) FROM Drained")[0][0] < left:
            assert time.monotonic() < deadline, "activation did not drain the queue"
            time.sleep(0.05)
    finally:
        reader.close()
    assert not monitor.inert
    assert admin.rows("SELECT COUNT(*) FROM InertQ") == [(0,)]
