"""``tsqlbroker spark drain``: every conversation group in exactly one Spark task, its
messages in order, through a Python handler or the queue's activation procedure; exactly
once across retried tasks, killed drivers and other readers; failing groups reported and
counted toward poison-message handling."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from rich.console import Console
from spark_env import HERE, ROOT, SCRIPTS, brokerage, require_spark, trade_store

require_spark()

from tsql_client import Client

from tsqlbroker.spark.drain import DrainReport, plan_drain, render_report, run_drain
from tsqlbroker.spark.groups import GroupOutcome

if TYPE_CHECKING:
    from conftest import FreshPostgres

DIALOGS, TRADES = 6, 4
ALL = list(range(1, DIALOGS * TRADES + 1))


@pytest.fixture
def store(persistent_url: str) -> str:
    trade_store(persistent_url, dialogs=DIALOGS, trades=TRADES)
    return persistent_url


@pytest.fixture
def sqlite_store(tmp_path: Path) -> str:
    """A trade store on SQLite only (what is tested is SQLite's own case)."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    trade_store(url, dialogs=DIALOGS, trades=TRADES)
    return url


@pytest.fixture
def pg_store(fresh_postgres: FreshPostgres) -> str:
    """A trade store on PostgreSQL only (skipped with TSQLBROKER_SKIP_POSTGRES=1)."""
    url = fresh_postgres.url()
    trade_store(url, dialogs=DIALOGS, trades=TRADES)
    return url


def drain(spark: Any, url: str, partitions: int = 3, **plan: Any) -> DrainReport:
    p, counts = plan_drain(url, "DMBrokerage", "tradeEntryQueue", **plan)
    return run_drain(spark, p, counts, partitions)


def logged(client: Client) -> list[int]:
    return sorted(r[0] for r in client.rows("SELECT orderId FROM tradeLog"))


def assert_drained_once_in_order(client: Client) -> None:
    assert logged(client) == ALL                                   # each trade once
    rows = client.rows("SELECT handle, orderId FROM tradeLog ORDER BY logId")
    per_dialog: dict[str, list[int]] = {}
    for handle, order in rows:
        per_dialog.setdefault(str(handle), []).append(order)
    assert all(v == sorted(v) for v in per_dialog.values())        # in order
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0
    acks = client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue WHERE "
                         "message_type_name = '//www.develop.com/DMBrokerage/TradeAck'")
    assert acks == len(ALL)                                        # answered over the broker


def test_a_python_handler_drains_each_group_once_in_order(spark: Any, store: str,
                                                          client: Client) -> None:
    report = drain(spark, store, handler="trades:record_trades")
    assert (report.count("done"), report.messages, report.failures) == (DIALOGS, len(ALL), [])
    assert_drained_once_in_order(client)


def test_the_queues_activation_procedure_drains_each_group(spark: Any, store: str,
                                                           client: Client) -> None:
    report = drain(spark, store)                    # tradeEntryProc, run in the executors
    assert (report.count("done"), report.messages, report.failures) == (DIALOGS, len(ALL), [])
    assert_drained_once_in_order(client)
    # Each dialog was ended after its last trade: the traders see EndDialog.
    assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue WHERE "
                         "message_type_name LIKE '%EndDialog'") == DIALOGS


def test_a_task_run_again_after_a_commit_does_nothing_twice(spark: Any, store: str,
                                                            client: Client) -> None:
    report = drain(spark, store, partitions=2, handler="trades:record_trades",
                   fail_after_commit=True)
    # The retried tasks found the groups their first attempts committed already drained.
    assert report.count("done") + report.count("empty") == DIALOGS
    assert report.count("empty") == 2
    assert_drained_once_in_order(client)


