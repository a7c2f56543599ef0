"""The Spark drain benchmark (scripts/bench/spark_drain.py) stopped by SIGTERM stops the
standalone cluster it started: the master and the worker run in sessions of their own, which
a signal to the benchmark's process group does not reach."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from spark_env import ROOT, require_spark

require_spark()

BENCH = ROOT / "scripts" / "bench" / "spark_drain.py"
CLUSTER_CLASSES = ("org.apache.spark.deploy.master.Master",
                   "org.apache.spark.deploy.worker.Worker")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of ``pid``, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    state, ppid, pgrp = text[text.rindex(")") + 2:].split()[:3]     # after "pid (comm) "
    return state, int(ppid), int(pgrp)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def _pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def cluster_groups(parent: int) -> dict[int, str]:
    """The process groups the benchmark ``parent`` started a master or worker in (each
    process leads its own): group id → the class it runs."""
    groups = {}
    for pid in _pids():
        st = _stat(pid)
        cmd = _cmdline(pid)
        if st is not None and st[1:] == (parent, pid):
            for name in CLUSTER_CLASSES:
                if name in cmd:
                    groups[pid] = name
    return groups


def members(groups: set[int]) -> list[tuple[int, str]]:
    """Live (not zombie) processes in ``groups``: the JVMs, the executors a worker started."""
    alive = []
    for pid in _pids():
        st = _stat(pid)
        if st is not None and st[2] in groups and st[0] != "Z":
            alive.append((pid, _cmdline(pid)[:120]))
    return alive


def test_sigterm_stops_the_standalone_cluster_the_benchmark_started() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(BENCH), "--store", "sqlite", "--messages", "40", "--groups", "4",
         "--handlers", "light"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    groups: dict[int, str] = {}
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while not any(ln.startswith("standalone cluster at spark://") for ln in seen):
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, "".join(seen)           # it ended before the cluster
            seen.append(line)
        groups = cluster_groups(proc.pid)
        assert sorted(groups.values()) == sorted(CLUSTER_CLASSES), groups
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(90)
        reader.join(10)
        deadline = time.monotonic() + 30
        while members(set(groups)):
            assert time.monotonic() < deadline, members(set(groups))
            time.sleep(0.2)
        assert status == 128 + signal.SIGTERM       # left through SystemExit, not killed
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        for group in groups:        # whatever a failure left behind
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
