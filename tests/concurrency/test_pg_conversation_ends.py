"""The two ends of one conversation worked on at once by two processes sharing a PostgreSQL
store: the initiator SENDs (or ENDs) in its transaction while the target RECEIVEs and replies
(or ENDs) in another. Each commit changes the far endpoint's row, so the endpoint rows of a
conversation are locked in one order (initiator first): the two transactions queue one behind
the other instead of deadlocking — no Msg 1205 where SQL Server has no cycle, never Msg 3624.

Each side is an :class:`Instance` of its own (its own connections and lock manager), exactly
as two ``tsqlbroker`` processes are.
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

DB = "ends"
SETUP = """
CREATE MESSAGE TYPE [//ends/m] VALIDATION = NONE;
CREATE CONTRACT [//ends/c] ([//ends/m] SENT BY ANY);
CREATE QUEUE IQ WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
CREATE QUEUE TQ WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
CREATE SERVICE [//ends/i] ON QUEUE IQ;
CREATE SERVICE [//ends/t] ON QUEUE TQ ([//ends/c]);
CREATE TABLE H (h uniqueidentifier NOT NULL);
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//ends/i] TO SERVICE '//ends/t' ON CONTRACT [//ends/c]
    WITH ENCRYPTION = OFF;
INSERT INTO H VALUES (@h);
SEND ON CONVERSATION @h MESSAGE TYPE [//ends/m] (0x00);
"""
INITIATOR_SENDS = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier = (SELECT h FROM H);
BEGIN TRAN;
SEND ON CONVERSATION @h MESSAGE TYPE [//ends/m] (0x01);
"""
# Polls (no WAITFOR): two instances of one process do not wake each other — the store's
# NOTIFYs name the sending process, and a process ignores its own.
TARGET_REPLIES = """
SET NOCOUNT ON;
DECLARE @t uniqueidentifier;
BEGIN TRAN;
RECEIVE TOP (1) @t = conversation_handle FROM TQ;
IF @t IS NOT NULL
    SEND ON CONVERSATION @t MESSAGE TYPE [//ends/m] (0x02);
COMMIT;
SELECT CASE WHEN @t IS NULL THEN 0 ELSE 1 END;
"""
BOUND_S = 15.0


@pytest.fixture
def pair(fresh_postgres: FreshPostgres) -> Iterator[tuple[Client, Client]]:
    """Clients of two instances on a store holding one conversation (one message on TQ)."""
    url = fresh_postgres.url()
    create_database(url, DB, SETUP)
    first, second = Instance(url), Instance(url)
    try:
        yield Client(first, DB), Client(second, DB)
    finally:
        first.close()
        second.close()


def _in_thread(client: Client, batch: str) -> tuple[threading.Thread, dict[str, object]]:
    out: dict[str, object] = {}

    def go() -> None:
        sink = client.run(batch, expect_errors=True)
        out["errors"] = [e.render() for e in sink.errors()]
    thread = threading.Thread(target=go)
    thread.start()
    return thread, out


def test_a_reply_waits_for_the_initiators_send_instead_of_deadlocking(
        pair: tuple[Client, Client]) -> None:
    initiator, target = pair
    initiator.run(INITIATOR_SENDS)
    thread, out = _in_thread(target, TARGET_REPLIES)
    time.sleep(1.5)                    # past deadlock_timeout: a cycle would have been found
    assert thread.is_alive()           # the reply waits for the initiator's transaction
    assert initiator.run("COMMIT").errors() == []
    thread.join(BOUND_S)
    assert not thread.is_alive() and out["errors"] == []
    assert initiator.rows("SELECT COUNT(*) FROM IQ") == [(1,)]       # the reply
    assert initiator.rows("SELECT COUNT(*) FROM TQ") == [(1,)]       # the initiator's 0x01


def test_both_ends_ending_at_once_queue(pair: tuple[Client, Client]) -> None:
    initiator, target = pair
    initiator.run("SET NOCOUNT ON; DECLARE @h uniqueidentifier = (SELECT h FROM H); "
                  "BEGIN TRAN; END CONVERSATION @h;")
    thread, out = _in_thread(target, """
SET NOCOUNT ON;
DECLARE @t uniqueidentifier;
BEGIN TRAN;
RECEIVE TOP (1) @t = conversation_handle FROM TQ;
END CONVERSATION @t;
COMMIT;
""")
    time.sleep(1.5)
    assert initiator.run("COMMIT").errors() == []
    thread.join(BOUND_S)
    assert not thread.is_alive() and out["errors"] == []
    # Both ended: the initiator's endpoint is gone, the target's closed.
    assert initiator.rows("SELECT is_initiator, state FROM sys.conversation_endpoints") == [
        (0, "CD")]


def test_both_ends_sending_in_a_loop_never_fail(pair: tuple[Client, Client]) -> None:
    """The issue's shape: senders beside a replying reader, 25 rounds, no error at all."""
    initiator, target = pair
    rounds = 25
    errors: list[str] = []
    deadline = time.monotonic() + 90

    def send_loop() -> None:
        for _ in range(rounds):
            if time.monotonic() > deadline:
                return
            sink = initiator.run(INITIATOR_SENDS + "WAITFOR DELAY '00:00:00.020'; COMMIT;",
                                 expect_errors=True)
            errors.extend(e.render() for e in sink.errors())

    def reply_loop() -> None:
        replied = 0
        while replied < rounds + 1 and time.monotonic() < deadline:
            sink = target.run(TARGET_REPLIES, expect_errors=True)
            errors.extend(e.render() for e in sink.errors())
            if sink.resultsets() and sink.resultsets()[-1].rows == [(1,)]:
                replied += 1
            else:
                time.sleep(0.01)

    threads = [threading.Thread(target=send_loop), threading.Thread(target=reply_loop)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(100)
        assert not t.is_alive()
    assert errors == []
    assert initiator.rows("SELECT COUNT(*) FROM IQ") == [(rounds + 1,)]
    assert initiator.rows("SELECT COUNT(*) FROM TQ") == [(0,)]
