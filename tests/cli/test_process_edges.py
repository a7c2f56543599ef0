"""Process edges of the command line: bad ``--url`` values, ``| head``, ``-d`` with no such
database, ``--wait-idle`` running out, activated procedures' output in ``--format json``,
SIGTERM and SIGKILL with a ``sqlite://`` store.

Storage-dependent behaviour runs on both backends (``backend_url``); what only concerns a URL
that cannot be opened, a pipe or the private ``sqlite://`` directory runs where it applies."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy.engine import make_url

from tsqlbroker.repl.cli import main
from tsqlbroker.storage.backends.sqlite import private_store

if TYPE_CHECKING:
    from conftest import FreshPostgres

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TIMEOUT = 60


def one_line_failure(url: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["--url", url, "-Q", "PRINT 'never'"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    return captured.err.strip()


MISSING_DRIVER = next(url for url, module in [
    ("mysql+mysqldb://u@127.0.0.1/db", "MySQLdb"), ("mssql+pyodbc://u@127.0.0.1/db", "pyodbc"),
    ("oracle+oracledb://u@127.0.0.1/db", "oracledb")] if importlib.util.find_spec(module) is None)


@pytest.mark.parametrize("url,reason", [
    ("postgresql+psycopg://u:secret@127.0.0.1:1/db", "Connection refused"),
    ("nosuchdb://x", "unknown kind of database 'nosuchdb'"),
    (MISSING_DRIVER, "its database driver is not installed"),
    ("sqlite:////nonexistent-tsqlb/dir/x.db", "the directory '/nonexistent-tsqlb/dir' does not exist"),
    ("not a url", "not a storage URL"),
])
def test_a_bad_url_is_one_line_and_exit_1(url: str, reason: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_failure(url, capsys)
    assert line.startswith("tsqlbroker: Cannot open storage '") and reason in line
    assert "secret" not in line  # the password is hidden


def test_a_missing_schema_is_one_line(fresh_postgres: FreshPostgres,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    url = make_url(fresh_postgres.url()).update_query_dict(
        {"options": "-csearch_path=t_no_such_schema"})
    line = one_line_failure(url.render_as_string(hide_password=False), capsys)
    assert "the schema to keep the store in does not exist" in line


def test_no_such_database_runs_nothing(backend_url: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", backend_url, "-d", "NoSuchDb", "-Q", "PRINT 'ran'"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ('Msg 4060, Level 11, State 1, Line 1\nCannot open database '
                            '"NoSuchDb" requested by the login. The login failed.\n')


def spawn(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tsqlbroker", *args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=ENV, cwd=str(ROOT))


def read_one_line_then_close(proc: subprocess.Popen[str]) -> tuple[str, int, str]:
    """What ``| head -1`` does: read a line, close the pipe; (line, exit status, stderr)."""
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return line, proc.wait(TIMEOUT), err


LOOP = "DECLARE @i int = 0; WHILE @i < 1000000 BEGIN PRINT @i; SET @i += 1; END"


@pytest.mark.parametrize("args", [["-Q", LOOP], ["--format", "json", "-Q", LOOP]],
                         ids=["text", "json"])
def test_head_ends_the_run_quietly(args: list[str]) -> None:
    line, status, err = read_one_line_then_close(spawn("--url", "sqlite://", *args))
    assert line.strip() in ("0", '{"type": "message", "text": "0"}')
    assert (status, err) == (141, "")  # as a process killed by SIGPIPE; no error, no traceback


def test_head_on_piped_repl_input_and_on_parse_is_quiet(tmp_path: Path) -> None:
    proc = spawn("--url", "sqlite://", stdin=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(LOOP + "\nGO\n")
    proc.stdin.close()
    assert read_one_line_then_close(proc)[1:] == (141, "")
    script = tmp_path / "many.sql"
    script.write_text("SELECT a FROM t WHERE b = 1;\n" * 20000)
    assert read_one_line_then_close(spawn("parse", "--ast", str(script)))[1:] == (141, "")


ACTIVATION = """\
CREATE DATABASE A;
GO
USE A;
GO
CREATE QUEUE Q;
CREATE SERVICE S ON QUEUE Q ([DEFAULT]);
GO
CREATE PROCEDURE P AS
BEGIN
    DECLARE @b nvarchar(100);
    RECEIVE TOP (1) @b = CAST(message_body AS nvarchar(100)) FROM Q;
    PRINT 'got ' + @b;
    RAISERROR ('failing on %s', 16, 1, @b);
    WAITFOR DELAY '{delay}';
