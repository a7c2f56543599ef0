"""Transactions and concurrency: rollback and savepoints restore received messages,
conversation-group locks skip or wait, WAITFOR wakes on another session's commit."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from broker_env import REQ, Env

from tsqlbroker.errors import BrokerError
from tsqlbroker.storage.txn import Txn


def bodies(rs: object) -> list[bytes]:
    return [row[13] for row in rs.rows]  # type: ignore[attr-defined]


def test_rollback_puts_received_messages_back(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    env.send(db, h, REQ, b"2")
    txn = Txn(env.conn)
    assert bodies(b.receive(txn, db, None, "TargQ", top=1)) == [b"1"]
    # The same transaction does not see the received row again.
    assert bodies(b.receive(txn, db, None, "TargQ")) == [b"2"]
    assert bodies(b.receive(txn, db, None, "TargQ")) == []
    txn.rollback()
    assert [r["message_body"] for r in env.receive(db, "TargQ")] == [b"1", b"2"]
    assert env.receive(db, "TargQ") == []


def test_rollback_to_savepoint_restores_and_keeps_the_lock(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"poison")
    txn = Txn(env.conn)
    txn.save("UndoReceive")
    rs = b.receive(txn, db, None, "TargQ")
    group = str(rs.rows[0][3]).upper()
    txn.rollback_to("UndoReceive")
    assert b.locks.holder((db, group)) == txn.id
    assert bodies(b.receive(txn, db, None, "TargQ")) == [b"poison"]
    txn.commit()
    assert env.receive(db, "TargQ") == []


def test_received_rows_deleted_only_at_commit(env: Env, db: int) -> None:
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    txn = Txn(env.conn)
    env.broker.receive(txn, db, None, "TargQ")
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages") == [(1,)]
    txn.commit()
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages") == [(0,)]


def test_receive_skips_groups_locked_by_another_session(env: Env, db: int) -> None:
    b = env.broker
    h1, h2 = env.dialog(db), env.dialog(db)
    env.send(db, h1, REQ, b"g1")
    env.send(db, h2, REQ, b"g2")
    first_taken = threading.Event()
    release = threading.Event()
    seen: dict[str, list[bytes]] = {}

    def session_a() -> None:
        conn = env.store.connect()
        txn = Txn(conn)
        seen["a"] = bodies(b.receive(txn, db, None, "TargQ"))
        first_taken.set()
        release.wait(10)
        txn.commit()
        conn.close()

    t = threading.Thread(target=session_a)
    t.start()
    assert first_taken.wait(10)
    conn = env.store.connect()
    try:
        txn = Txn(conn)
        seen["b"] = bodies(b.receive(txn, db, None, "TargQ"))
        # Nothing else is available while A holds its group.
        assert bodies(b.receive(txn, db, None, "TargQ")) == []
        assert b.get_conversation_group(txn, db, None, "TargQ") is None
        txn.commit()
    finally:
        conn.close()
        release.set()
        t.join(10)
    assert sorted(seen["a"] + seen["b"]) == [b"g1", b"g2"]
    assert seen["a"] != seen["b"]


def test_receive_with_where_waits_for_the_lock(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    target_handle = env.endpoints(db)[0][0]
    holder_conn = env.store.connect()
    holder = Txn(holder_conn)
    assert b.get_conversation_group(holder, db, None, "TargQ") is not None
    result: dict[str, object] = {}

    def waiter() -> None:
        conn = env.store.connect()
        txn = Txn(conn)
        start = time.monotonic()
        rs = b.receive(txn, db, None, "TargQ", where_column="conversation_handle",
                       where_value=uuid.UUID(target_handle), lock_timeout=10)
        result["elapsed"] = time.monotonic() - start
        result["rows"] = bodies(rs)
        txn.commit()
        conn.close()

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.4)
    assert t.is_alive()
    holder.commit()
    holder_conn.close()
    t.join(10)
    assert result["rows"] == [b"x"]
    assert 0.3 < float(result["elapsed"]) < 5  # type: ignore[arg-type]


def test_where_lock_wait_is_bounded(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    target_handle = env.endpoints(db)[0][0]
    other = env.store.connect()
    holder = Txn(other)
    b.get_conversation_group(holder, db, None, "TargQ")
    txn = Txn(env.conn)
    rs = b.receive(txn, db, None, "TargQ", where_column="conversation_handle",
                   where_value=target_handle, lock_timeout=0.3)
    assert rs.rows == []
    txn.commit()
    holder.rollback()
    other.close()


def test_waitfor_wakes_on_another_sessions_commit(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    woke: dict[str, float] = {}
    started = threading.Event()

    def waiter() -> None:
        conn = env.store.connect()
        txn = Txn(conn)
        started.set()
        t0 = time.monotonic()
        ok = b.wait_for_message(db, None, "TargQ", 20.0, lambda: False, txn=txn)
        woke["elapsed"] = time.monotonic() - t0
        woke["ok"] = float(ok)
        woke["rows"] = float(len(b.receive(txn, db, None, "TargQ").rows))
        txn.commit()
        conn.close()

    t = threading.Thread(target=waiter)
    t.start()
    assert started.wait(5)
    time.sleep(0.3)
    key = (db, b.state.queue(env.conn, db, None, "TargQ").object_id)
    assert b.signals.tasks_waiting(key) == 1
    env.send(db, h, REQ, b"wake up")
    t.join(10)
    assert woke["ok"] == 1.0 and woke["rows"] == 1.0
    assert woke["elapsed"] < 5.0
    assert b.signals.tasks_waiting(key) == 0


def test_waitfor_times_out_and_cancels(env: Env, db: int) -> None:
    b = env.broker
    t0 = time.monotonic()
    assert not b.wait_for_message(db, None, "TargQ", 0.3, lambda: False)
    assert 0.25 < time.monotonic() - t0 < 3
    t0 = time.monotonic()
    assert not b.wait_for_message(db, None, "TargQ", None, lambda: time.monotonic() - t0 > 0.3)
    assert time.monotonic() - t0 < 3


def test_waitfor_fails_when_queue_is_disabled(env: Env, db: int) -> None:
    b = env.broker
    errors: list[int] = []

    def waiter() -> None:
        try:
            b.wait_for_message(db, None, "TargQ", 20.0, lambda: False)
        except BrokerError as exc:
            errors.append(exc.number)

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.3)
    conn = env.store.connect()
    env.run(lambda tx: b.alter_queue(tx, db, None, "TargQ", status=False), conn)
    conn.close()
    t.join(10)
    assert errors == [9617]


def test_waitfor_wakes_when_a_locked_group_is_released(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    other = env.store.connect()
    holder = Txn(other)
    b.get_conversation_group(holder, db, None, "TargQ")
    done: dict[str, float] = {}

    def waiter() -> None:
        conn = env.store.connect()
        txn = Txn(conn)
        t0 = time.monotonic()
        done["ok"] = float(b.wait_for_message(db, None, "TargQ", 20.0, lambda: False, txn=txn))
        done["elapsed"] = time.monotonic() - t0
        txn.rollback()
        conn.close()

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.3)
    holder.rollback()
    other.close()
    t.join(10)
    assert done["ok"] == 1.0 and done["elapsed"] < 5


@pytest.mark.parametrize("n_threads", [4])
def test_concurrent_receivers_get_each_message_once(env: Env, db: int, n_threads: int) -> None:
    b = env.broker
    handles = [env.dialog(db) for _ in range(12)]
    for i, h in enumerate(handles):
        env.send(db, h, REQ, str(i).encode())
    got: list[bytes] = []
    lock = threading.Lock()

    def worker() -> None:
        conn = env.store.connect()
        try:
            while True:
                txn = Txn(conn)
                rows = bodies(b.receive(txn, db, None, "TargQ"))
                txn.commit()
                if not rows:
                    return
                with lock:
                    got.extend(rows)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(got, key=int) == [str(i).encode() for i in range(12)]


def test_waitfor_returns_at_once_when_it_would_deadlock(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    txn = Txn(env.conn)
    b.send(txn, db, [h], REQ, b"not yet delivered", True)    # holds the write lock now
    t0 = time.monotonic()
    assert not b.wait_for_message(db, None, "TargQ", 1.5, lambda: False, txn=txn)
    if env.store.backend.name == "sqlite":
        assert time.monotonic() - t0 < 1.0       # SQLite: nobody else could commit
    else:
        assert time.monotonic() - t0 >= 1.4      # several writers: a real wait
    txn.commit()
    assert b.wait_for_message(db, None, "TargQ", 10.0, lambda: False)


def test_groups_locked_by_the_same_transaction_stay_eligible(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"mine")
    txn = Txn(env.conn)
    group = b.get_conversation_group(txn, db, None, "TargQ")
    assert group is not None
    # Locked by this transaction: GET returns it again and RECEIVE takes its messages.
    assert b.get_conversation_group(txn, db, None, "TargQ") == group
    assert bodies(b.receive(txn, db, None, "TargQ")) == [b"mine"]
    txn.commit()


def test_bad_identifiers_raise_broker_errors(env: Env, db: int) -> None:
    b = env.broker
    for fn, num in ((lambda t: b.begin_dialog(t, db, "//test/Initiator", "//x",
                                              related_group="not-a-guid"), 8436),
                    (lambda t: b.move_conversation(t, db, "nope", "nope"), 8426),
                    (lambda t: b.send(t, db, ["nope"], REQ, b"x", True), 8426),
                    (lambda t: b.end_conversation(t, db, "nope"), 8426)):
        with pytest.raises(BrokerError) as e:
            env.run(fn)
        assert e.value.number == num
    assert b.get_transmission_status(env.conn, db, "nope") == ""


def test_group_lock_wait_while_holding_the_write_lock_ends_as_deadlock_victim(
        env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    other = env.store.connect()
    holder = Txn(other)
    assert bodies(b.receive(holder, db, None, "TargQ")) == [b"x"]   # locks the target group
    target = env.endpoints(db)[0][0]
    txn = Txn(env.conn)
    h2 = b.begin_dialog(txn, db, "//test/Initiator", "//test/Target",
                        contract="//test/contract")                 # takes the write lock
    assert h2 is not None
    expected = 1205 if env.store.backend.name == "sqlite" else 1222
    with pytest.raises(BrokerError) as e:
        if expected == 1222:
            from tsqlbroker.engine.broker import group_locks
            group_locks.LOCK_TIMEOUT_S, saved = 0.5, group_locks.LOCK_TIMEOUT_S
            try:
                b.end_conversation(txn, db, target)
            finally:
                group_locks.LOCK_TIMEOUT_S = saved
        else:
            b.end_conversation(txn, db, target)
    assert e.value.number == expected
    txn.rollback()
    holder.commit()
    other.close()


def test_waiters_are_woken_only_once_the_group_lock_is_free(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    txn = Txn(env.conn)
    group = b.get_conversation_group(txn, db, None, "TargQ")
    key = (db, str(group).upper())
    held_at_bump: list[bool] = []
    original = b.signals.bump

    def spy(queue_key: tuple[int, int]) -> None:
        held_at_bump.append(b.locks.holder(key) is not None)
        original(queue_key)
    b.signals.bump = spy  # type: ignore[method-assign]
    try:
        txn.rollback()
    finally:
        b.signals.bump = original  # type: ignore[method-assign]
    assert held_at_bump and not any(held_at_bump)
