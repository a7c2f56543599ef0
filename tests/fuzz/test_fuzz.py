"""Seeded fuzzing of ``parse``, ``run`` and the REPL's batch path with mutated golden scripts
and chapter listings (mutate.py): whatever the input, the answer is T-SQL output and T-SQL
errors — never a Python traceback, never Msg 3624 (an internal failure shown as SQL Server's
"system assertion") or a Python exception of the storage layer (Msg 50000), never a hang (a
case still running after a few seconds is cancelled, and must then stop).

Bounded for CI: a fixed number of cases per store. ``TSQLBROKER_FUZZ_SEED`` and
``TSQLBROKER_FUZZ_SCALE`` (a multiplier of the case counts) explore further; a failing case is
named by ``seed:number`` and written out beside the test's temporary files."""

from __future__ import annotations

import io
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mutate import Case, corpus, make_case

from tsqlbroker.errors import ParseError
from tsqlbroker.grammar import parse

if TYPE_CHECKING:
    from conftest import FreshPostgres

SEED = int(os.environ.get("TSQLBROKER_FUZZ_SEED", "14"))
SCALE = float(os.environ.get("TSQLBROKER_FUZZ_SCALE", "1"))
SCRIPTS = corpus()
# Running cases past SOFT seconds get cancelled; cancelled ones must stop within HARD (generous:
# a loaded CI machine must not turn slowness into a "hang"; a statement that ignores cancel
# never stops).
SOFT_SECONDS = 3.0
HARD_SECONDS = 60.0
# What only an internal failure prints (the last: a Python exception in the storage layer).
SIGNS = ("Msg 3624,", "A system assertion check has failed", "Traceback (most recent call",
         "Internal error:", "The storage layer could not run the statement")


def cases(count: int, offset: int) -> list[Case]:
    return [make_case(SEED, offset + i, SCRIPTS) for i in range(int(count * SCALE))]


class Problems:
    """What went wrong, per case, written out for reproduction."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.found: list[str] = []

    def check(self, case: Case, what: str, text: str) -> None:
        for sign in SIGNS:
            at = text.find(sign)
            if at >= 0:
                self.add(case, f"{what}: {text[max(0, at - 200):at + 400]}")
                return

    def add(self, case: Case, what: str) -> None:
        path = self.where / f"case-{case.ident.replace(':', '-')}.sql"
        path.write_text(case.text, encoding="utf-8")
        self.found.append(f"case {case.ident} ({case.source}; {'; '.join(case.steps)}) "
                          f"[{path}]: {what}")

    def assert_none(self) -> None:
        assert not self.found, f"{len(self.found)} failing case(s):\n\n" + "\n\n".join(
            self.found[:20])


@pytest.fixture
def problems(tmp_path: Path) -> Iterator[Problems]:
    """The collector; exceptions escaping into threads or logged with a traceback count."""
    found = Problems(tmp_path)
    logged: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info or record.levelno >= logging.ERROR:
                logged.append(self.format(record))

    handler = Catch()
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    old_hook = threading.excepthook
    threading.excepthook = lambda a: logged.append(f"thread {a.thread}: {a.exc_type.__name__}: "
                                                   f"{a.exc_value}")
    try:
        yield found
    finally:
        root.removeHandler(handler)
        threading.excepthook = old_hook
    assert not logged, "logged or unhandled in a thread:\n" + "\n".join(logged[:10])


def bounded(run: Callable[[], Any], cancel: Callable[[], None]) -> str | None:
    """Run ``run()`` on a thread; past SOFT_SECONDS cancel it (repeatedly, as the REPL
    does: a cancel that lands between batches is forgotten). The exception it raised, or
    "hang" if it never stopped, or None."""
    outcome: list[BaseException] = []

    def target() -> None:
        try:
            run()
        except BaseException as exc:  # noqa: BLE001 - reported as the case's problem
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True, name="fuzz-case")
    thread.start()
    thread.join(SOFT_SECONDS)
    deadline = time.monotonic() + HARD_SECONDS
    while thread.is_alive() and time.monotonic() < deadline:
        cancel()
        thread.join(0.5)
    if thread.is_alive():
        return "hang: still running after cancel"
    if outcome:
        exc = outcome[0]
        return f"escaped: {type(exc).__name__}: {exc}"
    return None


# -- parse ------------------------------------------------------------------------------------
def test_parse_gives_an_ast_or_a_syntax_error(problems: Problems) -> None:
    for case in cases(1500, 0):
        try:
            parse(case.text)
        except ParseError as exc:
            problems.check(case, "parse", exc.render())
        except Exception as exc:  # noqa: BLE001 - the failure being looked for
            problems.add(case, f"parse raised {type(exc).__name__}: {exc}")
    problems.assert_none()


# -- run --------------------------------------------------------------------------------------
def run_case(url: str, case: Case, output_format: str, problems: Problems) -> None:
    """One case as ``tsqlbroker run`` runs it (sqlcmd preprocessing, GO splitting, activation
    in the background), its output checked."""
    from tsqlbroker.repl.runner import ScriptRunner

    out, err = io.StringIO(), io.StringIO()
    runner = ScriptRunner(url=url, database="master", output_format=output_format, out=out,
                          err=err)
    try:
        failure = bounded(lambda: runner.run_text(case.text), runner.cancel)
        if failure is not None:
            problems.add(case, f"run ({output_format}): {failure}")
        runner.wait_idle(1.0)
    finally:
        failure = bounded(runner.close, lambda: None)
        if failure is not None:
            problems.add(case, f"close: {failure}")
    problems.check(case, f"run ({output_format})", out.getvalue() + err.getvalue())
    log = "\n".join(e.render() for e in runner.runtime.log.entries())
    problems.check(case, "broker log", log)


def test_run_on_sqlite(problems: Problems) -> None:
    for i, case in enumerate(cases(200, 10_000)):
        run_case("sqlite://", case, "json" if i % 3 == 0 else "text", problems)
    problems.assert_none()


def test_run_on_postgresql(fresh_postgres: FreshPostgres, problems: Problems) -> None:
    for i, case in enumerate(cases(45, 20_000)):
        run_case(fresh_postgres.url(), case, "json" if i % 3 == 0 else "text", problems)
    problems.assert_none()


# -- the REPL's batch path ----------------------------------------------------------------------
def repl_case(url: str, case: Case, problems: Problems) -> None:
    """One case typed into the REPL (its batch worker, rich rendering, catalog refresh)."""
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from tsqlbroker.repl.config import parse_config
    from tsqlbroker.repl.main import Repl

    config = parse_config("")
    config.history_file = None
    config.pager = ""
    console = Console(file=io.StringIO(), width=120, color_system=None)
    repl = Repl(config, url=url, console=console, output=DummyOutput())
    try:
        failure = bounded(lambda: repl.handle(case.text), lambda: repl.session.cancel())
        if failure is not None:
            problems.add(case, f"REPL: {failure}")
    finally:
        failure = bounded(repl.close, lambda: None)
        if failure is not None:
            problems.add(case, f"REPL close: {failure}")
    problems.check(case, "REPL", console.file.getvalue())  # type: ignore[attr-defined]


def test_repl_batches_on_sqlite(problems: Problems) -> None:
    for case in cases(40, 30_000):
        repl_case("sqlite://", case, problems)
    problems.assert_none()


def test_repl_batches_on_postgresql(fresh_postgres: FreshPostgres, problems: Problems) -> None:
    for case in cases(12, 40_000):
        repl_case(fresh_postgres.url(), case, problems)
    problems.assert_none()
