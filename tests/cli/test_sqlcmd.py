"""The sqlcmd preprocessor: variables, includes, directives, line numbers.

Backend-free: the preprocessor rewrites script text before any store is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsqlbroker.repl.sqlcmd import SqlcmdError, SqlcmdState, parse_assignment, preprocess


def test_setvar_and_substitution_keep_line_numbers() -> None:
    state = SqlcmdState()
    out = preprocess(":setvar db Trader1\nUSE $(db)\nPRINT '$(db)'\n", state)
    assert out.splitlines() == ["", "USE Trader1", "PRINT 'Trader1'"]


def test_quoted_setvar_value() -> None:
    state = SqlcmdState()
    out = preprocess(':setvar msg "hello world"\nPRINT \'$(msg)\'\n', state)
    assert out.splitlines()[1] == "PRINT 'hello world'"


def test_command_line_variable_and_case_insensitive_names() -> None:
    state = SqlcmdState()
    name, value = parse_assignment("Queue=tradeEntryQueue")
    state.setvar(name, value)
    assert preprocess("SELECT * FROM $(QUEUE)", state) == "SELECT * FROM tradeEntryQueue"


def test_undefined_variable_is_an_error_with_line() -> None:
    with pytest.raises(SqlcmdError) as info:
        preprocess("PRINT 1\nPRINT '$(nope)'\n", SqlcmdState())
    assert "'nope' scripting variable not defined." in info.value.render()
    assert info.value.line == 2


def test_include_relative_to_the_including_file(tmp_path: Path) -> None:
    (tmp_path / "inc.sql").write_text("PRINT '$(who)'\nGO\n")
    state = SqlcmdState()
    state.setvar("who", "included")
    out = preprocess(":r inc.sql\nPRINT 'after'\n", state, tmp_path)
    assert out.splitlines() == ["PRINT 'included'", "GO", "PRINT 'after'"]


def test_missing_include_is_reported() -> None:
    with pytest.raises(SqlcmdError, match="Cannot open file"):
        preprocess(":r /no/such/file.sql\n", SqlcmdState())


def test_on_error_and_quit() -> None:
    state = SqlcmdState()
    out = preprocess(":on error exit\nPRINT 1\n:quit\nPRINT 2\n", state)
    assert state.on_error_exit and state.quit_requested
    assert "PRINT 2" not in out


def test_bad_assignment() -> None:
    with pytest.raises(ValueError):
        parse_assignment("novalue")
