"""One process hosts a store's activation, timers and transmission (issue 14, item 2), with
real processes on one store (an SQLite file, or a PostgreSQL schema):

* ``serve`` hosts; a client beside it (``run``) only runs its own batches — every request is
  handled once, by the serving process (the issue's 50 requests gave 70 handled rows);
* a second ``serve`` stands by and takes over when the host is killed;
* ``-Q`` text without a statement that gives the broker work does not host (no 30 s of
  unrelated activation); ``--activation on`` hosts even then; ``--activation off`` never;
* MAX_QUEUE_READERS holds over every process on an SQLite file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tsql_client import run_tsql, serving

from tsqlbroker.engine.broker import Broker
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """\
CREATE DATABASE Hosting;
GO
USE Hosting;
CREATE TABLE Handled (kind nvarchar(256), spid int);
CREATE TABLE Running (spid int);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//h/Init] ON QUEUE InitQ;
CREATE SERVICE [//h/Targ] ON QUEUE TargQ ([DEFAULT]);
GO
CREATE PROCEDURE Handler AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h uniqueidentifier, @t nvarchar(256), @spid int = @@SPID;
    INSERT Running VALUES (@spid);
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name
                 FROM TargQ), TIMEOUT 300;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT;
            BREAK;
        END
        INSERT Handled VALUES (@t, @spid);
        IF @t = N'DEFAULT'
        BEGIN
            WAITFOR DELAY '00:00:00.050';
            PRINT 'handled';
        END
        END CONVERSATION @h;
        COMMIT;
    END
    DELETE FROM Running WHERE spid = @spid;
END
GO
ALTER QUEUE TargQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = Handler,
                                   MAX_QUEUE_READERS = {readers}, EXECUTE AS SELF);
