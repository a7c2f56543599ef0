"""``SET STATISTICS TIME ON`` / ``SET STATISTICS IO ON``: the messages SQL Server sends after
each statement.

TIME: at each batch, *SQL Server parse and compile time* (the batch's compilation here), and
after each statement that ran (queries, DML, EXEC, broker statements; not SET / IF / WHILE,
which SQL Server does not time either) *SQL Server Execution Times*, CPU time being the
thread's CPU time and elapsed time the wall clock, both since the previous report. IO: one
``Table 'name'. Scan count …`` line per user table a statement read or wrote, where logical
reads count rows, not pages (see ``engine/iostats.py`` and docs/decisions.md).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tsqlbroker.engine.iostats import TableReads

_COMPILE = "SQL Server parse and compile time: \n   CPU time = {cpu} ms, elapsed time = {ms} ms."
_EXECUTION = " SQL Server Execution Times:\n   CPU time = {cpu} ms,  elapsed time = {ms} ms."
# SQL Server 2019's wording (it added the page server counters).
_IO = ("Table '{name}'. Scan count {scans}, logical reads {reads}, physical reads 0, "
       "page server reads 0, read-ahead reads 0, page server read-ahead reads 0, "
       "lob logical reads 0, lob physical reads 0, lob page server reads 0, "
       "lob read-ahead reads 0, lob page server read-ahead reads 0.")


def _ms(seconds: float) -> int:
    return max(round(seconds * 1000), 0)


class StatisticsReport:
    """What one session's ``SET STATISTICS TIME | IO`` ask for, and the clocks behind it."""

    def __init__(self) -> None:
        self.time = False
        self.io = False
        self.pending: list[TableReads] = []
        self._wall = time.perf_counter()
        self._cpu = time.thread_time()

    @property
    def active(self) -> bool:
        """Whether either option is ON."""
        return self.time or self.io

    def restart(self) -> None:
        """Measure from now (the start of a statement or batch)."""
        self._wall = time.perf_counter()
        self._cpu = time.thread_time()

    def compile_started(self) -> tuple[float, float]:
        """The clocks before a batch compiles."""
        self.pending.clear()
        return time.perf_counter(), time.thread_time()

    def compiled(self, session: Any, started: tuple[float, float]) -> None:
        """The batch compiled: its parse-and-compile message; statements are timed from
        here."""
        if self.time:
            wall, cpu = started
            session.sink.message(_COMPILE.format(cpu=_ms(time.thread_time() - cpu),
                                                 ms=_ms(time.perf_counter() - wall)))
        self.restart()

    def note_reads(self, reads: list[TableReads]) -> None:
        """Tables a statement touched (reported when it ends)."""
        self.pending.extend(reads)

    def statement_done(self, session: Any) -> None:
        """After a statement: the IO lines of its tables, then its execution times."""
        if self.io:
            for r in self.pending:
                session.sink.message(_IO.format(name=r.name, scans=r.scans, reads=r.reads))
        self.pending.clear()
        if self.time:
            session.sink.message(_EXECUTION.format(cpu=_ms(time.thread_time() - self._cpu),
                                                   ms=_ms(time.perf_counter() - self._wall)))
        self.restart()


def set_statistics(session: Any, what: str, on: bool) -> None:
    """``SET STATISTICS TIME | IO ON | OFF`` (other kinds — PROFILE, XML — are accepted and
    change nothing, as before)."""
    report = session.statistics or StatisticsReport()
    if what == "time":
        report.time = on
    elif what == "io":
        report.io = on
    session.statistics = report if report.active else None
    report.restart()
