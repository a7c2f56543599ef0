"""End to end: ``python -m tsqlbroker --url URL`` in a real pseudo-terminal (pexpect).

What depends on the store — activation output arriving while the prompt waits, leaving (and
closing the store) with Ctrl-D, piped input — runs on both backends (``backend_url``). The
tests of terminal behaviour alone (typing a batch, an error, Ctrl-C, :help and the config
file) stay on ``sqlite://``: each has a non-pty twin in test_real_instance.py that runs on
both backends, and a pty test costs seconds."""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect  # a dev dependency: a missing one must fail, not skip
import pytest

ROOT = Path(__file__).resolve().parents[2]
# Generous: CI machines are small and the suite runs beside a PostgreSQL server.
TIMEOUT = 60


@pytest.fixture(scope="module", autouse=True)
def warm_parser_cache() -> None:
    """Build the grammar once here so that Lark's on-disk cache is warm for the children:
    the time limits below are about the REPL, not about building LALR tables."""
    from tsqlbroker.grammar import parse

    parse("PRINT 1")


@pytest.fixture
def spawn(xdg_home: Path) -> Iterator[Callable[[str], Any]]:
    """Starts ``tsqlbroker --url URL`` in a pseudo-terminal, at its first prompt."""
    children: list[Any] = []

    def start(url: str) -> Any:
        env = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1",
               "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONPATH": str(ROOT),
               "XDG_CONFIG_HOME": str(xdg_home / "config"),
               "XDG_DATA_HOME": str(xdg_home / "data"), "HOME": str(xdg_home), "PAGER": "cat"}
        child = pexpect.spawn(sys.executable, ["-m", "tsqlbroker", "--url", url],
                              env=env, cwd=str(xdg_home), encoding="utf-8", timeout=TIMEOUT,
                              dimensions=(40, 120))
        # Everything the REPL wrote, shown by pytest when a test fails.
        child.logfile_read = io.StringIO()
        children.append(child)
        child.expect("master>")
        return child

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)
        print(child.logfile_read.getvalue())


@pytest.fixture
def repl(spawn: Callable[[str], Any]) -> Any:
    """The REPL on a private in-memory store (tests of terminal behaviour only)."""
    return spawn("sqlite://")


def type_batch(child: Any, *lines: str) -> None:
    for line in lines:
        child.send(line + "\r")


def test_batch_and_go_shows_the_result(repl: Any) -> None:
    type_batch(repl, "PRINT 'abc' + 'def'", "GO")
    repl.expect("abcdef")
    repl.expect("master>")


def test_failing_batch_keeps_the_repl(repl: Any) -> None:
    type_batch(repl, "PRINT 'x'", "SELECT 1/0", "GO")
    repl.expect(r"Msg 8134, Level 16, State 1, Line 2")
    repl.expect("Divide by zero error encountered.")
    type_batch(repl, "PRINT 'still' + 'alive'", "GO")
    repl.expect("stillalive")


def _cancel_promptly(repl: Any) -> None:
    """Ctrl-C stops the running batch within seconds, back at the prompt."""
    started = time.monotonic()
    repl.sendintr()
    repl.expect("Query was cancelled by user.")
    repl.expect("master>")
    assert time.monotonic() - started < 10


def _ctrl_c_cancels_promptly(repl: Any, *batch: str) -> None:
    type_batch(repl, *batch, "GO")
    time.sleep(1.0)
    _cancel_promptly(repl)


def test_ctrl_c_cancels_a_waitfor_promptly(repl: Any) -> None:
    _ctrl_c_cancels_promptly(repl, "WAITFOR DELAY '00:00:30'")
    type_batch(repl, "PRINT 'after' + 'cancel'", "GO")
    repl.expect("aftercancel")


def test_ctrl_c_cancels_a_long_query_promptly(repl: Any) -> None:
    type_batch(repl, "CREATE TABLE big (n int); WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 "
               "FROM r WHERE n < 300) INSERT big SELECT n FROM r OPTION (MAXRECURSION 0)", "GO")
    repl.expect(r"\(300 rows affected\)")
    _ctrl_c_cancels_promptly(repl, "SELECT COUNT(*) FROM big a, big b, big c, big d")


