"""The REPL on the real interpreter, driven through piped input: on SQLite and on a fresh
PostgreSQL schema (``backend_url``), so the helper session's catalog queries and the broker
views (``:queues``, ``:conversations``, ``:services``, ``:activation``) run on both stores."""

from __future__ import annotations

import _thread
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.output import DummyOutput

from tests.repl.conftest import output_of
from tsqlbroker.repl.completer import TSqlCompleter
from tsqlbroker.repl.config import parse_config
from tsqlbroker.repl.main import Repl

# A new database has its broker enabled (master's is not, as in SQL Server).
SETUP = """\
CREATE DATABASE Trading;
GO
USE Trading;
GO
CREATE MESSAGE TYPE [//www.develop.com/DMBrokerage/Trade] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//www.develop.com/DMBrokerage/TradeContract]
    ([//www.develop.com/DMBrokerage/Trade] SENT BY INITIATOR);
CREATE QUEUE TradeQueue;
CREATE SERVICE [//www.develop.com/DMBrokerage/TradeEntry] ON QUEUE TradeQueue
    ([//www.develop.com/DMBrokerage/TradeContract]);
GO
"""

SEND = """\
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//www.develop.com/DMBrokerage/TradeEntry]
    TO SERVICE '//www.develop.com/DMBrokerage/TradeEntry'
    ON CONTRACT [//www.develop.com/DMBrokerage/TradeContract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE [//www.develop.com/DMBrokerage/Trade] (N'<trade/>');
GO
"""


@pytest.fixture
def repl(console: Any, pipe: Any, backend_url: str) -> Iterator[Repl]:
    config = parse_config("")
    config.history_file = None
    config.pager = ""
    r = Repl(config, url=backend_url, console=console, input=pipe, output=DummyOutput())
    yield r
    r.close()


def complete(repl: Repl, text: str) -> list[str]:
    repl.catalog.refresh(repl.current_database).result(timeout=20)
    completer = TSqlCompleter(repl.catalog.snapshot)
    return [c.text for c in completer.get_completions(Document(text, len(text)),
                                                       CompleteEvent(completion_requested=True))]


def test_typed_batch_shows_a_table(repl: Repl, pipe: Any, console: Any) -> None:
    pipe.send_text("SELECT 1 AS one,\rNULL AS nothing\rGO\r\x04")
    assert repl.run() == 0
    out = output_of(console)
    assert "one" in out and "nothing" in out and "NULL" in out
    assert "(1 row affected)" in out


def test_failing_batch_then_more(repl: Repl, pipe: Any, console: Any) -> None:
    pipe.send_text("SELECT 1/0\rGO\rPRINT 'next'\rGO\r\x04")
    assert repl.run() == 0
    out = output_of(console)
    assert "Msg 8134, Level 16, State 1, Line 1" in out and "next" in out


def test_queue_and_service_names_complete_from_the_catalog(repl: Repl, console: Any) -> None:
    repl.handle(SETUP)
    assert "Msg" not in output_of(console)
    assert complete(repl, "RECEIVE TOP(1) * FROM Tra") == ["TradeQueue"]
    assert complete(repl, "BEGIN DIALOG @h FROM SERVICE //www.develop.com/DMBrokerage/T") == [
        "[//www.develop.com/DMBrokerage/TradeEntry]"]
    assert "[//www.develop.com/DMBrokerage/TradeContract]" in complete(repl, "ON CONTRACT [//")
    repl.handle("CREATE TABLE Trades (TradeId int, Symbol nvarchar(10))\nGO")
    assert complete(repl, "SELECT * FROM Trad") == ["Trades", "TradeQueue"]  # queues too
    # Column names as declared (PostgreSQL stores them folded to lower case).
    assert complete(repl, "SELECT Trades.") == ["TradeId", "Symbol"]


