"""The interactive REPL: one prompt-toolkit ``PromptSession`` over one interpreter session.

Batches run on a worker thread so that the main thread stays free to turn Ctrl-C into
``session.cancel()`` (which also stops a ``WAITFOR``); a user error never ends the loop.
Broker log lines (output of activated procedures …) arrive on background threads and are
printed above the prompt through ``patch_stdout``. Only this module (and what it imports)
loads prompt-toolkit, rich and Pygments; ``tsqlbroker.repl.cli`` imports it lazily.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style, merge_styles, style_from_pygments_cls
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound
from rich.console import Console
from rich.text import Text
from sqlalchemy.engine import make_url

from tsqlbroker import __version__
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import StorageOpenError, TSqlError
from tsqlbroker.grammar import split_batches
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.repl.completer import TSqlCompleter
from tsqlbroker.repl.config import Config, ConfigError, load_config, parse_config
from tsqlbroker.repl.key_bindings import build_key_bindings, split_command
from tsqlbroker.repl.lexer import TSqlBrokerLexer
from tsqlbroker.repl.pipes import EXIT_BROKEN_PIPE, PipeGuard
from tsqlbroker.repl.render import RichSink, run_pager
from tsqlbroker.repl.runner import first_value
from tsqlbroker.repl.side_session import CatalogCache, HelperSession, bracket, changes_catalog
from tsqlbroker.repl.special import SpecialError, execute_special
from tsqlbroker.repl.sqlcmd import (
    SqlcmdError,
    SqlcmdState,
    exit_status,
    preprocess,
    split_at_last_go,
)
from tsqlbroker.storage.store import restrict_to_owner

InstanceFactory = Callable[[str | None], Any]

_TOOLBAR_STYLE = Style.from_dict({
    "bottom-toolbar": "noreverse bg:#222222 #aaaaaa",
    "bottom-toolbar.key": "bold #ffffff",
    "bottom-toolbar.warn": "bold #ff5f5f",
})


@dataclass
class _Link:
    """What the REPL holds open on one instance."""

    instance: Any
    worker: ThreadPoolExecutor      # runs every call of the user's session, in order
    session: Any
    helper: HelperSession
    catalog: CatalogCache = field(init=False)

    def __post_init__(self) -> None:
        self.catalog = CatalogCache(self.helper)


def _default_instance(url: str | None) -> Any:
    instance = Instance(url)
    # Activation, conversation timers and lifetimes run while the REPL waits for input, when
    # this process hosts them (Repl.set_activation starts the runtime in the chosen mode).
    runtime_for(instance, start=False)
    return instance


def broker_log_of(instance: Any) -> Any | None:
    """The instance's broker log (``instance.broker_log`` or its broker runtime's log)."""
    log = getattr(instance, "broker_log", None)
    if log is None:
        runtime = getattr(instance, "extensions", {}).get("broker_runtime")
        log = getattr(runtime, "log", None)
    return log


def internal_error(exc: BaseException) -> TSqlError:
    """A Python failure inside the interpreter, shown as an error instead of a traceback."""
    return TSqlError(0, f"Internal error: {type(exc).__name__}: {exc}", severity=20)


class Repl:
    """The REPL's state: instance, user session, helper session, sink, sqlcmd variables."""

    def __init__(self, config: Config, *, url: str | None = None, database: str = "master",
                 console: Console | None = None, log_console: Console | None = None,
                 input: Input | None = None, output: Output | None = None,
                 instance_factory: InstanceFactory | None = None,
                 login: tuple[str, str] | None = None) -> None:
        self.config = config
        self.login = login  # (SQL login, password) from -U / -P; None: sa
        self.url = url if url is not None else config.url
        # The user's console is bound to the real stdout; the log console follows sys.stdout,
        # which patch_stdout redirects above the prompt while the user types.
        self.console = console or Console(file=sys.stdout, highlight=False)
        self.log_console = log_console or console or Console(
            highlight=False, force_terminal=self.console.is_terminal,
            color_system=self.console.color_system or None)  # type: ignore[arg-type]
        pager_cmd = config.pager_command()
        self.sink = RichSink(self.console, fmt=config.format, max_width=config.max_column_width,
                             null_text=config.null_text, styles=config.colors,
                             pager=run_pager(pager_cmd) if pager_cmd else None,
                             wide=config.wide_results)
        self.sqlcmd = SqlcmdState()
        self.log_shown = config.log_show
        self.exit_status: int | None = None
        # At a prompt (not reading piped input): SSMS's "Commands completed successfully."
        # and the question about an open transaction on leaving.
        self.interactive = False
        # sqlcmd's statement cache: the lines typed before a :command (which :list shows,
        # :reset clears, :ed edits); the next prompt starts with pending_text.
        self.statement_cache = ""
        self.pending_text = ""
        self.last_batch_text = ""        # what :ed edits when the cache is empty
        self._exit_after_error = False
        self._cancelled = False
        self._error_file: TextIO | None = None
        self._input, self._output = input, output
        self._factory = instance_factory or _default_instance
        self._out_file: TextIO | None = None
        self.link = self._open(self._factory(self.url))
        if database and database.lower() != "master":
            self.run_text(f"USE {bracket(database)}")
            self.catalog.refresh(self.current_database)

    # -- instance and sessions ------------------------------------------------------------
    def _open(self, instance: Any) -> _Link:
        """Sessions on ``instance``: the user's (on the batch worker) and the helper."""
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tsql-batch")
        try:
            as_login: dict[str, str] = {} if self.login is None else {
                "login": self.login[0], "password": self.login[1]}
            session = worker.submit(lambda: instance.session(self.sink, database="master",
                                                             **as_login))
            link = _Link(instance, worker, session.result(), HelperSession(instance))
        except BaseException:
            worker.shutdown(wait=False)
            instance.close()
            raise
        log = broker_log_of(instance)
        if log is not None and hasattr(log, "add_listener"):
            log.add_listener(self._on_log)
        self._start_activation(instance)
        link.catalog.refresh(str(getattr(link.session, "current_database", "master")))
        return link

    def _close_link(self, link: _Link) -> None:
        log = broker_log_of(link.instance)
        if log is not None and hasattr(log, "remove_listener"):
            log.remove_listener(self._on_log)
        link.helper.close()
        close = getattr(link.session, "close", None)
        if close is not None:
            try:
                link.worker.submit(close).result(timeout=10)
            except Exception:  # noqa: BLE001, S110 - leaving must not fail on a broken session
                pass
        link.worker.shutdown(wait=False, cancel_futures=True)
        link.instance.close()

    def close(self) -> None:
        """Roll back what is open, close the sessions and the instance, restore output."""
        self.set_output(None)
        self.set_error_output(None)
        self._close_link(self.link)

    @property
    def instance(self) -> Any:
        """The open interpreter instance."""
        return self.link.instance

    @property
    def session(self) -> Any:
        """The user's session (runs on the batch worker thread)."""
        return self.link.session

    @property
    def helper(self) -> HelperSession:
        """The helper session for catalog questions."""
        return self.link.helper

    @property
    def catalog(self) -> CatalogCache:
        """The completion catalog of the current database."""
        return self.link.catalog

    @property
    def current_database(self) -> str:
        """The user's current database (shown in the prompt)."""
        return str(getattr(self.session, "current_database", "master"))

    @property
    def trancount(self) -> int:
        """The user's ``@@TRANCOUNT`` (shown in the toolbar)."""
        return int(getattr(self.session, "trancount", 0) or 0)

    # -- running text ---------------------------------------------------------------------
    def handle(self, text: str) -> None:
        """Run what the user entered: T-SQL batches, or lines ending with a ``:command`` (the
        lines before it are sqlcmd's statement cache). Never raises."""
        if not text.strip():
            return
        self._cancelled = False
        shown = self.sink.event_count
        split = split_command(text)
        try:
            if split is not None:
                sent, cache = split_at_last_go(split[0] + "\n" if split[0] else "")
                if sent.strip():
                    self.run_text(sent, Path.cwd())
                self.statement_cache = cache.rstrip("\n")
                self.pending_text = self.statement_cache
                execute_special(self, split[1])
                if self.pending_text.strip():
                    # The next prompt continues the batch on a new line, as sqlcmd's does.
                    self.pending_text = self.pending_text.rstrip("\n") + "\n"
            else:
                self.run_text(text, Path.cwd())
                self._completed(shown)
        except TSqlError as err:
            self.sink.error(err)
            self._stop_on_error()
        except KeyboardInterrupt:
            self.info("Cancelled.")
        except Exception as exc:  # noqa: BLE001 - a user error never ends the REPL
            self.sink.error(internal_error(exc))

    def run_text(self, text: str, base_dir: Path | None = None) -> None:
        """Preprocess (``$(var)``, ``:setvar``, ``:r``) and run the GO batches of ``text``."""
        try:
            plain = preprocess(text, self.sqlcmd, base_dir)
        except SqlcmdError as err:
            self.sink.error(err)
            self._stop_on_error()
            return
        failed = False
        for chunk in split_batches(plain):
            for _ in range(max(chunk.repeat, 1)):
                before = self.sink.error_count
                self.sink.last_resultset = None
                if not self._run_batch(chunk.text, chunk.start_line):
                    return
                failed = self.sink.error_count > before
                if failed and self._stop_on_error():
                    return
        if self.sqlcmd.quit_requested:
            self.sqlcmd.quit_requested = False
            value = first_value(self.sink.last_resultset)
            self.request_exit(exit_status(value, failed) if self.sqlcmd.exit_with_value
                              else 0)
            self.sqlcmd.exit_with_value = False

    def _stop_on_error(self) -> bool:
        if self.sqlcmd.on_error_exit:
            self._exit_after_error = True
            self.request_exit(1)
            return True
        return False

    def _completed(self, shown: int) -> None:
        """SSMS's note for input that ran and showed nothing at all (no result set, no
        message, no row count): at the prompt only, never in scripts (sqlcmd prints none)."""
        if self.interactive and self.sink.event_count == shown and not self._cancelled \
                and self.exit_status is None:
            self.info("Commands completed successfully.", style=self.sink.styles["rows_affected"])

    def _run_batch(self, text: str, start_line: int) -> bool:
        """One batch on the worker thread; Ctrl-C cancels it. False when it was cancelled."""
        database = self.current_database
        self.last_batch_text = text
        started = time.monotonic()
        future = self.link.worker.submit(self._execute, text, start_line)
        cancelled_at: float | None = None
        while True:
            try:
                # Poll: a blocking wait is not always woken by SIGINT on every platform.
                future.result(timeout=0.1)
                break
            except FuturesTimeout:
                # A cancel that lands while the batch is still being parsed is forgotten when
                # it starts running; repeat it until the batch has stopped.
                if cancelled_at is not None and time.monotonic() - cancelled_at > 0.5:
                    cancelled_at = time.monotonic()
                    self.session.cancel()
            except KeyboardInterrupt:
                # The session rolls back and returns; keep waiting for it so that the next
                # batch never runs while this one is still unwinding.
                if cancelled_at is None:
                    cancelled_at = time.monotonic()
                    self.session.cancel()
        # The interpreter reports the cancellation (Msg 3621, "Query was cancelled by
        # user.") when it stopped something; a batch that had ended on its own was not
        # cancelled, and is not said to be.
        cancelled = cancelled_at is not None
        self._cancelled = self._cancelled or cancelled
        elapsed = time.monotonic() - started
        if self.config.timing:
            self.info(f"Time: {elapsed:.3f}s", style=self.sink.styles["timing"])
        if changes_catalog(text) or self.current_database != database:
            self.catalog.refresh(self.current_database)
        return not cancelled

    def _execute(self, text: str, start_line: int) -> None:
        try:
            self.session.execute(text, start_line=start_line)
        except TSqlError as err:
            self.sink.error(err)
        except Exception as exc:  # noqa: BLE001 - shown as an error, never a traceback
            self.sink.error(internal_error(exc))

    # -- the ReplContext of special commands ----------------------------------------------
    def query(self, sql: str) -> list[ResultSet]:
        """Result sets of ``sql`` in the current database, through the helper session."""
        database = self.current_database
        return self.helper.submit(lambda h: h.query(sql, database)).result()

    def conversation_created(self) -> dict[Any, Any]:
        """Creation times (UTC) of the current database's conversation endpoints."""
        store = self.instance.store
        conn = store.connect()
        try:
            return Broker.get(store).endpoint_create_dates(conn, self.session.db_id)
        finally:
            conn.close()

    def show(self, rs: ResultSet, whole: bool = False) -> None:
        """Render a result set the way batch results are rendered (``whole``: values are
        wrapped, never cut)."""
        self.sink.resultset(rs, whole=whole)

    def info(self, text: str, style: str = "") -> None:
        """A line of client information (not T-SQL output)."""
        self.sink.console.print(Text(text, style=style), soft_wrap=True)

    def set_format(self, fmt: str) -> None:
        """Switch the result format (table, vertical, csv, json)."""
        self.config.format = fmt
        self.sink.format = fmt

    def set_output(self, path: str | None) -> None:
        """``:out``: write output to ``path``, or back to the terminal when None."""
        if path is None:
            if self._out_file is not None:
                self._out_file.close()
                self._out_file = None
            self.sink.console = self.console
            return
        try:
            handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by :out stdout
        except OSError as exc:
            raise SpecialError(f"Cannot open file '{path}': {exc.strerror}.") from None
        self.set_output(None)
        self._out_file = handle
        self.sink.console = Console(file=handle, width=self.console.width, no_color=True,
                                    highlight=False)

    def set_error_output(self, target: str | None) -> None:
        """``:error``: errors to a file, to STDERR, or (None / STDOUT) with the output."""
        if self._error_file is not None:
            self._error_file.close()
            self._error_file = None
        self.sink.error_console = None
        if target is None or target.lower() == "stdout":
            return
        if target.lower() == "stderr":
            self.sink.error_console = Console(file=sys.stderr, highlight=False,
                                              force_terminal=self.console.is_terminal)
            return
        try:
            self._error_file = open(target, "w", encoding="utf-8")  # noqa: SIM115 - see above
        except OSError as exc:
            raise SpecialError(f"Cannot open file '{target}': {exc.strerror}.") from None
        self.sink.error_console = Console(file=self._error_file, width=self.console.width,
                                          no_color=True, highlight=False)

    def edit(self, text: str) -> str:
        """``:ed``: ``text`` in the user's editor ($SQLCMDEDITOR, $VISUAL, $EDITOR, vi); the
        text as saved."""
        editor = (os.environ.get("SQLCMDEDITOR") or os.environ.get("VISUAL")
                  or os.environ.get("EDITOR") or "vi")
        fd, path = tempfile.mkstemp(prefix="tsqlbroker-", suffix=".sql")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n" if text else "")
            try:
                subprocess.run([*shlex.split(editor), path], check=False)
            except OSError as exc:
                raise SpecialError(f"Cannot start the editor '{editor}': "
                                   f"{exc.strerror}.") from None
            return Path(path).read_text(encoding="utf-8")
        finally:
            os.unlink(path)

    def shell(self, command: str) -> None:
        """``!! command``: run a shell command; its output joins the REPL's output."""
        if not self.config.shell_commands:
            raise SpecialError("Shell commands are turned off (shell_commands = false in the "
                               "config file).")
        done = subprocess.run(command, shell=True, capture_output=True, text=True,
                              check=False)
        with self.sink.lock:
            for text in (done.stdout, done.stderr):
                if text:
                    self.sink.console.print(text, markup=False, highlight=False, end="",
                                            soft_wrap=True)

    def connect(self, url: str) -> None:
        """``:connect``: open an instance on ``url``; the old one closes only if that works."""
        try:
            link = self._open(self._factory(url))
        except TSqlError:
            raise
        except StorageOpenError as exc:
            raise SpecialError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a bad URL is a user error
            raise SpecialError(f"Cannot open storage '{url}': {exc}") from None
        old, self.link, self.url = self.link, link, url
        self._close_link(old)
        self.info(f"Connected to {url}.")

    @staticmethod
    def _runtime(instance: Any) -> Any | None:
        return getattr(instance, "extensions", {}).get("broker_runtime")

    def _start_activation(self, instance: Any) -> None:
        """Host the store's activation, timers and transmission as the setting says."""
        runtime = self._runtime(instance)
        if runtime is not None:
            runtime.configure(mode=self.config.activation, role="REPL")
            runtime.start()

    def set_activation(self, mode: str) -> None:
        """``:activation auto|on|off``: change whether this REPL hosts the broker's
        background work."""
        self.config.activation = mode
        self._start_activation(self.instance)

    def activation_status(self) -> str:
        """Whether this process hosts the broker's background work, in words."""
        runtime = self._runtime(self.instance)
        return runtime.status() if runtime is not None else "Activation: not available."

    def request_exit(self, status: int = 0) -> None:
        """Leave the loop after the current input."""
        self.exit_status = status

    def log_tail(self, n: int) -> list[str]:
        """The last ``n`` broker log lines."""
        log = broker_log_of(self.instance)
        if log is None:
            return []
        entries = log.tail(n) if hasattr(log, "tail") else list(log)[-n:]
        return [e.render() if hasattr(e, "render") else str(e) for e in entries]

    def set_log_shown(self, shown: bool) -> None:
        """Show broker log lines as they arrive, or keep them for ``:log`` only."""
        self.log_shown = shown

    def _on_log(self, entry: Any) -> None:
        """Broker log listener (background threads): output of activated procedures and
        broker errors as they happen; what the broker merely does (level info) only when
        the config asks for it — ``:log`` shows everything."""
        level = getattr(entry, "level", "output")
        if not self.log_shown or (level == "info" and not self.config.log_info):
            return
        line = entry.render() if hasattr(entry, "render") else str(entry)
        style = {"error": "error", "info": "rows_affected"}.get(level, "log")
        with self.sink.lock:
            self.log_console.print(Text(line, style=self.sink.styles[style]), soft_wrap=True)

    # -- the prompt -----------------------------------------------------------------------
    def _history(self) -> History:
        path = self.config.history_file
        if path is None:
            return InMemoryHistory()
        try:
            # Typed batches hold passwords (CREATE LOGIN, OPEN MASTER KEY): private file.
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.touch(mode=0o600, exist_ok=True)
            restrict_to_owner(path, 0o600)
        except OSError:
            return InMemoryHistory()
        return FileHistory(str(path))

    def _style(self) -> Any:
        try:
            pygments_style = get_style_by_name(self.config.syntax_style)
        except ClassNotFound:
            pygments_style = get_style_by_name("default")
        return merge_styles([style_from_pygments_cls(pygments_style), _TOOLBAR_STYLE])

    def _toolbar(self) -> StyleAndTextTuples:
        n = self.trancount
        runs = "GO" if self.config.batch_terminator == "go" else "GO or ;"
        return [
            ("class:bottom-toolbar.key", f" {self.current_database} "),
            ("class:bottom-toolbar.warn" if n else "class:bottom-toolbar",
             f" @@TRANCOUNT {n} "),
            ("class:bottom-toolbar", (f"│ {self.sink.format} │ {runs} runs │ "
                                      f"log {'on' if self.log_shown else 'off'} │ "
                                      ":help │ Ctrl-D quits ")),
        ]

    def _prompt(self) -> str:
        return f"{self.current_database}> "

    def prompt_session(self) -> PromptSession[str]:
        """The configured prompt-toolkit session."""
        return PromptSession(
            multiline=True,
            lexer=PygmentsLexer(TSqlBrokerLexer),
            completer=TSqlCompleter(lambda: self.catalog.snapshot()),
            complete_while_typing=True,
            history=self._history(),
            key_bindings=build_key_bindings(lambda: self.config.batch_terminator),
            bottom_toolbar=self._toolbar,
            prompt_continuation=lambda width, n, wrap: f"{n + 1}> ".rjust(width),
            style=self._style(),
            include_default_pygments_style=False,
            input=self._input,
            output=self._output,
        )

    def run_script(self, text: str, idle_seconds: float = 30.0) -> int:
        """Run ``text`` as a script (stdin not a terminal); 1 if any error was shown.

        Like ``tsqlbroker run``, it then waits (bounded) for activated procedures to finish
        so that their output is not lost."""
        self.handle(text)
        runtime = getattr(self.instance, "extensions", {}).get("broker_runtime")
        if runtime is not None and hasattr(runtime, "wait_idle"):
            runtime.wait_idle(idle_seconds)
        self._warn_open_transaction()
        if self.exit_status is not None:
            return self.exit_status
        return 1 if self.sink.error_count else 0

    def run(self) -> int:
        """The read-run loop; the exit status (0, 1 after ``:on error exit``, or the value of
        ``:exit(query)``). Leaving with a transaction open asks first, as SSMS does."""
        self.interactive = True
        session = self.prompt_session()
        while True:
            if self.exit_status is not None:
                if self._may_leave():
                    break
                self.exit_status = None
            try:
                with patch_stdout(raw=True):
                    text = session.prompt(self._prompt, default=self.pending_text)
            except EOFError:
                if self._may_leave():
                    break
                continue
            except KeyboardInterrupt:
                self.pending_text = ""
                continue
            self.pending_text = ""
            self.handle(text)
        return self.exit_status or 0

    def _may_leave(self) -> bool:
        """With a transaction open, SSMS's question: commit, roll back, or stay. After
        ``:on error exit`` (no one to ask) it is rolled back with a warning."""
        n = self.trancount
        if n == 0:
            return True
        if self._exit_after_error:
            self._warn_open_transaction()
            return True
        question = PromptSession[str](input=self._input, output=self._output)
        while True:
            try:
                answer = question.prompt(
                    f"There are uncommitted transactions (@@TRANCOUNT {n}). Commit them "
                    "before leaving? [y]es, [n]o (roll back), [c]ancel: ").strip().lower()
            except EOFError:
                answer = "n"
            except KeyboardInterrupt:
                answer = "c"
            if answer in ("y", "yes"):
                self.run_text("WHILE @@TRANCOUNT > 0 COMMIT TRANSACTION")
                if self.trancount == 0:
                    self.info("The transactions were committed.")
                    return True
                return False  # the commit failed: its error is shown; stay
            if answer in ("n", "no"):
                self.run_text("IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION")
                self.info("The transaction was rolled back.")
                return True
            if answer in ("c", "cancel", ""):
                return False

    def _warn_open_transaction(self) -> None:
        """Leaving without asking (piped input, :on error exit): say that it rolls back."""
        n = self.trancount
        if n:
            print(f"Warning: the session ended with an open transaction (@@TRANCOUNT {n}); "
                  "it was rolled back.", file=sys.stderr)


