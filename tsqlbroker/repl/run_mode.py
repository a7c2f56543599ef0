"""The command line's script mode: ``tsqlbroker run FILE…``, ``-i FILE``, ``-Q "TEXT"``.

Files and text run in order through one :class:`~tsqlbroker.repl.runner.ScriptRunner`
(sqlcmd variables from ``-v``, output to ``-o`` or stdout), then the run waits for
activation to go idle; the exit status follows the command-line contract. Loaded by
:mod:`tsqlbroker.repl.cli` only in this mode: parse, serve and the REPL never load the runner.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tsqlbroker.grammar.loader import get_driver
from tsqlbroker.grammar.scriptfile import ScriptEncodingError, read_script
from tsqlbroker.repl.pipes import EXIT_BROKEN_PIPE, PipeGuard
from tsqlbroker.repl.runner import ScriptRunner
from tsqlbroker.repl.sqlcmd import SqlcmdState, parse_assignment
from tsqlbroker.startup import startup_phase, thaw


def _open_output(path: str | None) -> TextIO:
    if path is None:
        return PipeGuard(sys.stdout)  # type: ignore[return-value]
    return open(path, "w", encoding="utf-8")  # closed by run_scripts


def run_scripts(args: argparse.Namespace, files: list[str], text: str | None,
                login: Callable[[], tuple[str, str] | None] = lambda: None,
                thaw_after: bool = True) -> int:
    """Run files and/or text as the command-line contract says, as the (login, password)
    ``login()`` gives once the ``-v`` variables are known good (None: sa); the process exit
    status. ``thaw_after=False`` when the process exits next (see
    :mod:`tsqlbroker.startup`)."""
    state = SqlcmdState()
    for assignment in args.variables:
        try:
            name, value = parse_assignment(assignment)
        except ValueError as exc:
            print(f"tsqlbroker: {exc}", file=sys.stderr)
            return 2
        state.setvar(name, value)
    out = _open_output(args.output)
    err = PipeGuard(sys.stderr)
    try:
        # Start-up time: no garbage collection while the engine loads (see startup.py).
        with startup_phase():
            # Scripts (run, -i) host the broker's background work from the start when
            # nobody else does; -Q text from its first statement that gives it work.
            runner = ScriptRunner(url=args.url, database=args.database,
                                  output_format=args.format, out=out,
                                  err=err if args.output is None else out,  # type: ignore
                                  sqlcmd=state, stop_on_error=args.stop_on_error,
                                  activation=args.activation or "auto",
                                  host_at_start=bool(files), login=login())
            get_driver()  # the grammar tables, loaded inside the phase too
        for stream in (out, err):
            if isinstance(stream, PipeGuard):
                stream.on_broken = runner.output_closed
        previous = _on_sigint(runner)
        try:
            for f in files:
                path = Path(f)
                try:
                    source = read_script(path)
                except (OSError, ScriptEncodingError) as exc:
                    runner.report_client_error(
                        f"Cannot open file '{f}': {exc.strerror}."
                        if isinstance(exc, OSError) else str(exc))
                    if runner.stop_on_error:
                        break
                    continue
                if not runner.run_text(source, base_dir=path.parent):
                    break
            if text is not None and not runner.stopped:
                runner.run_text(text, base_dir=Path.cwd())
            if not runner.interrupted:
                runner.wait_idle(args.wait_idle)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            runner.close()
        if isinstance(out, PipeGuard) and out.broken:
            return EXIT_BROKEN_PIPE
        if runner.interrupted:
            return 130
        if runner.exit_status is not None:
            return runner.exit_status
        return 1 if runner.had_error else 0
    finally:
        if thaw_after:
            thaw()
        if not isinstance(out, PipeGuard):
            out.close()


def _on_sigint(runner: ScriptRunner) -> Any:
    """SIGINT (Ctrl-C) while scripts run: the running batch is cancelled — its running
    statement rolled back, nothing of it committed — and the run ends (exit status 130);
    with no batch running, or at a second SIGINT, the process stops at once. Returns the
    handler to put back (None off the main thread, where signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(_signum: int, _frame: Any) -> None:
        if runner.interrupted or not runner.interrupt():
            raise KeyboardInterrupt
    return signal.signal(signal.SIGINT, handler)
