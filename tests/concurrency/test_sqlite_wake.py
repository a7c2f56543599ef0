"""Processes sharing one SQLite file wake each other (tsqlbroker.storage.backends.sqlite.wake): a
``WAITFOR (RECEIVE …)`` in one process returns as soon as another process commits a SEND,
not at the next periodic scan; the scan still finds what a lost wake-up would have missed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tsql_client import Client, create_database

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.backends.sqlite import wake as filewake

ROOT = Path(__file__).resolve().parents[2]
DB = "w"
SETUP = """
CREATE QUEUE Q;
CREATE SERVICE [//w/s] ON QUEUE Q ([DEFAULT]);
"""
SEND = """
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//w/s] TO SERVICE '//w/s' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (0x2A);
"""
WAITFOR = "WAITFOR (RECEIVE message_body FROM Q), TIMEOUT 20000"
# The waiting process: says when it is about to wait, then when its WAITFOR returned and
# what it got (wall-clock time, comparable with the sender's).
WAITER = """
import json, sys, time
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink
inst = Instance(sys.argv[1])
sink = CollectingSink()
session = inst.session(sink, sys.argv[2])
session.execute("SELECT 1")
print("ready", flush=True)
session.execute(sys.argv[3])
done = time.time()
rows = [[r[0].hex() for r in rs.rows] for rs in sink.resultsets()[1:]]
print(json.dumps({"done": done, "rows": rows,
                  "errors": [e.render() for e in sink.errors()]}), flush=True)
inst.close()
"""


def _db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    create_database(url, DB, SETUP)
    return url


def test_waitfor_in_another_process_returns_at_the_senders_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scan_s = 10.0
    monkeypatch.setenv(filewake.SCAN_ENV, str(scan_s))
    url = _db_url(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    waiter = subprocess.Popen([sys.executable, "-c", WAITER, url, DB, WAITFOR], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sender = Instance(url)
    try:
        assert waiter.stdout is not None
        assert waiter.stdout.readline().strip() == "ready"
        time.sleep(1.0)          # let it get into its wait (and past any first scan)
        Client(sender, DB).run(SEND)
        sent = time.time()
        out, err = waiter.communicate(timeout=60)
    finally:
        if waiter.poll() is None:
            waiter.kill()
        sender.close()
    result = json.loads(out.strip().splitlines()[-1])
    assert result["errors"] == [], err
    assert result["rows"] == [["2a"]]
    assert result["done"] - sent < scan_s / 2, result


def test_the_periodic_scan_finds_messages_without_wake_ups(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(filewake.SCAN_ENV, "0.5")
    monkeypatch.setenv(filewake.SOCKETS_ENV, "0")
    url = _db_url(tmp_path)
    waiting, sending = Instance(url), Instance(url)   # two stores: as two processes
    try:
        result: dict[str, object] = {}

        def wait() -> None:
            (rs,) = Client(waiting, DB).run(WAITFOR).resultsets()
            result["rows"], result["done"] = rs.rows, time.monotonic()

        thread = threading.Thread(target=wait)
        thread.start()
        time.sleep(0.5)
        Client(sending, DB).run(SEND)
        sent = time.monotonic()
        thread.join(30)
        assert not thread.is_alive()
        assert result["rows"] == [(b"\x2a",)]
        # Found by the scan: within a couple of its periods, far from the 20 s timeout.
        assert float(result["done"]) - sent < 5.0  # type: ignore[arg-type]
        assert not list((tmp_path / "shared.db-wake").glob("*.sock"))
    finally:
        waiting.close()
        sending.close()


def _pair(directory: Path) -> tuple[filewake.FileWake, filewake.FileWake, list[tuple]]:
    got: list[tuple] = []
    db_file = directory / "x.db"
    a = filewake.FileWake(db_file, lambda *e: got.append(e), list, scan_s=30.0)
    b = filewake.FileWake(db_file, lambda *e: None, list, scan_s=30.0)
    a.start()
    b.start()
    return a, b, got


def _wait_for(cond: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_socket_paths_too_long_for_bind_still_work(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    a, b, got = _pair(deep)
    try:
        assert len(str(a.directory / a.name)) > 108
        b.queue_event("enqueued", 5, 77)
        b.queue_event("altered", 5, 77)
        b.queue_event("received", 5, 77)         # not something others need to hear
        assert _wait_for(lambda: len(got) == 2)
        assert sorted(got) == [("e", 5, 77), ("m", 5, 0)]
    finally:
        a.stop()
        b.stop()
    assert not list(a.directory.glob("*.sock"))


def test_a_dead_process_socket_is_removed_by_the_next_sender(tmp_path: Path) -> None:
    a, b, got = _pair(tmp_path)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead_path = a.directory / "99999-deadbeef.sock"
    dead.bind(str(dead_path))
    dead.close()                  # a killed process leaves its socket file behind
    try:
        b.signal("e", 1, 2)
        assert _wait_for(lambda: got == [("e", 1, 2)])
        assert not dead_path.exists()
    finally:
        a.stop()
        b.stop()
