"""Spark drain benchmark: one backlog (by default 100 000 trade entries in 2 000 conversation
groups, scripts/spark/trades.sql) drained by

* in-process activation: tradeEntryQueue's activation procedure with MAX_QUEUE_READERS = 2
  (two reader threads in one process, as ``tsqlbroker serve`` runs them);
* ``tsqlbroker spark drain`` with Spark ``local[1]``, ``local[2]`` and a standalone cluster on
  loopback with 2 executors of one core (the same procedure, interpreted in the executors);

each with a light handler (tradeEntryProc: record the trade, SEND the acknowledgement; one
transaction per message, as the chapter's procedure does) and a CPU-heavy one (the same plus
about 100 µs of T-SQL work per message, calibrated at the start). The Spark runs are repeated
with the Python handler ``trades:record_trades`` (one transaction per group) and a heavy
variant burning 100 µs of CPU per message; activation cannot run Python, so those have no
activation figure. The backlog is made anew before each run. Spark's start-up (JVM, session)
is excluded: the figure is the drain job's own time, executor start included.

Goals, printed beside each figure:

* CPU-heavy: ``local[2]`` >= 1.6x ``local[1]``, and >= 1.3x in-process activation (activated
  readers are threads of one interpreter; Spark's tasks are processes);
* light: Spark ``local[2]`` within 2x of in-process activation (rate >= 0.5x);
* the same ratios for the Python handlers (heavy local[2] / local[1]; light local[2] against
  the light procedure under activation).

Run: ``python scripts/bench/spark_drain.py [--messages 100000] [--groups 2000]
[--store postgresql|sqlite] [--no-cluster] [--handlers heavy,light,…] [--check]`` — PostgreSQL is ``$TSQLBROKER_PG_URL``
or a private server (``scripts/ci/postgres.sh``, through yardstick.py). Exit status 0 (it is a report) unless
``--check`` is given and a goal is missed (1). The full size takes a while (tens of minutes
on a busy 2-core machine); ``--messages 4000 --groups 200`` is a quick look, and
``--handlers heavy`` measures only the CPU-heavy procedure (the first two goals).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
sys.path.insert(0, str(ROOT / "scripts" / "spark"))

from trades import record_trades
from yardstick import fresh_schema, postgres_server

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.exits import exiting_on_signals
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.spark.drain import plan_drain, run_drain
from tsqlbroker.spark.session import spark_session
from tsqlbroker.spark.standalone import StandaloneCluster
from tsqlbroker.spark.stores import close_instances

SCRIPTS = ROOT / "scripts" / "spark"
HEAVY_US = 100.0
# (label, T-SQL procedure or Python handler)
HANDLERS = (("light", "tradeEntryProc"), ("heavy", "tradeEntryProcHeavy"),
            ("light python", "trades:record_trades"),
            ("heavy python", "spark_drain:heavy_handler"))
# The heavy procedure: tradeEntryProc with CPU work per message before the same effects.
HEAVY_WORK = """
        DECLARE @w int = 0, @x bigint = 7;
        WHILE @w < {iterations}
        BEGIN
            SET @x = (@x * 31 + @w) % 1000003;
            SET @w += 1;
        END
"""


@dataclass
class Run:
    """One drain: what ran it and how long the drain took."""

    handler: str
    runner: str
    seconds: float
    messages: int

    @property
    def rate(self) -> float:
        """Messages per second."""
        return self.messages / self.seconds


def run_tsql(url: str, text: str, database: str = "master") -> None:
    """Run T-SQL on a private instance; stop on any error."""
    inst = Instance(url, background=False)
    try:
        sink = CollectingSink()
        inst.session(sink, database).execute(text)
        errors = [e.render() for e in sink.errors()]
        if errors:
            raise SystemExit("\n".join(errors))
    finally:
        inst.close()


def calibrate() -> int:
    """Iterations of :data:`HEAVY_WORK`'s loop that take about :data:`HEAVY_US`."""
    inst = Instance("sqlite://", background=False)
    try:
        session = inst.session(CollectingSink())
        n = 2000
        loop = HEAVY_WORK.format(iterations=n)
        session.execute(loop)            # compile once
        start = time.perf_counter()
        session.execute(loop)
        per_iteration = (time.perf_counter() - start) / n
    finally:
        inst.close()
    return max(1, round(HEAVY_US / 1e6 / per_iteration))


