"""Crash safety: activated procedures whose effects go to a user table in the RECEIVE's own
transaction, while the serving process is killed (SIGKILL) at random moments and restarted.

5 000 messages over 50 conversations (each the only conversation of its group on the
target side, so 50 conversation groups) are queued; ``tsqlbroker serve`` processes them
through an activated procedure (four readers) that records each message in ``Processed``
and commits. The serving process is killed 20 times at random moments and restarted. At the
end every message has been processed exactly once, and each conversation's messages were
processed in sequence order (IDENTITY order of ``Processed`` is commit order, and a group's
transactions are serialised by its lock: each row records the highest sequence number of its
conversation already committed when it was processed, which must be the one just before it)
— on an SQLite file and on PostgreSQL; and on an SQLite file with two serving processes,
one of which is killed at random moments (the other takes over hosting).
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

CONVERSATIONS = 50
PER_CONVERSATION = 100
KILLS = 20
SERVE_TIMEOUT_S = 240.0

SETUP = """
CREATE DATABASE crash;
GO
USE crash;
CREATE MESSAGE TYPE [//crash/Msg] VALIDATION = NONE;
CREATE CONTRACT [//crash/Contract] ([//crash/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//crash/Init] ON QUEUE InitQ;
CREATE SERVICE [//crash/Targ] ON QUEUE TargQ ([//crash/Contract]);
CREATE TABLE Processed (conv int NOT NULL, seq int NOT NULL, prev int NULL,
                        spid int NOT NULL);
GO
CREATE PROCEDURE dbo.Worker AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h uniqueidentifier, @t sysname, @b varbinary(max), @s varchar(40), @n int;
    DECLARE @spid int = @@SPID, @conv int, @seq int, @prev int;
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name,
                 @b = message_body FROM TargQ), TIMEOUT 500;
        SET @n = @@ROWCOUNT;
        IF @n = 0
        BEGIN
            COMMIT;
            BREAK;
        END
        IF @t = N'//crash/Msg'
        BEGIN
            SET @s = CAST(@b AS varchar(40));
            SET @conv = CAST(LEFT(@s, CHARINDEX(':', @s) - 1) AS int);
            SET @seq = CAST(SUBSTRING(@s, CHARINDEX(':', @s) + 1, 20) AS int);
            -- What this conversation's processing had committed before this message.
            SELECT @prev = MAX(seq) FROM Processed WHERE conv = @conv;
            INSERT INTO Processed (conv, seq, prev, spid) VALUES (@conv, @seq, @prev, @spid);
        END
        ELSE
            END CONVERSATION @h;
        COMMIT;
    END
END
GO
ALTER QUEUE TargQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.Worker,
                                  MAX_QUEUE_READERS = 4, EXECUTE AS SELF);
"""

OPEN_DIALOGS = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//crash/Init] TO SERVICE '//crash/Targ'
    ON CONTRACT [//crash/Contract] WITH ENCRYPTION = OFF;
SELECT @h AS handle;
"""


def _send_round(handles: list[str], seq: int) -> str:
    """One transaction: the next message (body ``conv:seq``) of every conversation."""
    lines = ["SET NOCOUNT ON;", "DECLARE @h uniqueidentifier;", "BEGIN TRANSACTION;"]
    for conv, handle in enumerate(handles):
        lines.append(f"SET @h = '{handle}';")
        lines.append(f"SEND ON CONVERSATION @h MESSAGE TYPE [//crash/Msg] "
                     f"(CAST('{conv}:{seq}' AS varbinary(max)));")
    lines.append("COMMIT;")
    return "\n".join(lines)


def _run(session: object, sink: CollectingSink, text: str) -> None:
    sink.events.clear()
    session.execute(text)  # type: ignore[attr-defined]
    errors = [e.render() for e in sink.errors()]
    assert not errors, "\n".join(errors)


def _prepare(url: str) -> None:
    """Objects, 50 dialogs and all 5 000 messages, committed before serving starts."""
    inst = Instance(url)
    sink = CollectingSink()
    session = inst.session(sink)
    try:
        _run(session, sink, SETUP)
        handles = []
        for _conv in range(CONVERSATIONS):
            _run(session, sink, OPEN_DIALOGS)
            handles.append(str(sink.resultsets()[-1].rows[0][0]).upper())
        for seq in range(PER_CONVERSATION):
            _run(session, sink, _send_round(handles, seq))
    finally:
        session.close()
        inst.close()


def _processed(url: str) -> list[tuple[int, int, int | None]]:
    inst = Instance(url)
    sink = CollectingSink()
    session = inst.session(sink, database="crash")
    try:
        _run(session, sink, "SELECT conv, seq, prev FROM Processed")
        return [tuple(r) for r in sink.resultsets()[-1].rows]
    finally:
        session.close()
        inst.close()


def _start(url: str, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tsqlbroker", "serve", "--url", url,
                             "--log", str(log)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _wait_stopped(proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> int:
    """The exit status of a serve told to stop. One that does not stop in time fails the test
    with its threads' stacks (SIGUSR1 makes serve write them to its log) and the log's end."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        time.sleep(2)
        raise AssertionError(f"serve did not stop within {timeout:.0f} s of SIGTERM:\n"
                             + log.read_text(errors="replace")[-8000:]) from None


# The line a serve writes once it has its signal handlers and starts serving (counted by
# line: the store's path in it may contain "serving" too, e.g. a test's tmp_path).
_SERVING = re.compile(r"^\S+ \S+ Broker +tsqlbroker \S+ serving ", re.MULTILINE)


def _serving_lines(log: Path) -> int:
    return len(_SERVING.findall(log.read_text(errors="replace"))) if log.exists() else 0


def _wait_serving(log: Path, starts: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if _serving_lines(log) >= starts:
            return
        assert proc.poll() is None, f"serve exited with {proc.returncode}"
        time.sleep(0.05)
    raise AssertionError("serve did not start")


def _check_processed(url: str) -> None:
    """Every message processed once, each conversation's in sequence order."""
    rows = _processed(url)
    seen = [(conv, seq) for conv, seq, _prev in rows]
    assert len(seen) == len(set(seen)), "a message was processed twice"
    assert set(seen) == {(c, s) for c in range(CONVERSATIONS) for s in range(PER_CONVERSATION)}
    out_of_order = [(c, s, p) for c, s, p in rows if p != (None if s == 0 else s - 1)]
    assert not out_of_order, f"processed out of conversation order: {out_of_order[:10]}"


def stacks_of(procs: list[subprocess.Popen[bytes]], logs: list[Path]) -> str:
    """The threads' stacks of the serve processes still running (SIGUSR1 makes serve write
    them to its log) and the end of each log: what a test that found serving stuck says."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGUSR1)
    time.sleep(2)
    return "\n".join(log.read_text(errors="replace")[-8000:] for log in logs)


def _wait_all_processed(url: str, logs: list[Path], procs: list[subprocess.Popen[bytes]]
                        ) -> None:
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    total = CONVERSATIONS * PER_CONVERSATION
    done, progress_at = 0, time.monotonic()
    while time.monotonic() < deadline and done < total:
        time.sleep(1.0)
        now_done = len(_processed(url))
        if now_done > done:
            done, progress_at = now_done, time.monotonic()
        if time.monotonic() - progress_at >= 60:
            raise AssertionError(f"no progress for a minute at {done} of {total}:\n"
                                 + stacks_of(procs, logs))
    time.sleep(1.0)  # anything processed twice would show up now


def test_sigkill_at_random_moments_loses_and_repeats_nothing(persistent_url: str,
                                                               tmp_path: Path) -> None:
    _prepare(persistent_url)
    log = tmp_path / "broker.log"
    rng = random.Random(int.from_bytes(os.urandom(4), "big"))
    starts = 0
    proc = None
    try:
        for _kill in range(KILLS):
            proc = _start(persistent_url, log)
            starts += 1
            _wait_serving(log, starts, proc)
            time.sleep(rng.uniform(0.05, 1.5))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        # The kills interrupted real work: processing had begun (and the log shows the
        # procedures' transactions cut short are simply redone).
        assert len(_processed(persistent_url)) > 0
        proc = _start(persistent_url, log)
        # Serving (its SIGTERM handler set) before anything else: the work may all be done
        # already, and a SIGTERM before the handler would just kill it.
        _wait_serving(log, starts + 1, proc)
        _wait_all_processed(persistent_url, [log], [proc])
        proc.send_signal(signal.SIGTERM)
        assert _wait_stopped(proc, log) == 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    _check_processed(persistent_url)
    assert _serving_lines(log) == KILLS + 1


def _host_of(note: Path, procs: list[subprocess.Popen[bytes]]) -> int:
    """Which of ``procs`` holds the host lease (its note names the holder's pid)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = note.read_text() if note.exists() else ""
        for i, proc in enumerate(procs):
            if f"pid {proc.pid} " in text:
                return i
        time.sleep(0.05)
    raise AssertionError(f"no serve took the host lease: {text!r}")


def test_two_serving_processes_on_one_sqlite_file_lose_and_repeat_nothing(
        tmp_path: Path) -> None:
    """Two ``serve`` processes share one SQLite file: one hosts, the other stands by. One of
    them (often the host) is killed at random moments and started again; the standby takes
    over. At the end every message was processed once, in conversation order."""
    url = f"sqlite:///{tmp_path / 'two.db'}"
    _prepare(url)
    logs = [tmp_path / "serve0.log", tmp_path / "serve1.log"]
    rng = random.Random(int.from_bytes(os.urandom(4), "big"))
    starts = [1, 1]
    procs = [_start(url, logs[0]), _start(url, logs[1])]
    try:
        for i in (0, 1):
            _wait_serving(logs[i], starts[i], procs[i])
        note = tmp_path / "two.db-locks" / "host"
        for kill in range(KILLS // 2):
            time.sleep(rng.uniform(0.3, 1.5))
            # The first kill hits the host (its lease note names it), so both host in turn.
            i = rng.randrange(2) if kill else _host_of(note, procs)
            procs[i].send_signal(signal.SIGKILL)
            procs[i].wait(timeout=30)
            procs[i] = _start(url, logs[i])
            starts[i] += 1
            _wait_serving(logs[i], starts[i], procs[i])
        assert len(_processed(url)) > 0
        _wait_all_processed(url, logs, procs)
        for i in (0, 1):
            procs[i].send_signal(signal.SIGTERM)
        for i in (0, 1):
            assert _wait_stopped(procs[i], logs[i]) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    _check_processed(url)
    # Both took turns hosting.
    assert all("hosting activation" in log.read_text(errors="replace") for log in logs)
