"""Start-up benchmark: how long a client takes to start, do one thing and exit, each command in
fresh processes, the contenders interleaved round by round, medians with the lowest and
highest round beside them:

(a) ``tsqlbroker --url sqlite:// -Q "PRINT 1"`` against ``python -c "import sqlalchemy,
    lark"`` (goal <= 1.5x);
(b) ``tsqlbroker --url <PostgreSQL store> -Q "SELECT 1"`` against a bare psycopg connect +
    ``SELECT 1`` + close (goal <= 2x, issue 18 item 6); needs a server (``--url``,
    ``$TSQLBROKER_PG_URL``, else a private one is started), skipped with a message without;
(c) the first run after install against later runs of (a)'s command (goal <= 2x, item 6):
    each round installs a fresh copy of the package as pip does (the files, byte-compiled,
    and the grammar tables that ``setup.py``'s ``build_py`` derives at build time) with empty
    start-up caches (``$TSQLBROKER_CACHE_DIR``, and ``$TMPDIR`` where Lark keeps
    its own), times its first run, then the runs after it. For reference, the same with a copy
    that is not byte-compiled and has no grammar tables (a source checkout that was never
    installed builds them on its first run; an editable install has them, see setup.py). At most 3 rounds:
    a first run takes seconds.

The package itself is byte-compiled first for (a) and (b), as an installed package is:
with ``PYTHONDONTWRITEBYTECODE`` set, a source checkout would otherwise recompile every module
on every run and the benchmark would time the bytecode compiler.

Run: ``python scripts/bench/startup.py [--rounds N] [--quick] [--check] [--url URL]``. Exit
status 0 (it is a report) unless ``--check`` is given and a goal is missed (1).
"""

from __future__ import annotations

import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

from yardstick import (
    Figure,
    Goal,
    Report,
    arguments,
    conninfo,
    fresh_schema,
    interleaved,
    postgres_server,
    ratio_figure,
)

from tsqlbroker.grammar.loader import ship_tables

PACKAGE = Path(__file__).resolve().parents[2] / "tsqlbroker"
PRINT_1 = [sys.executable, "-m", "tsqlbroker", "--url", "sqlite://", "-Q", "PRINT 1"]


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds a fresh process running ``cmd`` takes; a failing command stops the benchmark.

    With ``env`` (an installed copy's), it runs in the copy's directory: ``python -m`` puts
    the working directory first on ``sys.path``, so from a checkout it would run the
    checkout's package instead of the copy."""
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                          cwd=env["PYTHONPATH"] if env is not None else None, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    return time.perf_counter() - start


def against_baseline(name: str, ours: list[str], base: list[str], goal: Goal, rounds: int
                     ) -> Figure:
    """``ours`` against ``base``, interleaved after one untimed run of each (file-system
    cache, the grammar cache, the store's catalog)."""
    timed(ours), timed(base)
    got = interleaved({"ours": lambda: timed(ours), "base": lambda: timed(base)}, rounds)
    return ratio_figure(name, ("tsqlbroker", [t * 1000 for t in got["ours"]]),
                        ("baseline", [t * 1000 for t in got["base"]]), goal, "ms")


@contextmanager
def installed_copy(compiled: bool) -> Iterator[dict[str, str]]:
    """A fresh copy of the package (byte-compiled when ``compiled``, as pip installs it) and
    empty start-up caches: the environment that runs it."""
    root = Path(tempfile.mkdtemp(prefix="tsqlbroker-bench-install-"))
    try:
        shutil.copytree(PACKAGE, root / "site" / "tsqlbroker",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "tables-*.bin"))
        if compiled:
            compileall.compile_dir(str(root / "site"), quiet=1)
            ship_tables(root / "site" / "tsqlbroker" / "grammar")
        (root / "cache").mkdir()
        (root / "tmp").mkdir()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update({"PYTHONPATH": str(root / "site"), "TSQLBROKER_CACHE_DIR": str(root / "cache"),
                    "TMPDIR": str(root / "tmp")})
        yield env
    finally:
        shutil.rmtree(root, ignore_errors=True)


def first_run(compiled: bool, rounds: int) -> Figure:
    """(c): per round, a fresh install's first run against the median of the two after it."""
    first: list[float] = []
    later: list[float] = []
    for _ in range(rounds):
        with installed_copy(compiled) as env:
            first.append(timed(PRINT_1, env) * 1000)
            later.append(statistics.median(timed(PRINT_1, env) * 1000 for _ in range(2)))
    if compiled:
        return ratio_figure("(c) first run after install vs later runs", ("first", first),
                            ("later", later), Goal(2, at_least=False), "ms")
    return ratio_figure("(c) the same, not byte-compiled, no grammar tables", ("first", first),
                        ("later", later), None, "ms")


def postgres_client(server: str | None, rounds: int) -> Figure:
    """(b) on a store in a fresh schema of ``server``."""
    name = "(b) tsqlbroker on PostgreSQL vs bare psycopg connect + query"
    if server is None:
        return Figure(name, "", skipped="no PostgreSQL server")
    with fresh_schema(server) as store:
        ours = [sys.executable, "-m", "tsqlbroker", "--url", store.url, "-Q", "SELECT 1"]
        base = [sys.executable, "-c",
                "import psycopg; c = psycopg.connect(" + repr(conninfo(server)) + "); "
                "c.execute('SELECT 1').fetchall(); c.close()"]
        return against_baseline(name, ours, base, Goal(2, at_least=False), rounds)


def main(argv: list[str] | None = None) -> int:
    """Measure, print every figure with its goal; 1 under ``--check`` if a goal is missed."""
    ap = arguments(__doc__, rounds=7)
    ap.add_argument("--url", help="PostgreSQL server for (b) (default $TSQLBROKER_PG_URL, "
                                  "else a private one)")
    args = ap.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    compileall.compile_dir(str(PACKAGE), quiet=1)
    report = Report(f"Start-up, {rounds} rounds interleaved; times in ms, median "
                    "(lowest-highest round)")
    report.add(against_baseline("(a) tsqlbroker -Q \"PRINT 1\" vs import sqlalchemy, lark",
                                PRINT_1, [sys.executable, "-c", "import sqlalchemy, lark"],
                                Goal(1.5, at_least=False), rounds))
    with postgres_server(args.url) as server:
        report.add(postgres_client(server, rounds))
    # A first run builds every start-up cache (seconds): three rounds tell enough.
    report.add(first_run(True, min(rounds, 3)))
    report.add(first_run(False, min(rounds, 3)))
    return report.close(args.check)


if __name__ == "__main__":
    raise SystemExit(main())
