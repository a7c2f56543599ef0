"""Deadlocks between processes sharing one PostgreSQL store end as in SQL Server: one
transaction is chosen as the victim (Msg 1205, its transaction rolled back, the batch
aborted) and the other goes on.

Each side is an :class:`Instance` of its own — its own store, lock manager and connections —
so the only thing the two share is the PostgreSQL server, exactly as two ``tsqlbroker serve``
processes do. The cycle is formed by ``RECEIVE … WHERE conversation_group_id = …`` (which must
wait for a held group) and, in the mixed case, by a user-table row lock the other way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from tsql_client import Client, create_database

from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

DB = "dl"
SETUP = """
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//dl/Init] ON QUEUE InitQ;
CREATE SERVICE [//dl/Targ] ON QUEUE TargQ ([DEFAULT]);
CREATE TABLE Acct (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO Acct VALUES (1, 0);
DECLARE @h uniqueidentifier, @i int = 0;
WHILE @i < 2
BEGIN
    BEGIN DIALOG @h FROM SERVICE [//dl/Init] TO SERVICE '//dl/Targ' WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h (CAST(@i AS varbinary(4)));
    SEND ON CONVERSATION @h (CAST(@i + 10 AS varbinary(4)));
    SET @i += 1;
END;
"""
RECEIVE = "RECEIVE conversation_group_id, message_body FROM TargQ WHERE conversation_group_id = '{}'"
# SQL Server's own bound on how long a cycle may stand before a victim is chosen is a few
# seconds; PostgreSQL looks after deadlock_timeout (1 s by default).
BOUND_S = 10.0


@pytest.fixture
def pg_url(fresh_postgres: FreshPostgres) -> str:
    """A fresh PostgreSQL schema holding two conversations (one group each, two messages
    each) on TargQ and a one-row user table."""
    url = fresh_postgres.url()
    create_database(url, DB, SETUP)
    return url


@pytest.fixture
def pair(pg_url: str) -> Iterator[tuple[Client, Client, list[str]]]:
    """Two clients of two separate instances on the store, and the queue's two groups."""
    first, second = Instance(pg_url), Instance(pg_url)
    try:
        a, b = Client(first, DB), Client(second, DB)
        groups = sorted({str(r[0]) for r in a.rows(
            "SELECT conversation_group_id FROM TargQ")})
        assert len(groups) == 2
        yield a, b, groups
    finally:
        first.close()
        second.close()


def _run_second_steps(steps: dict[str, tuple[Client, str]]) -> dict[str, dict[str, object]]:
    """Run each client's batch on a thread of its own; the outcome of each (errors, result
    rows, time taken), within the bound (a thread still blocked after it fails the test)."""
    out: dict[str, dict[str, object]] = {name: {} for name in steps}

    def go(name: str, client: Client, text: str) -> None:
        started = time.monotonic()
        sink = client.run(text, expect_errors=True)
        out[name].update(errors=[e.number for e in sink.errors()],
                         sets=[rs.rows for rs in sink.resultsets()],
                         seconds=time.monotonic() - started)

    threads = [threading.Thread(target=go, args=(name, c, t)) for name, (c, t) in steps.items()]
    for t in threads:
        t.start()
        time.sleep(0.3)        # the first is waiting when the second closes the cycle
    for t in threads:
        t.join(BOUND_S + 5)
        assert not t.is_alive(), "a lock wait outlived the deadlock bound"
    return out


def _victim_and_winner(out: dict[str, dict[str, object]]) -> tuple[str, str]:
    """The one client of ``out`` chosen as deadlock victim (Msg 1205) within the bound, and
    the other one."""
    victims = [n for n, o in out.items() if o["errors"] == [1205]]
    assert len(victims) == 1, out
    (victim,) = victims
    assert out[victim]["seconds"] <= BOUND_S
    return victim, "b" if victim == "a" else "a"


def test_a_group_lock_cycle_across_processes_ends_in_1205(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, b, (g1, g2) = pair
    (first_a,) = a.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1)).resultsets()
    (first_b,) = b.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g2)).resultsets()
    assert len(first_a.rows) == 2 and len(first_b.rows) == 2

    # Each now wants the group the other holds.
    tail = "; SELECT @@TRANCOUNT; COMMIT"
    out = _run_second_steps({"a": (a, RECEIVE.format(g2) + tail),
                             "b": (b, RECEIVE.format(g1) + tail)})
    victim, winner = _victim_and_winner(out)
    # The victim's batch stopped at the error (no SELECT, no COMMIT) and its transaction
    # is gone.
    assert out[victim]["sets"] == []
    victim_client = a if victim == "a" else b
    assert victim_client.rows("SELECT @@TRANCOUNT") == [(0,)]
    # The winner went on: the victim's rollback put the messages it had received back on the
    # queue, and the winner's RECEIVE got them.
    assert out[winner]["errors"] == []
    got, trancount = out[winner]["sets"]  # type: ignore[misc]
    victim_first = first_a if victim == "a" else first_b
    assert sorted(r[1] for r in got) == sorted(r[1] for r in victim_first.rows)
    assert trancount == [(1,)]
    # The winner committed both groups: nothing is left.
    assert a.rows("SELECT COUNT(*) FROM TargQ") == [(0,)]


