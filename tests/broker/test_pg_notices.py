"""The PostgreSQL wake-up payloads: one NOTIFY per commit names every queue concerned, split
only when it would pass the server's payload limit, and the listener hands each event of a
payload to the broker (other processes' events only)."""

from __future__ import annotations

from typing import Any

from tsqlbroker.engine.broker import pgsync


def test_events_travel_in_one_payload_without_duplicates() -> None:
    events = [("e", 5, 10), ("l", 5, 11), ("e", 5, 10)]
    payloads = pgsync._payloads(events)
    assert payloads == [f"{pgsync.PROCESS_TAG}|e|5|10;l|5|11"]


def test_a_payload_too_large_for_one_notify_is_split() -> None:
    events = [("e", 1, queue) for queue in range(2000)]
    payloads = pgsync._payloads(events)
    assert len(payloads) > 1
    assert all(len(p) < 8000 for p in payloads)
    items = [item for p in payloads for item in p.split("|", 1)[1].split(";")]
    assert items == [f"e|1|{queue}" for queue in range(2000)]


def test_literals_are_quoted_for_the_commit_statement() -> None:
    assert pgsync._literal("it's") == "'it''s'"


def test_the_listener_dispatches_every_event_of_another_process() -> None:
    seen: list[tuple[str, int, int]] = []
    listener = pgsync.Listener(store=None, handler=lambda *e: seen.append(e))  # type: ignore[arg-type]
    listener._dispatch("other-1|e|5|10;l|5|11")
    listener._dispatch("other-1|m|5|0")              # the one-event form of older processes
    listener._dispatch(f"{pgsync.PROCESS_TAG}|e|5|10")   # this process's own echo
    assert seen == [("e", 5, 10), ("l", 5, 11), ("m", 5, 0)]


def test_commit_notices_name_the_locked_queues_once(monkeypatch: Any) -> None:
    monkeypatch.setattr(pgsync, "channel", lambda _conn: "tsqlb_x")
    notices = pgsync.CommitNotices()
    notices.events += [("e", 2, 7), ("e", 2, 7)]
    notices.locked |= {(2, 8), (2, 7)}
    sql = notices.sql(conn=None)  # type: ignore[arg-type]
    assert sql == (f"SELECT pg_notify('tsqlb_x', '{pgsync.PROCESS_TAG}|e|2|7;l|2|7;l|2|8')")
    assert notices.sent
    assert pgsync.CommitNotices().sql(conn=None) is None  # type: ignore[arg-type]
