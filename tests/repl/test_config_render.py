"""Config file creation and parsing; the rich renderers; start-up import discipline.

Backend-free: config files, rendering of given result sets and the CLI's imports open no
store."""

from __future__ import annotations

import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import ParseError, tsql_error
from tsqlbroker.repl.config import ConfigError, config_path, load_config, parse_config
from tsqlbroker.repl.key_bindings import is_complete, open_blocks
from tsqlbroker.repl.render import RichSink


def test_first_run_copies_the_commented_default(xdg_home: Path) -> None:
    config, path, created = load_config()
    assert created and path == xdg_home / "config" / "tsqlbroker" / "config.toml"
    text = path.read_text()
    assert text.startswith("# tsqlbroker REPL configuration.")
    assert 'batch_terminator = "go"' in text and config.format == "table"
    path.write_text('[output]\nformat = "vertical"\n')
    config, _, created = load_config()
    assert not created and config.format == "vertical"
    # Keys the user deleted fall back to the packaged defaults.
    assert config.batch_terminator == "go" and config.max_column_width == 60


def test_config_path_defaults_under_home(monkeypatch: pytest.MonkeyPatch,
                                         xdg_home: Path) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_path() == xdg_home / ".config" / "tsqlbroker" / "config.toml"


def test_bad_values_are_reported() -> None:
    with pytest.raises(ConfigError, match="batch_terminator must be one of go, semicolon"):
        parse_config('[main]\nbatch_terminator = "slash"\n')
    with pytest.raises(ConfigError, match="timing must be a bool"):
        parse_config("[main]\ntiming = 3\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        parse_config("[main\n")


def test_pager_setting() -> None:
    assert parse_config('[output]\npager = ""\n').pager_command() is None
    assert parse_config('[output]\npager = "more"\n').pager_command() == "more"


def sink(fmt: str = "table", **kw: Any) -> tuple[RichSink, StringIO]:
    buf = StringIO()
    return RichSink(Console(file=buf, width=120, color_system=None), fmt=fmt, **kw), buf


RS = ResultSet(["id", "name", "blob", "guid"], ["int", "nvarchar(50)", "varbinary(max)",
                                                "uniqueidentifier"],
               [(1, None, b"\x00\xab", uuid.UUID("6f9619ff-8b86-d011-b42d-00c04fc964ff")),
                (2, "x" * 100, None, None)])


def test_table_shows_null_binary_guid_and_cuts_long_values() -> None:
    s, buf = sink(max_width=40)
    s.resultset(RS)
    out = buf.getvalue()
    assert "NULL" in out and "0x00AB" in out and "6F9619FF-8B86-D011-B42D-00C04FC964FF" in out
    assert "x" * 39 + "…" in out and "x" * 41 not in out


def test_control_characters_are_shown_not_sent_to_the_terminal() -> None:
    s, buf = sink()
    s.resultset(ResultSet(["x"], ["nvarchar(10)"], [("<\x00a\x1b",)]))
    assert "<␀a␛" in buf.getvalue() and "\x00" not in buf.getvalue()


def test_null_is_styled_apart_from_the_text_null() -> None:
    s, _ = sink()
    assert s._cell(None).style == "dim italic"
    assert s._cell("NULL").style == ""


def test_vertical_csv_json() -> None:
    s, buf = sink("vertical")
    s.resultset(RS)
    assert "1. row" in buf.getvalue() and "name: NULL" in buf.getvalue()
    s, buf = sink("csv")
    s.resultset(RS)
    assert buf.getvalue().splitlines()[:2] == ["id,name,blob,guid",
                                               "1,,0x00AB,6F9619FF-8B86-D011-B42D-00C04FC964FF"]
    s, buf = sink("json")
    s.resultset(RS)
    assert '"blob": "0x00AB"' in buf.getvalue() and '"name": null' in buf.getvalue()


def test_messages_rows_and_errors() -> None:
    s, buf = sink()
    s.message("hello")
    s.rows_affected(1)
    s.rows_affected(3)
    s.error(tsql_error(8134))
    s.error(ParseError("Incorrect syntax near 'FRM'.", 2, 10, "SELECT * FRM t"))
    assert buf.getvalue().splitlines() == [
        "hello", "(1 row affected)", "(3 rows affected)",
        "Msg 8134, Level 16, State 1, Line 1", "Divide by zero error encountered.",
        "Msg 102, Level 15, State 1, Line 2", "Incorrect syntax near 'FRM'.",
        "  SELECT * FRM t", "           ^"]
    assert s.error_count == 2


def test_tall_results_go_through_the_pager_on_a_terminal() -> None:
    paged: list[str] = []
    buf = StringIO()
    console = Console(file=buf, width=80, height=10, force_terminal=True, color_system=None)
    s = RichSink(console, pager=paged.append)
    s.resultset(ResultSet(["n"], ["int"], [(i,) for i in range(3)]))
    assert not paged and "2" in buf.getvalue()
    s.resultset(ResultSet(["n"], ["int"], [(i,) for i in range(50)]))
    assert len(paged) == 1 and "49" in paged[0]


def test_batch_completeness_rules() -> None:
    assert is_complete("SELECT 1\nGO")
    assert is_complete("SELECT 1\n  go 5  ")
    assert is_complete("SELECT 1\nGO; -- run it")
    assert not is_complete("SELECT 1\nGOTO x")
    assert not is_complete("SELECT 'x\nGO")
    assert not is_complete("/* comment\nGO")
    assert not is_complete("SELECT 1;")
    assert is_complete("SELECT 1;", "semicolon")
    assert not is_complete("CREATE PROCEDURE p AS BEGIN\n  RECEIVE * FROM q;", "semicolon")
    assert is_complete("BEGIN TRAN; SEND ON CONVERSATION @h;", "semicolon")
    assert open_blocks("BEGIN TRY SELECT CASE WHEN 1=1 THEN 1 END; END TRY BEGIN CATCH") == 1
    assert is_complete(":queues") and is_complete("quit")
    assert is_complete("   \n")  # Enter on a blank buffer gives a fresh prompt


def test_importing_the_cli_loads_no_ui_libraries() -> None:
    code = ("import sys, tsqlbroker.repl.cli; "
            "bad = [m for m in ('prompt_toolkit', 'rich', 'pygments') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_history_file_setting(xdg_home: Path) -> None:
    assert parse_config("").history_file == xdg_home / "data" / "tsqlbroker" / "history"
    assert parse_config('[main]\nhistory_file = ""\n').history_file is None
    assert parse_config('[main]\nhistory_file = "~/h"\n').history_file == xdg_home / "h"
