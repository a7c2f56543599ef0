"""Delivery: databases of one instance, the transmission queue, receiver-side validation,
ALTER DATABASE broker options (reference §1.9, §5.5, §5.6, §7)."""

from __future__ import annotations

from broker_env import CONTRACT, INIT_SVC, REQ, RESP, TARGET_SVC, Env

from tsqlbroker.engine.broker.model import ERROR
from tsqlbroker.errors import message_text
from tsqlbroker.storage.txn import Txn

XSD = ('<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" '
       'xmlns="urn:t" elementFormDefault="qualified"><xsd:element name="trade">'
       '<xsd:complexType><xsd:sequence><xsd:element name="qty" type="xsd:int"/>'
       '</xsd:sequence></xsd:complexType></xsd:element></xsd:schema>')


def error_code(body: bytes) -> str:
    text = body.decode("utf-16-le")
    return text[text.index("<Code>") + 6:text.index("</Code>")]


def test_dialog_between_databases_in_one_transaction(env: Env) -> None:
    a, b_ = env.new_db("TraderA"), env.new_db("BrokerageB")
    env.setup_pair(a, target_db=b_)
    b = env.broker

    def work(t: Txn) -> None:
        h = b.begin_dialog(t, a, INIT_SVC, TARGET_SVC, contract=CONTRACT)
        b.send(t, a, [h], REQ, b"<trade/>", True)
    env.run(work)
    rows = env.receive(b_, "TargQ")
    assert [r["message_body"] for r in rows] == [b"<trade/>"]
    target = env.endpoints(b_)[0]
    guid_a = str(env.catalog.database(env.conn, a).service_broker_guid).upper()
    guid_b = str(env.catalog.database(env.conn, b_).service_broker_guid).upper()
    far = env.sql("SELECT far_broker_instance FROM tsqlb_sb_conversation_endpoints "
                  f"WHERE conversation_handle = '{target[0]}'")
    assert far == [(guid_a,)]
    assert env.sql(f"SELECT far_broker_instance FROM tsqlb_sb_conversation_endpoints "
                   f"WHERE database_id = {a}") == [(guid_b,)]
    # Reply goes back across databases.
    env.run(lambda t: b.send(t, b_, [rows[0]["conversation_handle"]], RESP, b"ack", True))
    assert [r["message_body"] for r in env.receive(a, "InitQ")] == [b"ack"]


def test_current_database_restricts_the_target(env: Env) -> None:
    a, b_ = env.new_db("OnlyInit"), env.new_db("HasTarget")
    env.setup_pair(a, target_db=b_)
    h = env.dialog(a, to_broker="CURRENT DATABASE")
    env.send(a, h, REQ, b"x")
    assert env.receive(b_, "TargQ") == []
    status = env.broker.get_transmission_status(env.conn, a, h)
    assert status == message_text(9793)
    guid_a = str(env.catalog.database(env.conn, a).service_broker_guid).upper()
    assert env.sql("SELECT to_broker_instance FROM tsqlb_sb_transmission_queue") == [(guid_a,)]
    env.broker.tick()
    assert env.receive(b_, "TargQ") == []               # the retry keeps to this database
    # A broker guid names the target database explicitly.
    guid = str(env.catalog.database(env.conn, b_).service_broker_guid)
    h2 = env.dialog(a, to_broker=guid)
    env.send(a, h2, REQ, b"y")
    assert [r["message_body"] for r in env.receive(b_, "TargQ")] == [b"y"]


def test_disabled_target_queue_holds_messages_until_status_on(env: Env, db: int) -> None:
    b = env.broker
    env.run(lambda t: b.alter_queue(t, db, None, "TargQ", status=False))
    h = env.dialog(db)
    env.send(db, h, REQ, b"1")
    env.send(db, h, REQ, b"2")
    held = env.sql("SELECT message_sequence_number, transmission_status, to_service_name "
                   "FROM tsqlb_sb_transmission_queue ORDER BY message_sequence_number")
    assert [r[0] for r in held] == [0, 1]
    assert held[0][1] == message_text(9617, "TargQ") and held[0][2] == TARGET_SVC
    assert b.get_transmission_status(env.conn, db, h) == held[0][1]
    env.run(lambda t: b.alter_queue(t, db, None, "TargQ", status=True))
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_transmission_queue") == [(0,)]
    assert [r["message_body"] for r in env.receive(db, "TargQ")] == [b"1", b"2"]
    assert b.get_transmission_status(env.conn, db, h) == ""


