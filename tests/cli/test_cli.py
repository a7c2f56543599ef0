"""The command-line contract: run, -Q, --format json, sqlcmd habits, parse, serve, exits.

Every test that opens a store runs on SQLite and on a fresh PostgreSQL schema (``backend_url``
/ ``persistent_url``, tests/conftest.py). Argument splitting, ``parse``, ``--version`` and
``--help`` open no store: they are backend-free.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from tsql_client import run_tsql, serving

from tsqlbroker.repl import cli
from tsqlbroker.repl.cli import COMMANDS_GROUP, main, plugged_command, split_mode


@pytest.fixture
def url_args(backend_url: str) -> list[str]:
    """``--url`` of a fresh private store on the backend under test."""
    return ["--url", backend_url]


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_mode_word_may_follow_global_options() -> None:
    assert split_mode(["--url", "sqlite://", "run", "a.sql"]) == ("run", ["--url", "sqlite://",
                                                                         "a.sql"])
    assert split_mode(["run", "a.sql"]) == ("run", ["a.sql"])
    assert split_mode(["-Q", "run"]) == (None, ["-Q", "run"])  # 'run' is -Q's text
    assert split_mode(["-Q", "PRINT 1"]) == (None, ["-Q", "PRINT 1"])


def test_plugged_commands_come_from_entry_points(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``spark`` is an entry point (pyproject.toml), not a name the command line imports; a
    library its module lacks names the extra to install."""
    assert plugged_command("spark") is not None
    assert plugged_command("run") is None
    assert split_mode(["--url", "sqlite://", "spark", "drain"]) == (
        "spark", ["--url", "sqlite://", "drain"])
    missing = EntryPoint("spark", "absent_test_library.cli:main", COMMANDS_GROUP)
    monkeypatch.setattr(cli, "plugged_command", lambda word: missing)
    assert main(["spark", "drain"]) == 2
    assert capsys.readouterr().err == (
        "tsqlbroker spark: absent_test_library is not installed: "
        "python -m pip install 'tsqlbroker[spark]'\n")


def test_query_text_prints(url_args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*url_args, "-Q", "PRINT 'hello'"]) == 0
    assert capsys.readouterr().out.splitlines() == ["hello"]


