"""The PostgreSQL wake-up payloads: one NOTIFY per commit names every queue concerned, split
only when it would pass the server's payload limit, and the listener hands each event of a
payload to the broker (other processes' events only); a commit NOTIFYs only while some
process waits on a queue concerned (``pgwake``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from tsql_client import Client, services_script

from tsqlbroker.engine.broker import Broker
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.backends.postgres import interest as pgwake
from tsqlbroker.storage.backends.postgres import notices as pg_notices
from tsqlbroker.storage.backends.postgres.advisory import connect_autocommit

if TYPE_CHECKING:
    from conftest import FreshPostgres


def test_events_travel_in_one_payload_without_duplicates() -> None:
    events = [("e", 5, 10), ("l", 5, 11), ("e", 5, 10)]
    payloads = pg_notices._payloads(events)
    assert payloads == [f"{pg_notices.PROCESS_TAG}|e|5|10;l|5|11"]


def test_a_payload_too_large_for_one_notify_is_split() -> None:
    events = [("e", 1, queue) for queue in range(2000)]
    payloads = pg_notices._payloads(events)
    assert len(payloads) > 1
    assert all(len(p) < 8000 for p in payloads)
    items = [item for p in payloads for item in p.split("|", 1)[1].split(";")]
    assert items == [f"e|1|{queue}" for queue in range(2000)]


def test_literals_are_quoted_for_the_commit_statement() -> None:
    assert pg_notices._literal("it's") == "'it''s'"


def test_the_listener_dispatches_every_event_of_another_process(
        caplog: pytest.LogCaptureFixture) -> None:
    seen: list[tuple[str, int, int]] = []
    listener = pg_notices.Listener(store=None, handler=lambda *e: seen.append(e))  # type: ignore[arg-type]
    listener._dispatch("other-1|e|5|10;l|5|11")
    listener._dispatch("other-1|m|5|0")              # the one-event form of older processes
    listener._dispatch(f"{pg_notices.PROCESS_TAG}|e|5|10")   # this process's own echo
    listener._dispatch("other-1|")                    # another process's listener stopping
    assert seen == [("e", 5, 10), ("l", 5, 11), ("m", 5, 0)]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_commit_notices_name_the_locked_queues_once(monkeypatch: Any) -> None:
    monkeypatch.setattr(pg_notices, "schema", lambda _conn: "x")
    notices = pg_notices.CommitNotices()
    notices.events += [("e", 2, 7), ("e", 2, 7)]
    notices.locked |= {(2, 8), (2, 7)}
    sql = notices.sql(conn=None)  # type: ignore[arg-type]
    # Behind the gate of both queues, and only if some process waits on one of them.
    assert sql == (f"{pgwake.gate_sql('x', [(2, 7), (2, 8)])}; "
                   f"SELECT pg_notify('tsqlb_x', '{pg_notices.PROCESS_TAG}|e|2|7;l|2|7;l|2|8') "
                   f"WHERE {pgwake.waiter_condition('x', [(2, 7), (2, 8)])}")
    assert notices.sent
    assert pg_notices.CommitNotices().sql(conn=None) is None  # type: ignore[arg-type]


def test_metadata_changes_are_always_notified(monkeypatch: Any) -> None:
    monkeypatch.setattr(pg_notices, "schema", lambda _conn: "x")
    sent: list[str] = []
    monkeypatch.setattr(pg_notices, "execute", lambda _conn, sql, *_a: sent.append(sql))
    pg_notices.notify(conn=None, kind="m", db_id=5)  # type: ignore[arg-type]
    assert sent == [f"SELECT pg_notify('tsqlb_x', '{pg_notices.PROCESS_TAG}|m|5|0')"]


def test_gate_and_interest_keys_are_distinct_per_purpose_queue_and_database() -> None:
    keys = {pgwake.advisory_key("s", purpose, db, queue)
            for purpose in ("wait", "gate") for db in (1, 2) for queue in (10, 2**31 + 5)}
    assert len(keys) == 8
    assert all(-2**31 <= k < 2**31 for pair in keys for k in pair)


# -- on a PostgreSQL store: who is told of a commit --------------------------------------------
DIALOG = services_script("n")


@pytest.fixture
def pg_instance(fresh_postgres: FreshPostgres) -> Iterator[Instance]:
    inst = Instance(fresh_postgres.url())
    Client(inst).run("CREATE DATABASE nt")
    yield inst
    inst.close()


def test_a_commit_notifies_only_while_some_process_waits_on_the_queue(
        pg_instance: Instance) -> None:
    client = Client(pg_instance, "nt")
    handle = client.scalar(DIALOG)
    db_id = client.scalar("SELECT DB_ID()")
    queue_id = client.scalar("SELECT object_id FROM sys.service_queues WHERE name = 'TargQ'")
    send = (f"DECLARE @h uniqueidentifier = '{handle}'; BEGIN TRAN; "
            "SEND ON CONVERSATION @h MESSAGE TYPE [//n/Msg] (0x01); COMMIT")
    receive = "BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ; COMMIT"
    store = pg_instance.store
    listen = connect_autocommit(store)
    other = pgwake.Interest(lambda: connect_autocommit(store))  # another process's
    try:
        conn = store.connect()
        try:
            listen.execute(f'LISTEN "{pg_notices.channel(conn)}"')
        finally:
            conn.close()

        def heard() -> list[str]:
            return [n.payload for n in listen.notifies(timeout=0.5)]

        client.run(send)
        client.run(receive)
        assert heard() == []                 # nobody waits: no NOTIFY, no notify lock
        other.acquire(db_id, queue_id)
        client.run(send)
        client.run(receive)
        payloads = heard()
        assert any(f"e|{db_id}|{queue_id}" in p for p in payloads), payloads
        assert any(f"l|{db_id}|{queue_id}" in p for p in payloads), payloads
        other.release(db_id, queue_id)
        client.run(send)
        assert heard() == []
    finally:
        other.close()
        listen.close()


def test_a_waiter_declares_its_interest_only_while_it_waits(pg_instance: Instance) -> None:
    client = Client(pg_instance, "nt")
    client.run(DIALOG)
    broker = Broker.get(pg_instance.store)
    assert broker.interest is not None
    waiting = threading.Event()
    seen: list[list[tuple[int, int]]] = []

    def wait() -> None:
        waiter = Client(pg_instance, "nt")
        waiting.set()
        waiter.run("WAITFOR (RECEIVE message_body FROM TargQ), TIMEOUT 1500")

    thread = threading.Thread(target=wait)
    thread.start()
    waiting.wait(5)
    deadline = time.monotonic() + 5
    while not seen or not seen[-1]:
        assert time.monotonic() < deadline
        seen.append(broker.interest.held())
        time.sleep(0.02)
    thread.join(10)
    assert seen[-1] == [(client.scalar("SELECT DB_ID()"),
                         client.scalar("SELECT object_id FROM sys.service_queues "
                                       "WHERE name = 'TargQ'"))]
    assert broker.interest.held() == []