END
GO
ALTER QUEUE Q WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = P, MAX_QUEUE_READERS = 1,
    EXECUTE AS SELF);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE S TO SERVICE 'S' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (N'one');
SEND ON CONVERSATION @h (N'two');
"""


def test_activated_output_in_json_is_marked_with_its_source(
        backend_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "a.sql"
    script.write_text(ACTIVATION.replace("{delay}", "00:00:00"))
    assert main(["--url", backend_url, "run", "--format", "json", str(script)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    origin = {"source": "activation", "queue": "[A].[dbo].[Q]", "procedure": "[A].[dbo].[P]"}
    activated = [{k: v for k, v in r.items() if k != "spid"} for r in records
                 if r.get("source") == "activation"]
    # An error's "procedure" stays where it was raised (as in every error record).
    assert activated == [
        {"type": "message", "text": "got one", **origin},
        {"type": "error", "number": 50000, "severity": 16, "state": 1, "line": 6,
         "message": "failing on one", **origin, "procedure": "P"},
        {"type": "message", "text": "got two", **origin},
        {"type": "error", "number": 50000, "severity": 16, "state": 1, "line": 6,
         "message": "failing on two", **origin, "procedure": "P"},
    ]


def test_wait_idle_running_out_says_what_was_left(backend_url: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "a.sql"
    script.write_text(ACTIVATION.replace("{delay}", "00:00:20"))
    assert main(["--url", backend_url, "run", "--wait-idle", "1", str(script)]) == 0
    left = [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("tsqlbroker: --wait-idle 1 s ran out: ")]
    assert len(left) == 2
    assert left[0].startswith("tsqlbroker: --wait-idle 1 s ran out: activated procedure "
                              "[A].[dbo].[P] on queue [A].[dbo].[Q] is still running (spid ")
    assert left[1] == ("tsqlbroker: --wait-idle 1 s ran out: queue [A].[dbo].[Q] still has "
                       "messages for [A].[dbo].[P]")


def _target(fd: Path) -> str:
    """What a descriptor of /proc/<pid>/fd points at ('' when it closed meanwhile)."""
    try:
        return os.readlink(fd)
    except FileNotFoundError:
        return ""


def started_private_store() -> tuple[subprocess.Popen[str], Path]:
    """A ``-Q`` run on ``sqlite://`` waiting in a WAITFOR, and its store's directory."""
    proc = spawn("--url", "sqlite://", "-Q", "PRINT 'waiting'; WAITFOR DELAY '00:01:00'")
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "waiting"
    # The directory whose owner lock this process holds open: other processes on the machine
    # may make private stores at the same moment.
    fds = Path(f"/proc/{proc.pid}/fd")
    root = Path(private_store.memory_root())
    mine = {Path(target).parent for target in map(_target, fds.iterdir())
            if target.endswith(private_store.OWNER_LOCK)}
    assert len(mine) == 1 and next(iter(mine)).parent == root
    return proc, next(iter(mine))


def test_sigterm_removes_the_private_store() -> None:
    proc, directory = started_private_store()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(TIMEOUT) == 143
    assert proc.stderr is not None and proc.stderr.read() == ""
    assert not directory.exists()


def test_after_sigkill_the_next_start_removes_the_private_store() -> None:
    proc, directory = started_private_store()
    proc.kill()
    proc.wait(TIMEOUT)
    assert directory.exists()  # nothing ran at the kill
    # A live process's store is never taken: this one's survives the sweep.
    other, alive = started_private_store()
    try:
        assert not directory.exists()
        assert alive.exists()
        assert str(alive) not in private_store.sweep(private_store.memory_root())
    finally:
        other.kill()
        other.wait(TIMEOUT)
        private_store.sweep(private_store.memory_root())
    assert not alive.exists()


def test_exit_waits_for_nothing(backend_url: str) -> None:
    """Everything the run started (activation, listener, transport) is gone when main
    returns: no thread is left for the interpreter's exit to wait on or trip over."""
    import threading

    before = set(threading.enumerate())
    text = "CREATE QUEUE q; WAITFOR (RECEIVE * FROM q), TIMEOUT 10"
    assert main(["--url", backend_url, "-Q", text]) == 0
    assert [t.name for t in set(threading.enumerate()) - before] == []
