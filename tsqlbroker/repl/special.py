"""The REPL's ``:commands`` (sqlcmd style), kept in a decorator registry.

A command is a function ``handler(ctx, arg)`` registered with :func:`special_command`;
``:help`` lists the registry. Commands that touch data run T-SQL through the session (or the
helper session), so they show whatever the catalog views hold. ``$(var)`` references in the
argument are substituted first, as sqlcmd does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.repl import broker_views
from tsqlbroker.repl.config import ACTIVATION_MODES, FORMATS, Config
from tsqlbroker.repl.sqlcmd import (
    SqlcmdError,
    SqlcmdState,
    exit_query,
    preprocess,
    substitute,
)


class ReplContext(Protocol):
    """What a special command may use of the REPL."""

    config: Config
    sqlcmd: SqlcmdState
    # sqlcmd's statement cache (the lines before the command), what the next prompt starts
    # with (the cache unless a command changes it), and the batch that ran last.
    statement_cache: str
    pending_text: str
    last_batch_text: str

    def run_text(self, text: str, base_dir: Path | None = None) -> None:
        """Run a script (GO batches) in the user's session."""

    def query(self, sql: str) -> list[ResultSet]:
        """Result sets of ``sql`` in the current database (helper session); raises errors."""

    def show(self, rs: ResultSet, whole: bool = False) -> None:
        """Render a result set in the current format (``whole``: never cut values)."""

    def info(self, text: str) -> None:
        """Print a line of client information."""

    def set_format(self, fmt: str) -> None:
        """Switch the result format."""

    def set_output(self, path: str | None) -> None:
        """Send output to a file (None: back to the terminal)."""

    def connect(self, url: str) -> None:
        """Close the instance and open one on ``url``."""

    def set_error_output(self, target: str | None) -> None:
        """Send errors to a file or STDERR (None / STDOUT: with the output)."""

    def edit(self, text: str) -> str:
        """``text`` after the user edited it in their editor."""

    def shell(self, command: str) -> None:
        """Run a shell command, its output shown."""

    def request_exit(self, status: int = 0) -> None:
        """Leave the REPL after this command."""

    def log_tail(self, n: int) -> list[str]:
        """The last ``n`` broker log lines, rendered."""

    def set_log_shown(self, shown: bool) -> None:
        """Show broker log lines above the prompt as they arrive, or not."""

    def set_activation(self, mode: str) -> None:
        """Host the store's activation, timers and transmission: auto | on | off."""

    def activation_status(self) -> str:
        """Whether this process hosts them, in words."""


Handler = Callable[[ReplContext, str], None]


@dataclass(frozen=True)
class SpecialCommand:
    """One registered command."""

    name: str
    handler: Handler
    usage: str
    summary: str


COMMANDS: dict[str, SpecialCommand] = {}


def special_command(name: str, usage: str, summary: str,
                    aliases: tuple[str, ...] = ()) -> Callable[[Handler], Handler]:
    """Register ``handler`` as ``:name`` (and its aliases)."""

    def register(handler: Handler) -> Handler:
        for n in (name, *aliases):
            COMMANDS[f":{n}"] = SpecialCommand(f":{n}", handler, usage, summary)
        return handler

    return register


class SpecialError(SqlcmdError):
    """A special command used wrongly (unknown name, bad argument)."""


def execute_special(ctx: ReplContext, line: str) -> None:
    """Run one ``:command`` line; raises :class:`SqlcmdError` (a TSqlError) when it is wrong."""
    stripped = line.strip()
    if stripped.startswith(("!!", ":!!")):
        name, arg = ":!!", stripped.split("!!", 1)[1]
    else:
        name, _, arg = stripped.partition(" ")
        if "(" in name:  # :exit(SELECT 1) — the parenthesis needs no blank before it
            name, arg = name[:name.index("(")], stripped[name.index("("):]
    if name.lower() in ("exit", "quit"):
        name = ":" + name
    command = COMMANDS.get(name.lower())
    if command is None:
        raise SpecialError(f"Unknown command '{name}'. Type :help for the list.")
    command.handler(ctx, substitute(arg.strip(), ctx.sqlcmd))


