"""Two sessions and one conversation-group lock, through T-SQL: a RECEIVE without WHERE skips
a group another transaction holds; RECEIVE … WHERE conversation_group_id = <that group> waits
for the holder to end (reference §5.2: the group stays locked until the transaction ends)."""

from __future__ import annotations

import threading
import time

from cc_env import Client, build, send_block

from tsqlbroker.interpreter.instance import Instance

RECEIVE = ("RECEIVE conversation_group_id, message_body FROM InitQ")


def _groups(rows: list[tuple]) -> set[str]:
    return {str(r[0]) for r in rows}


def test_receive_skips_a_held_group_and_where_waits_for_it(instance: Instance) -> None:
    admin = build(instance, groups=2, convs=3)
    send_block(admin, 0, 2, 0, 4)          # 2 groups × 3 conversations × 4 messages
    holder, other = Client(instance), Client(instance)
    try:
        holder.run("SET NOCOUNT ON")
        other.run("SET NOCOUNT ON")
        # The holder takes one message of the first group and keeps its transaction open.
        (taken,) = holder.run("BEGIN TRAN; RECEIVE TOP (1) conversation_group_id, "
                              "message_body FROM InitQ")
        held = _groups(taken.rows)
        assert len(taken.rows) == 1 and len(held) == 1
        (held_group,) = held

        # Without WHERE the other session skips the held group and gets all of the other
        # group's messages at once.
        (got,) = other.run(RECEIVE)
        assert len(got.rows) == 12
        assert _groups(got.rows).isdisjoint(held)
        # Nothing else is available to it now: the rest of the queue is the held group.
        (nothing,) = other.run(RECEIVE)
        assert nothing.rows == []

        # With WHERE on the held group it waits until the holder commits.
        result: dict[str, object] = {}
        committed = threading.Event()

        def wait_for_group() -> None:
            (rs,) = other.run(f"RECEIVE conversation_group_id, message_body FROM InitQ "
                              f"WHERE conversation_group_id = '{held_group}'")
            result["rows"] = rs.rows
            result["after_commit"] = committed.is_set()

        waiter = threading.Thread(target=wait_for_group)
        waiter.start()
        time.sleep(0.5)
        assert waiter.is_alive(), "RECEIVE … WHERE did not wait for the held group"
        committed.set()
        holder.run("COMMIT")
        waiter.join(30)
        assert not waiter.is_alive()
        assert result["after_commit"] is True
        rows = result["rows"]
        assert isinstance(rows, list)
        # The rest of the held group: 11 messages, none of them the one already committed.
        assert len(rows) == 11 and _groups(rows) == held
        assert taken.rows[0][1] not in {r[1] for r in rows}
    finally:
        holder.close()
        other.close()
