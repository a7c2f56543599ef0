"""sqlcmd parity at the REPL and in scripts: the statement cache (:list, :reset, :ed),
:exit(query), :error, !!, "Commands completed successfully.", wide results, leaving with an
open transaction, and the command line's usage line.

The REPL's mechanics run on the fake instance (backend-free); what needs a real session
(transactions, the transmission queue) runs on both backends."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tests.repl.conftest import output_of
from tests.repl.fakes import FakeInstance
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.repl.cli import main
from tsqlbroker.repl.config import parse_config
from tsqlbroker.repl.main import Repl
from tsqlbroker.repl.render import RichSink


def _config(**settings: Any) -> Any:
    config = parse_config("")
    config.history_file = None
    config.pager = ""
    for key, value in settings.items():
        setattr(config, key, value)
    return config


@pytest.fixture
def repl(console: Any, pipe: Any) -> Iterator[Repl]:
    r = Repl(_config(), url="sqlite://", console=console, input=pipe, output=DummyOutput(),
             instance_factory=FakeInstance)
    yield r
    r.close()


def ran(repl: Repl) -> list[str]:
    return [b.strip() for b in repl.session.batches]


# -- the statement cache ---------------------------------------------------------------------
def test_list_shows_the_cache_and_keeps_it_for_the_next_prompt(repl: Repl, console: Any) -> None:
    repl.handle("PRINT 'one'\nPRINT 'two'\n:list")
    assert "PRINT 'one'\nPRINT 'two'\n" in output_of(console)
    assert repl.pending_text == "PRINT 'one'\nPRINT 'two'\n"
    assert ran(repl) == []


def test_lines_before_a_go_run_and_only_the_rest_is_cached(repl: Repl) -> None:
    repl.handle("PRINT 'sent'\nGO\nPRINT 'kept'\n:list")
    assert ran(repl) == ["PRINT 'sent'"]
    assert repl.statement_cache == "PRINT 'kept'"


def test_reset_discards_the_cache(repl: Repl) -> None:
    repl.handle("PRINT 'gone'\n:reset")
    assert repl.pending_text == "" and ran(repl) == []


def test_ed_edits_the_cache_or_the_last_batch(repl: Repl, monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    script = tmp_path / "ed.py"
    script.write_text("import sys\np = sys.argv[1]\ntext = open(p).read()\n"
                      "open(p, 'w').write(text.upper())\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("SQLCMDEDITOR", raising=False)
    repl.handle("print 'x'\n:ed")
    assert repl.pending_text == "PRINT 'X'\n"
    repl.handle("PRINT 'last'\nGO")
    repl.handle(":ed")            # nothing cached: the batch that ran last
    assert repl.pending_text == "PRINT 'LAST'\n"
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    repl.handle(":ed")
    assert "Cannot start the editor" in output_of(repl.console)


# -- :exit, :quit ----------------------------------------------------------------------------
def test_exit_forms(repl: Repl) -> None:
    repl.handle("PRINT 'dropped'\n:exit")
    assert repl.exit_status == 0 and ran(repl) == []
    repl.exit_status = None
    repl.handle("PRINT 'runs'\n:exit()")
    assert repl.exit_status == 0 and ran(repl) == ["PRINT 'runs'"]
    repl.exit_status = None
    repl.handle("PRINT 'with'\n:exit(SELECT 7 AS v)")
    assert repl.exit_status == 7 and ran(repl)[-1] == "PRINT 'with'\nSELECT 7 AS v"
    repl.exit_status = None
    repl.handle(":exit(SELECT 1/0)")
    assert repl.exit_status == 1
    repl.exit_status = None
    repl.handle(":exit nonsense")
    assert repl.exit_status is None and "Usage: :exit" in output_of(repl.console)


def test_exit_query_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "sqlite://", "-Q", "PRINT 'a'\n:exit(SELECT 40 + 2)"]) == 42
    assert main(["--url", "sqlite://", "-Q", "PRINT 'not run'\n:exit"]) == 0
    assert main(["--url", "sqlite://", "-Q", ":exit(SELECT 'abc')"]) == 1
    assert main(["--url", "sqlite://", "-Q", ":exit(SELECT NULL)"]) == 0
    assert "not run" not in capsys.readouterr().out


# -- :error, !! --------------------------------------------------------------------------------
def test_error_goes_to_a_file_and_back(repl: Repl, console: Any, tmp_path: Path) -> None:
    target = tmp_path / "errors.txt"
    repl.handle(f":error {target}")
    repl.handle("SELECT 1/0\nGO\nPRINT 'fine'\nGO")
    repl.handle(":error STDOUT")
    repl.handle("SELECT 2/0\nGO")
    assert "Msg 8134" in target.read_text() and "Msg 8134" in output_of(console)
    assert output_of(console).count("Msg 8134") == 1 and "fine" in output_of(console)


def test_error_in_a_script(tmp_path: Path) -> None:
    target = tmp_path / "errors.txt"
    script = tmp_path / "s.sql"
    script.write_text(f":error {target}\nSELECT 1/0\nGO\n")
    assert main(["run", "--url", "sqlite://", str(script)]) == 1
    assert "Divide by zero" in target.read_text()


def test_shell_command_and_its_setting(console: Any, pipe: Any) -> None:
    r = Repl(_config(), url="sqlite://", console=console, input=pipe, output=DummyOutput(),
             instance_factory=FakeInstance)
    r.handle("!! echo shell says hi")
    r.handle(":!!echo again")
    r.close()
    assert "shell says hi\n" in output_of(console) and "again" in output_of(console)
    off = Repl(_config(shell_commands=False), url="sqlite://", console=console, input=pipe,
               output=DummyOutput(), instance_factory=FakeInstance)
    off.handle("!! echo nope")
    off.handle(":ed")
    off.close()
    assert "Shell commands are turned off" in output_of(console)
    assert ":ed is turned off" in output_of(console)


def test_interactive_commands_are_refused_in_scripts(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    assert main(["--url", "sqlite://", "-Q", "!! echo x"]) == 1
    assert "works at the interactive prompt only" in capsys.readouterr().err


# -- what is shown ------------------------------------------------------------------------------
def test_commands_completed_only_at_the_prompt(repl: Repl, console: Any) -> None:
    repl.handle("USE master\nGO")
    assert "Commands completed successfully." not in output_of(console)  # like sqlcmd
    repl.interactive = True
    repl.handle("USE master\nGO")
    assert output_of(console).count("Commands completed successfully.") == 1
    repl.handle("PRINT 'something'\nGO")
    repl.handle("SELECT 1/0\nGO")
    assert output_of(console).count("Commands completed successfully.") == 1


def _wide() -> ResultSet:
    names = [f"column_number_{i}" for i in range(15)]
    return ResultSet(names, [None] * 15, [tuple(f"v{i}" for i in range(15))])


def test_wide_results_layouts() -> None:
    console = Console(file=StringIO(), width=80, color_system=None)
    RichSink(console).resultset(_wide())
    assert "column_number_14: v14" in console.file.getvalue()  # type: ignore[attr-defined]
    squeezed = Console(file=StringIO(), width=80, color_system=None)
    RichSink(squeezed, wide="squeeze").resultset(_wide())
    assert "column_number_14:" not in squeezed.file.getvalue()  # type: ignore[attr-defined]
    pages: list[str] = []
    terminal = Console(file=StringIO(), width=80, color_system=None, force_terminal=True)
    RichSink(terminal, wide="pager", pager=pages.append).resultset(_wide())
    assert len(pages) == 1 and "column_number_14" in pages[0]
    assert max(len(line) for line in pages[0].splitlines()) > 200   # full width, to scroll
    narrow = Console(file=StringIO(), width=80, color_system=None)
    RichSink(narrow).resultset(ResultSet(["a"], ["int"], [(1,)]))
    assert "┃ a ┃" in narrow.file.getvalue()  # type: ignore[attr-defined]


def test_json_keeps_the_decimal_scale(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "sqlite://", "--format", "json", "-Q",
                 "SELECT CAST(1.50 AS decimal(5,2)) AS d, CAST(2 AS money) AS m, 0.5e0 AS f"]) \
        == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert '"rows": [[1.50, 2.0000, 0.5]]' in line
    assert json.loads(line)["rows"] == [[1.5, 2.0, 0.5]]


def test_help_usage_names_the_modes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert all(f"tsqlbroker {mode}" in usage for mode in ("run", "parse", "serve"))


# -- on a real store -------------------------------------------------------------------------
@pytest.fixture
def real(console: Any, pipe: Any, backend_url: str) -> Iterator[Repl]:
    r = Repl(_config(), url=backend_url, console=console, input=pipe, output=DummyOutput())
    yield r
    r.close()


def test_a_send_in_master_is_held_and_the_view_says_why(real: Repl, console: Any) -> None:
    console.width = 200
    real.handle("CREATE QUEUE q; CREATE SERVICE s ON QUEUE q ([DEFAULT]);\n"
                "DECLARE @h uniqueidentifier; BEGIN DIALOG @h FROM SERVICE s TO SERVICE 's' "
                "WITH ENCRYPTION = OFF; SEND ON CONVERSATION @h ('hi');\nGO")
    real.handle(":transmission")
    assert "The broker is disabled in the sender's database." in output_of(console)
    real.handle(":conversations")
    row = next(line for line in output_of(console).splitlines() if "initiator" in line)
    assert [c.strip() for c in row.strip("│ ").split("│")][5] == "1"   # held


def test_leaving_with_an_open_transaction(real: Repl, console: Any, pipe: Any) -> None:
    real.handle("CREATE TABLE t (a int)\nGO")
    # Ctrl-D with a transaction open asks; "c" stays (the transaction still open), Ctrl-D
    # again and "n" rolls back and leaves.
    pipe.send_text("BEGIN TRAN\rINSERT t VALUES (1)\rGO\r\x04c\r"
                   "SELECT @@TRANCOUNT AS still_open\rGO\r\x04n\r")
    assert real.run() == 0
    out = output_of(console)
    assert "still_open" in out and "│          1 │" in out
    assert out.count("The transaction was rolled back.") == 1 and real.trancount == 0
    real.handle("SELECT COUNT(*) AS n FROM t\nGO")
    assert "│ 0 │" in output_of(console)


def test_leaving_commits_when_asked(real: Repl, console: Any, pipe: Any) -> None:
    real.handle("CREATE TABLE t (a int)\nGO")
    pipe.send_text("BEGIN TRAN\rINSERT t VALUES (1)\rGO\r:quit\ry\r")
    assert real.run() == 0
    assert "The transactions were committed." in output_of(console)
    real.handle("SELECT COUNT(*) AS n FROM t\nGO")
    assert "│ 1 │" in output_of(console)


def test_piped_input_warns_of_an_open_transaction(real: Repl,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert real.run_script("BEGIN TRAN\nGO\n") == 0
    assert "open transaction (@@TRANCOUNT 1); it was rolled back." in capsys.readouterr().err


# -- the README's REPL example is what the REPL prints ----------------------------------------
_PROMPT = re.compile(r"^\s*(?:\w+|\d+)> ?(.*)$")


def test_readme_repl_example_matches(console: Any, pipe: Any) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("### The REPL", 1)[1].split("```\n", 2)[1]
    inputs, expected, typed = [], [], []
    for line in block.splitlines():
        m = _PROMPT.match(line)
        if m:
            typed.append(m.group(1))
            if re.fullmatch(r"GO|:\w+.*", m.group(1).strip()):
                inputs.append("\n".join(typed))
                typed = []
        else:
            expected.append(line)
    r = Repl(_config(), url="sqlite://", console=console, input=pipe, output=DummyOutput())
    r.interactive = True
    try:
        for text in inputs:
            r.handle(text)
    finally:
        r.close()
    assert output_of(console).splitlines() == expected