@pytest.mark.parametrize("waits_first", ["group", "row"])
def test_a_cycle_of_a_table_row_lock_and_a_group_lock_ends_in_1205(
        pair: tuple[Client, Client, list[str]], waits_first: str) -> None:
    a, b, (g1, _g2) = pair
    a.run("SET NOCOUNT ON; BEGIN TRAN; UPDATE Acct SET v = 1 WHERE id = 1")
    (held,) = b.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1)).resultsets()
    assert len(held.rows) == 2

    # a waits for b's group, b for a's row. PostgreSQL's detector runs in the wait that has
    # lasted deadlock_timeout first, which it makes the victim: the group-lock wait (Msg 1205
    # from the broker) or the UPDATE (Msg 1205 from the statement's error mapping).
    steps = {"a": (a, RECEIVE.format(g1) + "; COMMIT"),
             "b": (b, "UPDATE Acct SET v = 2 WHERE id = 1; COMMIT")}
    if waits_first == "row":
        steps = {"b": steps["b"], "a": steps["a"]}
    out = _run_second_steps(steps)
    _victim, winner = _victim_and_winner(out)
    assert out[winner]["errors"] == []
    for client in (a, b):
        assert client.rows("SELECT @@TRANCOUNT") == [(0,)]
    # Only the winner's work is there: its update, and the group's messages gone with its
    # RECEIVE (b) or received by it after b's rollback (a).
    assert a.rows("SELECT v FROM Acct") == [(1 if winner == "a" else 2,)]
    assert a.rows(f"SELECT COUNT(*) FROM TargQ WHERE conversation_group_id = '{g1}'") == [(0,)]


def _cycle_in_try(pair: tuple[Client, Client, list[str]], batch: str
                  ) -> dict[str, dict[str, object]]:
    """Each client holds one group and then, in ``batch`` (``{}``: the RECEIVE of the
    other's group), waits for the other's: the outcome of each."""
    a, b, (g1, g2) = pair
    a.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1))
    b.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g2))
    return _run_second_steps({"a": (a, batch.format(RECEIVE.format(g2))),
                              "b": (b, batch.format(RECEIVE.format(g1)))})