def heavy_procedure(iterations: int) -> str:
    """tradeEntryProc with the CPU work, as tradeEntryProcHeavy."""
    text = (SCRIPTS / "trades.sql").read_text(encoding="utf-8")
    start = text.index("CREATE PROCEDURE tradeEntryProc")
    body = text[start:text.index("GO", start)]
    body = body.replace("CREATE PROCEDURE tradeEntryProc", "CREATE PROCEDURE tradeEntryProcHeavy")
    marker = "        SET @trade = CAST(@msg AS xml);\n"
    return "USE DMBrokerage;\nGO\n" + body.replace(
        marker, HEAVY_WORK.format(iterations=iterations) + marker)


def load(url: str, dialogs: int, trades: int, heavy: str) -> None:
    """The trade application, the heavy procedure and a fresh backlog."""
    run_tsql(url, (SCRIPTS / "trades.sql").read_text(encoding="utf-8"))
    run_tsql(url, heavy)
    backlog = (SCRIPTS / "backlog.sql").read_text(encoding="utf-8")
    for name, value in (("dialogs", dialogs), ("trades", trades), ("first", 1)):
        backlog = backlog.replace(f"$({name})", str(value))
    run_tsql(url, backlog)


def ready(inst: Instance) -> int:
    """Messages left in tradeEntryQueue."""
    sink = CollectingSink()
    session = inst.session(sink, "DMBrokerage")
    try:
        session.execute("SELECT COUNT(*) FROM tradeEntryQueue")
        return int(sink.resultsets()[-1].rows[0][0])
    finally:
        session.close()


def by_activation(url: str, procedure: str) -> float:
    """Seconds in-process activation (2 readers) takes to empty the queue."""
    inst = Instance(url)
    try:
        runtime_for(inst, recheck_seconds=0.5)
        start = time.monotonic()
        sink = CollectingSink()
        inst.session(sink, "DMBrokerage").execute(
            f"ALTER QUEUE tradeEntryQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = "
            f"{procedure}, MAX_QUEUE_READERS = 2)")
        while ready(inst):
            time.sleep(0.1)
        return time.monotonic() - start
    finally:
        inst.close()


