"""A wait for a conversation group another process holds is not starved (claims.py, "waits"):
SQL Server's lock manager grants a released lock to a transaction already waiting for it
before a newcomer. On a shared SQLite file the waiter's row in ``tsqlb_sb_group_waits`` makes
the other processes' picks (RECEIVE / GET CONVERSATION GROUP without WHERE) pass over the
group, so a holder that commits and RECEIVEs again at once does not take it back every time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_sqlite_claims import DB, SETUP, SLEEP_TO_DEADLINE
from tsql_client import Client, create_database, send_batch

from tsqlbroker.engine.broker import claims
from tsqlbroker.engine.broker.waits import QueueSignals
from tsqlbroker.interpreter.instance import Instance

ROOT = Path(__file__).resolve().parents[2]
HOLDER = Path(__file__).with_name("group_holder.py")
LOOK_EVERY_S = 0.5


def test_a_waiting_receive_where_gets_the_group_from_a_holder_that_keeps_receiving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'waits.db'}"
    create_database(url, DB, SETUP + send_batch(400))
    # The waiter looks again only every half second, whatever it hears: as on a loaded
    # machine, where the holder's next pick always comes first (the holder commits and
    # picks in one batch). Without the waiter's row it would then never get the group.
    monkeypatch.setattr(claims, "_WAIT_STEP_S", LOOK_EVERY_S)
    monkeypatch.setattr(QueueSignals, "wait_change", SLEEP_TO_DEADLINE)
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get(
        "PYTHONPATH", "")}
    holder = subprocess.Popen([sys.executable, str(HOLDER), url, DB, str(stop), "60"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)
    inst = Instance(url)
    try:
        first = holder.stdout.readline().split()      # type: ignore[union-attr]
        assert first[:1] == ["held"], holder.stderr.read()  # type: ignore[union-attr]
        waiter = Client(inst, DB)
        (handle,) = waiter.rows("SELECT TOP (1) conversation_handle FROM TargQ")[0]
        started = time.monotonic()
        rows = waiter.rows("BEGIN TRAN; WAITFOR (RECEIVE TOP (1) conversation_group_id "
                           f"FROM TargQ WHERE conversation_handle = '{handle}'), "
                           "TIMEOUT 4000")
        waited = time.monotonic() - started
        waiter.run("COMMIT")
        # The holder kept receiving (it holds the group again by the time the waiter is done).
        after: list[list[str]] = []
        while not after or after[-1][:1] != ["held"]:
            line = holder.stdout.readline()       # type: ignore[union-attr]
            if not line:
                break
            after.append(line.split())
        stop.touch()
        out, err = holder.communicate(timeout=30)
    finally:
        stop.touch()
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        inst.close()
    assert holder.returncode == 0, err
    # The waiter got the group at one of its next looks, not at the end of its timeout …
    assert [str(r[0]).upper() for r in rows] == [first[1]], \
        f"the waiter got nothing in {waited:.1f} s"
    # … while the holder went on receiving in its loop.
    assert after and after[-1] == first, (after, out, err)