def test_unknown_service_is_held_and_delivered_after_create_service(env: Env, db: int) -> None:
    b = env.broker
    h = env.run(lambda t: b.begin_dialog(t, db, INIT_SVC, "//later", contract=CONTRACT))
    env.send(db, h, REQ, b"early")
    assert b.get_transmission_status(env.conn, db, h) == (
        "The target service name could not be found. Ensure that the service name is "
        "specified correctly and/or the routing information has been supplied.")

    def create(t: Txn) -> None:
        b.create_queue(t, db, None, "LaterQ")
        b.create_service(t, db, "//later", None, "LaterQ", [CONTRACT])
    env.run(create)
    assert [r["message_body"] for r in env.receive(db, "LaterQ")] == [b"early"]


def test_tick_retries_held_messages(env: Env) -> None:
    a, b_ = env.new_db("Sender"), env.new_db("Receiver")
    env.setup_pair(a, target_db=b_)
    b = env.broker
    env.run(lambda t: b.set_database_broker_option(t, b_, "disable_broker"))
    h = env.dialog(a)
    env.send(a, h, REQ, b"wait")
    assert b.get_transmission_status(env.conn, a, h) == message_text(9793)
    # Re-enable behind the broker's back (no retry triggered), then let the clock retry.
    env.run(lambda t: env.catalog.set_database_option(t.conn, b_, is_broker_enabled=True))
    b.meta.invalidate()
    b.tick()
    assert [r["message_body"] for r in env.receive(b_, "TargQ")] == [b"wait"]


def test_sender_broker_disabled(env: Env, db: int) -> None:
    b = env.broker
    env.run(lambda t: b.set_database_broker_option(t, db, "disable_broker"))
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    assert b.get_transmission_status(env.conn, db, h) == message_text(9791)
    env.run(lambda t: b.set_database_broker_option(t, db, "enable_broker"))
    assert len(env.receive(db, "TargQ")) == 1


def test_receiver_checks_with_its_own_definitions(env: Env) -> None:
    a, b_ = env.new_db("Defs1"), env.new_db("Defs2")
    b = env.broker

    def build(t: Txn) -> None:
        for d in (a, b_):
            b.create_message_type(t, d, REQ)
            b.create_message_type(t, d, RESP)
        b.create_message_type(t, a, "//extra")
        b.create_message_type(t, b_, "//extra", "EMPTY")
        b.create_message_type(t, a, "//only-sender")
        b.create_contract(t, a, CONTRACT, [(REQ, "INITIATOR"), (RESP, "TARGET"),
                                           ("//extra", "ANY"), ("//only-sender", "ANY")])
        b.create_contract(t, b_, CONTRACT, [(REQ, "TARGET"), (RESP, "INITIATOR"),
                                            ("//extra", "ANY")])
        b.create_queue(t, a, None, "InitQ")
        b.create_queue(t, b_, None, "TargQ")
        b.create_service(t, a, INIT_SVC, None, "InitQ")
        b.create_service(t, b_, TARGET_SVC, None, "TargQ", [CONTRACT])
    env.run(build)
    cases = [(REQ, b"x", "-8457"), ("//only-sender", b"x", "-8428"),
             ("//extra", b"not empty", "-8430")]
    for mtype, body, code in cases:
        h = env.dialog(a)
        env.send(a, h, mtype, body)
        rows = env.receive(a, "InitQ")
        assert [r["message_type_name"] for r in rows] == [ERROR], mtype
        assert error_code(rows[0]["message_body"]) == code
        assert env.broker.state.endpoint(env.conn, a, h).state == "ER"
        env.run(lambda t, h=h: b.end_conversation(t, a, h))
    assert env.receive(b_, "TargQ") == []
    # A type in the sender's contract that the receiver's contract lacks: -8498.
    env.run(lambda t: b.create_message_type(t, b_, "//only-sender"))
    h = env.dialog(a)
    env.send(a, h, "//only-sender", b"x")
    assert error_code(env.receive(a, "InitQ")[0]["message_body"]) == "-8498"


def test_unknown_contract_or_unsupported_contract_at_the_target(env: Env) -> None:
    a, b_ = env.new_db("K1"), env.new_db("K2")
    b = env.broker
    env.setup_pair(a, target_db=b_)

    def extra(t: Txn) -> None:
        b.create_contract(t, a, "//c2", [(REQ, "INITIATOR")])
        b.create_contract(t, b_, "//c3", [(REQ, "INITIATOR")])
        b.create_contract(t, a, "//c3", [(REQ, "INITIATOR")])
    env.run(extra)
    for contract, code in (("//c2", "-8425"), ("//c3", "-8408")):
        h = env.run(lambda t, c=contract: b.begin_dialog(t, a, INIT_SVC, TARGET_SVC,
                                                          contract=c))
        env.send(a, h, REQ, b"x")
        assert error_code(env.receive(a, "InitQ")[0]["message_body"]) == code
    assert env.endpoints(b_) == {}


