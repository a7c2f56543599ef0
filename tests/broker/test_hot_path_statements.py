"""Storage statements per SEND + RECEIVE round (the hot path of ``scripts/bench/broker.py``
and ``scripts/bench/postgres.py``): an upper bound per backend, so that work saved on the
path cannot silently come back. Counted on the session's own DBAPI connection, transaction
control included; the bounds are statement counts, not timings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tsql_client import services_script

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.session import Session
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = services_script("hot")

# The benchmarks' loop: one message per transaction each way.
ROUNDS = """
SET NOCOUNT ON;
DECLARE @i int = 0, @h uniqueidentifier = '{handle}', @b varbinary(max), @n int = 0;
WHILE @i < {n}
BEGIN
    BEGIN TRAN;
    SEND ON CONVERSATION @h MESSAGE TYPE [//hot/Msg] (CAST(@i AS varbinary(4)));
    COMMIT;
    BEGIN TRAN;
    RECEIVE TOP (1) @b = message_body FROM TargQ;
    IF CAST(@b AS int) = @i SET @n += 1;
    COMMIT;
    SET @i += 1;
END;
SELECT @n;
"""

# Statements per round, transaction control included. The hand-written table queues of the
# benchmarks take 7 (SQLite: BEGIN, INSERT, COMMIT, BEGIN, SELECT, DELETE, COMMIT) and 6
# (PostgreSQL: the SELECT folded into DELETE … RETURNING).
MAX_PER_ROUND = {"sqlite": 12, "postgresql": 7}


@contextmanager
def counting(session: Session) -> Iterator[Callable[[], int]]:
    """Count the statements the session's DBAPI connection executes inside the block."""
    dbapi: Any = session.conn.conn.connection.dbapi_connection
    count = [0]
    if session.conn.dialect == "sqlite":
        def traced(_sql: str) -> None:
            count[0] += 1
        dbapi.set_trace_callback(traced)
        try:
            yield lambda: count[0]
        finally:
            dbapi.set_trace_callback(None)
        return
    import psycopg

    original = psycopg.Cursor.execute

    def execute(cursor: Any, *args: Any, **kwargs: Any) -> Any:
        if cursor.connection is dbapi:
            count[0] += 1
        return original(cursor, *args, **kwargs)
    psycopg.Cursor.execute = execute  # type: ignore[method-assign]
    try:
        yield lambda: count[0]
    finally:
        psycopg.Cursor.execute = original  # type: ignore[method-assign]


@pytest.fixture
def session(backend_url: str) -> Iterator[tuple[Session, CollectingSink, str]]:
    inst = Instance(backend_url)
    sink = CollectingSink()
    s = inst.session(sink, "master")
    assert s.execute("CREATE DATABASE hot")
    assert s.execute("USE hot")
    assert s.execute(SETUP), sink.errors()
    handle = str(sink.resultsets()[-1].rows[0][0]).upper()
    try:
        yield s, sink, handle
    finally:
        s.close()
        inst.close()


def test_send_receive_round_stays_within_its_statement_budget(
        backend: str, session: tuple[Session, CollectingSink, str]) -> None:
    s, sink, handle = session
    assert s.execute(ROUNDS.format(handle=handle, n=3)), sink.errors()   # caches warm
    n = 20
    with counting(s) as count:
        assert s.execute(ROUNDS.format(handle=handle, n=n)), sink.errors()
        statements = count()
    # Every message came back, in order, exactly once.
    assert sink.resultsets()[-1].rows[0][0] == n
    per_round = statements / n
    assert per_round <= MAX_PER_ROUND[backend], f"{per_round:.2f} statements per round"


def test_a_refused_send_gives_its_sequence_number_back(
        session: tuple[Session, CollectingSink, str]) -> None:
    """A SEND refused after its endpoint was claimed (PostgreSQL's one-statement SEND takes
    the sequence number first) leaves no gap: the next message gets the number, and the
    target still receives every message in order."""
    s, sink, handle = session
    declare = f"DECLARE @h uniqueidentifier = '{handle}';"
    assert s.execute("BEGIN TRAN")
    assert not s.execute(f"{declare} SEND ON CONVERSATION @h MESSAGE TYPE [DEFAULT] (0x01);")
    assert [e.number for e in sink.errors()] == [8431]
    sink.events.clear()
    assert s.execute(f"{declare} SEND ON CONVERSATION @h MESSAGE TYPE [//hot/Msg] (0x02); "
                     "SEND ON CONVERSATION @h MESSAGE TYPE [//hot/Msg] (0x03); "
                     "COMMIT;"), sink.errors()
    assert s.execute("RECEIVE message_sequence_number, message_body FROM TargQ; "
                     "SELECT send_sequence FROM sys.conversation_endpoints "
                     f"WHERE conversation_handle = '{handle}'"), sink.errors()
    received, endpoint = sink.resultsets()[-2:]
    assert received.rows == [(0, b"\x02"), (1, b"\x03")]
    assert endpoint.rows == [(2,)]


def test_values_sent_along_with_the_commit_arrive_intact(
        session: tuple[Session, CollectingSink, str]) -> None:
    """On PostgreSQL the last statements of a transaction travel with its COMMIT, their
    values quoted by the driver: quotes in names, every byte value in a body survive."""
    s, sink, _handle = session
    body = bytes(range(256)) + b"'\\\x00"
    assert s.execute("""
        CREATE MESSAGE TYPE [//hot/it's] VALIDATION = NONE;
        CREATE CONTRACT [//hot/quoted] ([//hot/it's] SENT BY INITIATOR);
        CREATE QUEUE [Targ'Q];
        CREATE SERVICE [//hot/Targ'2] ON QUEUE [Targ'Q] ([//hot/quoted]);
    """), sink.errors()
    assert s.execute(f"""
        DECLARE @h uniqueidentifier;
        BEGIN TRAN;
        BEGIN DIALOG @h FROM SERVICE [//hot/Init] TO SERVICE '//hot/Targ''2'
            ON CONTRACT [//hot/quoted] WITH ENCRYPTION = OFF;
        SEND ON CONVERSATION @h MESSAGE TYPE [//hot/it's] (0x{body.hex()});
        COMMIT;
        BEGIN TRAN;
        SEND ON CONVERSATION @h MESSAGE TYPE [//hot/it's] (0x{body[::-1].hex()});
        COMMIT;
        BEGIN TRAN;
        RECEIVE message_type_name, service_name, service_contract_name, message_body
            FROM [Targ'Q];
        COMMIT;
        SELECT COUNT(*) FROM [Targ'Q];
    """), sink.errors()
    received, left = sink.resultsets()[-2:]
    assert received.rows == [("//hot/it's", "//hot/Targ'2", "//hot/quoted", body),
                             ("//hot/it's", "//hot/Targ'2", "//hot/quoted", body[::-1])]
    assert left.rows == [(0,)]
