"""The broker benchmark runs (``--quick``) and reports every figure with its goal; ``--check``
turns a missed goal into exit status 1. Timings themselves are never asserted."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "broker.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_broker", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_quick_run_prints_every_goal() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    figures = [line for line in lines if " goal " in line]
    assert len(figures) == 8                 # 4 figures × (file, memory)
    for storage in ("file", "memory"):
        mine = [line for line in figures if line.startswith(storage)]
        assert [line.split()[1] for line in mine] == ["(a)", "(b)", "(c)", "(c)"]
        assert all(line.rstrip().endswith(("MET", "NOT MET")) for line in mine)
    assert lines[-1].endswith("of 8 goals met")


@pytest.mark.parametrize("met, check, status", [
    (True, True, 0), (False, True, 1), (False, False, 0)])
def test_check_flag_exit_status(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str], met: bool, check: bool,
                                status: int) -> None:
    bench = _load()

    def measure(storage: object, quick: bool) -> Iterator[object]:
        yield bench.Figure(storage.label, "(a) stand-in", "1", ">= 0.50", met)  # type: ignore

    monkeypatch.setattr(bench, "measure", measure)
    assert bench.main(["--quick"] + (["--check"] if check else [])) == status
    out = capsys.readouterr().out
    assert ("NOT MET" in out) is (not met)
    assert out.splitlines()[-1] == f"{2 if met else 0} of 2 goals met"


def test_raw_queue_stores_the_broker_message_rows(tmp_path: Path) -> None:
    """(a) compares against a table queue of the same rows: the columns of the broker's
    message table, every one but the key written by the INSERT, each row taken again."""
    import re
    import sqlite3

    from sqlalchemy import MetaData

    from tsqlbroker.engine.broker.schema import broker_tables

    bench = _load()
    broker_columns = [c.name for c in broker_tables(MetaData()).messages.columns]
    storage = bench.Storage("file", str(tmp_path), str(tmp_path / "raw"))
    with bench.raw_queue(storage, bench.MESSAGE_ROW) as loop:
        loop(3)
        db = sqlite3.connect(f"{storage.raw_path}.message.db")
        assert [r[1] for r in db.execute("PRAGMA table_info(q)")] == broker_columns
        assert db.execute("SELECT COUNT(*) FROM q").fetchone() == (0,)
        db.close()
    inserted = re.search(r"\((.*?)\) VALUES", bench.MESSAGE_ROW.insert)
    assert inserted is not None
    assert [c.strip() for c in inserted.group(1).split(",")] == broker_columns[1:]
    # Every message gets its own id and enqueue time, as the broker's rows do.
    first, second = bench.MESSAGE_ROW.values(1), bench.MESSAGE_ROW.values(2)
    assert first["mid"] != second["mid"] and (first["seq"], second["seq"]) == (1, 2)
