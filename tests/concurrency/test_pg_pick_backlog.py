"""The PostgreSQL group pick does work independent of the backlog (issue 18, item 3): the
rows a RECEIVE reads from the message table are the same with a backlog of 40 or of 400 —
right after a burst, before the planner has statistics of the new rows, and beside a
group another process holds. Counted in the server's own per-transaction statistics
(``pg_stat_xact_user_tables``: tuples fetched and read by the RECEIVE's transaction), not
timed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tsql_client import Client, services_script

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


def test_receive_beside_a_held_group_reads_as_many_rows_whatever_its_size(
        fresh_postgres: FreshPostgres) -> None:
    touched = []
    for backlog in (40, 400):
        with store(fresh_postgres) as (url, client):
            client.run(FILL.format(handle=open_dialog(client), n=backlog))
            other = open_dialog(client)
            client.run(FILL.format(handle=other, n=1).replace("CAST(@i", "CAST(@i + 7"))
            holder_instance = Instance(url)
            try:
                holder = Client(holder_instance, "pick")
                # Another process's transaction holds the backlog's group.
                holder.run("BEGIN TRAN; DECLARE @b varbinary(max); "
                           "RECEIVE TOP (1) @b = message_body FROM TargQ;")
                rows, body = rows_touched_by_receive(client)
                holder.run("ROLLBACK")
            finally:
                holder_instance.close()
            assert body == (7).to_bytes(4, "big")   # the other dialog's message
            touched.append(rows)
    assert touched[1] <= touched[0], touched
    assert touched[1] < 80, touched
