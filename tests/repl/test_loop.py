"""The REPL loop driven through prompt-toolkit's pipe input, with a fake instance.

Backend-free: the fake (tests/repl/fakes.py) stands in for the interpreter, so the loop's
mechanics are tested apart from any store; the loop on a real store runs on both backends in
test_real_instance.py."""

from __future__ import annotations

import os
import stat
import threading
import time
from typing import Any

from prompt_toolkit.output import DummyOutput

from tests.repl.conftest import output_of
from tests.repl.fakes import FakeInstance
from tsqlbroker.repl.config import parse_config
from tsqlbroker.repl.main import Repl


def make_repl(console: Any, pipe: Any, text: str = "", **settings: Any) -> Repl:
    config = parse_config(text)
    config.history_file = None
    config.pager = ""
    for key, value in settings.items():
        setattr(config, key, value)
    return Repl(config, url="sqlite://", console=console, input=pipe, output=DummyOutput(),
                instance_factory=FakeInstance)


def run(repl: Repl, pipe: Any, keys: str) -> int:
    pipe.send_text(keys + "\x03\x04")
    try:
        return repl.run()
    finally:
        repl.close()


def test_batch_runs_on_go_and_shows_a_table(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    status = run(repl, pipe, "SELECT 42 AS answer\rGO\r")
    out = output_of(console)
    assert status == 0
    assert "answer" in out and "42" in out
    assert "(1 row affected)" in out
    assert [b.strip() for b in repl.session.batches] == ["SELECT 42 AS answer"]


def test_lines_before_go_are_one_batch(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "PRINT 'a'\rPRINT 'b'\rGO 2\r")
    assert [b.strip() for b in repl.session.batches] == ["PRINT 'a'\nPRINT 'b'"] * 2
    assert output_of(console).count("a\nb\n") == 2


def test_failing_batch_keeps_the_repl_going(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    status = run(repl, pipe, "SELECT 1/0\rGO\rPRINT 'still here'\rGO\r")
    out = output_of(console)
    assert status == 0
    assert "Msg 8134, Level 16, State 1, Line 1" in out
    assert "Divide by zero error encountered." in out
    assert "still here" in out


def test_python_failure_is_an_error_not_a_traceback(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "BOOM\rGO\rPRINT 'after'\rGO\r")
    out = output_of(console)
    assert "Internal error: RuntimeError: the interpreter broke" in out
    assert "Traceback" not in out and "after" in out


def test_semicolon_terminator_runs_on_a_line_ending_with_semicolon(console: Any,
                                                                   pipe: Any) -> None:
    repl = make_repl(console, pipe, batch_terminator="semicolon")
    run(repl, pipe, "PRINT 'x';\r")
    assert [b.strip() for b in repl.session.batches] == ["PRINT 'x';"]


def test_go_mode_does_not_run_on_semicolon(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "PRINT 'x';\r")
    assert repl.session.batches == []


def test_ctrl_c_at_the_prompt_clears_the_buffer(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "PRINT 'lost'\x03PRINT 'kept'\rGO\r")
    assert [b.strip() for b in repl.session.batches] == ["PRINT 'kept'"]


def test_variables_are_substituted_in_typed_batches(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, ":setvar who world\rPRINT 'hello $(who)'\rGO\r")
    assert "hello world" in output_of(console)


def test_undefined_variable_is_an_error(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "PRINT '$(nope)'\rGO\rPRINT 'ok'\rGO\r")
    out = output_of(console)
    assert "'nope' scripting variable not defined." in out and "ok" in out


def test_cancel_stops_a_waitfor_and_reports_it(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    # The main thread waits for the batch; a KeyboardInterrupt there (what Ctrl-C raises)
    # must cancel the session. Deliver one from a timer thread to the main thread.
    import _thread

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    try:
        repl.handle("WAITFOR DELAY '00:00:30'\nGO\n")
    finally:
        timer.cancel()
        repl.close()
    assert time.monotonic() - started < 5
    assert "Query was cancelled by user." in output_of(console)


def test_ctrl_c_that_stops_nothing_is_not_reported(console: Any, pipe: Any) -> None:
    """Ctrl-C while the last statement does work no cancel stops: the batch ends on its
    own, and nothing says it was cancelled (later batches of the input do not run)."""
    repl = make_repl(console, pipe)
    import _thread

    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    try:
        repl.handle("PRINT 'first'\nSLOW 10\nGO\nPRINT 'second'\nGO\n")
    finally:
        timer.cancel()
        repl.close()
    out = output_of(console)
    assert "first" in out and "cancel" not in out.lower() and "second" not in out


def test_timing_prints_the_elapsed_time(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe, timing=True)
    run(repl, pipe, "PRINT 'x'\rGO\r")
    assert "Time: " in output_of(console)


def test_broker_log_lines_are_shown_or_kept(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    log = repl.instance.broker_log
    log.write("spid51s", "The activated proc '[dbo].[p]' running on queue 'q' output: 'hi'")
    repl.set_log_shown(False)
    log.write("spid51s", "hidden line")
    out = output_of(console)
    assert "output: 'hi'" in out and "hidden line" not in out
    assert any("hidden line" in line for line in repl.log_tail(5))
    repl.set_log_shown(True)
    log.write("Activation", "started [dbo].[p] on queue q", "info")
    assert "started [dbo].[p]" not in output_of(console)
    repl.config.log_info = True
    log.write("Activation", "ended [dbo].[p] on queue q", "info")
    assert "ended [dbo].[p]" in output_of(console)
    repl.close()


def test_use_changes_prompt_database_and_refreshes_the_catalog(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    run(repl, pipe, "USE tempdb\rGO\r")
    assert repl.current_database == "tempdb"
    assert repl._prompt() == "tempdb> "


def test_toolbar_shows_database_and_transaction_count(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe)
    repl.handle("BEGIN TRAN\nGO\n")
    toolbar = "".join(text for _, text in repl._toolbar())
    repl.close()
    assert "master" in toolbar and "@@TRANCOUNT 1" in toolbar


def test_json_format_from_the_command_line_format(console: Any, pipe: Any) -> None:
    repl = make_repl(console, pipe, format="json")
    run(repl, pipe, "SELECT 7 AS n\rGO\r")
    assert '"n": 7' in output_of(console)


def test_history_file_keeps_typed_batches(console: Any, pipe: Any, tmp_path: Any) -> None:
    history = tmp_path / "hist" / "history"
    repl = make_repl(console, pipe, history_file=history)
    run(repl, pipe, "PRINT 'remember me'\rGO\r")
    assert "PRINT 'remember me'" in history.read_text()
    if hasattr(os, "getuid"):  # typed batches hold passwords: private to the user
        assert stat.S_IMODE(history.stat().st_mode) == 0o600
        assert stat.S_IMODE(history.parent.stat().st_mode) == 0o700
