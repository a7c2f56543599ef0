"""Data-dependent routing (seed 004) as shipped in ``scripts/routing/``: the demo runs with
``tsqlbroker run`` on each store — queries forwarded by the routing service to the partition
their body names, a partition's Error wrapped back to the client, the client's EndDialog
ending the forwarded dialogs, the redirect variant — and an Error from the initiator's side
travels to the partition the same way. Bounded waits; one process at a time on a store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import FreshPostgres
from tests.tsql_client import Client
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scripts" / "routing" / "demo.sql"


def _run_demo(url: str) -> list[dict[str, Any]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", url, "--format",
                           "json", "run", str(DEMO)], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _wait(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_the_routing_demo_and_errors_from_the_initiator(
        tmp_path: Path, backend: str, fresh_postgres: FreshPostgres) -> None:
    url = f"sqlite:///{tmp_path}/ddr.db" if backend == "sqlite" else fresh_postgres.url()
    events = _run_demo(url)
    assert [e for e in events if e["type"] == "error"] == []
    sets = {tuple(e["columns"]): e["rows"] for e in events if e["type"] == "resultset"}
    assert sets[("kind", "region", "answer")] == [
        ["error", None, "Routed error 50001: The West partition refused the query."],
        ["reply", "East", "150.00"], ["reply", "West", "70.00"]]
    assert sets[("mappings_left",)] == [[0]]
    assert sets[("redirected_to",)] == [["//ddr/Sales/West"]]
    assert sets[("region", "total")] == [["West", "70.00"]]

    # The other direction: the initiator ends with an error; the router passes it on to
    # the partition, which ends its side, and forgets the mapping.
    inst = Instance(url)
    try:
        runtime_for(inst)            # this process hosts the store's activation now
        c = Client(inst, "DDRDemo")
        h = c.scalar("""DECLARE @h uniqueidentifier;
            BEGIN DIALOG @h FROM SERVICE [//ddr/Client]
                TO SERVICE 'urn:rushi.desai.name/RoutingService' ON CONTRACT [//ddr/Sales]
                WITH ENCRYPTION = OFF;
            SEND ON CONVERSATION @h MESSAGE TYPE [//ddr/SalesQuery]
                (N'<message><toServiceName>//ddr/Sales/East</toServiceName></message>');
            SELECT @h;""")
        _wait(lambda: c.scalar(f"SELECT COUNT(*) FROM ClientQueue "
                               f"WHERE conversation_handle = '{h}'") == 1, "East's reply")
        assert c.scalar("SELECT COUNT(*) FROM resolved_conversations") == 2
        c.run(f"DECLARE @h uniqueidentifier = '{h}'; "
              "END CONVERSATION @h WITH ERROR = 7 DESCRIPTION = 'the client gave up';")
        _wait(lambda: c.scalar("SELECT COUNT(*) FROM resolved_conversations") == 0,
              "the router to forget the dialogs")
        east = "SELECT state_desc FROM sys.conversation_endpoints AS e " \
               "JOIN sys.services AS s ON s.service_id = e.service_id " \
               "WHERE s.name = '//ddr/Sales/East'"
        _wait(lambda: {r[0] for r in c.rows(east)} == {"CLOSED"}, "East's side to close")
    finally:
        inst.close()