def describe_storage(repl: Repl) -> str:
    """The storage for the banner: the URL as given (password hidden), or the default file."""
    if repl.url in ("sqlite://", "sqlite:///:memory:"):
        return "a private in-memory store (sqlite://)"
    url = repl.url or getattr(getattr(repl.instance, "store", None), "url", "")
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a banner must not fail on an odd URL
        return str(url)


def run_repl(url: str | None, database: str, output_format: str,
             activation: str | None = None, login: tuple[str, str] | None = None) -> int:
    """``tsqlbroker`` with no mode: the REPL on ``url`` (or the configured storage);
    ``activation`` (the command line's) wins over the configured setting; ``login`` is
    the SQL login and password to connect as (-U / -P; default sa)."""
    try:
        config, path, created = load_config()
    except ConfigError as exc:
        print(f"tsqlbroker: {exc}; using the defaults.", file=sys.stderr)
        config, path, created = parse_config(""), None, False
    if output_format == "json":
        config.format = "json"
    if activation is not None:
        config.activation = activation
    # The command line's default is master; then the config file's database applies.
    start_db = database if database.lower() != "master" else config.database
    # Piped input is a script, as sqlcmd reads it: no prompt, no banner; and its reader may
    # go away (| head): then the script stops quietly.
    guard = PipeGuard(sys.stdout) if not sys.stdin.isatty() else None
    try:
        repl = Repl(config, url=url, database=start_db,
                    console=Console(file=guard, highlight=False) if guard else None,
                    login=login)
    except TSqlError as err:
        print(err.render(), file=sys.stderr)
        return 1
    except StorageOpenError as exc:
        print(f"tsqlbroker: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - e.g. a malformed storage URL
        print(f"tsqlbroker: cannot open storage: {exc}", file=sys.stderr)
        return 1
    try:
        if start_db.lower() != "master" and repl.current_database.lower() != start_db.lower():
            return 1  # -d names no database (its USE said so): nothing runs, as in sqlcmd
        if guard is not None:
            guard.on_broken = lambda: (repl.request_exit(EXIT_BROKEN_PIPE),
                                       repl.session.cancel())
            status = repl.run_script(sys.stdin.read())
            return EXIT_BROKEN_PIPE if guard.broken else status
        if created and path is not None:
            repl.info(f"Created the config file {path}.", style="dim")
        repl.info(f"tsqlbroker {__version__} on {describe_storage(repl)}. A line holding GO "
                  "runs the batch; :help lists commands; Ctrl-D leaves.", style="dim")
        return repl.run()
    finally:
        repl.close()

