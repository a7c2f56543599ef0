"""The broker's message table keeps two secondary indexes (every SEND and RECEIVE maintains
each one): the ready index and the per-conversation RECEIVE index. Every hot-path read of
the table must still be an index search, never a scan, and RECEIVE from a group of several
conversations (which reads the group's rows through its endpoints) keeps its order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import inspect
from tsql_client import services_script

from tsqlbroker.engine.broker import receive
from tsqlbroker.engine.broker.schema import PREFIX
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.session import Session
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = services_script("ix", dialog=False)

# Two dialogs whose target endpoints share one conversation group (the second target
# endpoint is moved into the first one's group), three messages on each.
TWO_CONVERSATIONS = """
DECLARE @h1 uniqueidentifier, @h2 uniqueidentifier, @g uniqueidentifier,
        @t2 uniqueidentifier;
BEGIN DIALOG @h1 FROM SERVICE [//ix/Init] TO SERVICE '//ix/Targ'
    ON CONTRACT [//ix/Contract] WITH ENCRYPTION = OFF;
BEGIN DIALOG @h2 FROM SERVICE [//ix/Init] TO SERVICE '//ix/Targ'
    ON CONTRACT [//ix/Contract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h1 MESSAGE TYPE [//ix/Msg] (0x11);
SEND ON CONVERSATION @h2 MESSAGE TYPE [//ix/Msg] (0x21);
SEND ON CONVERSATION @h1 MESSAGE TYPE [//ix/Msg] (0x12);
SEND ON CONVERSATION @h2 MESSAGE TYPE [//ix/Msg] (0x22);
SEND ON CONVERSATION @h1 MESSAGE TYPE [//ix/Msg] (0x13);
SEND ON CONVERSATION @h2 MESSAGE TYPE [//ix/Msg] (0x23);
SELECT TOP (1) @g = conversation_group_id FROM TargQ WHERE message_body = 0x11;
SELECT TOP (1) @t2 = conversation_handle FROM TargQ WHERE message_body = 0x21;
MOVE CONVERSATION @t2 TO @g;
"""


@pytest.fixture
def session(instance: Instance) -> Iterator[tuple[Session, CollectingSink]]:
    sink = CollectingSink()
    s = instance.session(sink, "master")
    assert s.execute("CREATE DATABASE ix")
    assert s.execute("USE ix")
    assert s.execute(SETUP), sink.errors()
    try:
        yield s, sink
    finally:
        s.close()


def test_message_table_has_only_the_ready_and_receive_indexes(
        session: tuple[Session, CollectingSink]) -> None:
    s, _sink = session
    names = {ix["name"] for ix in inspect(s.conn.conn).get_indexes(PREFIX + "messages")}
    assert names == {"ix_tsqlb_sb_msg_ready", "ix_tsqlb_sb_msg_receive"}


def test_hot_path_reads_of_the_message_table_are_index_searches() -> None:
    inst = Instance("sqlite://")
    sink = CollectingSink()
    s = inst.session(sink, "master")
    try:
        assert s.execute("CREATE DATABASE ix") and s.execute("USE ix")
        assert s.execute(SETUP + TWO_CONVERSATIONS), sink.errors()
        dbapi = s.conn.conn.connection.dbapi_connection
        for sql in (receive.SELECT_GROUP_ROWS, receive.SELECT_CONVERSATION_KEY,
                    receive.SELECT_CONVERSATION_ROWS, receive.SELECT_LONE_CONVERSATION_ROWS,
                    f"DELETE FROM {PREFIX}messages WHERE conversation_handle = ?"):
            plan = [row[3] for row in dbapi.execute("EXPLAIN QUERY PLAN " + sql,
                                                    ("X",) * sql.count("?"))]
            scans = [step for step in plan if step.startswith("SCAN")
                     and "messages" in step]
            assert not scans, (sql, plan)
            assert any("ix_tsqlb_sb_msg_receive" in step for step in plan), (sql, plan)
    finally:
        s.close()
        inst.close()


def test_receive_from_a_group_of_two_conversations_keeps_conversation_order(
        session: tuple[Session, CollectingSink]) -> None:
    """Two RECEIVEs in one transaction: the second reads the group's remaining rows (the
    path that goes through the group's endpoints); conversation by conversation — the one
    whose first remaining message was queued first leads — each in sequence order, nothing
    twice."""
    s, sink = session
    assert s.execute(TWO_CONVERSATIONS), sink.errors()
    sink.events.clear()
    assert s.execute("""
        BEGIN TRAN;
        RECEIVE TOP (2) message_body FROM TargQ;
        RECEIVE message_body FROM TargQ;
        COMMIT;
        SELECT COUNT(*) FROM TargQ;
    """), sink.errors()
    first, second, left = sink.resultsets()
    assert [bytes(r[0]) for r in first.rows] == [b"\x11", b"\x12"]
    assert [bytes(r[0]) for r in second.rows] == [b"\x21", b"\x22", b"\x23", b"\x13"]
    assert left.rows[0][0] == 0
