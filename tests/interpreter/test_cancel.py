"""Cancelling a running batch (``Session.cancel``: what Ctrl-C, SIGINT and a stopping broker
call): a statement running in the backend stops at once; the statement is rolled back,
the batch ends with Msg 3621, and an open transaction stays open unless XACT_ABORT is ON,
as SQL Server's attention does."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """CREATE TABLE big (n int);
WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 400)
INSERT INTO big SELECT n FROM r OPTION (MAXRECURSION 0);
CREATE TABLE dst (n int);"""
PROMPT_S = 10


def _cancelled_after(session: Any, sink: CollectingSink, text: str, delay: float = 0.5
                     ) -> float:
    """Run ``text``, cancelling it after ``delay`` seconds; how long it ran on after."""
    sink.events.clear()
    timer = threading.Timer(delay, session.cancel)
    timer.start()
    started = time.monotonic()
    try:
        ok = session.execute(text)
    finally:
        timer.cancel()
    assert not ok
    assert [e.number for e in sink.errors()] == [3621]
    return time.monotonic() - started - delay


@pytest.fixture
def loaded(instance: Instance) -> Any:
    sink = CollectingSink()
    s = instance.session(sink)
    assert s.execute(SETUP), sink.errors()
    yield s, sink
    s.close()


def _scalar(session: Any, sink: CollectingSink, sql: str) -> Any:
    sink.events.clear()
    assert session.execute(sql), sink.errors()
    return sink.resultsets()[-1].rows[0][0]


def test_a_long_query_stops_inside_the_backend(loaded: Any) -> None:
    s, sink = loaded
    # 400^4 rows: hours of work for the backend if the cancel did not reach it.
    assert _cancelled_after(s, sink, "SELECT COUNT(*) FROM big a, big b, big c, big d"
                            ) < PROMPT_S
    assert _cancelled_after(s, sink, (
        "WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT COUNT(*) FROM r OPTION (MAXRECURSION 0)")) < PROMPT_S
    assert _scalar(s, sink, "SELECT COUNT(*) FROM big") == 400  # the session goes on


def test_insert_select_is_undone_and_the_transaction_stays_open(loaded: Any) -> None:
    s, sink = loaded
    assert _cancelled_after(s, sink, (
        "BEGIN TRANSACTION; INSERT INTO dst VALUES (-1);\n"
        "INSERT INTO dst SELECT a.n FROM big a, big b, big c;\n"
        "PRINT 'not reached'"), delay=1.0) < PROMPT_S
    assert "not reached" not in sink.messages()
    assert s.trancount == 1
    assert _scalar(s, sink, "SELECT COUNT(*) FROM dst") == 1  # only the earlier row
    assert s.execute("COMMIT")
    assert _scalar(s, sink, "SELECT MIN(n) FROM dst") == -1


def test_xact_abort_on_rolls_the_transaction_back(loaded: Any) -> None:
    s, sink = loaded
    assert _cancelled_after(s, sink, (
        "SET XACT_ABORT ON; BEGIN TRANSACTION; INSERT INTO dst VALUES (-1);\n"
        "SELECT COUNT(*) FROM big a, big b, big c, big d")) < PROMPT_S
    assert s.trancount == 0
    assert _scalar(s, sink, "SELECT COUNT(*) FROM dst") == 0


def test_waitfor_in_a_transaction_leaves_it_open(loaded: Any) -> None:
    s, sink = loaded
    assert _cancelled_after(s, sink, (
        "BEGIN TRANSACTION; INSERT INTO dst VALUES (7); WAITFOR DELAY '00:01:00'")) < PROMPT_S
    assert _scalar(s, sink, "SELECT @@TRANCOUNT") == 1
    assert _scalar(s, sink, "SELECT COUNT(*) FROM dst") == 1
    assert s.execute("ROLLBACK")
    assert _cancelled_after(s, sink, (
        "SET XACT_ABORT ON; BEGIN TRANSACTION; INSERT INTO dst VALUES (7);\n"
        "WAITFOR DELAY '00:01:00'")) < PROMPT_S
    assert _scalar(s, sink, "SELECT @@TRANCOUNT") == 0
    assert _scalar(s, sink, "SELECT COUNT(*) FROM dst") == 0


def test_a_batch_that_ends_first_is_not_cancelled(loaded: Any) -> None:
    """A cancel arriving after the last statement stops nothing and is not reported."""
    s, sink = loaded
    sink.events.clear()
    assert s.execute("INSERT INTO dst VALUES (1)")
    s.cancel()
    assert s.execute("SELECT COUNT(*) FROM dst")  # the next text starts afresh
    assert sink.errors() == []


def test_kill_stops_a_long_query_with_msg_596_and_rolls_back(instance: Instance,
                                                             loaded: Any) -> None:
    # KILL's cancel may reach the victim inside a backend statement (which the storage layer
    # stops with a plain cancellation) or between statements: Msg 596 either way, and the
    # transaction rolls back.
    s, sink = loaded
    killer = instance.session(CollectingSink())
    sink.events.clear()
    timer = threading.Timer(1.0, lambda: killer.execute(f"KILL {s.id}"))
    timer.start()
    started = time.monotonic()
    try:
        ok = s.execute("BEGIN TRANSACTION; INSERT INTO dst VALUES (-1);\n"
                       "SELECT COUNT(*) FROM big a, big b, big c, big d")
    finally:
        timer.join()
    assert not ok
    assert time.monotonic() - started < 1.0 + PROMPT_S
    assert [(e.number, e.severity) for e in sink.errors()] == [(596, 21)]
    assert s.trancount == 0
    killer.execute("SELECT COUNT(*) FROM dst")
    assert killer.sink.resultsets()[-1].rows[0][0] == 0
    killer.close()
