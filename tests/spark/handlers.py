"""Python handlers the drain tests run in Spark's workers (on their PYTHONPATH, or shipped
with --py-files)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from trades import record_trades, trade_row

import tsqlbroker


def fail_on_first_trade(work: Any) -> None:
    """Record the group's trades, except that the group holding order 1 always fails."""
    for m in work.messages:
        if m.text and trade_row(m)["orderId"] == 1:
            raise ValueError("bad trade 1")
    record_trades(work)


def slow_record(work: Any) -> None:
    """record_trades, a quarter of a second per group (time to kill the drain midway)."""
    time.sleep(0.25)
    record_trades(work)


def gate_opening_record(work: Any) -> None:
    """slow_record, and a row in drainGate in the same transaction (the drain has committed
    a group: test_drain's competing reader goes on)."""
    slow_record(work)
    work.execute("INSERT INTO drainGate (opened) VALUES (1)")


def shipped_record(work: Any) -> None:
    """slow_record, refusing to run on a tsqlbroker the drain did not ship (--ship)."""
    if "tsqlbroker.zip" not in (tsqlbroker.__file__ or ""):
        raise RuntimeError(f"tsqlbroker imported from {tsqlbroker.__file__}, not shipped")
    slow_record(work)


def _executor_jvm() -> int:
    """The pid of the Spark executor JVM this Python worker runs under (its nearest
    ancestor running CoarseGrainedExecutorBackend)."""
    pid = os.getpid()
    while pid > 1:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"CoarseGrainedExecutorBackend" in cmdline:
            return pid
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
        pid = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("PPid:")))
    raise RuntimeError("not running under a Spark executor")


def kill_executor_once(work: Any) -> None:
    """shipped_record; but the first group of the whole run (the file named by
    $TSQLB_KILL_MARKER does not exist yet) does its work in its transaction and then
    SIGKILLs its executor's JVM before the commit. The marker holds the killed pid."""
    marker = os.environ["TSQLB_KILL_MARKER"]
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        shipped_record(work)
        return
    record_trades(work)
    jvm = _executor_jvm()
    os.write(fd, str(jvm).encode())
    os.close(fd)
    os.kill(jvm, signal.SIGKILL)
    # This worker goes too (as on a machine that died), its connection with it: the store
    # rolls the group's transaction back.
    os.kill(os.getpid(), signal.SIGKILL)
