"""A queue without activation costs its queue monitor nothing per SEND and RECEIVE (the
monitor is *inert* until the queue is altered), and ALTER QUEUE … ACTIVATION still wakes it:
messages already waiting are then processed by the activated procedure."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from cc_env import Client, build, send_block

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

DRAIN_PROC = """
CREATE TABLE Drained (body varbinary(100));
GO
CREATE PROCEDURE DrainInit AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @b varbinary(100);
    WHILE 1 = 1
    BEGIN
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @b = message_body FROM InitQ), TIMEOUT 500;
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
def memory_instance() -> Iterator[Instance]:
    """The monitor logic does not depend on the storage: ``sqlite://`` only."""
    inst = Instance("sqlite://")
    try:
        yield inst
    finally:
        inst.close()


def test_queue_without_activation_is_not_reevaluated_until_altered(
        memory_instance: Instance) -> None:
    instance = memory_instance
    admin = build(instance, groups=2, convs=1)
    manager = runtime_for(instance).manager
    queue_id = admin.rows("SELECT object_id FROM sys.service_queues WHERE name = 'InitQ'")
    key = (admin.session.db_id, queue_id[0][0])
    send_block(admin, 0, 2, 0, 2)
    deadline = time.monotonic() + 10
    monitor = None
    while monitor is None or not monitor.inert:       # the first event's evaluation
        assert time.monotonic() < deadline, "the monitor never evaluated the queue"
        monitor = next((m for m in manager.monitors()
                        if (m.db_id, m.queue_id) == key), None)
        time.sleep(0.02)
    evaluated = monitor.last_evaluated_monotonic
    # More traffic: SENDs, RECEIVEs, a rollback; no evaluation of the inert monitor.
    send_block(admin, 0, 2, 2, 4)
    admin.run("BEGIN TRAN; RECEIVE TOP (1) * FROM InitQ; ROLLBACK;")
    admin.run("RECEIVE TOP (1) * FROM InitQ")
    time.sleep(0.3)
    assert monitor.last_evaluated_monotonic == evaluated
    assert monitor.state == "INACTIVE" and not monitor.tasks
    left = admin.rows("SELECT COUNT(*) FROM InitQ")[0][0]
    assert left == 7

    # ALTER QUEUE turns activation on: the waiting messages are drained by the procedure.
    admin.run(DRAIN_PROC)
    admin.run("ALTER QUEUE InitQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = DrainInit, "
              "MAX_QUEUE_READERS = 1, EXECUTE AS OWNER)")
    deadline = time.monotonic() + 20
    reader = Client(instance)
    try:
        while reader.rows("SELECT COUNT(*) FROM Drained")[0][0] < left:
            assert time.monotonic() < deadline, "activation did not drain the queue"
            time.sleep(0.05)
    finally:
        reader.close()
    assert not monitor.inert
    assert admin.rows("SELECT COUNT(*) FROM InitQ") == [(0,)]
