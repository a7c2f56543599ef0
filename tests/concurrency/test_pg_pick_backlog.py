"""The PostgreSQL group pick does work independent of the backlog (issue 18, item 3): the
rows a RECEIVE reads from the message table are the same with a backlog of 40 or of 400 —
right after a burst, before the planner has statistics of the new rows, and beside a
group another process holds. Counted in the server's own per-transaction statistics
(``pg_stat_xact_user_tables``: tuples fetched and read by the RECEIVE's transaction), and
beside a held group in the pick's plan (``EXPLAIN ANALYZE``: the rows its locking steps
try), not timed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest
from tsql_client import Client, services_script

from tsqlbroker.engine.broker import row_locks
from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

FILL = """
DECLARE @i int = 0, @h uniqueidentifier = '{handle}';
BEGIN TRAN;
WHILE @i < {n}
BEGIN
    SEND ON CONVERSATION @h MESSAGE TYPE [//pick/Msg] (CAST(@i AS varbinary(4)));
    SET @i += 1;
END;
COMMIT;
"""
OPEN = services_script("pick").split("DECLARE @h", 1)[1]
MESSAGE_ROWS_TOUCHED = (
    "SELECT COALESCE(idx_tup_fetch, 0) + COALESCE(seq_tup_read, 0) "
    "FROM pg_stat_xact_user_tables WHERE relname = 'tsqlb_sb_messages' "
    "AND schemaname = current_schema()")


@contextmanager
def store(fresh_postgres: FreshPostgres) -> Iterator[tuple[str, Client]]:
    url = fresh_postgres.url()
    inst = Instance(url)
    try:
        client = Client(inst)
        client.run("CREATE DATABASE pick")
        client.run("USE pick")
        client.run(services_script("pick", dialog=False))
        yield url, client
    finally:
        inst.close()


def open_dialog(client: Client) -> str:
    return str(client.scalar("DECLARE @h" + OPEN))


def rows_touched_by_receive(client: Client) -> tuple[int, bytes]:
    """In a transaction of its own: one RECEIVE TOP (1) — the message table rows its
    transaction fetched and the body it got (the transaction is rolled back)."""
    client.run("BEGIN TRAN; DECLARE @b varbinary(max); "
               "RECEIVE TOP (1) @b = message_body FROM TargQ; SELECT @b;")
    body = client.sink.resultsets()[-1].rows[0][0]
    touched = int(client.session.conn.exec_driver_sql(MESSAGE_ROWS_TOUCHED).scalar() or 0)
    client.run("ROLLBACK")
    return touched, body


def test_receive_after_a_burst_reads_as_many_rows_whatever_its_size(
        fresh_postgres: FreshPostgres) -> None:
    touched = []
    for backlog in (40, 400):
        with store(fresh_postgres) as (_url, client):
            client.run(FILL.format(handle=open_dialog(client), n=backlog))  # no ANALYZE
            rows, body = rows_touched_by_receive(client)
            assert body == (0).to_bytes(4, "big")
            touched.append(rows)
    assert touched[1] <= touched[0], touched
    assert touched[1] < 40, touched


@contextmanager
def beside_a_held_group(fresh_postgres: FreshPostgres, backlog: int) -> Iterator[Client]:
    """A store whose queue holds ``backlog`` messages of one dialog, whose group another
    process's transaction holds, then one message (body 7) of another dialog."""
    with store(fresh_postgres) as (url, client):
        client.run(FILL.format(handle=open_dialog(client), n=backlog))
        other = open_dialog(client)
        client.run(FILL.format(handle=other, n=1).replace("CAST(@i", "CAST(@i + 7"))
        holder_instance = Instance(url)
        try:
            holder = Client(holder_instance, "pick")
            holder.run("BEGIN TRAN; DECLARE @b varbinary(max); "
                       "RECEIVE TOP (1) @b = message_body FROM TargQ;")
            yield client
            holder.run("ROLLBACK")
        finally:
            holder_instance.close()


def test_receive_beside_a_held_group_reads_as_many_rows_whatever_its_size(
        fresh_postgres: FreshPostgres) -> None:
    touched = []
    for backlog in (40, 400):
        with beside_a_held_group(fresh_postgres, backlog) as client:
            rows, body = rows_touched_by_receive(client)
        assert body == (7).to_bytes(4, "big")   # the other dialog's message
        touched.append(rows)
    assert touched[1] <= touched[0], touched
    assert touched[1] < 80, touched


def lock_attempts(plan: dict[str, Any]) -> int:
    """Rows an ``EXPLAIN (ANALYZE, FORMAT JSON)`` plan's locking steps (LockRows) were given
    to lock (SKIP LOCKED passes over a held one), over the whole plan."""
    below = plan.get("Plans", [])
    tried = (sum(p["Actual Rows"] * p["Actual Loops"] for p in below)
             if plan["Node Type"] == "LockRows" else 0)
    return tried + sum(lock_attempts(p) for p in below)


def test_the_pick_beside_a_held_group_tries_each_group_once_whatever_its_size(
        fresh_postgres: FreshPostgres, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pick's window (the first ready messages, all of the held group's here) tries
    the held group once, not once per message (32 before), the look group by group tries
    each of the queue's two groups once, and the picked group's one ready row is read FOR
    UPDATE: four lock attempts, with 40 or 400 messages held."""
    picks: list[tuple[str, tuple[Any, ...]]] = []
    run = row_locks.run

    def recorded(conn: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        if "FOR UPDATE OF g SKIP LOCKED" in sql:
            picks.append((sql, params))
        return run(conn, sql, params)
    monkeypatch.setattr(row_locks, "run", recorded)
    attempts = []
    for backlog in (40, 400):
        with beside_a_held_group(fresh_postgres, backlog) as client:
            client.run("BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ; ROLLBACK;")
            assert client.sink.resultsets()[-1].rows == [((7).to_bytes(4, "big"),)]
            assert picks, "the RECEIVE picked its group"
            conn = client.session.conn
            text = conn.backend.merged_text(conn, *picks[-1])
            # The same pick again, its locks let go at once.
            conn.conn.exec_driver_sql("BEGIN")
            try:
                ((plan,),) = conn.conn.exec_driver_sql(
                    f"EXPLAIN (ANALYZE, FORMAT JSON) {text}").fetchall()
            finally:
                conn.conn.exec_driver_sql("ROLLBACK")
            attempts.append(lock_attempts(
                (plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]))
    assert attempts[0] == attempts[1] <= 4, attempts
