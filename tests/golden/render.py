"""Plain-text rendering of a session's sink events for the golden tests.

PRINT and informational messages are lines of their own; a result set is its tab-separated
header (``(No column name)`` for unnamed columns) and rows (NULL as ``NULL``, binary as
``0x…``, uniqueidentifier upper-case); row counts are ``(n rows affected)``; errors are
``Msg n, Level n, State n, [Procedure p, ]Line n`` followed by their text.
"""

from __future__ import annotations

from typing import Any

from tsqlbroker.interpreter.sink import format_value


def render_events(events: list[tuple[str, Any]]) -> str:
    """The text of ``CollectingSink.events``."""
    out: list[str] = []
    for kind, payload in events:
        if kind == "message":
            out.append(payload)
        elif kind == "rows":
            out.append(f"({payload} row{'s' if payload != 1 else ''} affected)")
        elif kind == "error":
            out.append(payload.header())
            out.append(payload.message)
        elif kind == "resultset":
            out.append("\t".join(c if c else "(No column name)" for c in payload.columns))
            for row in payload.rows:
                out.append("\t".join(format_value(v) for v in row))
    return "\n".join(out) + "\n"
