"""``tsqlbroker spark …``: the Spark commands of the command line.

    tsqlbroker spark drain --url URL --database DB --queue Q
        [--procedure P | --handler module:function] [--master URL] [--partitions N]

Loaded only for ``tsqlbroker spark`` (it imports pyspark); without the ``spark`` extra the
command says how to install it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from tsqlbroker.errors import TSqlError

from .drain import DrainUsageError, plan_drain, progress_bar, render_report, run_drain
from .groups import load_handler
from .session import is_loopback_master, spark_session
from .stores import close_instances

EPILOG = """\
examples:
  tsqlbroker spark drain --url sqlite:////data/broker.db --database DMBrokerage \\
      --queue tradeEntryQueue --master 'local[4]'
  tsqlbroker spark drain --url postgresql+psycopg://broker@db.internal/broker \\
      --database DMBrokerage --queue tradeEntryQueue --handler trades:record \\
      --py-files trades.py --master spark://spark-master:7077 --partitions 64

exit status: 0 every group drained; 1 some group failed or stayed locked (listed);
2 bad usage (no such queue, no procedure, …).
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``tsqlbroker spark``."""
    p = argparse.ArgumentParser(prog="tsqlbroker spark",
                                description="Run Service Broker work on Apache Spark.")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("drain", help="drain a queue's backlog, conversation group by group",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Drain a queue's backlog on Spark: every conversation "
                                   "group in exactly one task, its messages in order, through "
                                   "the queue's activation procedure or a Python handler.")
    d.add_argument("--url", required=True, help="SQLAlchemy URL of the store, reachable "
                                                "from every executor")
    d.add_argument("-d", "--database", required=True, help="the queue's database")
    d.add_argument("--queue", required=True, help="the queue ([schema.]name)")
    how = d.add_mutually_exclusive_group()
    how.add_argument("--procedure", help="T-SQL procedure to run per group (default: the "
                                         "queue's activation procedure)")
    how.add_argument("--handler", metavar="MODULE:FUNCTION",
                     help="Python function called with each group's GroupWork")
    d.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[*]"),
                   help="Spark master URL (default $SPARK_MASTER or local[*])")
    d.add_argument("--partitions", type=int, default=None,
                   help="Spark tasks (default: twice Spark's default parallelism)")
    d.add_argument("--attempts", type=int, default=3,
                   help="tries per group before it is reported as failed (default 3)")
    d.add_argument("--lock-timeout", type=float, default=5.0, metavar="SECONDS",
                   help="wait for a group another reader holds (default 5)")
    d.add_argument("--py-files", default="", metavar="FILES",
                   help="comma-separated .py/.zip files the executors need (a handler's "
                        "module)")
    d.add_argument("--ship", action=argparse.BooleanOptionalAction, default=None,
                   help="send the tsqlbroker package to the executors (default: on for a "
                        "cluster, off for local[…])")
    d.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable)")
    return p


def package_zip(directory: Path) -> Path:
    """The tsqlbroker package as a zip for ``SparkContext.addPyFile``."""
    root = Path(__file__).resolve().parents[1]
    target = directory / "tsqlbroker.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, Path("tsqlbroker") / path.relative_to(root))
    return target


def _conf(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise DrainUsageError(f"--conf takes KEY=VALUE, not {pair!r}")
        out[key.strip()] = value
    return out


def _gist(exc: BaseException) -> str:
    """One line of a Spark error: its first line, and the Python exception it carries."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    first = lines[0] if lines else type(exc).__name__
    cause = next((ln for ln in reversed(lines) if ln.split(":", 1)[0].endswith(
        ("Error", "Exception")) and ln != first), None)
    return first if cause is None else f"{first} ({cause})"


def main(argv: Sequence[str]) -> int:
    """``tsqlbroker spark …``; the exit status."""
    args = build_parser().parse_args(list(argv))
    err = Console(stderr=True)
    out = Console()
    try:
        plan, counts = plan_drain(args.url, args.database, args.queue,
                                  procedure=args.procedure, handler=args.handler,
                                  attempts=args.attempts, lock_timeout=args.lock_timeout)
        conf = _conf(args.conf)
    except Exception as exc:  # noqa: BLE001 - a bad URL, queue, option: one line, no traceback
        close_instances()
        text = (str(exc).replace("\n", ": ") if isinstance(exc, TSqlError | DrainUsageError)
                else _gist(exc))
        print(f"tsqlbroker spark drain: {text}", file=sys.stderr)
        return 2
    try:
        try:
            spark = spark_session(args.master, f"tsqlbroker drain {args.queue}", conf)
        except Exception as exc:  # noqa: BLE001 - no Java, a bad master URL …: one line
            print(f"tsqlbroker spark drain: Spark did not start: {_gist(exc)}",
                  file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="tsqlbroker-spark-") as tmp:
            ship = args.ship if args.ship is not None else not is_loopback_master(args.master)
            if ship:
                spark.sparkContext.addPyFile(str(package_zip(Path(tmp))))
            for f in filter(None, (x.strip() for x in args.py_files.split(","))):
                spark.sparkContext.addPyFile(f)
            if args.handler is not None:
                try:        # here too: a typo fails before any task starts
                    load_handler(args.handler)
                except (ImportError, TypeError, ValueError) as exc:
                    spark.stop()
                    print(f"tsqlbroker spark drain: --handler {args.handler}: {exc}",
                          file=sys.stderr)
                    return 2
            # Some tasks per core, so that a core whose groups are slow is not the tail.
            partitions = args.partitions or 2 * spark.sparkContext.defaultParallelism
            try:
                with progress_bar(err) as bar:
                    task = bar.add_task("drain", total=sum(n for _g, n in counts))
                    report = run_drain(spark, plan, counts, partitions,
                                       on_progress=lambda n, t: bar.update(
                                           task, completed=n, total=t))
            except Exception as exc:  # noqa: BLE001 - Spark's own error is pages long
                print(f"tsqlbroker spark drain: the Spark job failed: {_gist(exc)}",
                      file=sys.stderr)
                return 1
            finally:
                spark.stop()
        render_report(report, out)
        return 1 if report.failures else 0
    finally:
        close_instances()
