"""Conversation-group ownership between processes on one SQLite file (engine/broker/claims.py),
played by two instances in this process (each its own connections, lock directory tag and
lock manager: to each other they are two processes).

The issue's minimal case: A ``BEGIN TRAN; RECEIVE TOP (1)`` and then waits; B's RECEIVE must
not get the same message. And waits: a transaction waiting for a group the other process holds
is not starved by that process's next pick (the rows of ``tsqlb_sb_group_waits``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tsql_client import Client, create_database, send_batch, wait_for

from tsqlbroker.engine.broker import Broker, claims
from tsqlbroker.engine.broker.claims import CLAIMS, WAITS
from tsqlbroker.engine.broker.waits import QueueKey, QueueSignals
from tsqlbroker.interpreter.instance import Instance

DB = "cl"
SETUP = """
CREATE QUEUE TargQ;
CREATE SERVICE [//cl/Svc] ON QUEUE TargQ ([DEFAULT]);
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//cl/Svc] TO SERVICE '//cl/Svc' WITH ENCRYPTION = OFF;
"""


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Client, Client]]:
    """Clients A and B of two instances on one file; one dialog with three messages."""
    url = f"sqlite:///{tmp_path / 'claims.db'}"
    create_database(url, DB, SETUP + send_batch(3))
    a, b = Instance(url), Instance(url)
    try:
        yield Client(a, DB), Client(b, DB)
    finally:
        a.close()
        b.close()


RECEIVE = "RECEIVE TOP (1) message_body FROM TargQ"
# How often a waiter looks again in the tests that keep it from hearing wake-ups.
LOOK_S = 1.5


def deaf_waits(step: Callable[[float | None], float]) -> Callable[..., bool]:
    """A QueueSignals.wait_change that hears no wake-ups: it sleeps ``step(deadline)``
    seconds (a waiter on a loaded machine, whose holder's next pick comes first)."""

    def wait_change(_signals: QueueSignals, _key: QueueKey, _seen: int,
                    deadline: float | None, cancelled: Callable[[], bool]) -> bool:
        if not cancelled():
            time.sleep(max(0.0, step(deadline)))
        return True

    return wait_change


# Sleeps each wait step to its end.
SLEEP_TO_DEADLINE = deaf_waits(lambda d: 0.0 if d is None else d - time.monotonic())


def _claims(c: Client) -> list[tuple]:
    """The claim rows in the store (read on the client's connection, between batches)."""
    return [tuple(r) for r in c.session.conn.exec_driver_sql(
        f"SELECT owner, txn_id FROM {CLAIMS}").fetchall()]


def test_a_paused_receiving_transaction_keeps_its_group_from_the_other_process(
        pair: tuple[Client, Client]) -> None:
    a, b = pair
    assert a.rows("BEGIN TRAN; " + RECEIVE) == [(b"\x00\x00\x00\x00",)]
    # A's batch ended with its transaction open: its claim is in the store, the file's
    # write lock is free (B is not kept waiting), and B skips the group.
    assert len(_claims(b)) == 1
    started = time.monotonic()
    assert b.rows(RECEIVE) == []
    assert time.monotonic() - started < 1.0
    a.run("WAITFOR DELAY '00:00:00.100'; COMMIT")
    assert _claims(b) == []
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x01",)]
    # A rollback gives the group back as well.
    a.run("BEGIN TRAN; " + RECEIVE)
    assert b.rows(RECEIVE) == []
    a.run("ROLLBACK")
    assert _claims(b) == []
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x02",)]


def test_a_receive_and_commit_in_one_batch_writes_no_claim(
        pair: tuple[Client, Client], monkeypatch: pytest.MonkeyPatch) -> None:
    a, _b = pair
    written: list[object] = []
    monkeypatch.setattr(claims, "run_many", lambda *args: written.append(args))
    a.run("BEGIN TRAN; " + RECEIVE + "; COMMIT")
    a.run(RECEIVE)
    assert written == []              # owned under the write lock until the commit
    a.run("BEGIN TRAN; " + RECEIVE)
    assert len(written) == 1          # the batch ended with the transaction open
    a.run("ROLLBACK")


def test_receive_where_waits_for_a_group_the_other_process_holds(
        pair: tuple[Client, Client]) -> None:
    a, b = pair
    (group,) = a.rows("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ")[0]
    result: dict[str, object] = {}

    def wait() -> None:
        rows = b.rows(f"RECEIVE message_body FROM TargQ WHERE conversation_group_id = "
                      f"'{group}'")
        result["rows"], result["at"] = rows, time.monotonic()

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.6)
    assert waiter.is_alive(), "RECEIVE … WHERE did not wait for the group A holds"
    committed = time.monotonic()
    a.run("COMMIT")
    waiter.join(20)
    assert not waiter.is_alive()
    assert result["rows"] == [(b"\x00\x00\x00\x01",), (b"\x00\x00\x00\x02",)]
    assert float(result["at"]) - committed < 2.0  # type: ignore[arg-type]


def test_a_transaction_that_wrote_keeps_the_write_lock_to_its_end(
        pair: tuple[Client, Client]) -> None:
    a, b = pair
    a.run("CREATE TABLE Log (n int)")
    a.run("BEGIN TRAN; INSERT INTO Log VALUES (1); " + RECEIVE)
    assert _claims(a) == []           # nothing published: the write lock keeps the group
    result: dict[str, object] = {}

    def other() -> None:
        result["rows"] = b.rows(RECEIVE)

    thread = threading.Thread(target=other)
    thread.start()
    time.sleep(0.5)
    assert thread.is_alive(), "B picked while A held the file's write lock"
    a.run("COMMIT")
    thread.join(20)
    assert result["rows"] == [(b"\x00\x00\x00\x01",)]


def test_the_claims_of_a_dead_process_are_reaped(pair: tuple[Client, Client]) -> None:
    a, b = pair
    (group,) = a.rows("SELECT TOP (1) conversation_group_id FROM TargQ")[0]
    conn = a.session.conn
    conn.write()
    conn.exec_driver_sql(
        f"INSERT INTO {CLAIMS} (conversation_group_id, database_id, queue_id, owner, txn_id) "
        f"SELECT conversation_group_id, database_id, queue_id, '1-deadbeef0000', 7 "
        f"FROM tsqlb_sb_messages WHERE conversation_group_id = '{str(group).upper()}' LIMIT 1")
    conn.commit()
    # The owner's lock file is not held (it never was): the claim counts for nothing.
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x00",)]
    assert _claims(b) == []


def test_a_cycle_of_waits_across_processes_ends_in_1205(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cycle.db'}"
    create_database(url, DB, SETUP + """
SEND ON CONVERSATION @h (0x01);
BEGIN DIALOG @h FROM SERVICE [//cl/Svc] TO SERVICE '//cl/Svc' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (0x02);
""")
    ia, ib = Instance(url), Instance(url)
    try:
        a, b = Client(ia, DB), Client(ib, DB)
        g1, g2 = sorted({str(r[0]) for r in a.rows(
            "SELECT conversation_group_id FROM TargQ")})
        where = "RECEIVE message_body FROM TargQ WHERE conversation_group_id = '{}'"
        a.run("BEGIN TRAN; " + where.format(g1))
        b.run("BEGIN TRAN; " + where.format(g2))
        outcome: dict[str, object] = {}

        def a_wants_g2() -> None:
            sink = a.run(where.format(g2), expect_errors=True)
            outcome["a"] = [e.number for e in sink.errors()]

        thread = threading.Thread(target=a_wants_g2)
        thread.start()
        time.sleep(0.5)
        assert thread.is_alive()
        started = time.monotonic()
        sink = b.run(where.format(g1), expect_errors=True)
        b_errors = [e.number for e in sink.errors()]
        if b_errors != [1205]:             # b did not give way: a must have, then b got g1
            assert b_errors == [] and sink.resultsets()[-1].rows
        thread.join(30)
        assert not thread.is_alive()
        # Exactly one of them was the victim, found in a few wait steps, not at 60 s.
        assert sorted([tuple(outcome["a"]), tuple(b_errors)]) == [(), (1205,)]  # type: ignore[arg-type]
        assert time.monotonic() - started < 10
        for c in (a, b):
            c.run("IF @@TRANCOUNT > 0 COMMIT")
    finally:
        ia.close()
        ib.close()


# -- waits (claims.py, "Waits") ----------------------------------------------------------------
def _waits(c: Client) -> list[tuple]:
    """The wait rows in the store: (owner, group)."""
    return [tuple(r) for r in c.session.conn.exec_driver_sql(
        f"SELECT owner, conversation_group_id FROM {WAITS}").fetchall()]


def _tag(c: Client) -> str:
    claimer = Broker.get(c.session.instance.store).state.claims
    assert claimer is not None
    return claimer.tag


def test_a_pick_passes_over_the_group_another_process_waits_for(
        pair: tuple[Client, Client]) -> None:
    a, b = pair
    (group,) = a.rows("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ")[0]
    waiter, result = _b_waits(a, b, group, "")
    # A commits and picks again in one batch, before B can look: the pick passes over the
    # group B waits for (the only one), instead of taking it back.
    assert a.rows("COMMIT; BEGIN TRAN; " + RECEIVE) == []
    a.run("COMMIT")
    waiter.join(20)
    assert not waiter.is_alive()
    assert result["rows"] == [(b"\x00\x00\x00\x01",), (b"\x00\x00\x00\x02",)]
    assert _waits(a) == []


def _b_waits(a: Client, b: Client, group: object, top: str
             ) -> tuple[threading.Thread, dict[str, object]]:
    """B's WAITFOR (RECEIVE {top}… WHERE conversation_group_id = group) in a thread, once its
    wait row is in the store; its rows in the dict under "rows" when it returns."""
    result: dict[str, object] = {}

    def wait() -> None:
        result["rows"] = b.rows(f"WAITFOR (RECEIVE {top}message_body FROM TargQ WHERE "
                                f"conversation_group_id = '{group}'), TIMEOUT 15000")

    waiter = threading.Thread(target=wait)
    waiter.start()
    wait_for("B's wait row", lambda: _waits(a) == [(_tag(b), str(group).upper())])
    return waiter, result


def test_the_holders_end_grants_the_group_to_the_waiter_before_its_next_look(
        pair: tuple[Client, Client], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = pair
    (group,) = a.rows("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ")[0]
    # B looks again only every LOOK_S, whatever it hears (a loaded machine): A's next
    # RECEIVE … WHERE (a directed lock, which passes over no waited group) comes first.
    monkeypatch.setattr(claims, "_WAIT_STEP_S", LOOK_S)
    monkeypatch.setattr(QueueSignals, "wait_change", SLEEP_TO_DEADLINE)
    waiter, result = _b_waits(a, b, group, "TOP (1) ")
    try:
        # A's commit hands the group to B, the first waiter: A's next RECEIVE of it waits
        # for B's turn to end instead of taking it back.
        assert a.rows(f"COMMIT; RECEIVE TOP (1) message_body FROM TargQ WHERE "
                      f"conversation_group_id = '{group}'") == [(b"\x00\x00\x00\x02",)]
    finally:
        waiter.join(20)
    assert not waiter.is_alive()
    assert result["rows"] == [(b"\x00\x00\x00\x01",)]
    assert _waits(a) == [] and _claims(a) == []


def test_waiters_are_granted_the_group_in_the_order_they_came(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'line.db'}"
    create_database(url, DB, SETUP + send_batch(3))
    instances = [Instance(url) for _ in range(3)]
    a, b, c = (Client(i, DB) for i in instances)
    # B waits first but looks seldom, C comes second and looks often: C looks first once A
    # is done, yet B is next in line.
    looks = {"B": 3.0, "C": 0.3}
    monkeypatch.setattr(QueueSignals, "wait_change", deaf_waits(
        lambda _deadline: looks.get(threading.current_thread().name, 0.3)))
    got: dict[str, object] = {}
    try:
        (group,) = a.rows("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ")[0]

        def wait(name: str, client: Client) -> None:
            got[name] = client.rows(f"WAITFOR (RECEIVE TOP (1) message_body FROM TargQ WHERE "
                                    f"conversation_group_id = '{group}'), TIMEOUT 15000")

        threads = [threading.Thread(target=wait, args=(n, cl), name=n)
                   for n, cl in (("B", b), ("C", c))]
        for t, waiters in zip(threads, (1, 2), strict=True):
            t.start()
            wait_for("the wait row", lambda n=waiters: len(_waits(a)) == n)
        a.run("COMMIT")
        for t in threads:
            t.join(20)
        assert not any(t.is_alive() for t in threads)
    finally:
        for i in instances:
            i.close()
    assert got == {"B": [(b"\x00\x00\x00\x01",)], "C": [(b"\x00\x00\x00\x02",)]}


def test_a_wait_that_times_out_deletes_its_row(pair: tuple[Client, Client]) -> None:
    a, b = pair
    (group,) = a.rows("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ")[0]
    assert b.rows(f"WAITFOR (RECEIVE message_body FROM TargQ WHERE conversation_group_id "
                  f"= '{group}'), TIMEOUT 700") == []
    assert _waits(a) == []
    a.run("COMMIT")
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x01",)]


def _insert_wait(c: Client, owner: str, since: float) -> None:
    conn = c.session.conn
    conn.write()
    conn.exec_driver_sql(
        f"INSERT INTO {WAITS} (owner, txn_id, conversation_group_id, database_id, queue_id, "
        f"since) SELECT '{owner}', 7, conversation_group_id, database_id, queue_id, {since} "
        "FROM tsqlb_sb_messages LIMIT 1")
    conn.commit()


def test_a_wait_row_counts_for_a_few_seconds_only(pair: tuple[Client, Client]) -> None:
    a, b = pair
    # A live process's recent wait: passed over; the same wait older than the bound: not.
    _insert_wait(a, _tag(a), time.time())
    assert b.rows(RECEIVE) == []
    a.session.conn.write()
    a.session.conn.exec_driver_sql(
        f"UPDATE {WAITS} SET since = {time.time() - claims.WAIT_PRECEDENCE_S - 1}")
    a.session.conn.commit()
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x00",)]


def test_the_wait_of_a_dead_process_is_reaped(pair: tuple[Client, Client]) -> None:
    a, b = pair
    _insert_wait(a, "1-deadbeef0000", time.time())
    # The owner's lock file is not held (it never was): the wait counts for nothing.
    assert b.rows(RECEIVE) == [(b"\x00\x00\x00\x00",)]
    assert _waits(b) == []
