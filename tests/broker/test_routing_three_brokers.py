"""Seed 004's data-dependent routing across three real ``tsqlbroker serve`` processes
(scripts/routing/three_brokers.py, issue 20 item 5): a router instance and two partition
instances on loopback, each with its own SQLite store and a certificate-authenticated
endpoint. Every query reaches the partition its body names exactly once, its reply comes
back through the router on the client's dialog, and the client's EndDialog travels to the
partitions and theirs back. Bounded; the driver kills the processes in ``finally``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.tsql_client import Client
from tsqlbroker.interpreter.instance import Instance

DRIVER = Path(__file__).resolve().parents[2] / "scripts" / "routing" / "three_brokers.py"
QUERIES = 4


def _driver() -> ModuleType:
    """The driver script, loaded as a module (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("three_brokers", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module         # its dataclass resolves annotations there
    spec.loader.exec_module(module)
    return module


def test_a_router_forwards_to_partitions_on_other_serve_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSQLBROKER_SB_RETRY", "0.2,1")     # the serve processes' back-off
    out = _driver().run_demo(tmp_path, QUERIES, "--format", "json")
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [e for e in events if e["type"] == "error"] == []
    sets = {tuple(e["columns"]): e["rows"] for e in events if e["type"] == "resultset"}
    totals = {"East": "150.00", "West": "70.00"}
    expected = [[n, r, r, totals[r]] for n in range(1, QUERIES + 1)
                for r in ["East" if n % 2 else "West"]]
    assert sets[("query_id", "asked", "answered_by", "total")] == expected
    assert sets[("dialogs_open", "mappings_left")] == [[0, 0]]

    for name, region in (("east", "East"), ("west", "West")):
        inst = Instance(f"sqlite:///{tmp_path / name}.db")   # a reader: the serve is gone
        try:
            c = Client(inst, "DDRPartition")
            handled = c.rows("SELECT region, query_id FROM handled ORDER BY query_id")
            assert handled == [(region, n) for n, r, _, _ in expected if r == region]
            # The router's EndDialog reached the partition, which ended its side.
            assert {r[0] for r in c.rows("SELECT state_desc FROM sys.conversation_endpoints")
                    } <= {"CLOSED"}
            assert c.scalar("SELECT COUNT(*) FROM sys.transmission_queue") == 0
        finally:
            inst.close()
    # The endpoints authenticated each other with their certificates: each partition's
    # log shows the router's connection admitted, nothing refused.
    for name in ("router", "east", "west"):
        log = (tmp_path / f"{name}.log").read_text()
        assert "refused" not in log, log
