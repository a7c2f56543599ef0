"""A RECEIVE that fails after its rows came (a column list that cannot convert a body) is
rolled back as a statement: its messages stay, but the conversation-group lock it took stays
with the transaction (docs/decisions.md). Another session passes the group over, or waits
for it, until that transaction ends; then it gets the messages in their order. The golden
test tests/golden/broker/receive_statement_atomicity.sql has the single-session cases."""

from __future__ import annotations

import threading

from tsql_client import Client

from tsqlbroker.interpreter.instance import Instance

SETUP = """CREATE QUEUE dbo.SenderQueue;
CREATE QUEUE dbo.NumberQueue;
CREATE SERVICE [//R/Sender] ON QUEUE dbo.SenderQueue;
CREATE SERVICE [//R/Numbers] ON QUEUE dbo.NumberQueue ([DEFAULT]);"""
SEND = """DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//R/Sender] TO SERVICE '//R/Numbers' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (N'abc');
SEND ON CONVERSATION @h (N'42');"""
FAILING = """DECLARE @n int;
BEGIN TRAN;
BEGIN TRY
    RECEIVE TOP (1) @n = CAST(CAST(message_body AS nvarchar(10)) AS int) FROM dbo.NumberQueue;
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER(), XACT_STATE(), @@TRANCOUNT;
END CATCH;"""
BODIES = "CAST(message_body AS nvarchar(10)) AS body"
# Bounds the waiting reader (it is woken by the commit long before).
WAIT_MS = 10_000


def sessions(instance: Instance) -> tuple[Client, Client]:
    a = Client(instance)
    a.run("CREATE DATABASE RAtom")
    a.run("USE RAtom")
    a.run(SETUP)
    a.run(SEND)
    return a, Client(instance, "RAtom")


def test_the_failed_receives_group_stays_locked_until_its_transaction_ends(
        instance: Instance) -> None:
    a, b = sessions(instance)
    assert a.rows(FAILING) == [(245, 1, 1)]
    # The messages are there, but their group is a's until a's transaction ends.
    assert b.scalar("SELECT COUNT(*) FROM dbo.NumberQueue WHERE status = 1") == 2
    sets = b.run(f"RECEIVE {BODIES} FROM dbo.NumberQueue").resultsets()
    assert sets[-1].rows == []
    a.run("COMMIT")
    assert b.rows(f"RECEIVE {BODIES} FROM dbo.NumberQueue") == [("abc",), ("42",)]


def test_a_waiting_reader_gets_the_messages_in_order_once_the_transaction_ends(
        instance: Instance) -> None:
    a, b = sessions(instance)
    assert a.rows(FAILING) == [(245, 1, 1)]
    got: list[list[tuple[object, ...]]] = []
    reader = threading.Thread(target=lambda: got.append(b.rows(
        f"WAITFOR (RECEIVE {BODIES} FROM dbo.NumberQueue), TIMEOUT {WAIT_MS}")))
    reader.start()
    try:
        # a receives the same message again in its own transaction, then gives up on it.
        assert a.rows(f"RECEIVE TOP (1) {BODIES} FROM dbo.NumberQueue") == [("abc",)]
        a.run("ROLLBACK")
    finally:
        reader.join(WAIT_MS / 1000 + 5)
    assert not reader.is_alive()
    assert got == [[("abc",), ("42",)]]
    assert a.scalar("SELECT COUNT(*) FROM dbo.NumberQueue") == 0
