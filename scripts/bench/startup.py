"""Cold-start benchmark: ``tsqlbroker -Q "PRINT 1"`` against ``python -c "import sqlalchemy,
lark"`` in the same run (goal: ratio ≤ 1.5).

Each command runs several times in fresh processes, alternating, and the medians are compared,
so that a busy machine slows both sides alike. The package is byte-compiled first, as an
installed package is (pip compiles on install; SQLAlchemy and Lark on the other side are):
with ``PYTHONDONTWRITEBYTECODE`` set, a source checkout would otherwise recompile every module
on every run and the benchmark would time the bytecode compiler. Usage: ``python scripts/bench/startup.py
[--runs N] [--check]`` (``--check`` exits 1 when the goal is missed).
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import time
from pathlib import Path

GOAL = 1.5


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    package = Path(__file__).resolve().parents[2] / "tsqlbroker"
    compileall.compile_dir(str(package), quiet=1)
    ours = [sys.executable, "-m", "tsqlbroker", "--url", "sqlite://", "-Q", "PRINT 1"]
    base = [sys.executable, "-c", "import sqlalchemy, lark"]
    timed(ours), timed(base)  # warm the file-system cache and the grammar cache
    a: list[float] = []
    b: list[float] = []
    for _ in range(args.runs):
        a.append(timed(ours))
        b.append(timed(base))
    ours_s, base_s = statistics.median(a), statistics.median(b)
    ratio = ours_s / base_s
    met = ratio <= GOAL
    print(f"tsqlbroker -Q \"PRINT 1\"           median {ours_s * 1000:7.1f} ms")
    print(f"python -c \"import sqlalchemy, lark\" median {base_s * 1000:7.1f} ms")
    print(f"ratio {ratio:.2f}  (goal <= {GOAL})  {'met' if met else 'NOT met'}")
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    raise SystemExit(main())