"""
REQUESTS = """\
USE Hosting;
SET NOCOUNT ON;
DECLARE @h uniqueidentifier, @i int = 0;
WHILE @i < {n}
BEGIN
    BEGIN DIALOG @h FROM SERVICE [//h/Init] TO SERVICE '//h/Targ' WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h (CAST(@i AS varbinary(4)));
    SET @i += 1;
END
"""
HANDLED = "SELECT COUNT(*) FROM Hosting.dbo.Handled WHERE kind = N'DEFAULT'"


def _instance(url: str, mode: str) -> Instance:
    """An instance in this process whose runtime is set to ``mode`` before anything runs."""
    inst = Instance(url)
    runtime_for(inst, start=False).configure(mode=mode)
    return inst


def _tsql(url: str, text: str) -> list[tuple]:
    """Run ``text`` on an instance that never hosts (closed afterwards); the last rows."""
    return run_tsql(url, [text], activation="off")


def _cli(url: str, *args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str],
                                                               float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", url, *args],
                          capture_output=True, text=True, timeout=timeout, check=False)
    return done, time.monotonic() - start


def _wait_log(log: Path, text: str, proc: subprocess.Popen[str], count: int = 1,
              seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while True:
        got = log.read_text() if log.exists() else ""
        if got.count(text) >= count:
            return got
        assert proc.poll() is None, (proc.stderr.read() if proc.stderr else "") + got
        assert time.monotonic() < deadline, f"no {text!r} in the log:\n{got}"
        time.sleep(0.05)


def _wait_rows(url: str, sql: str, expected: int, seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while True:
        n = int(_tsql(url, sql)[0][0])
        if n >= expected or time.monotonic() > deadline:
            return n
        time.sleep(0.2)


def test_a_client_beside_serve_only_runs_its_own_batches(tmp_path: Path,
                                                        persistent_url: str) -> None:
    url = persistent_url
    _tsql(url, SETUP.format(readers=2))
    log = tmp_path / "serve.log"
    script = tmp_path / "requests.sql"
    script.write_text(REQUESTS.format(n=50))
    with serving(url, log) as proc:
        _wait_log(log, "hosting", proc)
        done, _elapsed = _cli(url, "run", str(script))
        assert done.returncode == 0, done.stderr
        assert "handled" not in done.stderr          # the client ran no activated procedure
        assert _wait_rows(url, HANDLED, 50) == 50
        time.sleep(1.0)                               # anything handled twice shows now
        assert int(_tsql(url, HANDLED)[0][0]) == 50
        served = log.read_text()
        assert served.count("output the following: 'handled'") == 50
        assert "Msg 8426" not in served and "Msg 3624" not in served


def test_a_second_serve_stands_by_and_takes_over_when_the_host_is_killed(
        tmp_path: Path, persistent_url: str) -> None:
    url = persistent_url
    _tsql(url, SETUP.format(readers=1))
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    with serving(url, log_a) as a:
        _wait_log(log_a, "hosting", a)
        with serving(url, log_b) as b:
            assert "standing by" in _wait_log(log_b, "standing by", b)
            a.send_signal(signal.SIGKILL)
            a.wait(timeout=10)
            started = time.monotonic()
            _wait_log(log_b, "hosting activation", b, seconds=15)
            assert time.monotonic() - started < 5
            # B does the work now.
            _tsql(url, REQUESTS.format(n=3))
            assert _wait_rows(url, HANDLED, 3) == 3
            assert _wait_log(log_b, "output the following: 'handled'", b, count=3)


def test_query_text_hosts_only_for_work_it_gives_the_broker(persistent_url: str) -> None:
    url = persistent_url
    _tsql(url, SETUP.format(readers=1))
    _tsql(url, REQUESTS.format(n=1))              # waits: nobody hosts
    done, elapsed = _cli(url, "-Q", "SELECT COUNT(*) FROM Hosting.dbo.TargQ")
    assert done.returncode == 0, done.stderr
    assert int(_tsql(url, HANDLED)[0][0]) == 0    # -Q did not activate anything ...
    assert elapsed < 15                           # ... nor wait for activation to go idle
    done, _elapsed = _cli(url, "--activation", "off", "run", os.devnull)
    assert done.returncode == 0, done.stderr
    assert int(_tsql(url, HANDLED)[0][0]) == 0    # off: never hosts
    done, _elapsed = _cli(url, "--activation", "on", "-Q", "PRINT 'x'")
    assert done.returncode == 0, done.stderr
    assert int(_tsql(url, HANDLED)[0][0]) == 1    # on: hosted, and waited until idle
    done, _elapsed = _cli(url, "-Q", REQUESTS.format(n=1))
    assert done.returncode == 0, done.stderr
    assert int(_tsql(url, HANDLED)[0][0]) == 2    # a SEND gives the broker work: hosts


def test_max_queue_readers_hold_over_processes_on_one_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'readers.db'}"
    _tsql(url, SETUP.format(readers=2))
    logs = [tmp_path / f"serve{i}.log" for i in range(2)]
    with serving(url, logs[0]) as a, serving(url, logs[1]) as b:
        for proc, log in ((a, logs[0]), (b, logs[1])):
            _wait_log(log, "serving", proc)
        # A client that hosts whenever no serve is up (auto) and sends the requests.
        client = _instance(url, "auto")
        try:
            runtime_for(client)
            sink = CollectingSink()
            session = client.session(sink, "master")
            session.execute(REQUESTS.format(n=30))
            assert not sink.errors()
            lockdir = Broker.get(client.store).lockdir
            assert lockdir is not None
            peak, deadline = 0, time.monotonic() + 90
            while time.monotonic() < deadline:
                held = [p for p in lockdir.directory.glob("reader-*")
                        if not lockdir.lock(p.name).is_free()]
                running = int(_tsql(url, "SELECT COUNT(*) FROM Hosting.dbo.Running")[0][0])
                peak = max(peak, len(held), running)
                if int(_tsql(url, HANDLED)[0][0]) == 30:
                    break
                time.sleep(0.05)
            assert int(_tsql(url, HANDLED)[0][0]) == 30
            assert 1 <= peak <= 2
            session.close()
        finally:
            client.close()
