"""Long operator chains: compiling ``b + ',' + b + …`` and ``1 + 1 + …`` must take work in
proportion to the expression (issue 14: 11 concatenation pairs once took 63 s).

Prints, for a chain of 500 terms, its compile-and-run time against 50 statements of 10
terms (the same number of operators, compiled as short expressions) in the same run, with
its goal (≤ 3×: linear up to the constant costs of one longer statement), and the absolute
time of the 500-term chain (goal: well under a second). Each statement text is new, so
nothing comes from the compile caches.

Run: ``python scripts/bench/chains.py [--url URL]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

TERMS = 500
SHORT = 10
REPEATS = 3
CHAINS = {
    "string concatenation (engine)": ("SELECT LEN({}) FROM t WHERE k = {}", "b", " + ',' + "),
    "integer sum (engine)": ("SELECT {} FROM t WHERE k = {}", "i", " + "),
    "constant sum (interpreter)": ("SELECT {} + {}", "1", " + "),
}


def _run(session: Any, sink: CollectingSink, texts: list[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        sink.events.clear()
        session.execute(text)
        if sink.errors():
            raise SystemExit(f"failed: {sink.errors()[0]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="sqlite://")
    args = parser.parse_args()
    inst = Instance(args.url)
    sink = CollectingSink()
    session = inst.session(sink)
    session.execute("CREATE TABLE t (k int, b varchar(10), i int); INSERT t VALUES (0, 'x', 1)")
    serial = iter(range(1, 1 << 30))
    try:
        for name, (shape, term, sep) in CHAINS.items():
            long_times, short_times = [], []
            for _ in range(REPEATS):
                long_times.append(_run(session, sink, [
                    shape.format(sep.join([term] * TERMS), -next(serial))]))
                short_times.append(_run(session, sink, [
                    shape.format(sep.join([term] * SHORT), -next(serial))
                    for _ in range(TERMS // SHORT)]))
            best_long, best_short = min(long_times), min(short_times)
            print(f"{name}: {TERMS} terms {best_long * 1000:.0f} ms (goal < 1000 ms); "
                  f"against {TERMS // SHORT} x {SHORT} terms {best_short * 1000:.0f} ms: "
                  f"{best_long / best_short:.2f}x (goal <= 3x)")
    finally:
        session.close()
        inst.close()


if __name__ == "__main__":
    main()