def test_xml_validation_on_the_target(env: Env) -> None:
    d = env.new_db("Xml")
    b = env.broker
    env.setup_pair(d, req_validation="WELL_FORMED_XML")
    h = env.dialog(d)
    fragment = "\ufeff<id>1</id><ackid>1</ackid>".encode("utf-16-le")   # the chapter's ack
    for good in ("<a/>".encode("utf-16-le"), b"\xff\xfe" + "<a/>".encode("utf-16-le"),
                 b"<?xml version='1.0' encoding='utf-8'?><a>\xc3\xa9</a>", fragment):
        env.send(d, h, REQ, good)
    assert len(env.receive(d, "TargQ")) == 4
    env.send(d, h, REQ, b"<a>")
    rows = env.receive(d, "InitQ")
    assert error_code(rows[0]["message_body"]) == "-9615"

    env.run(lambda t: b.create_xml_schema_collection(t, d, None, "S", XSD))
    env.run(lambda t: b.create_message_type(t, d, "//valid", "VALID_XML",
                                            schema_collection="S"))
    env.run(lambda t: b.create_message_type(t, d, "//beta", schema_namespace="urn:t"))
    env.run(lambda t: b.create_contract(t, d, "//vc", [("//valid", "INITIATOR"),
                                                       ("//beta", "INITIATOR")]))
    env.run(lambda t: b.alter_service(t, d, TARGET_SVC, add=["//vc"]))
    ok = b'<trade xmlns="urn:t"><qty>5</qty></trade>'
    bad = b'<trade xmlns="urn:t"><qty>five</qty></trade>'
    for mtype in ("//valid", "//beta"):
        h2 = env.run(lambda t: b.begin_dialog(t, d, INIT_SVC, TARGET_SVC, contract="//vc"))
        env.send(d, h2, mtype, ok)
        assert [r["message_body"] for r in env.receive(d, "TargQ")] == [ok]
        env.send(d, h2, mtype, bad)
        assert error_code(env.receive(d, "InitQ")[0]["message_body"]) == "-9615"


def test_new_broker_and_error_broker_conversations(env: Env, db: int) -> None:
    b = env.broker
    old = env.catalog.database(env.conn, db).service_broker_guid
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    env.run(lambda t: b.set_database_broker_option(t, db, "error_broker_conversations"))
    rows = env.receive(db, "InitQ")
    assert error_code(rows[0]["message_body"]) == "-9719"
    assert {s for _h, s in env.endpoints(db).values()} == {"ER"}
    env.run(lambda t: b.set_database_broker_option(t, db, "new_broker"))
    assert env.endpoints(db) == {}
    assert env.sql("SELECT COUNT(*) FROM tsqlb_sb_messages") == [(0,)]
    row = env.catalog.database(env.conn, db)
    assert row.service_broker_guid != old and row.is_broker_enabled
    env.run(lambda t: b.set_database_broker_option(t, db, "honor_broker_priority", "ON"))
    assert env.catalog.database(env.conn, db).is_honor_broker_priority_on


def test_drop_service_errors_the_far_side(env: Env) -> None:
    a, b_ = env.new_db("DropA"), env.new_db("DropB")
    env.setup_pair(a, target_db=b_)
    b = env.broker
    h = env.dialog(a)
    env.send(a, h, REQ, b"x")
    env.run(lambda t: b.drop_service(t, b_, TARGET_SVC))
    assert env.receive(b_, "TargQ") == []
    rows = env.receive(a, "InitQ")
    assert error_code(rows[0]["message_body"]) == "-8470"


def test_drop_database_removes_broker_rows(env: Env) -> None:
    d = env.new_db("Gone")
    env.setup_pair(d)
    h = env.dialog(d)
    env.send(d, h, REQ, b"x")
    env.run(lambda t: env.catalog.drop_database(t.conn, "Gone"))
    for table in ("messages", "conversation_endpoints", "services", "message_types"):
        assert env.sql(f"SELECT COUNT(*) FROM tsqlb_sb_{table} WHERE database_id = {d}") == [
            (0,)]


def test_drop_contract_errors_the_far_side(env: Env) -> None:
    a, b_ = env.new_db("DropCA"), env.new_db("DropCB")
    env.setup_pair(a, target_db=b_)
    b = env.broker
    h = env.dialog(a)
    env.send(a, h, REQ, b"x")
    # The initiator's database: no service lists the contract, so it can be dropped.
    env.run(lambda t: b.drop_contract(t, a, [CONTRACT]))
    assert env.endpoints(a) == {}
    rows = env.receive(b_, "TargQ")
    assert [r["message_type_name"] for r in rows] == [ERROR, REQ]
    assert error_code(rows[0]["message_body"]) == "-8487"
