"""Big-input benchmark: costs that must grow linearly with the input, each measured as the
ratio of a large input's cost per unit to a small one's in the same run (goal ≤ 2: linear,
with room for a busy machine):

(a) GO splitting: seconds per batch splitting 100,000 ``PRINT n`` / ``GO`` batches against
    1,000 of them;
(b) running them (``tsqlbroker run``'s path: sqlcmd preprocessing, splitting, one session on
    ``sqlite://``): seconds per batch for 100,000 against 1,000;
(c) parsing a string literal of 10 MB against one of 100 KB, seconds per MB; and its peak
    memory (tracemalloc) as a multiple of the literal's size (goal ≤ 8).

Each figure takes the best of three rounds (one with ``--quick``). Run: ``python
scripts/bench/input.py [--quick] [--check]``; exit status 0 unless ``--check`` and a goal is
missed (1).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tsqlbroker.grammar import parse, split_batches
from tsqlbroker.repl.runner import ScriptRunner

GOAL_RATIO = 2.0
GOAL_MEMORY = 8.0


def best(fn: Callable[[], object], rounds: int) -> float:
    """The shortest of ``rounds`` timings of ``fn()``."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def batches(n: int) -> str:
    return "".join(f"PRINT {i}\nGO\n" for i in range(n))


def run_seconds(text: str) -> float:
    """Seconds ``run_text`` takes on a runner opened beforehand (opening is no batch's)."""
    runner = ScriptRunner(url="sqlite://", database="master", output_format="text",
                          out=io.StringIO(), err=io.StringIO())
    try:
        start = time.perf_counter()
        runner.run_text(text)
        return time.perf_counter() - start
    finally:
        runner.close()


def literal(size: int) -> str:
    return f"SELECT N'{'x' * size}' AS v;\n"


def report(label: str, value: float, goal: float) -> bool:
    met = value <= goal
    print(f"{label:<58} {value:6.2f}  (goal <= {goal:g})  {'met' if met else 'NOT met'}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one round per figure")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else 3
    parse("PRINT 1")  # the grammar's tables load outside the measures
    results = []

    small, large = batches(1_000), batches(100_000)
    per_small = best(lambda: split_batches(small), rounds) / 1_000
    per_large = best(lambda: split_batches(large), rounds) / 100_000
    results.append(report("(a) GO splitting, per batch: 100,000 vs 1,000 batches",
                          per_large / per_small, GOAL_RATIO))

    per_small = min(run_seconds(small) for _ in range(rounds)) / 1_000
    per_large = run_seconds(large) / 100_000
    print(f"    running 100,000 batches: {per_large * 100_000:.1f} s")
    results.append(report("(b) running batches, per batch: 100,000 vs 1,000",
                          per_large / per_small, GOAL_RATIO))

    kb100, mb10 = literal(100_000), literal(10_000_000)
    per_small = best(lambda: parse(kb100), rounds) / 0.1
    per_large = best(lambda: parse(mb10), rounds) / 10
    print(f"    parsing a 10 MB literal: {per_large * 10:.2f} s")
    results.append(report("(c) parsing a literal, per MB: 10 MB vs 100 KB",
                          per_large / per_small, GOAL_RATIO))
    tracemalloc.start()
    parse(mb10)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    results.append(report("(c) its peak memory / its size", peak / 10_000_000, GOAL_MEMORY))
    return 1 if args.check and not all(results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
