"""``tsqlbroker spark drain``: a queue's backlog drained by Spark, group by group.

The driver lists the queue's conversation groups with ready messages, spreads whole groups
over ``partitions`` Spark tasks (balanced by message count) and runs
:func:`~tsqlbroker.spark.groups.drain_groups` in each: every group in exactly one task, its
messages in order, through the queue's activation procedure or a Python handler. While it
runs, a progress bar follows the queue's ready messages; at the end a summary table says
how many groups and messages were drained, which groups failed and why, and the rate.

Nothing is removed from the queue but by the transaction that commits what the message
caused, so running the drain again — after a killed executor, a killed driver, a failed
group — does the rest and nothing twice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pyspark.sql import SparkSession
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tsqlbroker.errors import tsql_error

from .groups import DrainPlan, GroupOutcome, drain_groups
from .observe import balance
from .stores import TaskSink, find_queue, instance_for, run_sql, split_name

_POLL_S = 0.5


class DrainUsageError(ValueError):
    """The drain cannot start: the queue has no activation procedure, a bad handler …"""


@dataclass
class DrainReport:
    """What a drain did."""

    queue: str
    planned_groups: int
    planned_messages: int
    partitions: int
    seconds: float = 0.0
    outcomes: list[GroupOutcome] = field(default_factory=list)
    remaining: int = 0
    queue_disabled: bool = False

    def count(self, status: str) -> int:
        """Groups that ended with ``status``."""
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def messages(self) -> int:
        """Messages drained."""
        return sum(o.messages for o in self.outcomes)

    @property
    def failures(self) -> list[GroupOutcome]:
        """Groups that failed or stayed locked by another reader."""
        return [o for o in self.outcomes if o.status in ("failed", "busy")]

    @property
    def rate(self) -> float:
        """Messages per second over the whole run (Spark's start-up included)."""
        return self.messages / self.seconds if self.seconds > 0 else 0.0


def plan_drain(url: str, database: str, queue: str, *, procedure: str | None = None,
               handler: str | None = None, attempts: int = 3, lock_timeout: float = 5.0,
               fail_after_commit: bool = False) -> tuple[DrainPlan, list[tuple[str, int]]]:
    """The plan and the (group, ready messages) list of a drain, read on the driver. Without
    ``procedure`` or ``handler`` the queue's activation procedure is used."""
    if procedure is not None and handler is not None:
        raise DrainUsageError("give --procedure or --handler, not both")
    schema, name = split_name(queue)
    inst = instance_for(url)
    session = inst.session(TaskSink(), database)
    try:
        q = find_queue(session, schema, name)
        if procedure is None and handler is None:
            procedure = q.activation_procedure
            if procedure is None:
                raise DrainUsageError(f"queue {queue} has no activation procedure: give "
                                      "--procedure or --handler")
        if not q.is_receive_enabled:
            raise tsql_error(9617, q.name)
        rs = run_sql(session, f"SELECT conversation_group_id, COUNT(*) FROM "
                              f"[{q.schema_name}].[{q.name}] WHERE status = 1 "
                              "GROUP BY conversation_group_id")
        counts = [(str(g).upper(), int(n)) for g, n in (rs.rows if rs is not None else [])]
    finally:
        session.close()
    plan = DrainPlan(url, database, q.schema_name, q.name, procedure, handler, attempts,
                     lock_timeout, fail_after_commit)
    return plan, counts


def _ready(plan: DrainPlan) -> tuple[int, bool]:
    """(ready messages in the queue, whether it is disabled) seen from the driver."""
    session = instance_for(plan.url).session(TaskSink(), plan.database)
    try:
        q = find_queue(session, plan.queue_schema, plan.queue_name)
        rs = run_sql(session, f"SELECT COUNT(*) FROM [{q.schema_name}].[{q.name}] "
                              "WHERE status = 1")
        return (int(rs.rows[0][0]) if rs is not None and rs.rows else 0,
                not q.is_receive_enabled)
    finally:
        session.close()


def run_drain(spark: SparkSession, plan: DrainPlan, counts: list[tuple[str, int]],
              partitions: int, *, on_progress: Callable[[int, int], None] | None = None
              ) -> DrainReport:
    """Run the drain as one Spark job; ``on_progress(drained, total)`` is called from a
    polling thread while it runs."""
    bins = balance(counts, partitions)
    total = sum(n for _g, n in counts)
    report = DrainReport(f"{plan.queue_schema}.{plan.queue_name}", len(counts), total,
                         len(bins))
    start = time.monotonic()
    done = threading.Event()

    def poll() -> None:
        while not done.wait(_POLL_S):
            ready, _disabled = _ready(plan)
            if on_progress is not None:
                on_progress(max(0, min(total, total - ready)), total)

    watcher = threading.Thread(target=poll, name="tsqlbroker-drain-progress", daemon=True)
    if bins:
        watcher.start()
        sc = spark.sparkContext
        sc.setJobDescription(f"tsqlbroker drain {report.queue}")
        try:
            report.outcomes = (sc.parallelize(bins, len(bins))
                               .mapPartitions(lambda groups: drain_groups(plan, groups))
                               .collect())
        finally:
            done.set()
            watcher.join()
    report.seconds = time.monotonic() - start
    report.remaining, report.queue_disabled = _ready(plan)
    if on_progress is not None:
        on_progress(report.messages, total)
    return report


def render_report(report: DrainReport, console: Console) -> None:
    """The summary table (and the failed groups with their errors)."""
    table = Table(title=f"spark drain of {report.queue}", title_justify="left")
    # empty: drained before (by a first attempt of a retried task, by another reader);
    # left: ready messages still in the queue at the end.
    for col in ("groups", "drained", "empty", "failed", "busy", "messages", "left",
                "seconds", "messages/s"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_row(str(report.planned_groups), str(report.count("done")),
                  str(report.count("empty")), str(report.count("failed")),
                  str(report.count("busy")), str(report.messages), str(report.remaining),
                  f"{report.seconds:.1f}", f"{report.rate:.0f}")
    console.print(table)
    if report.failures:
        failed = Table(title="groups left in the queue", title_justify="left")
        for col in ("conversation_group_id", "status", "attempts", "error"):
            failed.add_column(col)
        for o in report.failures:
            failed.add_row(o.group, o.status, str(o.attempts),
                           o.error or "locked by another reader")
        console.print(failed)
    if report.queue_disabled:
        console.print(f"queue {report.queue} is disabled (poison-message handling): "
                      "ALTER QUEUE … WITH STATUS = ON once the cause is fixed")


def progress_bar(console: Console) -> Progress:
    """The progress bar the command shows while the drain runs."""
    return Progress(TextColumn("draining"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("messages"), TimeElapsedColumn(), console=console,
                    transient=True)
