"""The one error hierarchy of tsqlbroker, shared by every layer.

Every error a user can see is a :class:`TSqlError` carrying SQL Server's number, severity and
state, rendered the way SQL Server renders it::

    Msg 8429, Level 16, State 1, Line 3
    The conversation endpoint is not in a valid state for SEND. The current endpoint state is 'DI'.

``TRY ... CATCH`` catches only these; ``ERROR_NUMBER()`` and friends read them. Message texts
live in :data:`MESSAGES` (SQL Server's ``sys.messages`` wording) so that every layer raises the
same text for the same number through :func:`tsql_error`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tsqlbroker.errors.messages import MESSAGES


@dataclass(frozen=True)
class Span:
    """A region of source text: 1-based lines and columns, 0-based character offsets."""

    line: int
    column: int
    end_line: int
    end_column: int
    start_pos: int = 0
    end_pos: int = 0


# SQL Server's longest error message: a longer one shows its first 2,044 characters and
# "..." (RAISERROR's documented rule, applied to every message: an unclosed 10 MB literal's
# Msg 105 does not repeat the literal).
MAX_MESSAGE = 2047
_CLIPPED = 2044
# A syntax error shows at most this many characters of its source line around the caret.
MAX_SOURCE_SHOWN = 160


def clip_message(message: str) -> str:
    """``message`` as SQL Server shows it: at most :data:`MAX_MESSAGE` characters."""
    if len(message) > MAX_MESSAGE:
        return message[:_CLIPPED] + "..."
    return message


class TSqlError(Exception):
    """An error as SQL Server reports it: number, severity (level), state and text."""

    def __init__(
        self,
        number: int,
        message: str,
        severity: int = 16,
        state: int = 1,
        line: int | None = None,
        procedure: str | None = None,
        span: Span | None = None,
    ) -> None:
        message = clip_message(message)
        super().__init__(message)
        self.number = number
        self.message = message
        self.severity = severity
        self.state = state
        self.line = line if line is not None else (span.line if span else None)
        self.procedure = procedure
        self.span = span

    def header(self) -> str:
        """The ``Msg n, Level n, State n, [Procedure p, ]Line n`` line."""
        parts = [f"Msg {self.number}", f"Level {self.severity}", f"State {self.state}"]
        if self.procedure:
            parts.append(f"Procedure {self.procedure}")
        parts.append(f"Line {self.line if self.line is not None else 1}")
        return ", ".join(parts)

    def render(self) -> str:
        """The full text SQL Server tools print for this error."""
        return f"{self.header()}\n{self.message}"

    def as_record(self) -> dict[str, Any]:
        """The JSON-lines record of the command-line contract."""
        return {
            "type": "error",
            "number": self.number,
            "severity": self.severity,
            "state": self.state,
            "line": self.line if self.line is not None else 1,
            "message": self.message,
            **({"procedure": self.procedure} if self.procedure else {}),
        }

    def __str__(self) -> str:
        return self.render()


def source_excerpt(line: str, column: int) -> tuple[str, int]:
    """At most :data:`MAX_SOURCE_SHOWN` characters of ``line`` around ``column`` (1-based),
    elided with "...", and the caret's column in the excerpt."""
    if len(line) <= MAX_SOURCE_SHOWN:
        return line, column
    half = MAX_SOURCE_SHOWN // 2
    start = max(0, min(column - 1 - half, len(line) - MAX_SOURCE_SHOWN))
    end = start + MAX_SOURCE_SHOWN
    head = "..." if start > 0 else ""
    tail = "..." if end < len(line) else ""
    return head + line[start:end] + tail, column - start + len(head)


class ParseError(TSqlError):
    """A syntax error (Msg 102 and relatives, severity 15) with the source line and a caret."""

    def __init__(
        self,
        message: str,
        line: int,
        column: int,
        source_line: str = "",
        number: int = 102,
        expected: list[str] | None = None,
        state: int = 1,
    ) -> None:
        super().__init__(number, message, severity=15, state=state, line=line)
        self.column = column
        self.source_line = source_line
        self.expected = expected or []

    def render(self) -> str:
        text = f"{self.header()}\n{self.message}"
        if self.source_line:
            src, column = source_excerpt(self.source_line.rstrip("\r\n").expandtabs(1),
                                         self.column)
            text += f"\n  {src}\n  {' ' * max(column - 1, 0)}^"
        if self.expected:
            text += f"\nExpected one of: {', '.join(self.expected)}"
        return text


class BindError(TSqlError):
    """Names that do not resolve: unknown objects, columns, variables (Msg 137, 208, 2812 …)."""


class ExecutionError(TSqlError):
    """Errors raised while a statement runs (conversion, arithmetic, constraints …)."""


class BrokerError(ExecutionError):
    """Service Broker errors (84xx, 96xx, 97xx …)."""


class CancelledError(ExecutionError):
    """The running batch was cancelled (``Session.cancel``: Ctrl-C, SIGINT, a stopping
    broker), between statements, in a wait or inside a backend statement; TRY…CATCH does
    not catch it."""

    def __init__(self) -> None:
        super().__init__(3621, "Query was cancelled by user. The statement has been "
                               "terminated.", severity=16)
        self.batch_abort = True


_PLACEHOLDER = re.compile(r"%(?:\.\*ls|ls|S_MSG|I64d|ld|d|i|s|u)")


def format_message(template: str, *args: Any) -> str:
    """Fill SQL Server printf-style placeholders (``%.*ls``, ``%ls``, ``%d`` …) in order."""
    it = iter(args)

    def sub(_m: re.Match[str]) -> str:
        try:
            value = next(it)
        except StopIteration:
            return ""
        return "" if value is None else str(value)

    return _PLACEHOLDER.sub(sub, template)


def message_text(number: int, *args: Any) -> str:
    """The formatted text of error ``number`` (raises KeyError for an unknown number)."""
    return format_message(MESSAGES[number][1], *args)


def tsql_error(
    number: int,
    *args: Any,
    state: int = 1,
    cls: type[TSqlError] = ExecutionError,
    span: Span | None = None,
) -> TSqlError:
    """Build the error SQL Server raises as ``number``, its text filled with ``args``."""
    severity, template = MESSAGES[number]
    return cls(number, format_message(template, *args), severity=severity, state=state, span=span)


def cannot(verb: str, kind: str, name: str) -> TSqlError:
    """Msg 15151 worded with the statement's verb, as SQL Server fills it (*Cannot drop the
    message type 'x', because it does not exist or you do not have permission.*; the
    catalogue's template is the *find* form): the same text for an object that is missing
    and for one the principal may not touch."""
    return BindError(15151, f"Cannot {verb} the {kind} '{name}', because it does not exist "
                            "or you do not have permission.", severity=16)


def not_supported(what: str) -> TSqlError:
    """The error for T-SQL the storage layer does not implement (Msg 40000)."""
    return tsql_error(40000, what)


def broker_error(number: int, *args: Any, state: int = 1) -> BrokerError:
    """Build a Service Broker error (a :class:`BrokerError`) by number."""
    err = tsql_error(number, *args, state=state, cls=BrokerError)
    assert isinstance(err, BrokerError)
    return err


class StorageOpenError(Exception):
    """The storage named by ``--url`` (or ``:connect``) cannot be opened; the text is one
    line naming it and saying why (see ``tsqlbroker.engine.opening``)."""
