"""Soak on one PostgreSQL store, with real processes: three ``tsqlbroker serve`` processes run
the target's activated procedure, two sender processes SEND 1 000 requests each on ten
conversations of their own, and a reader process takes the replies through GET CONVERSATION
GROUP + RECEIVE … WHERE; one serve process is killed (SIGKILL) mid-run.

The activated procedure RECEIVEs a request, records it in ``Processed`` and SENDs a reply on
the same conversation in one transaction — while the sender SENDs on that conversation in
its own: the shape that deadlocked every time and then lost the pooled connections' prepared
statements (issue 14, item 3). At the end every request was processed exactly once and every
reply read exactly once, no queue was disabled, and no output or log holds Msg 3624 or a
missing prepared statement. Senders and reader retry a transaction they lose as a deadlock
victim (Msg 1205), as an application is told to; how many did is printed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tsql_client import Client, create_database

from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

DB = "soak"
SENDERS = 2
PER_SENDER = 1000
CONVERSATIONS = 10                  # per sender
SERVES = 3
KILL_AFTER = 1000                   # requests processed + replies read, then one serve is killed
# About 40 s on two idle cores. The bound only keeps a broken run from hanging: on a
# machine shared with other work the run may take a few times that; a run that stops
# making progress fails at once.
BOUND_S = 240.0
STALL_S = 45.0
TOTAL = SENDERS * PER_SENDER

SETUP = """
CREATE MESSAGE TYPE [//soak/req] VALIDATION = NONE;
CREATE MESSAGE TYPE [//soak/reply] VALIDATION = NONE;
CREATE CONTRACT [//soak/c] ([//soak/req] SENT BY INITIATOR, [//soak/reply] SENT BY TARGET);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//soak/Init] ON QUEUE InitQ;
CREATE SERVICE [//soak/Targ] ON QUEUE TargQ ([//soak/c]);
CREATE TABLE Processed (id int NOT NULL, spid int NOT NULL);
CREATE TABLE Replies (id int NOT NULL);
GO
CREATE PROCEDURE dbo.Work AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h uniqueidentifier, @t sysname, @b varbinary(max);
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name,
                 @b = message_body FROM TargQ), TIMEOUT 1000;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT;
            BREAK;
        END
        IF @t = N'//soak/req'
        BEGIN
            INSERT INTO Processed (id, spid) VALUES (CAST(@b AS int), @@SPID);
            SEND ON CONVERSATION @h MESSAGE TYPE [//soak/reply] (@b);
        END
        ELSE
            END CONVERSATION @h;
        COMMIT;
    END
END
GO
ALTER QUEUE TargQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.Work,
                                  MAX_QUEUE_READERS = 3, EXECUTE AS SELF);
"""

# A deadlock victim's transaction is doomed: roll it back and run it again.
RETRY = """BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK;
        IF ERROR_NUMBER() <> 1205 THROW;
        SET @retries += 1;
    END CATCH"""

SENDER = """
USE soak;
SET NOCOUNT ON;
DECLARE @dialogs TABLE (i int PRIMARY KEY, h uniqueidentifier NOT NULL);
DECLARE @i int = 0, @h uniqueidentifier, @retries int = 0;
WHILE @i < {conversations}
BEGIN
    BEGIN DIALOG @h FROM SERVICE [//soak/Init] TO SERVICE '//soak/Targ'
        ON CONTRACT [//soak/c] WITH ENCRYPTION = OFF;
    INSERT INTO @dialogs VALUES (@i, @h);
    SET @i += 1;
END;
SET @i = 0;
WHILE @i < {count}
BEGIN
    SELECT @h = h FROM @dialogs WHERE i = @i % {conversations};
    BEGIN TRY
        BEGIN TRANSACTION;
        SEND ON CONVERSATION @h MESSAGE TYPE [//soak/req] (CAST({base} + @i AS varbinary(4)));
        COMMIT;
        SET @i += 1;
    END TRY
    {retry}
END;
PRINT CONCAT('retries ', @retries);
"""

READER = """
USE soak;
SET NOCOUNT ON;
DECLARE @g uniqueidentifier, @got int = 0, @retries int = 0;
DECLARE @start datetime2 = SYSDATETIME();
DECLARE @rows TABLE (t sysname NOT NULL, b varbinary(max) NULL);
WHILE @got < {total} AND DATEDIFF(second, @start, SYSDATETIME()) < {seconds}
BEGIN
    BEGIN TRY
        BEGIN TRANSACTION;
        WAITFOR (GET CONVERSATION GROUP @g FROM InitQ), TIMEOUT 1000;
        IF @g IS NOT NULL
        BEGIN
            DELETE FROM @rows;
            RECEIVE message_type_name, message_body FROM InitQ INTO @rows
                WHERE conversation_group_id = @g;
            INSERT INTO Replies (id)
                SELECT CAST(b AS int) FROM @rows WHERE t = N'//soak/reply';
            SET @got += @@ROWCOUNT;
        END
        COMMIT;
    END TRY
    {retry}
END;
PRINT CONCAT('retries ', @retries, ' replies ', @got);
"""


def _tsql(url: str, text: str, out: IO[bytes]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tsqlbroker", "--url", url, "--format",
                             "json", "--wait-idle", "0", "-Q", text],
                            stdout=out, stderr=subprocess.STDOUT)


def _serve(url: str, log: Path, out: IO[bytes]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tsqlbroker", "serve", "--url", url,
                             "--log", str(log)], stdout=out, stderr=subprocess.STDOUT)


def _running(log: Path) -> int:
    """Activated tasks running in the serve process writing ``log`` (started, not ended)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return text.count("Activation started ") - text.count(") ended")


def _count(client: Client, sql: str) -> int:
    return int(client.scalar(sql))


def _tails(directory: Path) -> str:
    """The end of every output and log of the run (for a failure's message)."""
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}"
                     for p in sorted(directory.iterdir()) if p.suffix in (".log", ".out"))


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()
            if line.startswith("{")]


def test_three_serves_two_senders_a_reader_and_a_kill(fresh_postgres: FreshPostgres,
                                                       tmp_path: Path) -> None:
    url = fresh_postgres.url()
    create_database(url, DB, SETUP)
    inst = Instance(url)
    watch = Client(inst, DB)
    procs: list[subprocess.Popen[bytes]] = []
    files: list[IO[bytes]] = []

    def output(name: str) -> IO[bytes]:
        f = open(tmp_path / name, "wb")  # noqa: SIM115 - closed in finally
        files.append(f)
        return f

    started = time.monotonic()
    try:
        serves = [_serve(url, tmp_path / f"serve{i}.log", output(f"serve{i}.out"))
                  for i in range(SERVES)]
        procs += serves
        for s in range(SENDERS):
            procs.append(_tsql(url, SENDER.format(conversations=CONVERSATIONS,
                                                  count=PER_SENDER, base=s * PER_SENDER,
                                                  retry=RETRY),
                               output(f"sender{s}.out")))
        reader = _tsql(url, READER.format(total=TOTAL, seconds=int(BOUND_S), retry=RETRY),
                       output("reader.out"))
        procs.append(reader)

        killed: int | None = None
        progress, progress_at = 0, time.monotonic()
        while reader.poll() is None:
            now = time.monotonic()
            assert now - started < BOUND_S, ("the run outlived its bound", _tails(tmp_path))
            done = _count(watch, "SELECT (SELECT COUNT(*) FROM Processed) "
                                 "+ (SELECT COUNT(*) FROM Replies)")
            if done > progress:
                progress, progress_at = done, now
            assert now - progress_at < STALL_S, ("no progress", done, _tails(tmp_path))
            if killed is None and done >= KILL_AFTER:
                # The serve with the most activated procedures running, mid-transaction.
                busy = [(_running(tmp_path / f"serve{i}.log"), i) for i in range(SERVES)]
                count, victim = max(busy)
                if count > 0:
                    serves[victim].send_signal(signal.SIGKILL)
                    serves[victim].wait(30)
                    killed = victim
            time.sleep(0.2)
        assert reader.returncode == 0, _tails(tmp_path)
        assert killed is not None, ("no serve was killed while it worked", _tails(tmp_path))
        for p in procs[SERVES:]:
            assert p.wait(30) == 0
        elapsed = time.monotonic() - started
        for i, s in enumerate(serves):
            if i != killed:
                s.send_signal(signal.SIGTERM)
                assert s.wait(60) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in files:
            f.close()

    try:
        ids = watch.rows("SELECT id, COUNT(*) FROM Processed GROUP BY id HAVING COUNT(*) > 1")
        assert ids == [], "requests processed more than once"
        assert _count(watch, "SELECT COUNT(DISTINCT id) FROM Processed") == TOTAL
        assert watch.rows("SELECT MIN(id), MAX(id) FROM Processed") == [(0, TOTAL - 1)]
        dup = watch.rows("SELECT id, COUNT(*) FROM Replies GROUP BY id HAVING COUNT(*) > 1")
        assert dup == [], "replies read more than once"
        assert _count(watch, "SELECT COUNT(DISTINCT id) FROM Replies") == TOTAL
        assert watch.rows("SELECT name, is_receive_enabled FROM sys.service_queues "
                          "ORDER BY name") == [("InitQ", 1), ("TargQ", 1)]
        assert _count(watch, "SELECT COUNT(*) FROM TargQ") == 0
        assert _count(watch, "SELECT COUNT(*) FROM InitQ") == 0
    finally:
        inst.close()

    texts = {p.name: p.read_text(errors="replace") for p in sorted(tmp_path.iterdir())
             if p.suffix in (".log", ".out")}
    for name, content in texts.items():
        assert "3624" not in content and "does not exist" not in content, (
            name, content[-3000:])
    for name in [f"sender{s}.out" for s in range(SENDERS)] + ["reader.out"]:
        records = _records(tmp_path / name)
        assert [r for r in records if r["type"] == "error"] == [], (name, records[-5:])
        print(name, [r["text"] for r in records if r["type"] == "message"])
    victims = sum(t.count("Msg 1205") for n, t in texts.items() if n.startswith("serve"))
    tasks = [texts[f"serve{i}.log"].count("Activation started ") for i in range(SERVES)]
    print(f"{TOTAL} requests in {elapsed:.1f} s; serve {killed} killed; activated tasks per "
          f"serve {tasks}; activated deadlock victims: {victims}")
