"""Where a session's output goes: PRINT and informational messages, result sets, errors.

The interpreter writes events to a :class:`Sink`; renderers decide how they look (plain text
like sqlcmd, JSON lines for the command-line contract, rich tables in the REPL).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import threading
import uuid
from decimal import Decimal
from typing import Any, Protocol, TextIO

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import TSqlError


class Sink(Protocol):
    """The receiver of everything a session outputs."""

    def message(self, text: str) -> None:
        """A PRINT, an informational (severity ≤ 10) message."""

    def resultset(self, rs: ResultSet) -> None:
        """A result set from SELECT, RECEIVE, OUTPUT …"""

    def error(self, err: TSqlError) -> None:
        """An error that reached the client (not caught by TRY…CATCH)."""

    def rows_affected(self, n: int) -> None:
        """The ``(n rows affected)`` count of a statement (not sent under SET NOCOUNT ON)."""


class CollectingSink:
    """Keeps events in order as ``(kind, payload)``: kinds message, resultset, error, rows."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    def message(self, text: str) -> None:
        with self._lock:
            self.events.append(("message", text))

    def resultset(self, rs: ResultSet) -> None:
        with self._lock:
            self.events.append(("resultset", rs))

    def error(self, err: TSqlError) -> None:
        with self._lock:
            self.events.append(("error", err))

    def rows_affected(self, n: int) -> None:
        with self._lock:
            self.events.append(("rows", n))

    # conveniences for tests and callers
    def messages(self) -> list[str]:
        return [p for k, p in self.events if k == "message"]

    def errors(self) -> list[TSqlError]:
        return [p for k, p in self.events if k == "error"]

    def resultsets(self) -> list[ResultSet]:
        return [p for k, p in self.events if k == "resultset"]


class TeeSink:
    """Sends every event to several sinks."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = sinks

    def message(self, text: str) -> None:
        for s in self.sinks:
            s.message(text)

    def resultset(self, rs: ResultSet) -> None:
        for s in self.sinks:
            s.resultset(rs)

    def error(self, err: TSqlError) -> None:
        for s in self.sinks:
            s.error(err)

    def rows_affected(self, n: int) -> None:
        for s in self.sinks:
            s.rows_affected(n)


def format_value(value: Any) -> str:
    """A value as SQL Server tools show it in text output."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex().upper()
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            return value.isoformat(sep=" ")
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e16 else str(value)
    if hasattr(value, "to_string"):
        return str(value.to_string())
    return str(value)


def json_value(value: Any) -> Any:
    """A value for a JSON record: JSON scalars where exact (a decimal stays a
    :class:`~decimal.Decimal`, which :func:`json_dumps` writes as a number with its scale),
    other values as the tools show them in text (dates ``2024-01-02 03:04:05.123``)."""
    if value is None or isinstance(value, (bool, int, str, Decimal)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return format_value(value)


def json_dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` that writes a :class:`~decimal.Decimal` as a JSON number keeping its
    digits and scale (``1.50``), not as a float's repr."""
    marks: list[str] = []

    def mark(o: Any) -> Any:
        if isinstance(o, Decimal) and o.is_finite():
            marks.append(format(o, "f"))
            return f"{_NONCE}{len(marks) - 1}"
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    text = json.dumps(obj, default=mark, **kwargs)
    if not marks:
        return text
    return _DECIMAL_MARK.sub(lambda m: marks[int(m.group(1))], text)


# A decimal's stand-in inside json.dumps' output: a string no value can spell by chance.
_NONCE = f"\x00decimal-{uuid.uuid4().hex}:"
_DECIMAL_MARK = re.compile('"' + re.escape(json.dumps(_NONCE)[1:-1]) + r'(\d+)"')


class JsonLinesSink:
    """One JSON object per line, as the command-line contract states."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lock = threading.Lock()

    def _write(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.out.write(json_dumps(record, ensure_ascii=False) + "\n")
            self.out.flush()

    def record(self, record: dict[str, Any]) -> None:
        """Write any record of the contract (e.g. a broker log entry's), whole, on its line."""
        self._write(record)

    def message(self, text: str) -> None:
        self._write({"type": "message", "text": text})

    def resultset(self, rs: ResultSet) -> None:
        self._write({"type": "resultset", "columns": list(rs.columns),
                     "rows": [[json_value(v) for v in row] for row in rs.rows]})

    def error(self, err: TSqlError) -> None:
        self._write(err.as_record())

    def rows_affected(self, n: int) -> None:
        # Row counts are informational messages in SQL Server's client protocol.
        self._write({"type": "message", "text": f"({n} row{'s' if n != 1 else ''} affected)"})


class TextSink:
    """Plain text in the manner of sqlcmd: columns, a dashed rule, rows; messages as lines."""

    def __init__(self, out: TextIO, err: TextIO | None = None, *, max_width: int = 256) -> None:
        self.out = out
        self.err = err or out
        self.max_width = max_width
        self._lock = threading.Lock()

    def message(self, text: str) -> None:
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()

    def resultset(self, rs: ResultSet) -> None:
        cells = [[self._cut(format_value(v)) for v in row] for row in rs.rows]
        names = [c if c else "" for c in rs.columns]
        widths = [max([len(names[i])] + [len(r[i]) for r in cells]) for i in range(len(names))]
        lines = [" ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip(),
                 " ".join("-" * max(w, 1) for w in widths)]
        lines += [" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
        with self._lock:
            self.out.write("\n".join(lines) + "\n\n")
            self.out.flush()

    def _cut(self, s: str) -> str:
        return s if len(s) <= self.max_width else s[: self.max_width - 1] + "…"

    def error(self, err: TSqlError) -> None:
        with self._lock:
            self.out.flush()
            self.err.write(err.render() + "\n")
            self.err.flush()

    def rows_affected(self, n: int) -> None:
        self.message(f"({n} row{'s' if n != 1 else ''} affected)")
