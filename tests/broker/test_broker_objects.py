"""Broker object DDL: message types, schema collections, contracts, queues, services,
routes, bindings, endpoint, priorities, built-in objects."""

from __future__ import annotations

import pytest
from broker_env import CONTRACT, INIT_SVC, REQ, TARGET_SVC, Env

from tsqlbroker.engine.broker import ActivationSettings
from tsqlbroker.errors import BrokerError, TSqlError

XSD = ('<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" '
       'xmlns="urn:t" elementFormDefault="qualified"><xsd:element name="trade">'
       '<xsd:complexType><xsd:sequence><xsd:element name="qty" type="xsd:int"/>'
       '</xsd:sequence></xsd:complexType></xsd:element></xsd:schema>')


def err(excinfo: pytest.ExceptionInfo[TSqlError]) -> int:
    return excinfo.value.number


def test_builtin_objects_exist_in_every_database(env: Env) -> None:
    d = env.new_db("Fresh")
    b = env.broker
    for dbid in (d, 1, 4):      # a user db, master, msdb
        meta = b.state.db(env.conn, dbid)
        assert meta.types_by_name["DEFAULT"].message_type_id == 14
        assert meta.types_by_name["http://schemas.microsoft.com/SQL/ServiceBroker/Error"
                                  ].validation == "X"
        assert meta.types_by_name["http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"
                                  ].validation == "E"
        assert "DEFAULT" in meta.contracts_by_name
    rows = env.sql(f"SELECT name, address FROM tsqlb_sb_routes WHERE database_id = {d}")
    assert rows == [("AutoCreatedLocal", "LOCAL")]


def test_message_type_duplicate_and_validation_values(env: Env) -> None:
    d = env.new_db("M")
    b = env.broker
    env.run(lambda t: b.create_message_type(t, d, "//a", "EMPTY"))
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_message_type(t, d, "//a"))
    assert err(e) == 2714
    # Names are byte-compared: a different case is a different message type.
    env.run(lambda t: b.create_message_type(t, d, "//A", "WELL_FORMED_XML"))
    meta = b.state.db(env.conn, d)
    assert meta.types_by_name["//a"].validation == "E"
    assert meta.types_by_name["//A"].validation == "X"
    env.run(lambda t: b.alter_message_type(t, d, "//a", "NONE"))
    assert b.state.db(env.conn, d).types_by_name["//a"].validation == "N"


def test_drop_message_type_refused_while_a_contract_uses_it(env: Env, db: int) -> None:
    b = env.broker
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_message_type(t, db, [REQ]))
    assert err(e) == 3729
    env.run(lambda t: b.create_message_type(t, db, "//free"))
    env.run(lambda t: b.drop_message_type(t, db, ["//free"]))
    assert "//free" not in b.state.db(env.conn, db).types_by_name
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_message_type(t, db, ["//free"]))
    assert err(e) == 15151


def test_contract_rules(env: Env) -> None:
    d = env.new_db("C")
    b = env.broker
    env.run(lambda t: b.create_message_type(t, d, "//x"))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.create_contract(t, d, "//c1", [("//x", "TARGET")]))
    assert err(e) == 8492
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.create_contract(t, d, "//c1", [("//x", "ANY"), ("//x", "TARGET")]))
    assert err(e) == 8403
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_contract(t, d, "//c1", [("//nope", "ANY")]))
    assert err(e) == 15151
    env.run(lambda t: b.create_contract(t, d, "//c1", [("//x", "ANY"), ("DEFAULT", "TARGET")]))
    c = b.state.db(env.conn, d).contracts_by_name["//c1"]
    assert c.usages[14] == (False, True)
    assert set(c.usages.values()) == {(True, True), (False, True)}


def test_queue_create_alter_drop(env: Env) -> None:
    d = env.new_db("Q")
    b = env.broker
    qid = env.run(lambda t: b.create_queue(
        t, d, None, "Q1", activation=ActivationSettings(
            status=True, procedure_name="dbo.proc1", max_queue_readers=2, execute_as="OWNER")))
    q = b.queue_info(env.conn, d, qid)
    assert q.is_activation_enabled and q.max_readers == 2
    assert q.activation_procedure == "[Q].[dbo].[proc1]"
    assert env.catalog.find_object(env.conn, d, "dbo", "q1", {"SQ"}) is not None
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_queue(t, d, "dbo", "q1"))
    assert err(e) == 2714
    env.run(lambda t: b.alter_queue(t, d, None, "Q1", status=False, retention=True,
                                    activation=ActivationSettings(max_queue_readers=5)))
    q = b.queue_info(env.conn, d, qid)
    assert (q.is_receive_enabled, q.is_retention_enabled, q.max_readers) == (False, True, 5)
    assert q.is_activation_enabled
    env.run(lambda t: b.alter_queue(t, d, None, "Q1", activation_drop=True))
    q = b.queue_info(env.conn, d, qid)
    assert not q.is_activation_enabled and q.activation_procedure is None
    env.run(lambda t: b.create_service(t, d, "//s", None, "Q1"))
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_queue(t, d, None, "Q1"))
    assert err(e) == 3729
    env.run(lambda t: b.drop_service(t, d, "//s"))
    env.run(lambda t: b.drop_queue(t, d, None, "Q1"))
    assert env.catalog.find_object(env.conn, d, "dbo", "q1") is None


def test_queue_ddl_rolled_back_leaves_no_trace_in_the_cache(env: Env) -> None:
    d = env.new_db("R")
    b = env.broker
    from tsqlbroker.storage.txn import Txn
    txn = Txn(env.conn)
    b.create_queue(txn, d, None, "Tmp")
    assert ("dbo", "tmp") in b.state.db(env.conn, d).queues_by_name
    txn.rollback()
    assert ("dbo", "tmp") not in b.state.db(env.conn, d).queues_by_name


