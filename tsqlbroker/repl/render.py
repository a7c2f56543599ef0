"""Rendering a session's output in the REPL with ``rich``: the :class:`RichSink`.

Result sets are shown as a table, vertically (one ``column: value`` line per value, for wide
rows — also what a table too wide for the terminal becomes, unless ``wide_results`` pages it
at full width or squeezes it), as CSV or as JSON; NULL is styled apart from the string ``'NULL'``; long values are cut;
binary is ``0x…``; GUIDs are upper-case (:func:`tsqlbroker.interpreter.sink.format_value`).
PRINT messages, ``(n rows affected)`` and errors each have their own style. A table taller than
the terminal goes through the pager when one is configured and the console is a terminal.
"""

from __future__ import annotations

import csv
import io
import shlex
import subprocess
import threading
from collections.abc import Callable
from typing import Any

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.sink import format_value, json_dumps, json_value
from tsqlbroker.repl.config import FORMATS

DEFAULT_STYLES: dict[str, str] = {
    "null": "dim italic",
    "header": "bold cyan",
    "message": "",
    "rows_affected": "dim",
    "error_header": "bold red",
    "error": "red",
    "log": "magenta",
    "timing": "dim green",
}

Pager = Callable[[str], None]


def run_pager(command: str) -> Pager:
    """A pager that pipes rendered text (ANSI colours kept) into a shell command."""

    def page(text: str) -> None:
        try:
            subprocess.run(shlex.split(command), input=text, text=True, check=False)
        except OSError:
            # A missing pager must not lose the result: print it as is.
            print(text, end="")

    return page


# C0 control characters (but tab and newline) as their visible "control pictures" (␀ …): a
# raw NUL or ESC would break the table layout or drive the terminal.
_CONTROL_PICTURES = {i: 0x2400 + i for i in range(32) if chr(i) not in "\t\n"} | {127: 0x2421}


def visible(text: str) -> str:
    """``text`` with control characters shown as Unicode control pictures."""
    return text.translate(_CONTROL_PICTURES)


def cut(text: str, width: int) -> str:
    """``text`` shortened to ``width`` characters with an ellipsis (0: never cut)."""
    if width <= 0 or len(text) <= width:
        return text
    return text[: max(width - 1, 1)] + "…"


