"""Running scripts non-interactively (``run``, ``-Q``, ``-i``): the command-line contract.

Text goes through the sqlcmd preprocessor, is split into GO batches (``GO n`` runs a batch n
times), and each batch runs in one session. Errors are reported to the sink and make the exit
status 1; with ``-b`` (or ``:on error exit``) the run stops at the first failing batch.
After the last batch the runner waits until activated procedures are idle.
"""

from __future__ import annotations

import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from tsqlbroker.engine.brokerlog import LogEntry
from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.interpreter.sink import JsonLinesSink, Sink, TeeSink, TextSink
from tsqlbroker.repl.sqlcmd import SqlcmdError, SqlcmdState, exit_status, preprocess


def _log_record(sink: JsonLinesSink, entry: LogEntry) -> None:
    """``--format json``: a broker log entry (output and errors of activated procedures,
    broker errors; not what the broker merely does) as a record marked with its source."""
    if entry.level != "info":
        sink.record(entry.record or {"type": "message", "text": entry.text,
                                     "source": "broker", "level": entry.level})


def _write_line(out: TextIO, text: str) -> None:
    try:
        out.write(text + "\n")
        out.flush()
    except ValueError:  # the stream was closed at exit while a background task still ran
        pass


def first_value(rs: Any) -> Any:
    """The first column of the first row of a result set (None if there is none)."""
    rows = getattr(rs, "rows", None)
    return rows[0][0] if rows and rows[0] else None


class _ErrorWatch:
    """Wraps a sink and remembers whether an error reached the client."""

    def __init__(self, inner: Sink) -> None:
        self.inner = inner
        self.count = 0
        self.last_resultset: Any = None  # for :exit(query)

    def message(self, text: str) -> None:
        self.inner.message(text)

    def resultset(self, rs: object) -> None:
        self.last_resultset = rs
        self.inner.resultset(rs)  # type: ignore[arg-type]

    def error(self, err: TSqlError) -> None:
        self.count += 1
        self.inner.error(err)

    def rows_affected(self, n: int) -> None:
        self.inner.rows_affected(n)