def burn(seconds: float) -> None:
    """Keep a core busy for ``seconds``."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        pass


def heavy_handler(work: object) -> None:
    """The Python handler with :data:`HEAVY_US` of CPU work per message first."""
    burn(HEAVY_US / 1e6 * len(work.messages))  # type: ignore[attr-defined]
    record_trades(work)


def by_spark(spark: object, url: str, how: str, partitions: int) -> float:
    """Seconds the drain job takes (the session is up already); ``how`` is a procedure
    name or a Python handler (module:function)."""
    kind = "handler" if ":" in how else "procedure"
    plan, counts = plan_drain(url, "DMBrokerage", "tradeEntryQueue", **{kind: how})
    report = run_drain(spark, plan, counts, partitions)  # type: ignore[arg-type]
    if report.failures or report.remaining:
        raise SystemExit(f"the drain left work: {report.failures[:3]}, "
                         f"{report.remaining} messages")
    close_instances()
    return report.seconds


@contextmanager
def store_urls(kind: str) -> Iterator[Iterator[str]]:
    """Fresh stores of ``kind``, one per run."""
    with ExitStack() as stack:
        if kind == "sqlite":
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sparkbench-")))
            yield (f"sqlite:///{tmp / f'store{i}.db'}" for i in range(1_000_000))
            return
        pg = stack.enter_context(postgres_server())
        if pg is None:
            raise SystemExit("no PostgreSQL server: give $TSQLBROKER_PG_URL, or --store sqlite")

        def urls() -> Iterator[str]:
            while True:
                with fresh_schema(pg) as schema:
                    yield schema.url
        schemas = urls()
        try:
            yield schemas
        finally:
            schemas.close()         # drops the last schema while the server still runs


def main(argv: list[str] | None = None) -> int:
    """Run every configuration, print each figure with its goal. SIGTERM and SIGINT stop
    the run through ``SystemExit`` (status 143 or 130): the standalone cluster (whose
    processes a signal to this process's group does not reach) and a private PostgreSQL
    server are stopped on the way out."""
    with exiting_on_signals(signal.SIGTERM, signal.SIGINT):
        return _measure(argv)


def _measure(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--groups", type=int, default=2_000)
    ap.add_argument("--store", choices=("postgresql", "sqlite"), default="postgresql")
    ap.add_argument("--no-cluster", action="store_true", help="leave the standalone run out")
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    ap.add_argument("--handlers", default=",".join(h for h, _how in HANDLERS),
                    help="comma-separated handlers to run (default: all; the figures of "
                         "those left out are not printed)")
    args = ap.parse_args(argv)
    chosen = [h.strip() for h in args.handlers.split(",")]
    unknown = set(chosen) - {h for h, _how in HANDLERS}
    if unknown:
        ap.error(f"--handlers: no handler {', '.join(sorted(unknown))}")
    trades = max(1, args.messages // args.groups)
    total = trades * args.groups
    # Spark's Python workers import the package, the trade handlers and this module.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(SCRIPTS), str(ROOT / "scripts" / "bench"),
         os.environ.get("PYTHONPATH", "")])
    iterations = calibrate()
    heavy = heavy_procedure(iterations)
    print(f"backlog: {total:,} messages in {args.groups:,} groups on {args.store}; heavy "
          f"work: {iterations} loop iterations ≈ {HEAVY_US:.0f} µs per message", flush=True)
    runners = [("local[1]", "local[1]", 1), ("local[2]", "local[2]", 2)]
    runs: list[Run] = []
    with store_urls(args.store) as urls, ExitStack() as stack:
        cluster = None
        if not args.no_cluster:
            cluster = stack.enter_context(StandaloneCluster(
                Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sparkc-"))),
                cores=2))
            runners.append(("cluster 2x1", cluster.url, 2))
            print(f"standalone cluster at {cluster.url}: 2 executors of 1 core", flush=True)
        for handler, how in HANDLERS:
            if handler not in chosen:
                continue
            if ":" not in how:              # a T-SQL procedure: activation can run it too
                url = next(urls)
                load(url, args.groups, trades, heavy)
                runs.append(Run(handler, "activation", by_activation(url, how), total))
                print(f"  {handler:<13} in-process activation, 2 readers: "
                      f"{runs[-1].rate:,.0f} msg/s", flush=True)
            for label, master, partitions in runners:
                conf = {"spark.executor.cores": "1"} if master.startswith("spark:") else {}
                spark = spark_session(master, f"spark_drain bench {label}", conf)
                url = next(urls)
                load(url, args.groups, trades, heavy)
                runs.append(Run(handler, label, by_spark(spark, url, how, partitions * 4),
                                total))
                spark.stop()
                print(f"  {handler:<13} spark {label}: {runs[-1].rate:,.0f} msg/s",
                      flush=True)
    rate = {(r.handler, r.runner): r.rate for r in runs}

    def ratio(num: tuple[str, str], den: tuple[str, str]) -> float | None:
        return rate[num] / rate[den] if num in rate and den in rate else None

    figures = [
        ("heavy: local[2] / local[1]", ratio(("heavy", "local[2]"), ("heavy", "local[1]")),
         1.6),
        ("heavy: local[2] / in-process activation",
         ratio(("heavy", "local[2]"), ("heavy", "activation")), 1.3),
        ("light: local[2] / in-process activation",
         ratio(("light", "local[2]"), ("light", "activation")), 0.5),
        # The same goals for Python handlers, which commit once per group (no activation
        # figure: activation runs T-SQL procedures).
        ("heavy python: local[2] / local[1]",
         ratio(("heavy python", "local[2]"), ("heavy python", "local[1]")), 1.6),
        ("light python: local[2] / light activation",
         ratio(("light python", "local[2]"), ("light", "activation")), 0.5),
    ]
    missed = 0
    for name, value, goal in figures:
        if value is None:
            continue
        met = value >= goal
        missed += not met
        print(f"{name:<44} {value:5.2f}x   goal >= {goal:.1f}x   "
              f"{'MET' if met else 'NOT MET'}")
    if not args.no_cluster:
        for handler in chosen:
            print(f"{handler + ': cluster 2x1 / local[2]':<44} "
                  f"{rate[handler, 'cluster 2x1'] / rate[handler, 'local[2]']:5.2f}x   "
                  "(no goal: the same 2 cores, one more hop)")
    measured = sum(1 for _n, value, _g in figures if value is not None)
    print(f"{measured - missed} of {measured} goals met")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
