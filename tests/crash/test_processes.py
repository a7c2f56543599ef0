"""Several processes on one PostgreSQL store: group locks, WAITFOR wake-ups and activation
readers are store-wide, not per process (LISTEN/NOTIFY, row locks, advisory reader slots).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tsql_client import Client

from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

SETUP = """
CREATE DATABASE mp;
GO
USE mp;
CREATE MESSAGE TYPE [//mp/Msg] VALIDATION = NONE;
CREATE CONTRACT [//mp/Contract] ([//mp/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//mp/Init] ON QUEUE InitQ;
CREATE SERVICE [//mp/Targ] ON QUEUE TargQ ([//mp/Contract]);
"""

SEND = """
USE mp;
SET NOCOUNT ON;
DECLARE @h uniqueidentifier, @i int = 0;
WHILE @i < {dialogs}
BEGIN
    BEGIN DIALOG @h FROM SERVICE [//mp/Init] TO SERVICE '//mp/Targ'
        ON CONTRACT [//mp/Contract] WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h MESSAGE TYPE [//mp/Msg] (CAST('m' AS varbinary(max)));
    SET @i = @i + 1;
END
"""


def other_process(url: str, text: str, timeout: float = 60) -> list[dict[str, Any]]:
    """Run ``text`` in another tsqlbroker process; its JSON records."""
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", url, "--format", "json",
                           "-Q", text], capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.fixture
def pg_url(fresh_postgres: FreshPostgres) -> str:
    return fresh_postgres.url()


@pytest.fixture
def instance(pg_url: str) -> Iterator[Instance]:
    inst = Instance(pg_url)
    Client(inst).run(SETUP)
    yield inst
    inst.close()


def test_waitfor_wakes_on_a_send_committed_by_another_process(pg_url: str,
                                                              instance: Instance) -> None:
    waiter = Client(instance)
    waiter.run("USE mp")
    result: dict[str, Any] = {}

    def wait() -> None:
        start = time.monotonic()
        sink = waiter.run("WAITFOR (RECEIVE message_type_name FROM TargQ), TIMEOUT 30000")
        result["woke"] = time.monotonic()
        result["elapsed"] = result["woke"] - start
        result["rows"] = sink.resultsets()[-1].rows

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(1.0)
    other_process(pg_url, SEND.format(dialogs=1))
    committed = time.monotonic()  # the sender process has committed and ended
    thread.join(40)
    assert result["rows"] == [("//mp/Msg",)]
    # Woken by the NOTIFY of the sender's commit, not by the 30 s timeout.
    assert result["woke"] < committed + 1.5 and result["elapsed"] < 20


def test_a_group_locked_here_is_skipped_by_another_process(pg_url: str,
                                                           instance: Instance) -> None:
    Client(instance).run(SEND.format(dialogs=2))
    holder = Client(instance)
    holder.run("USE mp")
    holder.run("BEGIN TRANSACTION")
    mine = holder.run("RECEIVE conversation_group_id FROM TargQ").resultsets()[-1].rows
    assert len(mine) == 1
    recs = other_process(pg_url, "USE mp; RECEIVE conversation_group_id FROM TargQ;"
                                 "RECEIVE conversation_group_id FROM TargQ")
    sets = [r["rows"] for r in recs if r["type"] == "resultset"]
    # The other process gets the other group, then nothing: the held one is locked.
    assert len(sets[0]) == 1 and sets[0][0][0] != str(mine[0][0]).upper()
    assert sets[1] == []
    holder.run("ROLLBACK")
    recs = other_process(pg_url, "USE mp; RECEIVE conversation_group_id FROM TargQ")
    sets = [r["rows"] for r in recs if r["type"] == "resultset"]
    assert sets[0][0][0] == str(mine[0][0]).upper()


PROC = """
USE mp;
GO
CREATE TABLE Done (spid int NOT NULL);
GO
CREATE PROCEDURE dbo.Slow AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h uniqueidentifier, @spid int = @@SPID;
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle FROM TargQ), TIMEOUT 500;
        IF @@ROWCOUNT = 0 BEGIN COMMIT; BREAK; END
        WAITFOR DELAY '00:00:00.100';
        INSERT INTO Done VALUES (@spid);
        COMMIT;
    END
END
GO
ALTER QUEUE TargQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.Slow,
                                  MAX_QUEUE_READERS = 2, EXECUTE AS SELF);
"""


def _reader_slots(inst: Instance, db_id: int, queue_id: int) -> int:
    """Activation reader slots (advisory locks) of the queue held on the server."""
    conn = inst.store.connect()
    try:
        from sqlalchemy import text

        return int(conn.execute(text(
            # Two-key advisory locks (objsubid 2) on the queue's reader key (other two-key
            # locks of the store are the waiters' interest and gates, see pgwake).
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND objsubid = 2 AND database = (SELECT oid FROM pg_database "
            "WHERE datname = current_database()) AND classid = (hashtext(current_schema() "
            "|| ':tsqlb_reader:' || :key)::bigint & 4294967295)::oid"),
            {"key": f"{db_id}:{queue_id}"}).scalar())
    finally:
        conn.close()


def test_two_serving_processes_share_max_queue_readers(pg_url: str, instance: Instance,
                                                       tmp_path: Path) -> None:
    admin = Client(instance)
    admin.run(PROC)
    logs = [tmp_path / f"serve{i}.log" for i in range(2)]
    errs = [open(tmp_path / f"serve{i}.err", "w") for i in range(2)]  # noqa: SIM115
    procs = [subprocess.Popen([sys.executable, "-m", "tsqlbroker", "serve", "--url", pg_url,
                               "--log", str(log)], stderr=err) for log, err in zip(logs, errs)]
    try:
        for i, log in enumerate(logs):
            deadline = time.monotonic() + 60
            while not (log.exists() and "serving" in log.read_text()):
                assert procs[i].poll() is None and time.monotonic() < deadline, (
                    "serve did not start: " + (tmp_path / f"serve{i}.err").read_text())
                time.sleep(0.1)
        admin.run(SEND.format(dialogs=40))
        db_id = admin.run("SELECT DB_ID('mp')").resultsets()[-1].rows[0][0]
        queue_id = admin.run("SELECT object_id FROM mp.sys.service_queues "
                             "WHERE name = 'TargQ'").resultsets()[-1].rows[0][0]
        peak = 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            peak = max(peak, _reader_slots(instance, db_id, queue_id))
            done = admin.run("SELECT COUNT(*) FROM mp.dbo.Done").resultsets()[-1].rows[0][0]
            if done == 40:
                break
            time.sleep(0.05)
        if done != 40:
            procs_running = [p for p in procs if p.poll() is None]
            for p in procs_running:  # their threads' stacks, for the failure message
                p.send_signal(signal.SIGUSR1)
            time.sleep(2)
            raise AssertionError(f"{done} of 40 processed in 120 s:\n" + "\n".join(
                log.read_text(errors="replace")[-8000:] for log in logs))
        # Never more than two readers at once in all processes together: the two serving
        # processes and this test's own instance (its SEND made it a candidate host; it
        # hands over to a serve, and one serve hosts while the other stands by).
        assert 1 <= peak <= 2
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            assert p.wait(timeout=60) == 0
        for err in errs:
            err.close()


def test_processes_starting_together_on_a_new_store(pg_url: str) -> None:
    """Four processes create the store's tables and functions at once: they take turns."""
    procs = [subprocess.Popen([sys.executable, "-m", "tsqlbroker", "--url", pg_url, "-Q",
                               "PRINT 'up'"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [err for _out, err in outs]
    assert [out.strip() for out, _err in outs] == ["up"] * 4