def test_a_victim_in_try_catch_reaches_catch_with_its_transaction_doomed(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, _b, _groups = pair
    # As in SQL Server: the victim's work is undone at once (the winner goes on while the
    # CATCH block runs), its transaction is doomed until the CATCH block rolls it back.
    out = _cycle_in_try(pair, "BEGIN TRY {} ; COMMIT; SELECT 'done' END TRY "
                              "BEGIN CATCH SELECT ERROR_NUMBER(), @@TRANCOUNT, XACT_STATE(); "
                              "IF XACT_STATE() <> 0 ROLLBACK; SELECT @@TRANCOUNT END CATCH")
    victim = next(n for n, o in out.items() if [(1205, 1, -1)] in o["sets"])  # type: ignore
    winner = "b" if victim == "a" else "a"
    assert out[victim]["errors"] == [] and out[victim]["sets"][-1] == [(0,)], out
    assert out[winner]["errors"] == [] and out[winner]["sets"][-1] == [("done",)], out
    # The winner received both groups: the victim's RECEIVE was undone before its CATCH ran.
    assert a.rows("SELECT COUNT(*) FROM TargQ") == [(0,)]


def test_a_victim_whose_catch_leaves_the_transaction_open_gets_3998(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, b, _groups = pair
    out = _cycle_in_try(pair, "BEGIN TRY {} ; COMMIT END TRY "
                              "BEGIN CATCH BEGIN TRY COMMIT END TRY BEGIN CATCH "
                              "SELECT ERROR_NUMBER() END CATCH END CATCH")
    victim = next(n for n, o in out.items() if o["errors"])
    # COMMIT of a doomed transaction: Msg 3930; the batch's end rolls it back: Msg 3998.
    assert out[victim]["sets"] == [[(3930,)]] and out[victim]["errors"] == [3998], out
    assert (a if victim == "a" else b).rows("SELECT @@TRANCOUNT") == [(0,)]


def test_a_cycle_through_a_broker_statement_ends_in_1205(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, b, _groups = pair
    handles = a.rows("SELECT conversation_handle, is_initiator FROM sys.conversation_endpoints "
                     "ORDER BY conversation_id, is_initiator DESC")
    initiator, target = str(handles[0][0]), str(handles[1][0])
    assert handles[0][1] == 1 and handles[1][1] == 0
    send = "DECLARE @h uniqueidentifier = '{}'; SEND ON CONVERSATION @h ({})"
    a.run("SET NOCOUNT ON; BEGIN TRAN; " + send.format(initiator, "0x01"))
    b.run("SET NOCOUNT ON; BEGIN TRAN; UPDATE Acct SET v = 2 WHERE id = 1")
    # b's reply waits for a's conversation (a SEND runs on the broker's own statements,
    # not through the DML path), a's UPDATE for b's row: the detector ends the cycle.
    out = _run_second_steps({
        "b": (b, send.format(target, "0x02") + "; COMMIT"),
        "a": (a, "UPDATE Acct SET v = 1 WHERE id = 1; COMMIT")})
    _victim, winner = _victim_and_winner(out)
    assert out[winner]["errors"] == []
    for client in (a, b):
        assert client.rows("SELECT @@TRANCOUNT") == [(0,)]
        # The connection goes on: its broker statements run (nothing lost with the error).
        client.run(send.format(target if client is b else initiator, "0x03"))
    assert a.rows("SELECT v FROM Acct") == [(1 if winner == "a" else 2,)]


def test_a_lock_wait_ends_at_the_statements_timeout_and_the_transaction_goes_on(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, b, (g1, _g2) = pair
    a.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1))
    b.run("SET NOCOUNT ON; BEGIN TRAN; UPDATE Acct SET v = 5 WHERE id = 1")
    started = time.monotonic()
    # Longer than one wait slice: the slices' lock timeouts must neither end the wait early
    # nor abort b's transaction.
    (rs,) = b.run(f"WAITFOR ({RECEIVE.format(g1)}), TIMEOUT 3000").resultsets()
    waited = time.monotonic() - started
    assert rs.rows == []
    assert 2.9 <= waited < BOUND_S
    assert b.rows("SELECT @@TRANCOUNT") == [(1,)]
    assert b.rows("SELECT v FROM Acct") == [(5,)]
    # The slices' lock_timeout did not outlive them: a later lock wait is a plain wait again.
    setting = b.session.conn.exec_driver_sql("SELECT current_setting('lock_timeout')")
    assert setting.scalar() == "0"
    b.run("COMMIT")
    a.run("ROLLBACK")
    assert a.rows("SELECT v FROM Acct") == [(5,)]


def test_a_lock_had_after_waiting_leaves_no_lock_timeout_behind(
        pair: tuple[Client, Client, list[str]]) -> None:
    a, b, (g1, _g2) = pair
    a.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1))
    got: list[object] = []
    waiter = threading.Thread(target=lambda: got.extend(
        b.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1)).resultsets()))
    waiter.start()
    time.sleep(0.5)
    assert waiter.is_alive()
    a.run("ROLLBACK")          # the messages go back to the queue, and the group is free
    waiter.join(BOUND_S)
    assert not waiter.is_alive()
    assert len(got[0].rows) == 2  # type: ignore[attr-defined]
    setting = b.session.conn.exec_driver_sql("SELECT current_setting('lock_timeout')")
    assert setting.scalar() == "0"
    b.run("COMMIT")
