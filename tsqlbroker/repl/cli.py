"""The ``tsqlbroker`` command line.

    tsqlbroker                       open the REPL
    tsqlbroker run FILE…             run scripts (then wait for activation to go idle)
    tsqlbroker -Q "TEXT"             run text
    tsqlbroker -i FILE               run a file (sqlcmd spelling of ``run``)
    tsqlbroker parse FILE… [--ast]   check syntax only
    tsqlbroker serve                 run a long-lived broker (activation, timers, delivery)
    tsqlbroker spark drain …         drain a queue's backlog on Apache Spark (``spark`` extra)

Imports stay light: ``-Q`` and ``parse`` load neither prompt-toolkit nor psycopg nor pyspark.
Commands other packages add (``spark``, from :mod:`tsqlbroker.spark.cli`) are entry points of
the group :data:`COMMANDS_GROUP` (pyproject.toml): the command line never imports them by name.
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tsqlbroker import __version__
from tsqlbroker.errors import StorageOpenError, TSqlError
from tsqlbroker.interpreter.exits import exit_on_signals
from tsqlbroker.repl.config import ACTIVATION_MODES
from tsqlbroker.repl.pipes import EXIT_BROKEN_PIPE, silence

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

EPILOG = """\
examples:
  tsqlbroker run scripts/stock_trade.sql
  tsqlbroker --url sqlite:// -Q "PRINT 'hello'"
  tsqlbroker run --format json -v db=Trader1 setup.sql app.sql
  tsqlbroker parse --ast listing.sql
  tsqlbroker serve --url postgresql+psycopg://user@localhost/broker

exit status: 0 success; 1 a batch raised an error (or a file did not parse, or the
storage or the -d database cannot be opened); 2 bad command-line usage; 130 interrupted
(SIGINT, Ctrl-C); 141 the output was closed early (| head); 143 SIGTERM.
"""

MODES = ("run", "parse", "serve")
# Entry points naming further modes: ``name = "module:function"``, the function taking the
# mode's arguments and returning the exit status; the libraries it needs are the extra of the
# same name (``tsqlbroker[spark]``).
COMMANDS_GROUP = "tsqlbroker.commands"

# The top-level usage names the modes (argparse's own would list the options only).
USAGE = """\
tsqlbroker [options]                      the REPL
       tsqlbroker run [options] FILE [FILE ...]   run scripts
       tsqlbroker -Q TEXT | -i FILE [options]     run text or a file
       tsqlbroker parse [--ast] FILE [FILE ...]   check syntax only
       tsqlbroker serve [--url URL] [--log FILE]  run a long-lived broker
       (tsqlbroker MODE --help describes a mode's options)"""


def _add_storage_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", help="SQLAlchemy storage URL (default: an SQLite file; "
                                 "sqlite:// is a private in-memory store)")
    p.add_argument("-d", "--database", default="master", help="database to start in")
    p.add_argument("-U", dest="login", metavar="LOGIN",
                   help="connect as this SQL login (CREATE LOGIN … WITH PASSWORD) instead of "
                        "sa; the password comes from -P, $SQLCMDPASSWORD or a prompt")
    p.add_argument("-P", dest="password", metavar="PASSWORD", help="the password of -U")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    _add_storage_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="output format: text (sqlcmd-like) or json (one object per line)")
    p.add_argument("-v", dest="variables", action="append", default=[], metavar="NAME=VALUE",
                   help="sqlcmd scripting variable, used as $(NAME)")
    p.add_argument("-b", dest="stop_on_error", action="store_true",
                   help="stop at the first batch that raises an error (exit status 1)")
    p.add_argument("-o", dest="output", metavar="FILE", help="write output to FILE")
    p.add_argument("--wait-idle", type=float, default=30.0, metavar="SECONDS",
                   help="after the last batch, wait up to SECONDS for activated procedures "
                        "to go idle (default 30)")
    p.add_argument("--activation", choices=ACTIVATION_MODES, default=None,
                   help="host activation, timers and transmission of the store: auto "
                        "(default: unless a serve process does), on (insist: wait for "
                        "the store's host lease), off (only run my batches)")


