"""Storage statements per SEND + RECEIVE round (the hot path of ``scripts/bench/broker.py``
and ``scripts/bench/postgres.py``): an upper bound per backend, so that work saved on the
path cannot silently come back. Counted on the session's own DBAPI connection, transaction
control included; the bounds are statement counts, not timings."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tsql_client import services_script

from tsqlbroker.engine.broker import Broker
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.session import Session
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.storage.store import StoreConnection

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

# Per round, transaction control included. SQLite: statements; the hand-written table queue
# of the benchmark takes 7 (BEGIN, INSERT, COMMIT, BEGIN, SELECT, DELETE, COMMIT).
# PostgreSQL: round trips to the server, counted on the wire (libpq's protocol trace): BEGIN
# travels with the first statement of each transaction, the delivery of a SEND and the
# removal of a RECEIVEd message with the COMMIT (issue 18: the table queue takes 4).
MAX_PER_ROUND = {"sqlite": 12, "postgresql": 4}


@contextmanager
def counting(session: Session) -> Iterator[Callable[[], int]]:
    """Count what the session's DBAPI connection sends inside the block: statements on
    SQLite, round trips on PostgreSQL (see :func:`round_trips`)."""
    dbapi: Any = session.conn.conn.connection.dbapi_connection
    if session.conn.backend.name != "sqlite":
        with round_trips(dbapi) as count:
            yield count
        return
    total = [0]

    def traced(_sql: str) -> None:
        total[0] += 1
    dbapi.set_trace_callback(traced)
    try:
        yield lambda: total[0]
    finally:
        dbapi.set_trace_callback(None)


@contextmanager
def round_trips(dbapi: Any) -> Iterator[Callable[[], int]]:
    """Count the round trips of a psycopg connection inside the block, from libpq's trace
    of the protocol messages: one per run of messages the client sends before it reads the
    server's answer (``F`` lines followed by ``B`` lines), whatever code path sent them."""
    from psycopg import pq

    with tempfile.TemporaryFile("w+") as trace:
        dbapi.pgconn.trace(trace.fileno())
        dbapi.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        counted: list[int] = []
        try:
            yield lambda: counted[0]
        finally:
            dbapi.pgconn.untrace()       # flushes the trace
            trace.seek(0)
            directions = [line[:1] for line in trace if line[:1] in ("F", "B")]
            counted.append(sum(1 for i, d in enumerate(directions)
                               if d == "F" and (i == 0 or directions[i - 1] == "B")))
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


def test_send_receive_round_stays_within_its_budget(
        backend: str, session: tuple[Session, CollectingSink, str]) -> None:
    s, sink, handle = session
    assert s.execute(ROUNDS.format(handle=handle, n=3)), sink.errors()   # caches warm
    counts = []
    for n in (10, 30):
        with counting(s) as count:
            assert s.execute(ROUNDS.format(handle=handle, n=n)), sink.errors()
        # Every message came back, in order, exactly once.
        assert sink.resultsets()[-1].rows[0][0] == n
        counts.append(count())
    per_round = (counts[1] - counts[0]) / 20      # the batch's own statements cancel out
    assert per_round <= MAX_PER_ROUND[backend], f"{per_round:.2f} per round"


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


def test_a_stale_peer_hint_costs_a_round_trip_never_a_message(
        backend: str, session: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL delivers the last SEND of a transaction with the COMMIT, checked against
    the peer endpoint a previous delivery saw. When that peer no longer matches, the
    statement writes nothing and the commit delivers the long way: every message arrives
    once, in order, and the hint is refreshed."""
    s, sink, handle = session
    assert s.execute(ROUNDS.format(handle=handle, n=2)), sink.errors()
    broker = Broker.get(s.instance.store)
    if backend == "postgresql":
        assert broker.delivery.peers, "a delivery leaves its peer as a hint"
    for key, peer in list(broker.delivery.peers.items()):
        broker.delivery.peers[key] = dataclasses.replace(peer, service_id=-1)
    outcomes: list[bool] = []
    guarded = StoreConnection.commit_guarded

    def recorded(conn: StoreConnection, *args: Any) -> bool:
        outcomes.append(guarded(conn, *args))
        return outcomes[-1]
    monkeypatch.setattr(StoreConnection, "commit_guarded", recorded)
    assert s.execute(ROUNDS.format(handle=handle, n=3)), sink.errors()
    assert sink.resultsets()[-1].rows[0][0] == 3
    if backend == "postgresql":
        assert outcomes == [False, True, True]     # the long way once, then the hint again
    assert all(p.service_id != -1 for p in broker.delivery.peers.values())
    assert s.execute("SELECT COUNT(*) FROM TargQ"), sink.errors()
    assert sink.resultsets()[-1].rows == [(0,)]