def _on_off(arg: str, usage: str) -> bool:
    word = arg.strip().lower()
    if word not in ("on", "off"):
        raise SpecialError(f"Usage: {usage}")
    return word == "on"


@special_command("help", ":help", "list the special commands", aliases=("?",))
def _help(ctx: ReplContext, arg: str) -> None:
    seen: set[str] = set()
    rows = []
    for cmd in sorted(COMMANDS.values(), key=lambda c: c.usage):
        if cmd.usage in seen:
            continue
        seen.add(cmd.usage)
        rows.append((cmd.usage, cmd.summary))
    ctx.show(ResultSet(["command", "description"], [None, None], rows), whole=True)
    runs = "a line holding GO [n]" + (" or a line ending with ;"
                                       if ctx.config.batch_terminator == "semicolon" else "")
    ctx.info(f"A batch runs on {runs}; Alt-Enter runs the buffer as it is. Ctrl-C cancels "
             "a running batch or clears the buffer; Ctrl-D leaves.")


@special_command("quit", ":quit", "leave the REPL (the lines typed before it are not run)",
                 aliases=("q",))
def _quit(ctx: ReplContext, arg: str) -> None:
    if arg:
        raise SpecialError("Usage: :quit")
    ctx.request_exit(0)


@special_command("exit", ":exit[([query])]",
                 "leave; :exit() runs the lines typed before it first, :exit(query) runs "
                 "them with query and exits with its first value as the status")
def _exit(ctx: ReplContext, arg: str) -> None:
    query = exit_query(arg)
    if arg and query is None:
        raise SpecialError("Usage: :exit, :exit() or :exit(query)")
    if query is None:
        ctx.request_exit(0)
        return
    ctx.pending_text = ""
    ctx.run_text(f"{ctx.statement_cache}\n:exit({query})\n", Path.cwd())


@special_command("list", ":list", "show the lines typed since the last GO (the statement "
                                  "cache)")
def _list(ctx: ReplContext, arg: str) -> None:
    for line in ctx.statement_cache.splitlines():
        ctx.info(line)


@special_command("reset", ":reset", "discard the lines typed since the last GO")
def _reset(ctx: ReplContext, arg: str) -> None:
    ctx.statement_cache = ctx.pending_text = ""


@special_command("ed", ":ed", "edit the lines typed since the last GO (or the batch run "
                              "last) in $EDITOR; the result comes back to the prompt")
def _ed(ctx: ReplContext, arg: str) -> None:
    if not ctx.config.shell_commands:
        raise SpecialError(":ed is turned off with the shell commands (shell_commands = "
                           "false in the config file).")
    text = ctx.statement_cache or ctx.last_batch_text
    ctx.pending_text = ctx.edit(text).rstrip("\n")


@special_command("error", ":error FILE|STDERR|STDOUT", "send error messages to FILE, to "
                                                       "stderr, or back to the output")
def _error(ctx: ReplContext, arg: str) -> None:
    target = arg.strip().strip('"')
    if not target:
        raise SpecialError("Usage: :error FILE|STDERR|STDOUT")
    ctx.set_error_output(target)


@special_command("!!", "!! COMMAND", "run an operating-system shell command")
def _shell(ctx: ReplContext, arg: str) -> None:
    if not arg.strip():
        raise SpecialError("Usage: !! COMMAND")
    ctx.shell(arg.strip())


@special_command("connect", ":connect URL", "open another storage (SQLAlchemy URL)")
def _connect(ctx: ReplContext, arg: str) -> None:
    if not arg:
        raise SpecialError("Usage: :connect URL  (e.g. sqlite:///broker.db, sqlite://, "
                           "postgresql+psycopg://user@host/broker)")
    ctx.connect(arg)


@special_command("setvar", ":setvar NAME [VALUE]", "set a $(NAME) scripting variable")
def _setvar(ctx: ReplContext, arg: str) -> None:
    preprocess(f":setvar {arg}\n", ctx.sqlcmd)


