"""sqlcmd habits: ``:setvar``, ``$(name)``, ``:r file``, ``:on error``, ``:quit``.

The preprocessor runs before batches are split, line by line and in order, as sqlcmd does.
Directive lines become blank lines so that line numbers in the file stay true; an included
file's lines take its place.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tsqlbroker.errors import TSqlError
from tsqlbroker.grammar.scriptfile import ScriptEncodingError, read_script

_VAR_REF = re.compile(r"\$\((\w+)\)")
_DIRECTIVE = re.compile(r"^\s*:(?P<cmd>setvar|r|on|quit|exit|listvar)\b(?P<rest>.*)$",
                        re.IGNORECASE)


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
        elif cmd in ("quit", "exit"):
            state.quit_requested = True
            out.append("\n")
        else:  # listvar: nothing to run
            out.append("\n")
    return "".join(out)


def parse_assignment(text: str) -> tuple[str, str]:
    """``name=value`` from ``-v``; raises ValueError when there is no ``=``."""
    if "=" not in text:
        raise ValueError(f"-v expects name=value, got {text!r}")
    name, value = text.split("=", 1)
    if not re.fullmatch(r"\w+", name.strip()):
        raise ValueError(f"invalid scripting variable name {name!r}")
    return name.strip(), _unquote(value)
