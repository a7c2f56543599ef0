"""sqlcmd parity and readable output, end to end in a real pseudo-terminal (pexpect).

Each test starts one REPL (seconds each on a small machine), so a test checks several things
that need the same terminal. Terminal behaviour only: ``sqlite://`` (the commands' logic on
both stores is in test_special.py / test_real_instance.py)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.repl.test_pty import repl, spawn, type_batch, warm_parser_cache

_ = (repl, spawn, warm_parser_cache)  # fixtures, used by name


def test_commands_completed_and_the_statement_cache(repl: Any) -> None:
    type_batch(repl, "DECLARE @x int = 1", "GO")
    repl.expect("Commands completed successfully.")
    repl.expect("master>")
    # :list shows the lines typed since GO and gives them back to the prompt; :reset drops
    # them, so the next GO runs only what is typed after it.
    type_batch(repl, "PRINT 'cached' + 'line'", ":list")
    repl.expect(r"PRINT 'cached' \+ 'line'\r?\n")
    repl.expect("master>")
    type_batch(repl, ":reset")
    repl.expect("master>")
    type_batch(repl, "PRINT 'after' + 'reset'", "GO")
    repl.expect("afterreset")
    assert "cachedline" not in repl.before


def test_typed_indentation_does_not_accumulate(repl: Any) -> None:
    # Each line is typed with its own indentation, as a user (or a pty) types it: a new line
    # starts at the indentation of the one before, and blanks typed first replace it.
    type_batch(repl, "IF 1 = 1", "BEGIN", "    PRINT 'a'", "    PRINT 'b'", "        PRINT 'c'",
               "    PRINT 'd'", ":list")
    repl.expect(r"\nBEGIN\r?\n    PRINT 'a'\r?\n    PRINT 'b'\r?\n        PRINT 'c'\r?\n"
                r"    PRINT 'd'\r?\n")
    repl.expect("master>")
    # A line typed without blanks keeps the indentation it was given (auto-indent).
    type_batch(repl, "END", "GO")
    repl.expect("a\r?\nb\r?\nc\r?\nd")
    repl.expect("master>")


def test_help_wraps_and_wide_results_turn_vertical(repl: Any) -> None:
    type_batch(repl, ":help")
    repl.expect("A batch runs on")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", repl.before)
    repl.expect("master>")
    assert ":transmission" in text
    # :exit's description is longer than a 60-character cell: all of it is shown, wrapped.
    assert "…" not in text
    words = " ".join(re.sub(r"[│┃]", " ", text).split())
    assert "as the status" in words
    # 15 columns do not fit in 120: one "column: value" line each instead of 3-character
    # columns.
    columns = ", ".join(f"'value {i}' AS column_number_{i}" for i in range(15))
    type_batch(repl, f"SELECT {columns}", "GO")
    repl.expect(r"column_number_14: value 14")
    repl.expect("master>")


def test_shell_and_editor(spawn: Callable[[str], Any], xdg_home: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    editor = xdg_home / "editor.py"
    editor.write_text("import sys\n"
                      "old = open(sys.argv[1]).read()\n"
                      "open(sys.argv[1], 'w').write(old.replace('old', 'new'))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    child = spawn("sqlite://")
    type_batch(child, "!! echo shell-$((40 + 2))")
    child.expect("shell-42")
    child.expect("master>")
    # :ed runs $EDITOR on the statement cache; what it saves comes back to the prompt.
    type_batch(child, "PRINT 'old' + 'text'", ":ed")
    child.expect("master>")
    type_batch(child, "GO")
    child.expect("newtext")
    child.expect("master>")


def test_exit_with_a_query_value(spawn: Callable[[str], Any]) -> None:
    child = spawn("sqlite://")
    type_batch(child, "PRINT 'before' + 'exit'", ":exit(SELECT 40 + 2 AS answer)")
    child.expect("beforeexit")
    child.expect("42")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 42


def test_leaving_with_an_open_transaction_asks(spawn: Callable[[str], Any]) -> None:
    child = spawn("sqlite://")
    type_batch(child, "CREATE TABLE t (a int); BEGIN TRAN; INSERT t VALUES (1);", "GO")
    child.expect(r"\(1 row affected\)")
    child.expect("master>")
    child.sendcontrol("d")
    child.expect(r"There are uncommitted transactions \(@@TRANCOUNT 1\)")
    child.send("c\r")                                   # cancel: stay
    child.expect("master>")
    type_batch(child, "SELECT @@TRANCOUNT AS open_tran", "GO")
    child.expect(r"open_tran")
    child.expect(r"\b1\b")
    child.expect("master>")
    type_batch(child, ":quit")
    child.expect("Commit them before leaving")
    child.send("n\r")                                   # no: roll back and leave
    child.expect("The transaction was rolled back.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