@special_command("listvar", ":listvar", "list the scripting variables")
def _listvar(ctx: ReplContext, arg: str) -> None:
    rows = sorted(ctx.sqlcmd.variables.items())
    ctx.show(ResultSet(["name", "value"], ["sysname", None], rows))


@special_command("r", ":r FILE", "run a script file (its GO batches, then the rest)")
def _read(ctx: ReplContext, arg: str) -> None:
    if not arg:
        raise SpecialError("Usage: :r FILE")
    ctx.run_text(f":r {arg}\n", Path.cwd())


@special_command("out", ":out FILE|stdout", "send output to FILE, or back to the terminal")
def _out(ctx: ReplContext, arg: str) -> None:
    if not arg:
        raise SpecialError("Usage: :out FILE|stdout")
    target = arg.strip().strip('"')
    ctx.set_output(None if target.lower() in ("stdout", "stderr") else target)


@special_command("on", ":on error exit|ignore", "leave the REPL at the next error, or not")
def _on_error(ctx: ReplContext, arg: str) -> None:
    preprocess(f":on {arg}\n", ctx.sqlcmd)


@special_command("format", ":format table|vertical|csv|json", "how result sets are shown")
def _format(ctx: ReplContext, arg: str) -> None:
    fmt = arg.strip().lower()
    if fmt not in FORMATS:
        raise SpecialError(f"Usage: :format {'|'.join(FORMATS)}")
    ctx.set_format(fmt)
    ctx.info(f"Output format: {fmt}")


@special_command("timing", ":timing on|off", "print how long each batch took")
def _timing(ctx: ReplContext, arg: str) -> None:
    ctx.config.timing = _on_off(arg, ":timing on|off")
    ctx.info(f"Timing is {'on' if ctx.config.timing else 'off'}.")


@special_command("log", ":log [on|off|N]",
                 "show the broker log above the prompt (on/off) or its last N lines")
def _log(ctx: ReplContext, arg: str) -> None:
    word = arg.strip().lower()
    if word in ("on", "off"):
        ctx.set_log_shown(word == "on")
        ctx.info(f"Broker log is {'shown' if word == 'on' else 'hidden'}.")
        return
    if word and not word.isdigit():
        raise SpecialError("Usage: :log [on|off|N]")
    lines = ctx.log_tail(int(word) if word else 20)
    for line in lines or ["(the broker log is empty)"]:
        ctx.info(line)


def _all(arg: str, usage: str) -> bool:
    word = arg.strip().lower()
    if word not in ("", "all"):
        raise SpecialError(f"Usage: {usage}")
    return word == "all"


@special_command("queues", ":queues [all]",
                 "queues: status, messages, activation, readers (all: with system queues)")
def _queues(ctx: ReplContext, arg: str) -> None:
    ctx.show(broker_views.queues_view(ctx.query, _all(arg, ":queues [all]")))


@special_command("conversations", ":conversations",
                 "open conversation endpoints: state, far service, age, messages held")
def _conversations(ctx: ReplContext, arg: str) -> None:
    created = getattr(ctx, "conversation_created", None)
    ctx.show(broker_views.conversations_view(ctx.query, created=created))


@special_command("services", ":services [all]",
                 "services with their queue and contracts (all: with system services)")
def _services(ctx: ReplContext, arg: str) -> None:
    ctx.show(broker_views.services_view(ctx.query, _all(arg, ":services [all]")))


@special_command("activation", ":activation [auto|on|off]",
                 "queue monitors and activated tasks of every database; auto/on/off: "
                 "whether this REPL hosts activation, timers and transmission")
def _activation(ctx: ReplContext, arg: str) -> None:
    word = arg.strip().lower()
    if word:
        if word not in ACTIVATION_MODES:
            raise SpecialError("Usage: :activation [auto|on|off]")
        ctx.set_activation(word)
        ctx.info(ctx.activation_status())
        return
    for rs in broker_views.activation_view(ctx.query):
        ctx.show(rs)
    ctx.info(ctx.activation_status())


@special_command("transmission", ":transmission",
                 "messages held in sys.transmission_queue and why (transmission_status)")
def _transmission(ctx: ReplContext, arg: str) -> None:
    ctx.show(broker_views.transmission_view(ctx.query))