def test_ctrl_d_exits_with_status_0(spawn: Callable[[str], Any], backend_url: str) -> None:
    repl = spawn(backend_url)
    type_batch(repl, "CREATE TABLE t (a int); INSERT t VALUES (1);", "GO")
    repl.expect(r"\(1 row affected\)")
    repl.expect("master>")
    repl.sendcontrol("d")
    repl.expect(pexpect.EOF)
    repl.close()
    assert repl.exitstatus == 0


def test_special_command_and_config_created(repl: Any, xdg_home: Path) -> None:
    assert (xdg_home / "config" / "tsqlbroker" / "config.toml").exists()
    type_batch(repl, ":help")
    repl.expect(":conversations")
    repl.expect("master>")


ACTIVATION_SETUP = """\
CREATE DATABASE Trading;
GO
USE Trading;
GO
CREATE QUEUE TradeQueue;
CREATE SERVICE [//dm/TradeEntry] ON QUEUE TradeQueue ([DEFAULT]);
GO
CREATE PROCEDURE TradeHandler AS
BEGIN
    DECLARE @body nvarchar(100);
    RECEIVE TOP(1) @body = CAST(message_body AS nvarchar(100)) FROM TradeQueue;
    -- Print only after the REPL is back at its prompt, waiting for input.
    WAITFOR DELAY '00:00:02';
    PRINT 'handled ' + @body;
END
GO
ALTER QUEUE TradeQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = TradeHandler,
    MAX_QUEUE_READERS = 1, EXECUTE AS SELF);
GO
"""


def test_activation_output_appears_while_the_prompt_waits(spawn: Callable[[str], Any],
                                                          backend_url: str,
                                                          xdg_home: Path) -> None:
    repl = spawn(backend_url)
    (xdg_home / "setup.sql").write_text(ACTIVATION_SETUP)
    type_batch(repl, ":r setup.sql")
    repl.expect("Trading>")
    type_batch(repl, "DECLARE @h uniqueidentifier;",
               "BEGIN DIALOG @h FROM SERVICE [//dm/TradeEntry] TO SERVICE '//dm/TradeEntry'"
               " WITH ENCRYPTION = OFF;",
               "SEND ON CONVERSATION @h (N'trade' + N'42');", "GO")
    repl.expect("Trading>")
    repl.expect(r"output the following: 'handled trade42'")
    # The prompt is drawn again below the log line and still takes input.
    repl.expect("Trading>")
    type_batch(repl, "PRINT 'still' + 'typing'", "GO")
    repl.expect("stilltyping")


def test_piped_input_runs_as_a_script(xdg_home: Path, backend_url: str) -> None:
    import subprocess

    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT), "HOME": str(xdg_home),
           "XDG_CONFIG_HOME": str(xdg_home / "config"), "XDG_DATA_HOME": str(xdg_home / "data")}
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", backend_url],
                          input="PRINT 'piped'\nGO\nSELECT 1/0\nGO\n", capture_output=True,
                          text=True, env=env, timeout=TIMEOUT, check=False)
    # Lines count from the start of the script, as in `tsqlbroker run`.
    assert done.stdout.splitlines()[:3] == ["piped", "Msg 8134, Level 16, State 1, Line 3",
                                            "Divide by zero error encountered."]
    assert "master>" not in done.stdout and done.returncode == 1


def test_a_1mb_paste_runs_and_ctrl_c_stops_it(repl: Any) -> None:
    """A 1 MB bracketed paste (what terminals send for a paste) is one edit of the buffer, not
    a million key presses; the batch runs, and Ctrl-C cancels it while it runs."""
    lines = 16384
    literal = ("x" * 63 + "\r") * lines  # the terminal sends the pasted newlines as CR
    paste = (f"DECLARE @s nvarchar(max) = N'{literal}';\rPRINT 'length ' + "
             f"CAST(LEN(@s) AS varchar(10));\rWAITFOR DELAY '00:00:30';\rPRINT 'not reached'\rGO\r")
    repl.send("\x1b[200~" + paste + "\x1b[201~")
    repl.send("\r")
    repl.expect(f"length {64 * lines}")
    _cancel_promptly(repl)
    type_batch(repl, "PRINT 'after' + 'paste'", "GO")
    repl.expect("afterpaste")
    assert "\nnot reached" not in repl.logfile_read.getvalue()  # the echo has PRINT before it
