"""interpreter/exits.py: SIGTERM and SIGINT leave through SystemExit, so that ``finally`` and
``with`` blocks run; a second signal during that clean-up does not interrupt it; the handlers
before are back after the block."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Signals itself once more while unwinding; prints whether the handlers were put back.
PROGRAM = """
import os, signal, time
from tsqlbroker.interpreter.exits import exiting_on_signals

before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
try:
    with exiting_on_signals(signal.SIGTERM, signal.SIGINT):
        try:
            print("ready", flush=True)
            time.sleep(60)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            print("cleaned up", flush=True)
finally:
    print("restored", all(signal.getsignal(s) is h for s, h in before.items()), flush=True)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_unwinds_the_block_once(signum: signal.Signals) -> None:
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 128 + signum, err
    assert out.splitlines() == ["cleaned up", "restored True"]
    assert err == ""
