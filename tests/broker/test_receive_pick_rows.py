"""RECEIVE TOP (n) on an SQLite file picks its group and reads the group's first rows in one
statement (engine/broker/receive.py, ``_with_lone_conversation_rows``): the rows come in
RECEIVE order (Error before ordinary messages, conversation by conversation in a group of
several), as the two statements of a private store return them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

SETUP = """
CREATE DATABASE pick;
GO
USE pick;
CREATE MESSAGE TYPE m VALIDATION = NONE;
CREATE CONTRACT c (m SENT BY ANY);
CREATE QUEUE IQ;
CREATE QUEUE TQ;
CREATE SERVICE I ON QUEUE IQ;
CREATE SERVICE T ON QUEUE TQ (c);
GO
DECLARE @a uniqueidentifier, @b uniqueidentifier, @c uniqueidentifier,
        @tb uniqueidentifier, @g uniqueidentifier;
BEGIN DIALOG @a FROM SERVICE I TO SERVICE 'T' ON CONTRACT c WITH ENCRYPTION = OFF;
BEGIN DIALOG @b FROM SERVICE I TO SERVICE 'T' ON CONTRACT c WITH ENCRYPTION = OFF;
BEGIN DIALOG @c FROM SERVICE I TO SERVICE 'T' ON CONTRACT c WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @a MESSAGE TYPE m (0x01);
SEND ON CONVERSATION @b MESSAGE TYPE m (0x02);
SEND ON CONVERSATION @a MESSAGE TYPE m (0x03);
SELECT @g = conversation_group_id FROM TQ WHERE message_body = 0x01;
SELECT @tb = conversation_handle FROM TQ WHERE message_body = 0x02;
MOVE CONVERSATION @tb TO @g;
SEND ON CONVERSATION @b MESSAGE TYPE m (0x04);
SEND ON CONVERSATION @c MESSAGE TYPE m (0x05);
SEND ON CONVERSATION @c MESSAGE TYPE m (0x06);
END CONVERSATION @a WITH ERROR = 7 DESCRIPTION = 'a';
END CONVERSATION @c WITH ERROR = 8 DESCRIPTION = 'c';
"""

RECEIVE_ONE = """
BEGIN TRAN;
RECEIVE TOP ({n}) message_type_name, message_body FROM TQ;
COMMIT;
"""

ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error"


def received(url: str, n: int) -> list[list[tuple[str, bytes]]]:
    """What RECEIVE TOP (n), one per transaction, returns until the queue is empty (Error
    bodies shortened to the type name)."""
    inst = Instance(url)
    sink = CollectingSink()
    s = inst.session(sink, "master")
    try:
        for batch in SETUP.split("GO\n"):
            assert s.execute(batch), sink.errors()
        got = []
        while True:
            sink.events.clear()
            assert s.execute(RECEIVE_ONE.format(n=n)), sink.errors()
            rows = sink.resultsets()[-1].rows
            if not rows:
                return got
            got.append([(t, b"" if t == ERROR else bytes(b)) for t, b in rows])
    finally:
        s.close()
        inst.close()


@pytest.mark.parametrize("n", [1, 2, 100])
def test_rows_read_with_the_pick_come_in_receive_order(tmp_path: Path, n: int) -> None:
    on_file = received(f"sqlite:///{tmp_path / 'pick.db'}", n)
    assert on_file == received("sqlite://", n)
    # The group of a and b first (a's first message was queued first); in it conversation
    # by conversation, the one with the earliest ready message first (looked at again by
    # every RECEIVE), each conversation's Error before its messages; then c's group.
    err, m = (ERROR, b""), {i: ("m", bytes([i])) for i in range(1, 7)}
    assert on_file == {
        1: [[err], [m[1]], [m[2]], [m[3]], [m[4]], [err], [m[5]], [m[6]]],
        2: [[err, m[1]], [m[2], m[4]], [m[3]], [err, m[5]], [m[6]]],
        100: [[err, m[1], m[3], m[2], m[4]], [err, m[5], m[6]]]}[n]