def build_parser(mode: str | None) -> argparse.ArgumentParser:
    """The argument parser for one mode (None: the top-level form)."""
    if mode == "parse":
        p = argparse.ArgumentParser(prog="tsqlbroker parse",
                                    description="Check the syntax of T-SQL scripts.")
        p.add_argument("files", nargs="+", metavar="FILE")
        p.add_argument("--ast", action="store_true", help="print the syntax tree")
        return p
    if mode == "run":
        p = argparse.ArgumentParser(prog="tsqlbroker run", description="Run T-SQL scripts.",
                                    epilog=EPILOG,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("files", nargs="+", metavar="FILE")
        _add_run_options(p)
        return p
    if mode == "serve":
        p = argparse.ArgumentParser(prog="tsqlbroker serve",
                                    description="Run a long-lived broker: activation, "
                                                "conversation timers, lifetimes, delivery.")
        _add_storage_options(p)
        p.add_argument("--log", metavar="FILE", help="write the broker log to FILE")
        return p
    p = argparse.ArgumentParser(
        prog="tsqlbroker", usage=USAGE,
        description="T-SQL and SQL Server Service Broker interpreter and REPL.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tsqlbroker {__version__}")
    p.add_argument("-Q", dest="query", metavar="TEXT", help="run TEXT and exit")
    p.add_argument("-i", dest="inputs", action="append", default=[], metavar="FILE",
                   help="run FILE and exit (may be repeated)")
    _add_run_options(p)
    return p


# Options that take a value: the word after them is never the mode.
_VALUED = {"--url", "-d", "--database", "--format", "-v", "-o", "--wait-idle", "-Q", "-i",
           "--log", "--activation", "-U", "-P"}


def plugged_command(word: str) -> EntryPoint | None:
    """The entry point of the command ``word`` another package adds (group
    :data:`COMMANDS_GROUP`), or None."""
    # Only a word that names no built-in mode gets here.
    # start-up laziness: importlib.metadata reads the installed distributions.
    from importlib.metadata import entry_points

    found = entry_points(group=COMMANDS_GROUP, name=word)
    return next(iter(found), None)


def split_mode(args: list[str]) -> tuple[str | None, list[str]]:
    """The mode word (run | parse | serve, or a plugged command such as spark) wherever it
    stands among the options, and the remaining arguments: ``tsqlbroker --url sqlite://
    run a.sql`` is ``run``."""
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word == "--":
            break
        if word in _VALUED:
            skip = True
            continue
        if word.startswith("-"):
            continue
        if word in MODES or plugged_command(word) is not None:
            return word, args[:i] + args[i + 1:]
        break
    return None, args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tsqlbroker`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    mode, rest = split_mode(args_list)
    if mode is not None and mode not in MODES:
        return _plugged(mode, rest)
    parser = build_parser(mode)
    args = parser.parse_args(rest)
    try:
        if mode != "serve":  # serve stops on SIGTERM by itself
            # What is open is closed on the way out (interpreter/exits.py).
            exit_on_signals(signal.SIGTERM)
        if mode == "parse":
            # start-up laziness: each mode loads only its own modules
            from tsqlbroker.grammar.check import check_files

            return check_files(args.files, args.ast, sys.stdout, sys.stderr)
        if mode == "serve":
            # start-up laziness: each mode loads only its own modules
            from tsqlbroker.repl.serve import serve

            return serve(args.url, args.database, args.log)
        # argv None: this is the process's own command line, which ends when main returns;
        # then what start-up froze stays frozen (thawing would make the interpreter's exit
        # traverse it all).
        thaw_after = argv is not None
        if mode == "run" or args.query is not None or args.inputs:
            # start-up laziness: parse, serve and the REPL never load the runner
            from tsqlbroker.repl.run_mode import run_scripts

            if mode == "run":
                return run_scripts(args, files=args.files, text=None,
                                   login=lambda: _login(args), thaw_after=thaw_after)
            return run_scripts(args, files=args.inputs, text=args.query,
                               login=lambda: _login(args), thaw_after=thaw_after)
        # start-up laziness: only the REPL loads prompt-toolkit
        from tsqlbroker.repl.main import run_repl

        return run_repl(url=args.url, database=args.database, output_format=args.format,
                        activation=args.activation, login=_login(args))
    except KeyboardInterrupt:
        return 130
    except TSqlError as exc:  # Msg 18456 for -U / -P: one line, as sqlcmd says it
        print(exc.render(), file=sys.stderr)
        return 1
    except StorageOpenError as exc:
        print(f"tsqlbroker: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # parse --ast | head: the reader has all it wanted
        silence(sys.stdout)
        return EXIT_BROKEN_PIPE


def _login(args: argparse.Namespace) -> tuple[str, str] | None:
    """(login, password) of ``-U`` (password: ``-P``, else ``$SQLCMDPASSWORD``, else asked
    on the terminal, else empty), or None: connect as sa."""
    login = getattr(args, "login", None)
    if login is None:
        return None
    password = args.password
    if password is None:
        password = os.environ.get("SQLCMDPASSWORD")
    if password is None and sys.stdin.isatty():
        password = getpass.getpass("Password: ")
    return login, password or ""


def _plugged(mode: str, args: list[str]) -> int:
    """A command another package adds (``tsqlbroker spark …``): its module is loaded only
    now; a library it needs that is missing names the extra to install."""
    command = plugged_command(mode)
    assert command is not None  # split_mode found it
    try:
        run = command.load()
    except ImportError as exc:
        if exc.name is None or exc.name.split(".")[0] == "tsqlbroker":
            raise
        print(f"tsqlbroker {mode}: {exc.name.split('.')[0]} is not installed: "
              f"python -m pip install 'tsqlbroker[{mode}]'", file=sys.stderr)
        return 2
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