def test_json_records_and_exit_status(url_args: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = "PRINT 'start'\nSELECT 1 AS a, N'x' AS b\nGO\nSELECT 1/0\nGO\nPRINT 'after'"
    assert main([*url_args, "--format", "json", "-Q", text]) == 1
    recs = records(capsys.readouterr().out)
    assert recs[0] == {"type": "message", "text": "start"}
    assert {"type": "resultset", "columns": ["a", "b"], "rows": [[1, "x"]]} in recs
    err = next(r for r in recs if r["type"] == "error")
    assert err == {"type": "error", "number": 8134, "severity": 16, "state": 1, "line": 4,
                   "message": "Divide by zero error encountered."}
    assert recs[-1] == {"type": "message", "text": "after"}  # the next batch still ran


def test_stop_on_error_with_b(url_args: list[str], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.sql"
    script.write_text("PRINT 'one'\nGO\nRAISERROR('boom', 16, 1)\nGO\nPRINT 'three'\n")
    assert main([*url_args, "run", "-b", str(script)]) == 1
    captured = capsys.readouterr()
    assert "one" in captured.out and "three" not in captured.out
    assert "Msg 50000, Level 16, State 1, Line 3" in captured.err
    assert main([*url_args, "run", str(script)]) == 1
    assert "three" in capsys.readouterr().out


def test_sqlcmd_variables_includes_and_go_n(url_args: list[str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inc.sql").write_text("PRINT 'included $(who)'\nGO\n")
    main_sql = tmp_path / "main.sql"
    main_sql.write_text(":setvar greeting hi\nPRINT '$(greeting) $(who)'\nGO\n"
                        ":r inc.sql\nPRINT 'again'\nGO 3\n")
    assert main([*url_args, "run", "-v", "who=world", str(main_sql)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "hi world", "included world", "again", "again", "again"]


def test_undefined_variable_is_an_error(url_args: list[str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*url_args, "-Q", "PRINT '$(nope)'"]) == 1
    assert "'nope' scripting variable not defined." in capsys.readouterr().err


def test_database_option_and_missing_file(url_args: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*url_args, "-d", "tempdb", "-Q", "PRINT DB_NAME()"]) == 0
    assert capsys.readouterr().out.strip() == "tempdb"
    assert main([*url_args, "run", str(tmp_path / "missing.sql")]) == 1
    assert "Cannot open file" in capsys.readouterr().err


def test_state_persists_in_the_store(persistent_url: str, backend: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    setup = ("CREATE DATABASE Keep; "
             "EXEC('USE Keep; CREATE TABLE t (a int); INSERT t VALUES (42)')")
    assert main(["--url", persistent_url, "-Q", setup]) == 0
    capsys.readouterr()
    # Where the state lives: the SQLite file, or tables in the test's PostgreSQL schema.
    if backend == "sqlite":
        assert (tmp_path / "store.db").stat().st_size > 0
    else:
        from sqlalchemy import create_engine, inspect
        from sqlalchemy.pool import NullPool

        engine = create_engine(persistent_url, poolclass=NullPool)
        try:
            assert inspect(engine).get_table_names()
        finally:
            engine.dispose()
    assert main(["--url", persistent_url, "--format", "json", "-Q",
                 "SELECT a FROM Keep.dbo.t"]) == 0
    assert {"type": "resultset", "columns": ["a"], "rows": [[42]]} in records(
        capsys.readouterr().out)


def test_parse_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.sql"
    good.write_text("RECEIVE TOP(1) * FROM q\nGO\nGET SERVICE INSTANCE @g FROM q\n")
    bad = tmp_path / "bad.sql"
    bad.write_text("PRINT 1\nGO\nSELECT FROM WHERE\n")
    assert main(["parse", str(good)]) == 0
    assert main(["parse", "--ast", str(good)]) == 0
    assert "Receive" in capsys.readouterr().out
    assert main(["parse", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "Line 3" in err and "^" in err


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("tsqlbroker ")
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "examples:" in capsys.readouterr().out


# A script whose values take every JSON shape: binary and GUIDs as text, decimals and dates.
JSON_SCRIPT = """\
CREATE TABLE t (id int PRIMARY KEY, name nvarchar(20), amount decimal(9, 2),
                at datetime, b varbinary(4), g uniqueidentifier);
INSERT t VALUES (1, N'Ann', 12.50, '2026-01-02T03:04:05', 0x00FF, NULL),
                (2, NULL, NULL, NULL, NULL, '6F9619FF-8B86-D011-B42D-00C04FC964FF');
GO
SELECT id, name, amount, at, b, g FROM t ORDER BY id;
SELECT NEWID() AS fresh;
GO
"""


def test_run_json_end_to_end(backend_url: str, tmp_path: Path) -> None:
    """``tsqlbroker run --url … --format json`` as a process: records on stdout, status 0."""
    script = tmp_path / "s.sql"
    script.write_text(JSON_SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "tsqlbroker", "run", "--url", backend_url,
                           "--format", "json", str(script)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    recs = records(proc.stdout)
    sets = [r for r in recs if r["type"] == "resultset"]
    assert sets[0] == {"type": "resultset", "columns": ["id", "name", "amount", "at", "b", "g"],
                       "rows": [[1, "Ann", 12.5, "2026-01-02 03:04:05.000", "0x00FF", None],
                                [2, None, None, None, None,
                                 "6F9619FF-8B86-D011-B42D-00C04FC964FF"]]}
    (g,) = sets[1]["rows"][0]
    assert g == g.upper() and len(g) == 36
    assert {"type": "message", "text": "(2 rows affected)"} in recs


def test_console_script_query_end_to_end(backend_url: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", backend_url,
                           "--format", "json", "-Q",
                           "SELECT CAST(0xFF AS varbinary(2)) AS b, NEWID() AS g"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    (rs,) = records(proc.stdout)[:1]
    b, g = rs["rows"][0]
    assert b == "0xFF" and g == g.upper() and len(g) == 36


def _log_until(log: Path, text: str, proc: subprocess.Popen[str], seconds: float = 30) -> str:
    """The log once ``text`` is in it (or ``seconds`` passed); the process must live on."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and text not in (log.read_text() if log.exists()
                                                       else ""):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.1)
    return log.read_text() if log.exists() else ""


def test_serve_runs_until_sigterm(tmp_path: Path, persistent_url: str) -> None:
    log = tmp_path / "broker.log"
    with serving(persistent_url, log) as proc:
        assert "serving" in _log_until(log, "serving", proc)
        assert "password" not in log.read_text()
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "stopped" in log.read_text()


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1 on this platform")
def test_serve_writes_its_threads_stacks_on_sigusr1(tmp_path: Path,
                                                    persistent_url: str) -> None:
    """SIGUSR1: every thread's stack goes to the log (the main thread's in ``_serve``'s
    wait loop, the broker's own threads by name of their code), and serving goes on."""
    log = tmp_path / "broker.log"
    with serving(persistent_url, log) as proc:
        # The broker's threads start just after it says it hosts activation.
        assert "hosting activation" in _log_until(log, "hosting activation", proc)
        os.kill(proc.pid, signal.SIGUSR1)
        dump = _log_until(log, " in _serve", proc, seconds=10)
        assert "Current thread" in dump and 'File "' in dump and " in _serve" in dump
        assert dump.count("Thread 0x") >= 2            # the broker's threads too
        assert proc.poll() is None                     # still serving
        # Many signals while the threads run: dumping their stacks must never crash the
        # process (faulthandler, which read the frames without the GIL, did: SIGSEGV).
        for _ in range(200):
            os.kill(proc.pid, signal.SIGUSR1)
            time.sleep(0.005)
        assert proc.poll() is None, proc.returncode
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "stopped" in log.read_text()


# The message that activates the procedure is a conversation timer's, due after the setting
# instance has closed: only the serving process can deliver it and activate the procedure.
SERVED = """\
CREATE DATABASE Served;
GO
USE Served;
CREATE TABLE Handled (kind nvarchar(256));
CREATE QUEUE Q;
CREATE SERVICE [//served/Svc] ON QUEUE Q ([DEFAULT]);
GO
CREATE PROCEDURE Handler AS
BEGIN
    DECLARE @t nvarchar(256);
    RECEIVE TOP(1) @t = message_type_name FROM Q;
    INSERT Handled VALUES (@t);
    PRINT 'handled ' + @t;
END
GO
ALTER QUEUE Q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = Handler, MAX_QUEUE_READERS = 1,
    EXECUTE AS SELF);
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//served/Svc] TO SERVICE '//served/Svc' WITH ENCRYPTION = OFF;
BEGIN CONVERSATION TIMER (@h) TIMEOUT = 2;
"""
TIMER = "http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer"


def _run_tsql(url: str, batches: list[str]) -> list[tuple]:
    """Run ``batches`` on a private instance that is closed afterwards; the last rows."""
    return run_tsql(url, batches)


def test_serve_runs_timers_and_activation(tmp_path: Path, persistent_url: str) -> None:
    """``serve`` fires a conversation timer that came due after its setter closed, and the
    queue's activated procedure handles the timer message, its output in the serve log."""
    log = tmp_path / "broker.log"
    _run_tsql(persistent_url, SERVED.split("GO\n"))
    with serving(persistent_url, log) as proc:
        _log_until(log, "'handled ", proc)
        assert f"output the following: 'handled {TIMER}'" in log.read_text()
        assert _run_tsql(persistent_url, ["SELECT kind FROM Served.dbo.Handled"]) == [(TIMER,)]
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=20) == 0


def test_without_url_the_store_is_tsqlbroker_url(persistent_url: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("TSQLBROKER_URL", persistent_url)
    assert main(["-Q", "CREATE DATABASE FromEnv"]) == 0
    monkeypatch.delenv("TSQLBROKER_URL")
    assert main(["--url", persistent_url, "-Q",
                 "SELECT name FROM sys.databases WHERE name = 'FromEnv'"]) == 0
    assert "FromEnv" in capsys.readouterr().out
    assert not (tmp_path / "data" / "tsqlbroker" / "tsqlbroker.db").exists()


def test_without_url_or_variable_the_store_is_an_sqlite_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite only: the default store is an SQLite file by definition (PostgreSQL is only
    ever chosen by a URL, tested above)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("TSQLBROKER_URL", raising=False)
    assert main(["-Q", "CREATE DATABASE Kept"]) == 0
    store = tmp_path / "data" / "tsqlbroker" / "tsqlbroker.db"
    assert store.stat().st_size > 0
    assert main(["--url", f"sqlite:///{store}", "-Q",
                 "SELECT name FROM sys.databases WHERE name = 'Kept'"]) == 0
    assert "Kept" in capsys.readouterr().out
