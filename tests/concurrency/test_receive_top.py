"""RECEIVE TOP (n) reads only the rows it returns (an index walk per conversation); it must
return exactly the first n rows of the group's full RECEIVE order at that moment (reference
§5.3): conversation by conversation, DialogTimer before the rest, then by sequence number."""

from __future__ import annotations

import time

from cc_env import Client, build, send_block

from tsqlbroker.interpreter.instance import Instance

COLUMNS = "conversation_handle, message_type_name, message_sequence_number, message_body"


def test_top_n_is_the_head_of_the_full_receive_order(instance: Instance) -> None:
    admin = build(instance, groups=1, convs=3)
    send_block(admin, 0, 1, 0, 4)
    send_block(admin, 0, 1, 4, 9)             # 3 conversations × 9 messages, interleaved
    # A conversation timer puts a DialogTimer, which RECEIVE returns first in its
    # conversation, behind the other messages of the queue.
    admin.run("DECLARE @h uniqueidentifier = (SELECT TOP (1) conversation_handle "
              "FROM sys.conversation_endpoints WHERE is_initiator = 1); "
              "BEGIN CONVERSATION TIMER (@h) TIMEOUT = 1;")
    deadline = time.monotonic() + 15
    while admin.rows("SELECT COUNT(*) FROM InitQ") != [(28,)]:
        assert time.monotonic() < deadline, "the conversation timer did not fire"
        time.sleep(0.1)
    reader = Client(instance)
    try:
        reader.run("SET NOCOUNT ON")
        (full,) = reader.run(f"BEGIN TRAN; RECEIVE {COLUMNS} FROM InitQ; ROLLBACK;")
        assert len(full.rows) == 28
        types = [r[1] for r in full.rows]
        timer_at = types.index("http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer")
        # The timer leads its conversation's run of rows.
        assert timer_at == 0 or full.rows[timer_at - 1][0] != full.rows[timer_at][0]
        left = 28
        for n in (1, 4, 2, 7, 9, 100):
            # At each step TOP (n) gives the first n rows of what a full RECEIVE would
            # return then (the conversation order depends on what is left in the group).
            (now,) = reader.run(f"BEGIN TRAN; RECEIVE {COLUMNS} FROM InitQ; ROLLBACK;")
            (part,) = reader.run(f"BEGIN TRAN; RECEIVE TOP ({n}) {COLUMNS} FROM InitQ; "
                                 "COMMIT;")
            assert len(now.rows) == left
            assert part.rows == now.rows[:n]
            left -= len(part.rows)
        assert left == 0
        # TOP (n) after an earlier RECEIVE in the same transaction (rows already taken by
        # the transaction are skipped) gives the same order too.
        send_block(admin, 0, 1, 9, 12)
        (whole,) = reader.run(f"BEGIN TRAN; RECEIVE {COLUMNS} FROM InitQ; ROLLBACK;")
        sets = reader.run(f"BEGIN TRAN; RECEIVE TOP (2) {COLUMNS} FROM InitQ; "
                          f"RECEIVE TOP (5) {COLUMNS} FROM InitQ; "
                          f"RECEIVE TOP (50) {COLUMNS} FROM InitQ; COMMIT;")
        assert [r for rs in sets for r in rs.rows] == whole.rows
    finally:
        reader.close()