class ScriptRunner:
    """One instance and one session running scripts in order."""

    def __init__(self, *, url: str | None, database: str, output_format: str, out: TextIO,
                 err: TextIO, sqlcmd: SqlcmdState | None = None,
                 stop_on_error: bool = False, activation: str = "auto",
                 host_at_start: bool = True, login: tuple[str, str] | None = None) -> None:
        # start-up laziness: the engine loads inside the caller's start-up phase (startup.py)
        from tsqlbroker.interpreter.instance import Instance

        base: Sink = JsonLinesSink(out) if output_format == "json" else TextSink(out, err)
        self.sink = _ErrorWatch(base)
        self.sqlcmd = sqlcmd or SqlcmdState()
        self.stop_on_error = stop_on_error
        self.stopped = False
        # The status :exit(query) asked for (None: the usual 0 / 1).
        self.exit_status: int | None = None
        self._error_files: list[TextIO] = []
        self.interrupted = False  # SIGINT / Ctrl-C: the run stops (exit status 130)
        self._running = False
        self.instance = Instance(url)
        # Activation runs in the background while scripts run (when this process hosts
        # it: broker_runtime); in text mode what activated procedures print (the broker
        # log) is shown on stderr as it happens.
        # start-up laziness: the engine loads inside the caller's start-up phase (startup.py)
        from tsqlbroker.interpreter.broker_runtime import runtime_for

        self.runtime = runtime_for(self.instance, start=False)
        self.runtime.configure(mode=activation, role="run")
        if host_at_start or activation == "on":
            self.runtime.start()
        if output_format != "json":
            self.runtime.log.add_listener(
                lambda entry: entry.level != "info" and _write_line(err, entry.render()))
        else:
            self.runtime.log.add_listener(partial(_log_record, base))
        self._err = err
        user, password = login or (None, None)
        try:
            self.session = self.instance.session(self.sink, database="master", login=user,
                                                 password=password)
        except TSqlError:  # Msg 18456: nothing runs
            self.instance.close()
            raise
        if database and database.lower() != "master" and not self._start_in(database):
            self.stopped = True  # as sqlcmd -d: a database that cannot be opened runs nothing

    def _start_in(self, database: str) -> bool:
        """``-d``: make ``database`` current; if it does not exist, SQL Server's login
        failure (Msg 4060) and False."""
        if self.instance.catalog.database_id(self.session.conn, database) is None:
            self.sink.error(tsql_error(4060, database))
            return False
        self.run_text(f"USE [{database.replace(']', ']]')}]")
        return True

    def cancel(self) -> bool:
        """Stop the run: cancel the batch that runs (its running statement too) and run no
        further one (``GO n`` repeats included). False when no batch runs. Any thread."""
        self.stopped = True
        if not self._running:
            return False
        # Not from a signal handler itself: on PostgreSQL the cancel is a request to the
        # server, and the handler may run inside the driver's wait for that connection.
        threading.Thread(target=self._cancel_until_stopped, name="tsqlbroker-cancel",
                         daemon=True).start()
        return True

    def output_closed(self) -> None:
        """The reader of the output went away (``| head``): stop quietly. The running batch
        is cancelled, nothing more is shown (not even the cancel) and no batch follows."""
        self.sink.inner = TeeSink()
        self.cancel()

    def notice(self, text: str, source: str) -> None:
        """A line from the client itself, not T-SQL output: on stderr, or in ``--format
        json`` a message record marked with ``source``."""
        if isinstance(self.sink.inner, JsonLinesSink):
            self.sink.inner.record({"type": "message", "text": text, "source": source})
        else:
            _write_line(self._err, f"tsqlbroker: {text}")

    @property
    def had_error(self) -> bool:
        return self.sink.count > 0

    def report_client_error(self, message: str) -> None:
        """An error of the client itself (unreadable file …), reported like a batch error
        but on one line, as sqlcmd reports its own errors."""
        self.sink.error(SqlcmdError(message))

    def run_text(self, text: str, base_dir: Path | None = None) -> bool:
        """Run a script; False once the run must stop (``-b`` / ``:on error exit`` / ``:quit``)."""
        # start-up laziness: the grammar loads inside the caller's start-up phase (startup.py)
        from tsqlbroker.grammar import split_batches

        if self.stopped:
            return False
        try:
            plain = preprocess(text, self.sqlcmd, base_dir)
        except SqlcmdError as exc:
            self.sink.error(exc)
            self.stopped = self.stop_on_error or self.sqlcmd.on_error_exit
            return not self.stopped
        self._redirect_errors()
        before = self.sink.count
        for chunk in split_batches(plain):
            for _ in range(max(chunk.repeat, 1)):
                if self.stopped:
                    return False
                before = self.sink.count
                self.sink.last_resultset = None
                self._running = True
                try:
                    if self.interrupted:
                        return False
                    self.session.execute(chunk.text, start_line=chunk.start_line)
                finally:
                    self._running = False
                if self.interrupted:
                    return False
                if self.sink.count > before and (self.stop_on_error
                                                 or self.sqlcmd.on_error_exit):
                    self.stopped = True
                    return False
        if self.sqlcmd.quit_requested:
            if self.sqlcmd.exit_with_value:
                self.exit_status = exit_status(first_value(self.sink.last_resultset),
                                               self.sink.count > before)
            self.stopped = True
            return False
        return True

    def _redirect_errors(self) -> None:
        """``:error FILE|STDERR|STDOUT`` in a script: where the text sink writes errors."""
        target = self.sqlcmd.error_target
        inner = self.sink.inner
        if target is None or not isinstance(inner, TextSink):
            return
        self.sqlcmd.error_target = None
        if target.lower() in ("stderr", "stdout"):
            inner.err = sys.stderr if target.lower() == "stderr" else inner.out
            return
        try:
            handle = open(target, "w", encoding="utf-8")  # noqa: SIM115 - kept until close
        except OSError as exc:
            self.report_client_error(f"Cannot open file '{target}': {exc.strerror}.")
            return
        self._error_files.append(handle)
        inner.err = handle

    def interrupt(self) -> bool:
        """SIGINT (Ctrl-C): stop the run as :meth:`cancel` does, with exit status 130.
        False when no batch runs: nothing to cancel, the caller stops."""
        self.interrupted = True
        return self.cancel()

    def _cancel_until_stopped(self) -> None:
        # A cancel that lands while a batch is being parsed is forgotten when it starts:
        # repeat it until the batch has stopped.
        while self._running:
            self.session.cancel()
            time.sleep(0.5)

    def wait_idle(self, seconds: float) -> bool:
        """Wait (bounded) until activated procedures are idle and nothing activatable is left;
        if the time runs out, say what was left, one line each."""
        if self.runtime.wait_idle(seconds):
            return True
        for line in self.runtime.manager.unfinished():
            self.notice(f"--wait-idle {seconds:g} s ran out: {line}", "wait-idle")
        return False

    def close(self) -> None:
        try:
            self.session.close()
        finally:
            self.instance.close()
            for handle in self._error_files:
                handle.close()