def test_service_alter_rules(env: Env, db: int) -> None:
    b = env.broker
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.alter_service(t, db, TARGET_SVC))
    assert err(e) == 8493
    env.run(lambda t: b.create_queue(t, db, None, "OtherQ"))
    env.run(lambda t: b.alter_service(t, db, TARGET_SVC, None, "OtherQ", add=["DEFAULT"],
                                      drop=[CONTRACT]))
    meta = b.state.db(env.conn, db)
    svc = meta.services_by_name[TARGET_SVC]
    assert svc.service_queue_id == meta.queues_by_name[("dbo", "otherq")].object_id
    assert svc.contract_ids == frozenset({6})
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_service(t, db, INIT_SVC, None, "OtherQ"))
    assert err(e) == 2714
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_service(t, db, "//new", None, "OtherQ", ["//nope"]))
    assert err(e) == 15151


def test_drop_contract_refused_while_used(env: Env, db: int) -> None:
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: env.broker.drop_contract(t, db, [CONTRACT]))
    assert err(e) == 3729


def test_xml_schema_collection_and_bad_schema(env: Env) -> None:
    d = env.new_db("X")
    b = env.broker
    cid = env.run(lambda t: b.create_xml_schema_collection(t, d, None, "TradeSchema", XSD))
    env.run(lambda t: b.create_message_type(t, d, "//v", "VALID_XML",
                                            schema_collection="dbo.TradeSchema"))
    assert b.state.db(env.conn, d).types_by_name["//v"].xml_collection_id == cid
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_xml_schema_collection(t, d, None, "Bad", "<xsd:schema"))
    assert err(e) == 2378
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_xml_schema_collection(t, d, None, "TradeSchema"))
    assert err(e) == 3729
    # Pre-release CREATE XMLSCHEMA: registered under its targetNamespace.
    xsd2 = XSD.replace("urn:t", "urn:u")
    env.run(lambda t: b.create_xml_schema_collection(t, d, None, None, xsd2))
    assert env.sql(f"SELECT name FROM tsqlb_sb_xml_schemas WHERE database_id = {d} "
                   "AND target_namespace = 'urn:u'") == [("urn:u",)]


def test_route_validation(env: Env) -> None:
    d = env.new_db("Routes")
    b = env.broker
    guid = "8B7B4A1E-3C0D-4E55-9E59-2E0E7D0E5B11"
    env.run(lambda t: b.create_route(t, d, "R1", {"SERVICE_NAME": "//s",
                                                  "ADDRESS": "TCP://host:4022"}))
    cases = [
        ({"address": None}, 9659),
        ({"address": "http://x"}, 9744),
        ({"broker_instance": guid, "address": "LOCAL"}, 9662),
        ({"service_name": "//s", "address": "TRANSPORT"}, 9745),
        ({"service_name": "//s", "address": "LOCAL", "mirror_address": "TCP://m:1"}, 9661),
        ({"service_name": "//s", "broker_instance": guid, "address": "TCP://a:1",
          "mirror_address": "TCP://a:1"}, 9747),
        ({"address": "LOCAL", "lifetime": 0}, 9746),
        ({"service_name": "//s", "broker_instance": "nope", "address": "LOCAL"}, 9743),
    ]
    for options, number in cases:
        with pytest.raises(BrokerError) as e:
            env.run(lambda t, o=options: b.create_route(t, d, "R2", o))
        assert err(e) == number, options
    env.run(lambda t: b.alter_route(t, d, "R1", {"address": "LOCAL"}))
    assert env.sql(f"SELECT remote_service_name, address FROM tsqlb_sb_routes WHERE "
                   f"database_id = {d} AND name = 'R1'") == [("//s", "LOCAL")]
    env.run(lambda t: b.drop_route(t, d, "R1", {}))
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_route(t, d, "R1", {}))
    assert err(e) == 15151


def test_bindings_endpoint_priorities(env: Env, db: int) -> None:
    b = env.broker
    env.run(lambda t: b.create_remote_service_binding(t, db, "B1", "//far", "u1"))
    with pytest.raises(BrokerError) as e:
        env.run(lambda t: b.create_remote_service_binding(t, db, "B2", "//far", "u1"))
    assert err(e) == 9619
    env.run(lambda t: b.alter_remote_service_binding(t, db, "B1", anonymous=True))
    assert env.sql("SELECT is_anonymous_on FROM tsqlb_sb_bindings") == [(1,)]
    env.run(lambda t: b.drop_remote_service_binding(t, db, "B1"))
    cert = {"authentication": "CERTIFICATE EpCert"}     # Windows is refused (Msg 28099)
    env.run(lambda t: b.create_endpoint(t, "BrokerEP", {"state": "started", "port": 4022,
                                                         **cert}))
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.create_endpoint(t, "Other", {"port": 4023, **cert}))
    assert err(e) == 7862
    env.run(lambda t: b.drop_endpoint(t, "BrokerEP"))
    env.run(lambda t: b.create_broker_priority(t, db, "P1", {
        "contract_name": CONTRACT, "local_service_name": "ANY", "priority_level": 8}))
    h = env.dialog(db)
    assert env.sql("SELECT priority FROM tsqlb_sb_conversation_endpoints WHERE "
                   f"conversation_handle = '{str(h).upper()}'") == [(8,)]
    with pytest.raises(TSqlError) as e:
        env.run(lambda t: b.drop_contract(t, db, [CONTRACT]))
    assert err(e) == 3729
    env.run(lambda t: b.drop_broker_priority(t, db, "P1"))