def test_queues_view_counts_a_sent_message(repl: Repl, console: Any) -> None:
    repl.handle(SETUP)
    repl.handle(SEND)
    repl.handle(":queues")
    row = next(line for line in output_of(console).splitlines() if "dbo.TradeQueue" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells[:4] == ["dbo.TradeQueue", "ON", "1", "1"]
    console.width = 200  # room for every column of :conversations unwrapped
    repl.handle(":conversations")
    out = output_of(console)
    assert out.count("CONVERSING") == 2
    assert " age " in out  # the broker knows when each endpoint was created
    ages = [line for line in out.splitlines() if "CONVERSING" in line]
    assert all(re.search(r"│\s*\d+s\s*│", line) for line in ages)


def test_activated_procedure_output_reaches_the_log(repl: Repl, console: Any) -> None:
    repl.handle(SETUP)
    repl.handle("""\
CREATE PROCEDURE TradeHandler AS
BEGIN
    DECLARE @body xml;
    RECEIVE TOP(1) @body = CAST(message_body AS xml) FROM TradeQueue;
    PRINT 'handled ' + CAST(@body AS nvarchar(100));
END
GO
ALTER QUEUE TradeQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = TradeHandler,
    MAX_QUEUE_READERS = 1, EXECUTE AS SELF);
GO
""")
    repl.handle(SEND)
    deadline = time.monotonic() + 15
    while "handled <trade />" not in output_of(console) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "output the following: 'handled <trade />'" in output_of(console)
    assert any("handled" in line for line in repl.log_tail(10))
    console.width = 200
    repl.handle(":queues")
    row = next(line for line in output_of(console).splitlines() if "dbo.TradeQueue" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    # Activation on, the procedure as stored, at most one reader of MAX_QUEUE_READERS 1.
    assert cells[4] == "ON" and cells[5].lower().endswith("[dbo].[tradehandler]")
    assert cells[6] in ("0/1", "1/1")
    repl.handle(":activation")
    # Queues by name, with their database (activation runs in every database).
    monitors = [cells for cells in table_rows(console, "Trading") if cells[1] == "TradeQueue"]
    assert monitors and monitors[-1][2] in ("INACTIVE", "NOTIFIED", "RECEIVES_OCCURRING")


def test_activation_setting_decides_whether_this_repl_hosts(repl: Repl, console: Any) -> None:
    repl.handle(":activation off")
    assert "Activation off: this process" in output_of(console)
    assert "does not host" in output_of(console)
    repl.handle(":activation auto")
    assert "hosts activation, timers and transmission" in output_of(console)
    repl.handle(":activation sometimes")
    assert "Usage: :activation [auto|on|off]" in output_of(console)
    assert repl.config.activation == "auto"


def table_rows(console: Any, first_cell: str) -> list[list[str]]:
    """The cells of the rendered table rows whose first cell is ``first_cell``."""
    rows = []
    for line in output_of(console).splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if cells and cells[0] == first_cell:
            rows.append(cells)
    return rows


def test_services_view_and_a_conversation_timer(repl: Repl, console: Any) -> None:
    repl.handle(SETUP)
    repl.handle(SEND.replace("GO\n", "BEGIN CONVERSATION TIMER (@h) TIMEOUT = 600;\nGO\n"))
    assert "Msg" not in output_of(console)
    console.width = 200
    repl.handle(":services")
    assert table_rows(console, "//www.develop.com/DMBrokerage/TradeEntry") == [[
        "//www.develop.com/DMBrokerage/TradeEntry", "TradeQueue",
        "//www.develop.com/DMBrokerage/TradeContract"]]
    repl.handle(":conversations")
    rows = [[c.strip() for c in line.strip("│ ").split("│")]
            for line in output_of(console).splitlines() if "CONVERSING" in line]
    timers = {row[1]: row[-1] for row in rows}
    # The initiator's timer is due in about ten minutes; the target has none.
    assert re.fullmatch(r"(9m[0-5]\ds|10m00s)", timers["initiator"]), timers
    assert timers["target"] == "NULL"


def test_cancel_stops_a_waitfor(repl: Repl, console: Any) -> None:
    repl.handle("PRINT 'warm'\nGO")  # the parser is built before the clock starts
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    try:
        repl.handle("WAITFOR DELAY '00:00:30'\nGO")
    finally:
        timer.cancel()
    assert time.monotonic() - started < 10
    assert "cancelled by user" in output_of(console)
    repl.handle("PRINT 'after'\nGO")
    assert output_of(console).rstrip().endswith("after")


def test_cancel_stops_a_long_query_and_keeps_the_transaction(repl: Repl, console: Any) -> None:
    """Ctrl-C (a KeyboardInterrupt in the main thread) stops a query the backend is busy
    with; the open transaction stays open, as SQL Server's attention leaves it."""
    repl.handle("CREATE TABLE big (n int); WITH r (n) AS (SELECT 1 UNION ALL SELECT n + 1 "
                "FROM r WHERE n < 300) INSERT big SELECT n FROM r OPTION (MAXRECURSION 0)\nGO")
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    try:
        repl.handle("BEGIN TRAN; INSERT big VALUES (0);\n"
                    "SELECT COUNT(*) FROM big a, big b, big c, big d\nGO")
    finally:
        timer.cancel()
    assert time.monotonic() - started < 10
    out = output_of(console)
    assert out.count("Query was cancelled by user.") == 1
    repl.handle("SELECT @@TRANCOUNT AS open_tran, COUNT(*) AS n FROM big\nGO")
    assert re.search(r"│\s+1 │\s+301 │", output_of(console))
    repl.handle("ROLLBACK\nGO")


def test_ctrl_c_after_the_batch_ended_reports_nothing(repl: Repl, console: Any) -> None:
    """A cancel that comes too late stops nothing, and nothing says it did."""
    repl.session.cancel()  # as if Ctrl-C came just as the batch ended
    repl.handle("PRINT 'done'\nGO")
    out = output_of(console)
    assert "done" in out and "cancelled" not in out


def test_connect_reopens_a_shared_store(console: Any, pipe: Any, persistent_url: str) -> None:
    """``:connect`` to the store the REPL is on opens a second instance that sees its objects
    (an SQLite file, or the test's PostgreSQL schema)."""
    from sqlalchemy.engine import make_url

    from tsqlbroker.repl.main import describe_storage

    config = parse_config("")
    config.history_file = None
    config.pager = ""
    r = Repl(config, url=persistent_url, console=console, input=pipe, output=DummyOutput())
    try:
        assert describe_storage(r) == make_url(persistent_url).render_as_string(
            hide_password=True)
        r.handle(SETUP)
        r.handle(SEND)
        old = r.instance
        r.handle(f":connect {persistent_url}")
        assert r.instance is not old and "Connected to" in output_of(console)
        r.handle("USE Trading\nGO")
        assert r.current_database == "Trading"
        r.handle(":queues")
        assert table_rows(console, "dbo.TradeQueue")[-1][:4] == [
            "dbo.TradeQueue", "ON", "1", "1"]
        assert "Msg" not in output_of(console)
    finally:
        r.close()