class RichSink:
    """A :class:`~tsqlbroker.interpreter.sink.Sink` printing to an injected rich console.

    Thread-safe: the batch worker and background activation may write at the same time.
    """

    def __init__(self, console: Console, *, fmt: str = "table", max_width: int = 60,
                 null_text: str = "NULL", styles: dict[str, str] | None = None,
                 pager: Pager | None = None, wide: str = "vertical") -> None:
        self.console = console
        # Where errors go (``:error``); None: with the rest of the output.
        self.error_console: Console | None = None
        self.format = fmt
        self.max_width = max_width
        self.null_text = null_text
        self.styles = {**DEFAULT_STYLES, **(styles or {})}
        self.pager = pager
        self.wide = wide  # what a table wider than the terminal becomes (config wide_results)
        self.error_count = 0  # errors shown so far (``:on error exit`` watches it)
        self.event_count = 0  # everything shown so far ("Commands completed successfully.")
        self.last_resultset: ResultSet | None = None  # for :exit(query)
        self._lock = threading.RLock()

    # -- the Sink protocol ------------------------------------------------------------------
    def message(self, text: str) -> None:
        """A PRINT or informational message, as a line of its own."""
        with self._lock:
            self.event_count += 1
            self.console.print(Text(text, style=self.styles["message"]), soft_wrap=True)

    def rows_affected(self, n: int) -> None:
        """``(n rows affected)``."""
        with self._lock:
            self.event_count += 1
            self.console.print(Text(f"({n} row{'s' if n != 1 else ''} affected)",
                                    style=self.styles["rows_affected"]))

    def error(self, err: TSqlError) -> None:
        """``Msg n, Level n, State n, Line n`` in the header style, then the text."""
        rendered = err.render()
        header, _, rest = rendered.partition("\n")
        text = Text(header, style=self.styles["error_header"])
        if rest:
            text.append("\n" + rest, style=self.styles["error"])
        with self._lock:
            self.error_count += 1
            self.event_count += 1
            (self.error_console or self.console).print(text, soft_wrap=True)

    def resultset(self, rs: ResultSet, *, whole: bool = False) -> None:
        """A result set in the current format (``whole``: values never cut, for help text).
        A table too wide for the terminal is shown as ``wide_results`` says."""
        self.last_resultset = rs
        renderable = self.render_resultset(rs, whole=whole)
        with self._lock:
            self.event_count += 1
            if isinstance(renderable, str):
                self.console.print(renderable, markup=False, highlight=False, soft_wrap=True)
            elif isinstance(renderable, Table) and not whole and self.wide != "squeeze" \
                    and self._natural_width(renderable) > self.console.width:
                self._print_wide(rs, renderable)
            else:
                self._print_paged(renderable)

    # -- formats ----------------------------------------------------------------------------
    def render_resultset(self, rs: ResultSet, *, whole: bool = False) -> RenderableType:
        """The rich renderable (table, vertical) or plain text (csv, json) of a result set."""
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}")
        if self.format == "table":
            return self._render_table(rs, whole)
        return getattr(self, f"_render_{self.format}")(rs)

    def _cell(self, value: Any, whole: bool = False) -> Text:
        if value is None:
            return Text(self.null_text, style=self.styles["null"])
        return Text(cut(visible(format_value(value)), 0 if whole else self.max_width))

    def _names(self, rs: ResultSet) -> list[str]:
        # SQL Server shows "(No column name)" for an unnamed expression.
        return [c if c else "(No column name)" for c in rs.columns]

    def _render_table(self, rs: ResultSet, whole: bool = False) -> Table:
        table = Table(header_style=self.styles["header"], show_lines=False, expand=False)
        for name, spec in zip(self._names(rs), rs.types or [None] * len(rs.columns)):
            base = spec.split("(")[0] if spec else ""
            # A GUID is read (and copied) whole: never wrap it.
            table.add_column(name, justify="right" if base in _NUMERIC_TYPES else "left",
                             overflow="fold", no_wrap=base == "uniqueidentifier",
                             min_width=36 if base == "uniqueidentifier" else None)
        for row in rs.rows:
            table.add_row(*(self._cell(v, whole) for v in row))
        return table

    def _natural_width(self, table: Table) -> int:
        """How wide ``table`` is when no column is squeezed."""
        options = self.console.options.update_width(1 << 16)
        return Measurement.get(self.console, options, table).maximum

    def _print_wide(self, rs: ResultSet, table: Table) -> None:
        """A table wider than the terminal: at full width through the pager (scrolling
        sideways) when so configured and possible, else vertically."""
        if self.wide == "pager" and self.pager is not None and self.console.is_terminal:
            wide = Console(file=io.StringIO(), width=self._natural_width(table),
                           force_terminal=True, highlight=False,
                           color_system=self.console.color_system)  # type: ignore[arg-type]
            wide.print(table)
            self.pager(wide.file.getvalue())  # type: ignore[attr-defined]
            return
        self.console.print(self._render_vertical(rs))

    def _render_vertical(self, rs: ResultSet) -> RenderableType:
        names = self._names(rs)
        width = max((len(n) for n in names), default=0)
        text = Text()
        for i, row in enumerate(rs.rows, start=1):
            text.append(f"{'*' * 27} {i}. row {'*' * 27}\n", style=self.styles["header"])
            for name, value in zip(names, row):
                text.append(f"{name.rjust(width)}: ")
                text.append_text(self._cell(value))
                text.append("\n")
        if not rs.rows:
            text.append("(no rows)\n", style=self.styles["rows_affected"])
        text.rstrip()
        return text

    def _render_csv(self, rs: ResultSet) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self._names(rs))
        for row in rs.rows:
            writer.writerow(["" if v is None else format_value(v) for v in row])
        return buf.getvalue().rstrip("\n")

    def _render_json(self, rs: ResultSet) -> str:
        names = self._names(rs)
        rows = [{n: json_value(v) for n, v in zip(names, row)} for row in rs.rows]
        return json_dumps(rows, ensure_ascii=False, indent=2)

    # -- paging -----------------------------------------------------------------------------
    @property
    def lock(self) -> threading.RLock:
        """The lock that keeps one event's lines together (shared with the broker log)."""
        return self._lock

    def _print_paged(self, renderable: RenderableType) -> None:
        if self.pager is None or not self.console.is_terminal:
            self.console.print(renderable)
            return
        with self.console.capture() as capture:
            self.console.print(renderable)
        text = capture.get()
        if text.count("\n") < self.console.size.height - 2:
            self.console.file.write(text)
            self.console.file.flush()
        else:
            self.pager(text)


_NUMERIC_TYPES = frozenset({
    "bigint", "int", "smallint", "tinyint", "bit", "decimal", "numeric", "money", "smallmoney",
    "float", "real",
})
