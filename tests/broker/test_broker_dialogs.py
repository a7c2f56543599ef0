"""Dialogs: BEGIN DIALOG, SEND, RECEIVE order, END CONVERSATION, timers, lifetime, MOVE,
retention (reference §5)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from broker_env import CONTRACT, INIT_SVC, REQ, RESP, TARGET_SVC, Env
from lxml import etree

from tsqlbroker.engine.broker.model import DIALOG_TIMER, END_DIALOG, ERROR, utcnow
from tsqlbroker.errors import BrokerError, TSqlError
from tsqlbroker.storage.txn import Txn


def number(e: pytest.ExceptionInfo[TSqlError]) -> int:
    return e.value.number


def test_begin_dialog_errors(env: Env, db: int) -> None:
    b = env.broker
    cases = [
        (lambda t: b.begin_dialog(t, db, "//nope", TARGET_SVC), 8423),
        (lambda t: b.begin_dialog(t, db, INIT_SVC, None), 8421),
        (lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC, contract="//nope"), 8425),
        (lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC, lifetime=None,
                                  lifetime_given=True), 8406),
        (lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC, lifetime=0), 8411),
        (lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC,
                                  related_conversation=uuid.uuid4()), 8426),
    ]
    for fn, num in cases:
        with pytest.raises(BrokerError) as e:
            env.run(fn)
        assert number(e) == num


def test_begin_dialog_creates_so_endpoint_and_locks_group(env: Env, db: int) -> None:
    txn = Txn(env.conn)
    h = env.broker.begin_dialog(txn, db, INIT_SVC, TARGET_SVC, contract=CONTRACT,
                                lifetime=600, encryption=False)
    ep = env.broker.state.endpoint(env.conn, db, h)
    assert ep is not None and ep.state == "SO" and ep.is_initiator == 1
    assert ep.far_service == TARGET_SVC and ep.far_broker_instance is None
    assert timedelta(seconds=590) < ep.lifetime - utcnow() <= timedelta(seconds=600)
    assert env.broker.locks.holder((db, ep.conversation_group_id)) == txn.id
    txn.commit()
    assert env.broker.locks.holder((db, ep.conversation_group_id)) is None
    # Nothing reaches the target before the first SEND.
    assert env.endpoints(db) == {1: (str(h).upper(), "SO")}


def test_related_conversation_and_group(env: Env, db: int) -> None:
    b = env.broker
    h1 = env.dialog(db)
    h2 = env.run(lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC, contract=CONTRACT,
                                          related_conversation=h1))
    g1 = b.state.endpoint(env.conn, db, h1).conversation_group_id
    assert b.state.endpoint(env.conn, db, h2).conversation_group_id == g1
    wanted = uuid.uuid4()
    h3 = env.run(lambda t: b.begin_dialog(t, db, INIT_SVC, TARGET_SVC, contract=CONTRACT,
                                          related_group=wanted))
    assert b.state.endpoint(env.conn, db, h3).conversation_group_id == str(wanted).upper()
    env.run(lambda t: b.create_service(t, db, "//other", None, "InitQ"))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.begin_dialog(t, db, "//other", TARGET_SVC, contract=CONTRACT,
                                         related_conversation=h1))
    assert number(e) == 9610


def test_send_checks(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    cases = [
        (lambda t: b.send(t, db, [uuid.uuid4()], REQ, b"x", True), 8426),
        (lambda t: b.send(t, db, [h], "//nope", b"x", True), 8428),
        (lambda t: b.send(t, db, [h], "DEFAULT", b"x", True), 8431),
        (lambda t: b.send(t, db, [h], RESP, b"x", True), 8432),
        (lambda t: b.send(t, db, [h], REQ, None, True), 8433),
        (lambda t: b.send(t, db, [h, h], REQ, b"x", True), 8426),
    ]
    for fn, num in cases:
        with pytest.raises(BrokerError) as e:
            env.run(fn)
        assert number(e) == num
    env.send(db, h, REQ, b"hello")
    th = env.receive(db, "TargQ")[0]["conversation_handle"]
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.send(t, db, [th], REQ, b"x", True))
    assert number(e) == 8434


def test_empty_and_missing_bodies_arrive_as_null(env: Env, db: int) -> None:
    h = env.dialog(db)
    env.run(lambda t: env.broker.send(t, db, [h], REQ, None, False))
    env.run(lambda t: env.broker.send(t, db, [h], REQ, b"", True))
    rows = env.receive(db, "TargQ")
    assert [r["message_body"] for r in rows] == [None, None]
    assert [r["message_sequence_number"] for r in rows] == [0, 1]


def test_multicast_send_is_atomic(env: Env, db: int) -> None:
    b = env.broker
    h1, h2 = env.dialog(db), env.dialog(db)
    env.run(lambda t: b.end_conversation(t, db, h2))      # SO: ended without a trace
    with pytest.raises(BrokerError):
        env.run(lambda t: b.send(t, db, [h1, h2], REQ, b"x", True))
    assert env.receive(db, "TargQ") == []
    h3 = env.dialog(db)
    env.run(lambda t: b.send(t, db, [h1, h3], REQ, b"x", True))
    got = env.receive(db, "TargQ") + env.receive(db, "TargQ")
    assert len(got) == 2


def test_send_is_delivered_only_at_commit(env: Env, db: int) -> None:
    h = env.dialog(db)
    txn = Txn(env.conn)
    env.broker.send(txn, db, [h], REQ, b"x", True)
    other = env.store.connect()
    try:
        assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages", other) == [(0,)]
        txn.commit()
        assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages", other) == [(1,)]
    finally:
        other.close()


def test_receive_returns_one_group_in_order_with_top(env: Env, db: int) -> None:
    b = env.broker
    h1 = env.dialog(db)
    for i in range(3):
        env.send(db, h1, REQ, f"a{i}".encode())
    h2 = env.dialog(db)
    env.send(db, h2, REQ, b"b0")
    first = env.receive(db, "TargQ", top=2)
    assert [r["message_body"] for r in first] == [b"a0", b"a1"]
    assert all(r["status"] == 0 for r in first)
    rest = env.receive(db, "TargQ")
    assert [r["message_body"] for r in rest] == [b"a2"]
    assert [r["message_body"] for r in env.receive(db, "TargQ")] == [b"b0"]
    assert env.receive(db, "TargQ") == []
    rs = env.run(lambda t: b.receive(t, db, None, "TargQ"))
    assert rs.rows == [] and rs.columns[0] == "status" and len(rs.columns) == 16


def test_receive_prefers_higher_priority_groups(env: Env, db: int) -> None:
    b = env.broker
    low = env.dialog(db)
    env.send(db, low, REQ, b"low")
    env.run(lambda t: b.create_broker_priority(t, db, "hi", {"contract_name": CONTRACT,
                                                             "priority_level": 9}))
    # The target endpoint of a new conversation gets its priority in the target database.
    high = env.dialog(db)
    env.send(db, high, REQ, b"high")
    assert [r["message_body"] for r in env.receive(db, "TargQ")] == [b"high"]


def test_system_messages_precede_per_dialog(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"m0")
    env.send(db, h, REQ, b"m1")
    th = env.sql("SELECT conversation_handle FROM tsqlb_sb_conversation_endpoints "
                 "WHERE is_initiator = 0")[0][0]
    env.run(lambda t: b.begin_conversation_timer(t, db, th, 1))
    env.run(lambda t: b.end_conversation(t, db, h, 7, "bad"))        # Error to the target
    b.tick(utcnow() + timedelta(seconds=5))
    types = [r["message_type_name"] for r in env.receive(db, "TargQ")]
    assert types == [DIALOG_TIMER, ERROR, REQ, REQ]


def test_end_conversation_sends_end_dialog_after_pending_messages(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"first")
    th = env.receive(db, "TargQ")[0]["conversation_handle"]

    def reply_and_end(t: Txn) -> None:
        b.send(t, db, [th], RESP, b"answer", True)
        b.end_conversation(t, db, th)
    env.run(reply_and_end)
    assert env.endpoints(db)[0][1] == "DO"
    rows = env.receive(db, "InitQ")
    assert [(r["message_type_name"], r["message_sequence_number"]) for r in rows] == [
        (RESP, 0), (END_DIALOG, 1)]
    assert env.endpoints(db)[1][1] == "DI"
    with pytest.raises(BrokerError) as e:
        env.send(db, h, REQ, b"late")
    assert number(e) == 8429
    env.run(lambda t: b.end_conversation(t, db, h))
    # Both sides ended: the initiator endpoint is gone, the target's is kept CLOSED.
    assert env.endpoints(db) == {0: (str(th).upper(), "CD")}
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.end_conversation(t, db, th))
    assert number(e) == 8426


def test_end_removes_the_conversations_queued_messages(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    th = env.receive(db, "TargQ")[0]["conversation_handle"]
    env.send(db, h, REQ, b"2")
    env.send(db, h, REQ, b"3")
    env.run(lambda t: b.end_conversation(t, db, th))
    assert env.receive(db, "TargQ") == []


def test_end_with_error_body_and_dropped_pending(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    th = env.receive(db, "TargQ")[0]["conversation_handle"]

    def fail(t: Txn) -> None:
        b.send(t, db, [th], RESP, b"never delivered", True)
        b.end_conversation(t, db, th, 500, "It <broke> & stopped")
    env.run(fail)
    rows = env.receive(db, "InitQ")
    assert [r["message_type_name"] for r in rows] == [ERROR]
    body = rows[0]["message_body"]
    doc = etree.fromstring(body.decode("utf-16-le").encode("utf-8"))
    ns = {"e": "http://schemas.microsoft.com/SQL/ServiceBroker/Error"}
    assert doc.findtext("e:Code", namespaces=ns) == "500"
    assert doc.findtext("e:Description", namespaces=ns) == "It <broke> & stopped"
    assert env.endpoints(db)[1][1] == "ER"
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.end_conversation(t, db, h, None, "x"))
    assert number(e) == 8419
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.end_conversation(t, db, h, None, None, with_error=True))
    assert number(e) == 8419
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.end_conversation(t, db, h, -5, "x"))
    assert number(e) == 8440
    env.run(lambda t: b.end_conversation(t, db, h))
    assert env.endpoints(db) == {0: (str(th).upper(), "CD")}


def test_end_with_cleanup_removes_everything_silently(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    env.run(lambda t: b.end_conversation(t, db, h, cleanup=True))
    assert 1 not in env.endpoints(db)
    assert env.endpoints(db)[0][1] == "CO"          # the peer is not told
    assert len(env.receive(db, "TargQ")) == 1


def test_timer_fires_via_tick_and_replaces(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db, lifetime=100)
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.begin_conversation_timer(t, db, h, 500))
    assert number(e) == 8410
    env.run(lambda t: b.begin_conversation_timer(t, db, h, 10))
    env.run(lambda t: b.begin_conversation_timer(t, db, h, 60))     # replaces
    assert b.tick(utcnow() + timedelta(seconds=20)) is not None
    assert env.receive(db, "InitQ") == []
    due = b.tick(utcnow())
    assert due is not None and 30 < due <= 60
    b.tick(utcnow() + timedelta(seconds=61))
    rows = env.receive(db, "InitQ")
    assert [(r["message_type_name"], r["message_body"]) for r in rows] == [(DIALOG_TIMER, None)]
    b.tick(utcnow() + timedelta(seconds=62))
    assert env.receive(db, "InitQ") == []                            # fired once
    env.run(lambda t: b.end_conversation(t, db, h))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.begin_conversation_timer(t, db, h, 5))
    assert number(e) == 8426


def test_timer_on_ended_endpoint_is_refused(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    env.run(lambda t: b.end_conversation(t, db, h))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.begin_conversation_timer(t, db, h, 5))
    assert number(e) == 8458


def test_lifetime_expiry_errors_both_sides(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db, lifetime=30)
    env.send(db, h, REQ, b"1")
    b.tick(utcnow() + timedelta(seconds=31))
    init_rows = env.receive(db, "InitQ")
    target_rows = env.receive(db, "TargQ")
    assert [r["message_type_name"] for r in init_rows] == [ERROR]
    assert [r["message_type_name"] for r in target_rows] == [ERROR, REQ]
    assert b"-8489" in init_rows[0]["message_body"].decode("utf-16-le").encode()
    assert {s for _h, s in env.endpoints(db).values()} == {"ER"}
    with pytest.raises(BrokerError) as e:
        env.send(db, h, REQ, b"2")
    assert number(e) == 8429


def test_move_conversation(env: Env, db: int) -> None:
    b = env.broker
    h1, h2 = env.dialog(db), env.dialog(db)
    g2 = b.state.endpoint(env.conn, db, h2).conversation_group_id
    env.run(lambda t: b.move_conversation(t, db, h1, g2))
    assert b.state.endpoint(env.conn, db, h1).conversation_group_id == g2
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.move_conversation(t, db, h1, uuid.uuid4()))
    assert number(e) == 8439
    env.send(db, h1, REQ, b"x")
    env.run(lambda t: b.end_conversation(t, db, h1))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.move_conversation(t, db, h1, g2))
    assert number(e) == 8438


def test_retention_keeps_copies(env: Env) -> None:
    d = env.new_db("Ret")
    env.setup_pair(d, retention=True)
    b = env.broker
    h = env.dialog(d)
    env.send(d, h, REQ, b"kept")
    rows = env.sql("SELECT status, message_body FROM tsqlb_sb_messages WHERE queue_id = "
                   f"{b.state.queue(env.conn, d, None, 'InitQ').object_id}")
    assert rows == [(3, b"kept")]
    th = env.receive(d, "TargQ")[0]["conversation_handle"]
    env.run(lambda t: b.send(t, d, [th], RESP, b"r", True))
    assert [r["message_body"] for r in env.receive(d, "InitQ")] == [b"r"]
    statuses = sorted(r[0] for r in env.sql(
        f"SELECT status FROM tsqlb_sb_messages WHERE conversation_handle = '{str(h).upper()}'"))
    assert statuses == [0, 3]
    env.run(lambda t: b.alter_queue(t, d, None, "InitQ", status=False))
    with pytest.raises(BrokerError) as e:
        env.send(d, h, REQ, b"x")
    assert number(e) == 9618
    env.run(lambda t: b.alter_queue(t, d, None, "InitQ", status=True))
    env.run(lambda t: b.end_conversation(t, d, h))
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages WHERE conversation_handle = "
                   f"'{str(h).upper()}'") == [(0,)]


def test_receive_where_and_get_conversation_group(env: Env, db: int) -> None:
    b = env.broker
    h1, h2 = env.dialog(db), env.dialog(db)
    env.send(db, h1, REQ, b"1")
    env.send(db, h2, REQ, b"2")
    t2 = env.sql("SELECT conversation_handle, conversation_group_id FROM "
                 "tsqlb_sb_conversation_endpoints WHERE is_initiator = 0 "
                 "ORDER BY create_date DESC")[0]
    rows = env.receive(db, "TargQ", where_column="conversation_handle",
                       where_value=uuid.UUID(t2[0]))
    assert [r["message_body"] for r in rows] == [b"2"]
    with pytest.raises(BrokerError) as e:
        env.receive(db, "TargQ", where_column="conversation_handle", where_value=uuid.uuid4())
    assert number(e) == 8426
    with pytest.raises(BrokerError) as e:
        env.receive(db, "TargQ", where_column="service_instance_id", where_value=uuid.uuid4())
    assert number(e) == 8436
    txn = Txn(env.conn)
    g = b.get_conversation_group(txn, db, None, "TargQ")
    assert g is not None
    rs = b.receive(txn, db, None, "TargQ", where_column="conversation_group_id", where_value=g)
    assert [r[13] for r in rs.rows] == [b"1"]
    assert b.get_conversation_group(txn, db, None, "TargQ") is None
    txn.commit()


def test_disabled_queue_refuses_receive(env: Env, db: int) -> None:
    b = env.broker
    env.run(lambda t: b.alter_queue(t, db, None, "TargQ", status=False))
    for fn in (lambda t: b.receive(t, db, None, "TargQ"),
               lambda t: b.get_conversation_group(t, db, None, "TargQ")):
        with pytest.raises(BrokerError) as e:
            env.run(fn)
        assert number(e) == 9617


def test_ended_endpoint_without_answer_goes_at_lifetime(env: Env, db: int) -> None:
    b = env.broker
    env.run(lambda t: b.alter_queue(t, db, None, "TargQ", status=False))
    h = env.dialog(db, lifetime=30)
    env.send(db, h, REQ, b"held")                      # never reaches the target
    env.run(lambda t: b.end_conversation(t, db, h))     # fire and forget
    assert env.endpoints(db) == {1: (str(h).upper(), "DO")}
    b.tick(utcnow() + timedelta(seconds=31))
    assert env.endpoints(db) == {}
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_transmission_queue") == [(0,)]


def test_both_sides_ending_in_the_same_moment_close_each_other(env: Env, db: int) -> None:
    b = env.broker
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    th = env.endpoints(db)[0][0]
    # The target's EndDialog cannot reach the initiator (its queue is off): the two ENDs
    # cross, as between two brokers.
    env.run(lambda t: b.alter_queue(t, db, None, "InitQ", status=False))
    env.run(lambda t: b.end_conversation(t, db, th))
    env.run(lambda t: b.end_conversation(t, db, h))
    assert env.endpoints(db) == {0: (th, "CD")}
    env.run(lambda t: b.alter_queue(t, db, None, "InitQ", status=True))
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_transmission_queue") == [(0,)]
    assert env.receive(db, "InitQ") == []
