"""Deadlocks between sessions of one process: the lock manager's wait-for graph finds a cycle
of conversation-group waits at once and makes the transaction closing it the victim (Msg
1205, its transaction rolled back), on every backend (``instance`` fixture)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tsql_client import Client

from tsqlbroker.engine.broker import claims
from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.store import Store
from tsqlbroker.storage.txn import LockManager, Txn

SETUP = """
CREATE QUEUE TargQ;
CREATE SERVICE [//ld/Init] ON QUEUE TargQ;
CREATE SERVICE [//ld/Targ] ON QUEUE TargQ ([DEFAULT]);
DECLARE @h uniqueidentifier, @i int = 0;
WHILE @i < 2
BEGIN
    BEGIN DIALOG @h FROM SERVICE [//ld/Init] TO SERVICE '//ld/Targ' WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @h (CAST(@i AS varbinary(4)));
    SET @i += 1;
END;
"""
RECEIVE = ("RECEIVE message_body FROM TargQ WHERE conversation_group_id = '{}'")


def test_a_cycle_of_group_waits_in_one_process_ends_in_1205_at_once(
        instance: Instance) -> None:
    _b_closes_a_cycle(instance)


def test_a_wait_counts_in_the_cycle_from_its_first_look(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On a shared file a's first look at the group (its wait row, the waiting_for of its
    # claims: write transactions of their own) is slow, as on a loaded machine: b's request
    # comes meanwhile. a's wait must be in the lock manager's graph from its start, or b
    # finds no cycle, waits, and a — looking next — is taken for the one closing it.
    mark_wait = claims.GroupClaims._mark_wait
    slowed: list[int] = []

    def slow_first_mark(self: claims.GroupClaims, txn: Txn, group: str | None) -> None:
        if group is not None and not slowed:
            slowed.append(txn.id)
            time.sleep(1.0)
        mark_wait(self, txn, group)

    monkeypatch.setattr(claims.GroupClaims, "_mark_wait", slow_first_mark)
    instance = Instance(f"sqlite:///{tmp_path / 'ld.db'}")
    try:
        _b_closes_a_cycle(instance)
    finally:
        instance.close()
    assert len(slowed) == 1


def _b_closes_a_cycle(instance: Instance) -> None:
    """a holds g1 and waits for g2; b holds g2 and asks for g1: b is the victim at once,
    a gets g2."""
    Client(instance).run("CREATE DATABASE ld")
    admin = Client(instance, "ld")
    admin.run(SETUP)
    g1, g2 = sorted({str(r[0]) for r in admin.rows(
        "SELECT conversation_group_id FROM TargQ WHERE service_name = '//ld/Targ'")})
    a, b = Client(instance, "ld"), Client(instance, "ld")
    a.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g1))
    b.run("SET NOCOUNT ON; BEGIN TRAN; " + RECEIVE.format(g2))

    outcome: dict[str, object] = {}

    def a_wants_g2() -> None:
        sink = a.run(RECEIVE.format(g2) + "; COMMIT", expect_errors=True)
        outcome["a"] = [e.number for e in sink.errors()]
        outcome["a_rows"] = [rs.rows for rs in sink.resultsets()]

    waiter = threading.Thread(target=a_wants_g2)
    waiter.start()
    time.sleep(0.5)
    assert waiter.is_alive(), "a did not wait for the group b holds"
    started = time.monotonic()
    sink = b.run(RECEIVE.format(g1) + "; COMMIT", expect_errors=True)
    # b closed the cycle: it is the victim, found without waiting out any timeout.
    assert [e.number for e in sink.errors()] == [1205]
    assert "deadlock victim" in sink.errors()[0].message
    assert time.monotonic() - started < 5.0
    assert b.rows("SELECT @@TRANCOUNT") == [(0,)]
    waiter.join(30)
    assert not waiter.is_alive()
    # a got b's group (put back by b's rollback) and committed.
    assert outcome["a"] == []
    assert len(outcome["a_rows"][0]) == 1  # type: ignore[index]
    assert admin.rows("SELECT COUNT(*) FROM TargQ WHERE service_name = '//ld/Targ'") == [(0,)]


def test_the_wait_for_graph_names_the_transaction_closing_a_three_way_cycle() -> None:
    store = Store("sqlite://")
    try:
        locks = LockManager()
        conn = store.connect()
        t1, t2, t3 = Txn(conn), Txn(conn), Txn(conn)
        for txn, res in ((t1, "r1"), (t2, "r2"), (t3, "r3")):
            assert locks.try_acquire(res, txn)
        errors: dict[int, int] = {}
        got: list[int] = []

        def wait(txn: Txn, res: str) -> None:
            try:
                if locks.acquire(res, txn, timeout=20):
                    got.append(txn.id)
            except TSqlError as e:
                errors[txn.id] = e.number
            locks.release_all(txn.id)           # its commit (or the victim's rollback)

        threads = [threading.Thread(target=wait, args=(t1, "r2")),
                   threading.Thread(target=wait, args=(t2, "r3"))]
        for t in threads:
            t.start()
        time.sleep(0.3)
        assert errors == {}                     # a chain, not yet a cycle
        with pytest.raises(TSqlError) as e:
            locks.acquire("r1", t3, timeout=20)  # closes t3 → t1 → t2 → t3
        assert e.value.number == 1205
        locks.release_all(t3.id)
        for t in threads:
            t.join(10)
        assert errors == {}                     # the others got their locks, in turn
        assert got == [t2.id, t1.id]
        conn.close()
    finally:
        store.close()


def test_the_wait_that_closes_a_cycle_is_the_victim_as_soon_as_it_is_visible() -> None:
    # A polled wait (begin_wait, then wait_turn steps): the transaction whose begin_wait
    # closes the cycle is the victim there, before the member already waiting looks again
    # (its wait_turn would otherwise find the cycle first and give way instead).
    store = Store("sqlite://")
    try:
        locks = LockManager()
        conn = store.connect()
        t1, t2 = Txn(conn), Txn(conn)
        assert locks.try_acquire("r1", t1) and locks.try_acquire("r2", t2)
        locks.begin_wait("r2", t1)
        with pytest.raises(TSqlError) as e:
            locks.begin_wait("r1", t2)
        assert e.value.number == 1205
        locks.wait_turn("r2", t1, 0.01)         # t1 waits on; it is not a victim
        assert locks.snapshot()[1] == [("r2", t1.id)]
        conn.close()
    finally:
        store.close()
