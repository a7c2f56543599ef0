"""RECEIVE directly followed by the COMMIT that ends its transaction (issue 18): on PostgreSQL
the pick, the group's rows, their DELETE and the COMMIT go in one round trip, checked there
(``row_locks.received_with_commit``); when the check fails — an empty queue, a group held
by another connection, a group of several conversations — nothing of it stays and the
RECEIVE runs the usual way. Every case runs on both backends and must give the same results;
on PostgreSQL the tests also say which way the RECEIVE went."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.exc import DBAPIError
from test_hot_path_statements import counting, hot_session, per_round

from tsqlbroker.engine.broker.receive import Receiving
from tsqlbroker.interpreter.session import Session
from tsqlbroker.interpreter.sink import CollectingSink
from tsqlbroker.storage.backends.postgres import libpq
from tsqlbroker.storage.store import StoreConnection

# ROUNDS of test_hot_path_statements with the RECEIVE directly followed by its COMMIT (the
# benchmarks' loop, scripts/bench/broker_session.py).
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
    COMMIT;
    IF CAST(@b AS int) = @i SET @n += 1;
    SET @i += 1;
END;
SELECT @n;
"""
# Per round: SEND's transaction 1 round trip, RECEIVE's 1 (issue 18: 3 before).
MAX_PER_ROUND = {"sqlite": 12, "postgresql": 2}

SEND = ("DECLARE @h uniqueidentifier = '{handle}'; "
        "SEND ON CONVERSATION @h MESSAGE TYPE [//hot/Msg] ({body});")


@pytest.fixture
def hot(backend_url: str) -> Iterator[tuple[Session, CollectingSink, str]]:
    with hot_session(backend_url) as session:
        yield session


def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record whether each RECEIVE sent with its COMMIT passed its check (True: received
    and committed in that round trip; False: it went the usual way)."""
    outcomes: list[bool] = []
    guarded = StoreConnection.commit_guarded_rows

    def recorded(conn: StoreConnection, *args: Any) -> Any:
        rows = guarded(conn, *args)
        outcomes.append(rows is not None)
        return rows
    monkeypatch.setattr(StoreConnection, "commit_guarded_rows", recorded)
    return outcomes


def run(s: Session, sink: CollectingSink, text: str) -> list[Any]:
    sink.events.clear()
    assert s.execute(text), [e.render() for e in sink.errors()]
    return sink.resultsets()


def test_a_round_with_receive_then_commit_stays_within_its_budget(
        backend: str, hot: tuple[Session, CollectingSink, str]) -> None:
    s, sink, handle = hot
    got = per_round(s, sink, handle, rounds=ROUNDS)
    assert got <= MAX_PER_ROUND[backend], f"{got:.2f} per round"


def test_receive_then_commit_gives_what_the_usual_way_gives(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows, columns, their order and TOP (n) as the usual way gives them; the messages are
    gone once, the transaction ended, @@ROWCOUNT after COMMIT 0, variables assigned from
    the last row; other work of the transaction commits with it."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    for body in ("0x01", "0x02", "0x03"):
        run(s, sink, SEND.format(handle=handle, body=body))
    run(s, sink, "CREATE TABLE logged (n int)")
    sets = run(s, sink, """
        BEGIN TRAN;
        INSERT INTO logged VALUES (1);
        RECEIVE TOP (2) message_sequence_number AS seq, message_body, * FROM TargQ;
        COMMIT;
        SELECT @@TRANCOUNT, @@ROWCOUNT, (SELECT COUNT(*) FROM logged),
            (SELECT COUNT(*) FROM TargQ);""")
    received, after = sets
    assert received.columns[:3] == ["seq", "message_body", "status"]
    assert [r[:2] for r in received.rows] == [(0, b"\x01"), (1, b"\x02")]
    assert after.rows == [(0, 0, 1, 1)]
    sets = run(s, sink, """
        DECLARE @b varbinary(max), @t sysname, @q bigint, @c uniqueidentifier;
        BEGIN TRAN;
        RECEIVE TOP (5) @b = message_body, @t = message_type_name, @q = queuing_order,
            @c = conversation_handle FROM TargQ;
        COMMIT;
        SELECT @b, @t, @@TRANCOUNT, (SELECT COUNT(*) FROM TargQ);""")
    assert sets[-1].rows == [(b"\x03", "//hot/Msg", 0, 0)]
    if backend == "postgresql":
        assert outcomes == [True, True]


def test_an_empty_queue_goes_the_usual_way(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing to receive: the check fails, the RECEIVE runs again the usual way and
    returns the queue's columns without rows; the COMMIT commits the rest."""
    s, sink, _handle = hot
    outcomes = taken(monkeypatch)
    run(s, sink, "CREATE TABLE logged (n int)")
    sets = run(s, sink, """
        DECLARE @b varbinary(max) = 0x09;
        BEGIN TRAN;
        INSERT INTO logged VALUES (1);
        RECEIVE TOP (1) * FROM TargQ;
        COMMIT;
        BEGIN TRAN;
        RECEIVE TOP (1) @b = message_body FROM TargQ;
        COMMIT;
        SELECT @b, @@TRANCOUNT, (SELECT COUNT(*) FROM logged);""")
    empty, after = sets
    assert empty.rows == [] and "message_body" in empty.columns
    assert after.rows == [(b"\x09", 0, 1)]      # a RECEIVE of nothing leaves @b alone
    if backend == "postgresql":
        assert outcomes == [False, False]


