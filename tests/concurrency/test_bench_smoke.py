"""The benchmarks run (``--quick``) and report every figure with its goal; ``--check`` turns a
missed goal into exit status 1; the baselines do the same work as the broker. Timings
themselves are never asserted."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import sqlite3
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import MetaData

from tsqlbroker.engine.broker.schema import broker_tables

if TYPE_CHECKING:
    from conftest import FreshPostgres

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench"
VERDICT = re.compile(r"(goal (>=|<=) \S+  (MET|NOT MET)|\(reference\))$")


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))                   # the scripts import their siblings
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def _quick(script: str) -> list[str]:
    done = subprocess.run([sys.executable, str(BENCH / script), "--quick"], capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_quick_run_prints_every_goal() -> None:
    lines = _quick("broker.py")
    figures = [line for line in lines if VERDICT.search(line)]
    assert len(figures) == 12                 # 6 figures × (file, memory)
    for storage in ("file", "memory"):
        mine = [line for line in figures if line.startswith(storage)]
        assert [line.split()[1] for line in mine] == ["(a)", "(b)", "(b)", "(d)", "(c)", "(c)"]
    assert "vs sqlite3" in figures[0]         # the plain driver, not SQLAlchemy
    assert lines[-1].endswith("of 12 goals met")


def test_remote_quick_run_prints_every_goal() -> None:
    lines = _quick("remote.py")
    figures = [line for line in lines if VERDICT.search(line)]
    assert [line.split()[0] for line in figures] == ["(a)", "(b)", "(c)"]
    assert lines[-1].endswith("of 3 goals met")



def test_remote_proxy_keeps_accepting_after_its_target_refused() -> None:
    """The bench's frame-dropping proxy refuses a connection its target refuses (a far
    broker not listening yet) and passes the next one, once the target listens: its accept
    loop used to end at the first refusal, and every later connection then hung in its
    handshake (issue 20: part (b) stalled for minutes)."""
    remote = _load("remote")
    target = socket.socket()
    target.bind(("127.0.0.1", 0))            # bound, not listening: connections refused
    proxy = remote.FrameDropper(int(target.getsockname()[1]), 0.0)
    try:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as first:
            assert first.recv(1) == b""      # refused: closed by the proxy
        target.listen(1)
        target.settimeout(10)
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as second:
            far, _ = target.accept()
            with far:
                frame = struct.pack(">I", 5) + b"hello"
                second.sendall(frame)
                far.settimeout(10)
                got = b""
                while len(got) < len(frame):
                    got += far.recv(64)
                assert got == frame
    finally:
        proxy.close()
        target.close()

def test_postgres_quick_run_prints_every_goal(fresh_postgres: FreshPostgres) -> None:
    """The PostgreSQL benchmark on the tests' server: every section's figures, PGMQ's rows
    measured when its SQL is on the machine and skipped with the reason when not."""
    fresh_postgres.url()              # starts the server once, sets $TSQLBROKER_PG_URL
    assert os.environ.get("TSQLBROKER_PG_URL")
    lines = _quick("postgres.py")
    pgmq = importlib.util.find_spec("pgmq") is not None
    names = [re.split(r"\s{2,}", line)[0] for line in lines
             if VERDICT.search(line) or "SKIPPED" in line]
    expected = []
    for p in (1, 2):
        expected += [f"1. SEND+RECEIVE 1 msg/txn, {p} proc vs {against}" for against in
                     ("PGMQ read+delete in a txn", "PGMQ send+pop", "plain SKIP LOCKED table")]
        expected.append(f"1. SEND+RECEIVE 1 msg/txn, {p} proc: tsqlbroker RECEIVEs that "
                        "found nothing")
        expected.append(f"2. RECEIVE TOP (100), {p} proc vs PGMQ read(100)+delete in a txn")
    expected += ["3. RECEIVE right after a 300-message burst",
                 "4. SEND+RECEIVE beside a held 300-message group"]
    assert names == expected
    skipped = [line for line in lines if "SKIPPED" in line]
    assert len(skipped) == (0 if pgmq else 6)
    assert all("pip install pgmq" in line for line in skipped)
    assert re.fullmatch(r"\d+ of \d+ goals met" + ("" if pgmq else ", 6 skipped"), lines[-1])


@pytest.mark.parametrize("met, check, status", [
    (True, True, 0), (False, True, 1), (False, False, 0)])
def test_check_flag_exit_status(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str], met: bool, check: bool,
                                status: int) -> None:
    bench = _load("broker")

    def measure(storage: object, quick: bool, rounds: int) -> Iterator[object]:
        yield bench.Figure(f"{storage.label} (a) stand-in", "1",  # type: ignore[attr-defined]
                           bench.Goal(0.5), met)

    monkeypatch.setattr(bench, "measure", measure)
    assert bench.main(["--quick"] + (["--check"] if check else [])) == status
    out = capsys.readouterr().out
    assert ("NOT MET" in out) is (not met)
    assert out.splitlines()[-1] == f"{2 if met else 0} of 2 goals met"


def test_plain_queue_stores_the_broker_message_rows(tmp_path: Path) -> None:
    """(a) compares against a table queue of the same rows: the columns of the broker's
    message table, every one but the key written by the INSERT, each row taken again."""
    bench = _load("broker")
    broker_columns = [c.name for c in broker_tables(MetaData()).messages.columns]
    queue = bench.PlainQueue(str(tmp_path / "plain.db"))
    queue.send_receive(3)
    queue.fill(250)
    assert queue.drain() == 250
    db = sqlite3.connect(tmp_path / "plain.db")
    assert [r[1] for r in db.execute("PRAGMA table_info(q)")] == broker_columns
    assert db.execute("SELECT COUNT(*) FROM q").fetchone() == (0,)
    db.close()
    queue.close()
    inserted = re.search(r"\((.*?)\) VALUES", bench.INSERT)
    assert inserted is not None
    assert [c.strip() for c in inserted.group(1).split(",")] == broker_columns[1:]
    # Every message gets its own id and enqueue time, as the broker's rows do.
    first, second = bench.message_values(1), bench.message_values(2)
    assert first["mid"] != second["mid"] and (first["seq"], second["seq"]) == (1, 2)


def test_interleaved_rounds_rotate_and_ratios_pair() -> None:
    """Each round runs every contender once, starting from a different one; a figure's ratio
    is the median of the rounds' ratios and its verdict follows the goal."""
    ys = _load("yardstick")
    order: list[str] = []
    got = ys.interleaved({k: (lambda k=k: order.append(k) or float(len(order)))
                          for k in "abc"}, 3)
    assert order == list("abcbcacab")
    assert got == {"a": [1.0, 6.0, 8.0], "b": [2.0, 4.0, 9.0], "c": [3.0, 5.0, 7.0]}
    fig = ys.ratio_figure("x", ("A", [2.0, 4.0, 9.0]), ("B", [1.0, 4.0, 3.0]), ys.Goal(2.5))
    assert fig.value.endswith("= 2.00 (1.00-3.00)") and fig.met is False
    assert ys.Goal(2, at_least=False).met(2.0) and not ys.Goal(2, at_least=False).met(2.1)


def test_pgmq_sql_is_found_or_missing_with_the_reason(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ys = _load("yardstick")
    given = tmp_path / "pgmq.sql"
    assert ys.pgmq_sql_file(str(given)) == (None, f"{given} does not exist")
    given.write_text("SELECT 1;")
    monkeypatch.setenv("TSQLBROKER_PGMQ_SQL", str(given))
    assert ys.pgmq_sql_file() == (given, str(given))
    monkeypatch.delenv("TSQLBROKER_PGMQ_SQL")
    path, source = ys.pgmq_sql_file()
    if importlib.util.find_spec("pgmq") is None:
        assert path is None and "pip install pgmq" in source
    else:
        assert path is not None and path.name == "pgmq.sql" and "pgmq package" in source