def test_a_group_whose_handler_keeps_failing_is_left_reported_and_counts_as_poison(
        spark: Any, store: str, client: Client) -> None:
    report = drain(spark, store, partitions=1, handler="handlers:fail_on_first_trade",
                   attempts=2)
    [failed] = report.failures
    assert (failed.status, failed.attempts) == ("failed", 2)
    assert "ValueError: bad trade 1" in (failed.error or "")
    assert report.count("done") == DIALOGS - 1 and not report.queue_disabled
    assert logged(client) == ALL[TRADES:]
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == TRADES
    # Five rollbacks in a row disable the queue (POISON_MESSAGE_HANDLING is ON).
    report = drain(spark, store, partitions=1, handler="handlers:fail_on_first_trade",
                   attempts=5)
    assert report.queue_disabled and report.failures[0].attempts == 5
    assert client.scalar("SELECT is_receive_enabled FROM sys.service_queues "
                         "WHERE name = 'tradeEntryQueue'") == 0
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == TRADES


# The competitor stops after this many trades until the drain has committed a group (a row
# in drainGate): the drain plans every group and cannot find the queue emptied before its
# tasks start, however long Spark takes to start them on a loaded machine.
HEAD_START = 2


def competing_reader(url: str) -> subprocess.Popen[str]:
    """Another process reading the queue as the chapter's activation procedure does
    (tradeEntryProc: one message per transaction, its trade logged, acknowledged), pausing
    50 ms after each RECEIVE with the group held (on SQLite: a published group claim).
    After :data:`HEAD_START` trades it waits, holding nothing, until drainGate has a row."""
    text = (SCRIPTS / "trades.sql").read_text(encoding="utf-8")
    start = text.index("CREATE PROCEDURE tradeEntryProc")
    body = text[start:text.index("GO", start)].replace("tradeEntryProc", "competingProc", 1)
    loop_start = body.index("WHILE (1 = 1)\nBEGIN\n") + len("WHILE (1 = 1)\nBEGIN\n")
    gate = (f"    WHILE (SELECT COUNT(*) FROM tradeLog) >= {HEAD_START}\n"
            "          AND NOT EXISTS (SELECT * FROM drainGate)\n"
            "        WAITFOR DELAY '00:00:00.050';\n")
    body = body[:loop_start] + gate + body[loop_start:]
    receive_end = body.index("WHERE conversation_group_id = @si;") + len(
        "WHERE conversation_group_id = @si;")
    body = body[:receive_end] + "\n    WAITFOR DELAY '00:00:00.050';" + body[receive_end:]
    with brokerage(url) as client:
        client.run("CREATE TABLE drainGate (opened int NOT NULL);")
        client.run(body)
    return subprocess.Popen(
        [sys.executable, "-m", "tsqlbroker", "--url", url, "-d", "DMBrokerage",
         "--activation", "off", "-b", "-Q", "EXEC competingProc"],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_drain_beside_another_reader_process_consumes_each_message_once(
        spark: Any, store: str, client: Client) -> None:
    # Another process drains the same queue meanwhile (real group locks between processes:
    # a PostgreSQL row lock, an SQLite claim). Every trade is logged by one of the two, once.
    competitor = competing_reader(store)
    try:
        deadline = time.monotonic() + 60
        while len(logged(client)) < HEAD_START:     # the competitor's head start, then it waits
            assert competitor.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # The drain's first commit opens the gate (handlers.gate_opening_record): from then
        # on both read the queue together.
        report = drain(spark, store, handler="handlers:gate_opening_record")
        client.run("INSERT INTO drainGate (opened) VALUES (0);")   # had the drain done nothing
        out, _ = competitor.communicate(timeout=120)
    finally:
        if competitor.poll() is None:
            competitor.kill()
            competitor.wait(10)
    assert competitor.returncode == 0, out
    assert report.planned_groups == DIALOGS and report.failures == []
    assert 0 < report.messages <= len(ALL) - HEAD_START          # each of the two read some
    assert report.count("done") + report.count("empty") == DIALOGS
    assert_drained_once_in_order(client)


def test_a_group_another_reader_holds_is_left_busy_then_drained(spark: Any,
                                                                pg_store: str) -> None:
    # Another process holds a group's lock (on PostgreSQL a row lock every process sees).
    with brokerage(pg_store) as holder, brokerage(pg_store) as client:
        holder.run("BEGIN TRAN; DECLARE @g uniqueidentifier; "
                   "GET CONVERSATION GROUP @g FROM tradeEntryQueue;")
        report = drain(spark, pg_store, handler="trades:record_trades", lock_timeout=0.5)
        assert [o.status for o in report.failures] == ["busy"]
        assert len(logged(client)) == len(ALL) - TRADES
        holder.run("ROLLBACK")
        report = drain(spark, pg_store, handler="trades:record_trades")
        assert report.count("done") == 1 and report.count("failed") == 0
        assert_drained_once_in_order(client)


def _cli(url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tsqlbroker", "spark", "drain", "--url", url,
            "--database", "DMBrokerage", "--queue", "tradeEntryQueue", *extra]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")


def test_the_command_reruns_after_a_killed_driver_to_exactly_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    groups, total = 24, 48            # dialogs of 2 trades
    trade_store(url, dialogs=groups, trades=2)
    args = _cli(url, "--handler", "handlers:slow_record", "--master", "local[2]",
                "--partitions", "4", "--py-files",
                f"{SCRIPTS / 'trades.py'},{HERE / 'handlers.py'}")
    with brokerage(url) as watcher:
        proc = subprocess.Popen(args, env=_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 240
            while watcher.scalar("SELECT COUNT(*) FROM tradeLog") < 8:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)       # the driver, its JVM, its workers
            proc.wait(30)
        # Spark's Python workers (a process group of their own) go when they see the JVM
        # gone; one may still commit the group it is in.
        part, now = -1, 0
        while now != part:
            part = now
            time.sleep(1.0)
            now = watcher.scalar("SELECT COUNT(*) FROM tradeLog")
        assert 8 <= part < total
        # The rerun as on a terminal: its progress bar on stderr, its summary on stdout.
        done = subprocess.run(args, env=dict(_env(), TTY_COMPATIBLE="1", TTY_INTERACTIVE="1"),
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        bar, summary = (re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # colours, cursor moves
                        for text in (done.stderr, done.stdout))
        assert re.search(rf"draining \S+ +0/{total - part} messages", bar), bar
        assert re.search(rf"draining \S+ +{total - part}/{total - part} messages", bar), bar
        header = next(ln for ln in summary.splitlines() if "┃" in ln)
        assert [c.strip() for c in header.split("┃")[1:-1]] == [
            "groups", "drained", "empty", "failed", "busy", "messages", "left", "seconds",
            "messages/s"]
        row = [c.strip() for c in summary.splitlines()[-2].split("│")[1:-1]]
        left = str(groups - part // 2)
        assert row[:7] == [left, left, "0", "0", "0", str(total - part), "0"], summary
        assert float(row[8]) > 0
        assert sorted(r[0] for r in watcher.rows("SELECT orderId FROM tradeLog")) == list(
            range(1, total + 1))
        assert watcher.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0


def test_bad_usage_is_one_line_and_status_2(sqlite_store: str) -> None:
    done = subprocess.run(_cli(sqlite_store, "--queue", "noSuchQueue"), env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        ("tsqlbroker spark drain: Msg 208, Level 16, State 1, Line 1: "
        "Invalid object name 'noSuchQueue'.")]


def test_the_summary_lists_the_groups_left_and_a_disabled_queue() -> None:
    outcomes = [GroupOutcome("A1", "done", 4, 1, 0.2),
                GroupOutcome("B2", "failed", 0, 3, 0.1, "ValueError: bad trade 1"),
                GroupOutcome("C3", "busy", 0, 1, 5.0)]
    report = DrainReport("dbo.tradeEntryQueue", 3, 12, 2, seconds=2.0, outcomes=outcomes,
                         remaining=8, queue_disabled=True)
    console = Console(width=120, record=True)
    render_report(report, console)
    text = console.export_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("│"))
    assert [c.strip() for c in row.split("│")[1:-1]] == [
        "3", "1", "0", "1", "1", "4", "8", "2.0", "2"]
    assert re.search(r"B2 +│ failed +│ 3 +│ ValueError: bad trade 1", text)
    assert re.search(r"C3 +│ busy +│ 1 +│ locked by another reader", text)
    assert "queue dbo.tradeEntryQueue is disabled (poison-message handling)" in text