def test_a_receive_that_fails_reports_on_its_own_line(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A RECEIVE that fails (a disabled queue; a row its expression cannot convert) fails as
    it would without the COMMIT behind it: its error on its line, the transaction open and
    committable (inside TRY the CATCH sees it so); the message stays (the failed RECEIVE is
    rolled back as a statement: the COMMIT in the CATCH commits nothing of it)."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    run(s, sink, SEND.format(handle=handle, body="0x41"))
    sets = run(s, sink, """DECLARE @x xml;
BEGIN TRY
    BEGIN TRAN;
    RECEIVE TOP (1) @x = CAST(CAST(message_body AS varchar(10)) + '<' AS xml) FROM TargQ;
    COMMIT;
END TRY
BEGIN CATCH
    SELECT ERROR_LINE(), XACT_STATE(), @@TRANCOUNT;
    COMMIT;
END CATCH;""")
    assert sets[-1].rows == [(4, 1, 1)]
    run(s, sink, SEND.format(handle=handle, body="0x42"))
    run(s, sink, "ALTER QUEUE TargQ WITH STATUS = OFF")
    sink.events.clear()
    assert not s.execute("BEGIN TRAN;\nRECEIVE TOP (1) * FROM TargQ;\nCOMMIT;")
    assert [(e.number, e.line) for e in sink.errors()] == [(9617, 2)]
    sets = run(s, sink, "ALTER QUEUE TargQ WITH STATUS = ON; "
                        "SELECT @@TRANCOUNT, COUNT(*) FROM TargQ")
    assert sets[-1].rows == [(0, 2)]
    if backend == "postgresql":
        assert outcomes == []       # neither went with its COMMIT


def test_inside_try_a_receive_with_its_commit_leaves_nothing_open(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    run(s, sink, SEND.format(handle=handle, body="0x07"))
    sets = run(s, sink, """DECLARE @b varbinary(max);
BEGIN TRY
    BEGIN TRAN;
    RECEIVE TOP (1) @b = message_body FROM TargQ;
    COMMIT;
    SELECT @b, @@TRANCOUNT, XACT_STATE(), (SELECT COUNT(*) FROM TargQ);
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER();
END CATCH;""")
    assert sets[-1].rows == [(b"\x07", 0, 0, 0)]
    if backend == "postgresql":
        assert outcomes == [True]


def test_a_group_of_two_conversations_goes_the_usual_way(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The picked group holds two conversations: the statement's check fails and the usual
    way returns both conversations' messages, conversation by conversation."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    sets = run(s, sink, f"""
        DECLARE @h uniqueidentifier = '{handle}', @h2 uniqueidentifier;
        BEGIN DIALOG @h2 FROM SERVICE [//hot/Init] TO SERVICE '//hot/Targ'
            ON CONTRACT [//hot/Contract] WITH ENCRYPTION = OFF;
        SEND ON CONVERSATION @h MESSAGE TYPE [//hot/Msg] (0x01);
        SEND ON CONVERSATION @h2 MESSAGE TYPE [//hot/Msg] (0x02);
        DECLARE @t1 uniqueidentifier = (SELECT conversation_handle FROM TargQ
            WHERE message_body = 0x01);
        DECLARE @t2 uniqueidentifier = (SELECT conversation_handle FROM TargQ
            WHERE message_body = 0x02);
        DECLARE @g uniqueidentifier = (SELECT conversation_group_id FROM
            sys.conversation_endpoints WHERE conversation_handle = @t1);
        MOVE CONVERSATION @t2 TO @g;
        BEGIN TRAN;
        RECEIVE TOP (10) message_body FROM TargQ;
        COMMIT;
        SELECT @@TRANCOUNT, COUNT(*) FROM TargQ;""")
    assert sorted(r[0] for r in sets[-2].rows) == [b"\x01", b"\x02"]
    assert sets[-1].rows == [(0, 0)]
    if backend == "postgresql":
        assert outcomes == [False]


def test_a_group_held_by_another_connection_is_passed_over(
        fresh_postgres: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another connection (another process's transaction) holds the only group with
    messages: the RECEIVE sent with its COMMIT passes its row over, finds nothing, and runs
    again the usual way, which passes it over too; once released, the message is received
    once, with its COMMIT."""
    outcomes = taken(monkeypatch)
    with hot_session(fresh_postgres.url()) as (s, sink, handle):
        run(s, sink, SEND.format(handle=handle, body="0x05"))
        schema = s.conn.conn.exec_driver_sql("SELECT current_schema()").scalar()
        other = s.instance.store.engine.connect()
        try:
            other.exec_driver_sql(f'BEGIN; SET LOCAL search_path TO "{schema}"')
            other.exec_driver_sql(
                "SELECT 1 FROM tsqlb_sb_conversation_groups WHERE conversation_group_id = "
                "(SELECT conversation_group_id FROM tsqlb_sb_messages) FOR UPDATE")
            got: list[Any] = []
            worker = threading.Thread(target=lambda: got.append(run(s, sink, """
                BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ; COMMIT;
                SELECT @@TRANCOUNT""")))
            worker.start()
            worker.join(10)
            assert not worker.is_alive(), "a RECEIVE does not wait for a held group"
            assert got[0][0].rows == [] and got[0][1].rows == [(0,)]
        finally:
            other.exec_driver_sql("ROLLBACK")
            other.close()
        sets = run(s, sink, "BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ; COMMIT; "
                            "SELECT COUNT(*) FROM TargQ")
        assert sets[0].rows == [(b"\x05",)] and sets[1].rows == [(0,)]
    assert outcomes == [False, True]


def test_round_trips_of_a_receive_sent_with_its_commit(
        fresh_postgres: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """RECEIVE TOP (1) and its COMMIT: one round trip; with an empty queue the failed check
    costs its round trip, the savepoint's rollback and the usual two."""
    outcomes = taken(monkeypatch)
    with hot_session(fresh_postgres.url()) as (s, sink, handle):
        receive = "BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ; COMMIT;"
        for _ in range(2):      # statements prepared
            run(s, sink, SEND.format(handle=handle, body="0x01"))
            run(s, sink, receive)
        run(s, sink, SEND.format(handle=handle, body="0x02"))
        with counting(s) as count:
            sets = run(s, sink, receive)
        assert sets[0].rows == [(b"\x02",)]
        assert count() == 1
        with counting(s) as count:
            sets = run(s, sink, receive)
        assert sets[0].rows == []
        assert count() == 4
    assert outcomes == [True, True, True, False]


def test_waitfor_receive_then_commit(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """WAITFOR (RECEIVE …) with a message ready goes with its COMMIT; with none it waits
    the usual way (a SEND of another session arrives meanwhile) and then commits."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    run(s, sink, SEND.format(handle=handle, body="0x01"))
    waitfor = """DECLARE @b varbinary(max);
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @b = message_body FROM TargQ), TIMEOUT 10000;
        COMMIT;
        SELECT @b, @@TRANCOUNT;"""
    assert run(s, sink, waitfor)[-1].rows == [(b"\x01", 0)]
    other_sink = CollectingSink()
    other = s.instance.session(other_sink, "hot")
    try:
        timer = threading.Timer(0.3, lambda: other.execute(
            SEND.format(handle=handle, body="0x02")))
        timer.start()
        assert run(s, sink, waitfor)[-1].rows == [(b"\x02", 0)]
        timer.join()
        assert not other_sink.errors()
    finally:
        other.close()
    assert run(s, sink, "SELECT COUNT(*) FROM TargQ")[-1].rows == [(0,)]
    if backend == "postgresql":
        assert outcomes[:2] == [True, False] and outcomes[-1] is True


def test_after_save_transaction_the_usual_way(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A savepoint in the transaction keeps the RECEIVE on the usual way; ROLLBACK to it
    and COMMIT still work as before."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    run(s, sink, SEND.format(handle=handle, body="0x01"))
    sets = run(s, sink, """BEGIN TRAN; SAVE TRAN sp;
        RECEIVE TOP (1) message_body FROM TargQ; COMMIT;
        SELECT @@TRANCOUNT, COUNT(*) FROM TargQ;""")
    assert sets[0].rows == [(b"\x01",)] and sets[1].rows == [(0, 0)]
    assert outcomes == []


def test_what_may_fail_after_its_rows_goes_the_usual_way(
        backend: str, hot: tuple[Session, CollectingSink, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """INTO a table variable, an expression, a narrower integer variable (queuing_order is
    bigint), a compound assignment, a WHERE: each may fail (or wait) once the rows are
    there, so none goes with its COMMIT; each still receives what it should. Variables of
    the column's type or a wider integer type (priority, tinyint, into an int) do."""
    s, sink, handle = hot
    outcomes = taken(monkeypatch)
    shapes = [
        ("DECLARE @t TABLE (b varbinary(max)); BEGIN TRAN; "
         "RECEIVE TOP (1) message_body FROM TargQ INTO @t; COMMIT; SELECT b FROM @t;"),
        ("DECLARE @b varbinary(10); BEGIN TRAN; "
         "RECEIVE TOP (1) @b = SUBSTRING(message_body, 1, 1) FROM TargQ; COMMIT; SELECT @b;"),
        ("DECLARE @q int; BEGIN TRAN; RECEIVE TOP (1) @q = queuing_order FROM TargQ; "
         "COMMIT; SELECT @q;"),
        ("DECLARE @b varbinary(max) = 0x; BEGIN TRAN; "
         "RECEIVE TOP (1) @b += message_body FROM TargQ; COMMIT; SELECT @b;"),
        ("BEGIN TRAN; RECEIVE TOP (1) message_body FROM TargQ "
         "WHERE conversation_group_id = (SELECT conversation_group_id FROM "
         "sys.conversation_endpoints WHERE is_initiator = 0); COMMIT;"),
    ]
    for shape in shapes:
        run(s, sink, SEND.format(handle=handle, body="0x0102"))
        sets = run(s, sink, shape)
        assert sets[-1].rows and sets[-1].rows[0][0] is not None, shape
    assert outcomes == []
    run(s, sink, SEND.format(handle=handle, body="0x03"))
    sets = run(s, sink, "DECLARE @n bigint, @p int; BEGIN TRAN; RECEIVE TOP (1) "
                        "@n = message_sequence_number, @p = priority FROM TargQ; COMMIT; "
                        "SELECT @p, @@TRANCOUNT, (SELECT COUNT(*) FROM TargQ);")
    assert sets[-1].rows == [(5, 0, 0)]
    if backend == "postgresql":
        assert outcomes == [True]


# A server-side failure of the statement sent with its COMMIT that is no failed check: a
# trigger on the queue's table refuses the DELETE.
REFUSE_DELETE = """
CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
CREATE TRIGGER refuse_delete BEFORE DELETE ON tsqlb_sb_messages
FOR EACH ROW EXECUTE FUNCTION refuse_delete();"""


def test_a_failure_that_ends_the_storage_transaction_ends_the_session_s(
        fresh_postgres: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The RECEIVE sent with its COMMIT fails on the server (no failed check): the storage
    transaction is gone with the transaction's earlier writes, so the session's transaction
    ends too — outside TRY the COMMIT then finds none (Msg 3902) instead of reporting a
    commit of lost work; inside TRY the CATCH sees it doomed (XACT_STATE() = -1) and rolls
    it back. The message stays on the queue."""
    outcomes = taken(monkeypatch)
    with hot_session(fresh_postgres.url()) as (s, sink, handle):
        run(s, sink, SEND.format(handle=handle, body="0x05"))
        run(s, sink, "CREATE TABLE logged (n int)")
        schema = s.conn.conn.exec_driver_sql("SELECT current_schema()").scalar()
        with s.instance.store.engine.begin() as other:
            other.exec_driver_sql(f'SET LOCAL search_path TO "{schema}"')
            other.exec_driver_sql(REFUSE_DELETE)
        sink.events.clear()
        assert not s.execute("BEGIN TRAN;\nINSERT INTO logged VALUES (1);\n"
                             "RECEIVE TOP (1) message_body FROM TargQ;\nCOMMIT;")
        errors = [(e.number, e.line) for e in sink.errors()]
        assert errors[0][1] == 3 and errors[1:] == [(3902, 4)], errors
        assert "refused by the test" in sink.errors()[0].message
        sets = run(s, sink, "SELECT @@TRANCOUNT, (SELECT COUNT(*) FROM logged), "
                            "(SELECT COUNT(*) FROM TargQ)")
        assert sets[-1].rows == [(0, 0, 1)]
        sets = run(s, sink, """BEGIN TRY
    BEGIN TRAN;
    INSERT INTO logged VALUES (2);
    RECEIVE TOP (1) message_body FROM TargQ;
    COMMIT;
END TRY
BEGIN CATCH
    SELECT ERROR_LINE(), XACT_STATE(), @@TRANCOUNT;
    ROLLBACK;
END CATCH;
SELECT @@TRANCOUNT, (SELECT COUNT(*) FROM logged), (SELECT COUNT(*) FROM TargQ);""")
        assert [r.rows for r in sets[-2:]] == [[(4, -1, 1)], [(0, 0, 1)]]
    assert outcomes == []       # neither came back from the server



def test_a_waitfor_woken_for_nothing_tries_its_commit_round_trip_at_most_twice(
        backend: str, backend_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """WAITFOR (RECEIVE …) woken again and again for a message another receiver takes
    first (the wait reports one ready, the RECEIVE finds none): the one-round-trip try
    (a failed check costs three round trips) is made on the first pass and after the first
    wake only; later polls read the usual way. A message that then arrives is received."""
    outcomes = taken(monkeypatch)
    wakes = {"false": 4}
    waited = Receiving.wait_for_message

    def woken_for_nothing(self: Receiving, *args: Any, **kwargs: Any) -> bool:
        if wakes["false"]:
            wakes["false"] -= 1
            return True
        return waited(self, *args, **kwargs)
    monkeypatch.setattr(Receiving, "wait_for_message", woken_for_nothing)
    with hot_session(backend_url) as (s, sink, handle):
        other_sink = CollectingSink()
        other = s.instance.session(other_sink, "hot")
        try:
            timer = threading.Timer(0.5, lambda: other.execute(
                SEND.format(handle=handle, body="0x06")))
            timer.start()
            sets = run(s, sink, """DECLARE @b varbinary(max);
                BEGIN TRAN;
                WAITFOR (RECEIVE TOP (1) @b = message_body FROM TargQ), TIMEOUT 10000;
                COMMIT;
                SELECT @b, @@TRANCOUNT, (SELECT COUNT(*) FROM TargQ);""")
            timer.join()
            assert not other_sink.errors()
        finally:
            other.close()
        assert sets[-1].rows == [(b"\x06", 0, 0)]
        assert wakes["false"] == 0
    if backend == "postgresql":
        assert outcomes == [False, False]


def test_a_cancel_stops_a_receive_sent_with_its_commit_that_waits_on_the_server(
        fresh_postgres: Any) -> None:
    """The RECEIVE sent with its COMMIT waits on the server for a message row another
    connection holds: a cancel stops it (the server is asked to cancel the text), the
    storage transaction is gone with the transaction's earlier write, and the session's
    transaction ends with it; the message stays."""
    with hot_session(fresh_postgres.url()) as (s, sink, handle):
        run(s, sink, SEND.format(handle=handle, body="0x05"))
        run(s, sink, "CREATE TABLE logged (n int)")
        schema = s.conn.conn.exec_driver_sql("SELECT current_schema()").scalar()
        other = s.instance.store.engine.connect()
        try:
            other.exec_driver_sql(f'BEGIN; SET LOCAL search_path TO "{schema}"')
            other.exec_driver_sql("SELECT 1 FROM tsqlb_sb_messages FOR UPDATE")
            done = threading.Event()
            worker = threading.Thread(target=lambda: (s.execute(
                "BEGIN TRAN;\nINSERT INTO logged VALUES (1);\n"
                "RECEIVE TOP (1) message_body FROM TargQ;\nCOMMIT;"), done.set()))
            worker.start()
            assert not done.wait(0.5), "the RECEIVE waits for the held row"
            s.cancel()
            worker.join(10)
            assert not worker.is_alive(), "the cancel stops the wait"
        finally:
            other.exec_driver_sql("ROLLBACK")
            other.close()
        sets = run(s, sink, "SELECT @@TRANCOUNT, (SELECT COUNT(*) FROM logged), "
                            "(SELECT COUNT(*) FROM TargQ)")
        assert sets[-1].rows == [(0, 0, 1)]


def test_a_text_without_the_statement_asked_for_fails_as_a_driver_error(
        fresh_postgres: Any) -> None:
    """``libpq.execute_text_rows`` asked for a statement the text has not: a driver error,
    which the connection hands on as SQLAlchemy's (and the session maps)."""
    with hot_session(fresh_postgres.url()) as (s, _sink, _handle):
        with pytest.raises(DBAPIError, match="no statement 3 in the text"):
            s.conn.driver_call(libpq.execute_text_rows, "SELECT 1; SELECT 2", 3)
        assert s.conn.driver_call(libpq.execute_text_rows, "SELECT 1; SELECT 2", 1) == [(2,)]
