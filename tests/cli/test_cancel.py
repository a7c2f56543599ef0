"""SIGINT to ``tsqlbroker -Q`` / ``run`` while a long statement runs: the statement stops
promptly, is reported as cancelled, nothing of it is committed, and the process exits 130.

Real processes on SQLite and PostgreSQL (``persistent_url``: the test reads the store
afterwards). Each statement would run for minutes (or for ever) if not cancelled."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.repl.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROMPT_S = 15  # from SIGINT to exit: generous for a loaded CI machine

SETUP = """CREATE TABLE big (n int);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 700)
INSERT INTO big SELECT n FROM r OPTION (MAXRECURSION 0);
CREATE TABLE dst (n int);"""


def _interrupted(url: str, args: list[str], wait_for: str = "started",
                 settle: float = 1.0) -> tuple[int, list[dict[str, Any]], float]:
    """Run ``tsqlbroker --format json ARGS``, send SIGINT ``settle`` seconds after the
    message ``wait_for``; (exit status, JSON records, seconds from SIGINT to exit)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tsqlbroker", "--url", url,
                             "--format", "json", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    stdout = proc.stdout
    assert stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in stdout],
                              daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        while not any(wait_for in line for line in seen):
            seen.append(lines.get(timeout=60))
        time.sleep(settle)
        assert proc.poll() is None, "the statement ended before it was interrupted"
        os.kill(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        proc.wait(timeout=PROMPT_S * 2)
        elapsed = time.monotonic() - sent
        reader.join(timeout=10)
        assert proc.stderr is not None
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while not lines.empty():
        seen.append(lines.get())
    records = [json.loads(line) for line in seen if line.strip()]
    assert "Traceback" not in err, err
    return proc.returncode, records, elapsed


def _cancelled(records: list[dict[str, Any]]) -> bool:
    return [(r["number"], r["message"]) for r in records if r["type"] == "error"] == [
        (3621, "Query was cancelled by user. The statement has been terminated.")]


def _count(url: str, table: str) -> int:
    """The rows of ``table`` as another session sees them once the process is gone."""
    inst = Instance(url)
    sink = CollectingSink()
    session = inst.session(sink)
    try:
        session.execute(f"SELECT COUNT(*) FROM {table}")
    finally:
        session.close()
        inst.close()
    assert sink.errors() == []
    return int(sink.resultsets()[0].rows[0][0])


def test_sigint_stops_a_runaway_recursive_cte(persistent_url: str) -> None:
    code, records, elapsed = _interrupted(persistent_url, ["-Q", (
        "PRINT 'started';\n"
        "WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)\n"
        "SELECT COUNT(*) FROM r OPTION (MAXRECURSION 0);\n"
        "PRINT 'not reached';")])
    assert code == 130 and elapsed < PROMPT_S
    assert _cancelled(records)
    assert {"type": "message", "text": "not reached"} not in records


def test_sigint_stops_insert_select_and_commits_nothing(persistent_url: str,
                                                        tmp_path: Path) -> None:
    assert main(["--url", persistent_url, "-Q", SETUP]) == 0
    script = tmp_path / "load.sql"
    # 490,000 rows written one by one: the cancel lands in the backend query or among the
    # row writes; either way the statement commits nothing.
    script.write_text("PRINT 'started';\n"
                      "INSERT INTO dst SELECT a.n FROM big AS a CROSS JOIN big AS b;\n"
                      "GO\nPRINT 'next batch';\n", encoding="utf-8")
    code, records, elapsed = _interrupted(persistent_url, ["run", str(script)], settle=2.0)
    assert code == 130 and elapsed < PROMPT_S
    assert _cancelled(records)
    assert {"type": "message", "text": "next batch"} not in records
    assert _count(persistent_url, "dst") == 0


def test_sigint_in_an_open_transaction_rolls_it_back_at_exit(persistent_url: str) -> None:
    """The transaction stays open after the cancel (SQL Server's attention), and the
    process ends it on its way out: nothing is committed."""
    assert main(["--url", persistent_url, "-Q", SETUP]) == 0
    code, records, elapsed = _interrupted(persistent_url, ["-Q", (
        "BEGIN TRANSACTION;\n"
        "INSERT INTO dst VALUES (1);\n"
        "PRINT 'started';\n"
        "SELECT COUNT(*) FROM big AS a, big AS b, big AS c;\n"
        "COMMIT;")])
    assert code == 130 and elapsed < PROMPT_S
    assert _cancelled(records)
    assert _count(persistent_url, "dst") == 0
