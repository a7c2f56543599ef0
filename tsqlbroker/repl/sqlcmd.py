"""sqlcmd habits: ``:setvar``, ``$(name)``, ``:r file``, ``:on error``, ``:reset``,
``:error``, ``:quit`` and ``:exit[([query])]``.

The preprocessor runs before batches are split, line by line and in order, as sqlcmd does.
Directive lines become blank lines so that line numbers in the file stay true; an included
file's lines take its place. As in sqlcmd, ``:quit``, ``:exit`` and ``:reset`` drop the batch
being collected (the lines after the last ``GO``); ``:exit()`` runs it and ``:exit(query)``
runs it with ``query`` added, the exit status then being the query's value
(:func:`exit_status`). ``:ed``, ``:list`` and ``!!`` belong to the interactive prompt.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar.scriptfile import ScriptEncodingError, read_script

_VAR_REF = re.compile(r"\$\((\w+)\)")
_DIRECTIVE = re.compile(
    r"^\s*(?::(?P<cmd>setvar|r|on|quit|exit|listvar|reset|error|ed|list)\b|(?P<shell>:?!!))"
    r"(?P<rest>.*)$", re.IGNORECASE)
_GO = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*;?[ \t]*(?:--.*)?$", re.IGNORECASE)


class SqlcmdError(TSqlError):
    """A sqlcmd scripting error (undefined variable, missing include …)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(0, message, severity=16, state=1, line=line)

    def render(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"Sqlcmd: Error: {self.message}{where}"


@dataclass
class SqlcmdState:
    """Variables and options that persist across files and batches (``-v``, ``:setvar``)."""

    variables: dict[str, str] = field(default_factory=dict)
    on_error_exit: bool = False
    quit_requested: bool = False
    # :exit(query): the run's exit status is the value of the last batch's result.
    exit_with_value: bool = False
    # :error FILE|STDERR|STDOUT seen in a script (the runner redirects errors there).
    error_target: str | None = None

    def setvar(self, name: str, value: str) -> None:
        self.variables[name.lower()] = value

    def lookup(self, name: str) -> str | None:
        if name.lower() in self.variables:
            return self.variables[name.lower()]
        return os.environ.get(name)


def substitute(line: str, state: SqlcmdState, lineno: int | None = None) -> str:
    """Replace ``$(name)`` references; an undefined one is an error, as in sqlcmd."""

    def sub(m: re.Match[str]) -> str:
        value = state.lookup(m.group(1))
        if value is None:
            raise SqlcmdError(f"'{m.group(1)}' scripting variable not defined.", lineno)
        return value

    return _VAR_REF.sub(sub, line) if "$(" in line else line


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('""', '"')
    return value


def split_at_last_go(text: str) -> tuple[str, str]:
    """(the text up to and including its last ``GO`` line, the lines after it): what has
    been sent as batches and sqlcmd's statement cache, still being collected."""
    lines = text.splitlines(keepends=True)
    keep = next((i + 1 for i in range(len(lines) - 1, -1, -1) if _GO.match(lines[i])), 0)
    return "".join(lines[:keep]), "".join(lines[keep:])


def _drop_unsent(out: list[str]) -> None:
    """Drop the lines collected since the last GO line (sqlcmd's statement cache)."""
    sent, unsent = split_at_last_go("".join(out))
    # Keep the line count: dropped lines become blank.
    out[:] = [sent, "\n" * unsent.count("\n")]


def preprocess(text: str, state: SqlcmdState, base_dir: Path | None = None,
               _depth: int = 0) -> str:
    """Apply sqlcmd directives and variables to a script; returns plain T-SQL with GO lines."""
    if _depth > 32:
        raise SqlcmdError(":r nesting is too deep (more than 32 levels).")
    out: list[str] = []
    for lineno, line in enumerate(text.splitlines(keepends=True), start=1):
        if state.quit_requested:
            break
        m = _DIRECTIVE.match(line)
        if not m:
            out.append(substitute(line, state, lineno))
            continue
        if m.group("shell") or m.group("cmd").lower() in ("ed", "list"):
            word = m.group("shell") or ":" + m.group("cmd")
            raise SqlcmdError(f"'{word.strip()}' works at the interactive prompt only.", lineno)
        cmd, rest = m.group("cmd").lower(), substitute(m.group("rest"), state, lineno).strip()
        if cmd == "setvar":
            parts = rest.split(None, 1)
            if not parts:
                raise SqlcmdError(":setvar needs a variable name.", lineno)
            state.setvar(parts[0], _unquote(parts[1]) if len(parts) > 1 else "")
            out.append("\n")
        elif cmd == "r":
            path = Path(_unquote(rest))
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            try:
                included = read_script(path)
            except OSError as exc:
                raise SqlcmdError(f"Cannot open file '{path}': {exc.strerror}.", lineno) from None
            except ScriptEncodingError as exc:
                raise SqlcmdError(str(exc)) from None
            body = preprocess(included, state, path.parent, _depth + 1)
            out.append(body if body.endswith("\n") else body + "\n")
        elif cmd == "on":
            words = rest.lower().split()
            if words[:1] != ["error"] or len(words) != 2 or words[1] not in ("exit", "ignore"):
                raise SqlcmdError(":on error takes exit or ignore.", lineno)
            state.on_error_exit = words[1] == "exit"
            out.append("\n")
        elif cmd == "error":
            if not rest:
                raise SqlcmdError(":error takes a file name, STDERR or STDOUT.", lineno)
            state.error_target = _unquote(rest)
            out.append("\n")
        elif cmd == "reset":
            _drop_unsent(out)
            out.append("\n")
        elif cmd in ("quit", "exit"):
            query = exit_query(rest) if cmd == "exit" else None
            if rest and query is None:
                raise SqlcmdError(f":{cmd} takes no argument but (query).", lineno)
            if query is None:
                _drop_unsent(out)       # :quit / :exit: the collected batch is not run
            if query:
                state.exit_with_value = True
            state.quit_requested = True
            out.append((query or "") + "\n")  # the query takes the directive's line
        else:  # listvar: nothing to run
            out.append("\n")
    return "".join(out)


def exit_query(rest: str) -> str | None:
    """The query of ``:exit(query)`` ('' for ``:exit()``), None without parentheses."""
    rest = rest.strip()
    if not (rest.startswith("(") and rest.endswith(")")):
        return None
    return rest[1:-1].strip()


def exit_status(value: Any, failed: bool) -> int:
    """The exit status ``:exit(query)`` gives: the first value of the query's first row as
    an integer (the operating system keeps its low 8 bits); 0 with no row or NULL; 1 after
    an error or for a value that is not a number (sqlcmd's own codes are negative, which a
    POSIX status cannot be)."""
    if failed:
        return 1
    if value is None:
        return 0
    try:
        return int(Decimal(str(value).strip()))
    except (ArithmeticError, ValueError):
        return 1


def parse_assignment(text: str) -> tuple[str, str]:
    """``name=value`` from ``-v``; raises ValueError when there is no ``=``."""
    if "=" not in text:
        raise ValueError(f"-v expects name=value, got {text!r}")
    name, value = text.split("=", 1)
    if not re.fullmatch(r"\w+", name.strip()):
        raise ValueError(f"invalid scripting variable name {name!r}")
    return name.strip(), _unquote(value)
