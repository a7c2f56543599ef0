"""Queues and broker catalog views as virtual tables (reference §2, §4)."""

from __future__ import annotations

from typing import Any

import pytest
from broker_env import CONTRACT, REQ, TARGET_SVC, Env

from tsqlbroker.engine.broker.receive import QUEUE_COLUMNS
from tsqlbroker.engine.context import ExecContext, VirtualTable, virtual_resolvers
from tsqlbroker.storage.txn import Txn


def view(env: Env, db: int, schema: str | None, name: str) -> VirtualTable:
    ctx = ExecContext(env.conn, Txn(env.conn), db, 1)
    for resolver in virtual_resolvers(env.store):
        vt = resolver(ctx, None, schema, name)
        if vt is not None:
            return vt
    raise AssertionError(f"{schema}.{name} not resolved")


def rows(env: Env, db: int, schema: str | None, name: str) -> list[dict[str, Any]]:
    vt = view(env, db, schema, name)
    names = [c for c, _t in vt.columns]
    result = env.conn.exec_driver_sql(vt.sql)
    assert list(result.keys()) == names
    return [dict(zip(names, r, strict=True)) for r in result.fetchall()]


def test_select_from_queue_does_not_dequeue(env: Env, db: int) -> None:
    h = env.dialog(db)
    env.send(db, h, REQ, b"peek")
    vt = view(env, db, None, "targq")
    assert vt.columns == QUEUE_COLUMNS and not vt.writable
    assert vt.refuse_error is not None and vt.refuse_error.number == 259
    got = rows(env, db, "dbo", "TargQ")
    assert [(r["status"], r["message_body"], r["service_name"]) for r in got] == [
        (1, b"peek", TARGET_SVC)]
    assert len(env.receive(db, "TargQ")) == 1


def test_unknown_names_are_not_resolved(env: Env, db: int) -> None:
    ctx = ExecContext(env.conn, Txn(env.conn), db, 1)
    assert env.broker.resolve_virtual(ctx, None, None, "NoSuchQueue") is None
    assert env.broker.resolve_virtual(ctx, None, "sys", "no_such_view") is None


def test_conversation_endpoints_view(env: Env, db: int) -> None:
    h = env.dialog(db)
    got = rows(env, db, "sys", "conversation_endpoints")
    assert len(got) == 1
    r = got[0]
    assert (r["state"], r["state_desc"], r["is_initiator"]) == ("SO", "STARTED_OUTBOUND", 1)
    assert r["conversation_handle"] == str(h).upper()
    assert r["far_service"] == TARGET_SVC and r["far_broker_instance"] is None
    assert str(r["security_timestamp"]).startswith("1900-01-01")
    env.send(db, h, REQ, b"x")
    states = sorted((r["is_initiator"], r["state_desc"]) for r in
                    rows(env, db, "sys", "conversation_endpoints"))
    assert states == [(0, "CONVERSING"), (1, "CONVERSING")]


@pytest.mark.parametrize("name", [
    "service_message_types", "service_contracts", "service_contract_message_usages",
    "services", "service_contract_usages", "service_queue_usages", "service_queues",
    "conversation_groups", "service_instances", "transmission_queue", "routes",
    "remote_service_bindings", "service_broker_endpoints", "conversation_priorities",
    "xml_schema_collections", "dm_broker_activated_tasks", "dm_broker_queue_monitors"])
def test_every_view_runs(env: Env, db: int, name: str) -> None:
    rows(env, db, "sys", name)


def test_view_contents(env: Env, db: int) -> None:
    types = {r["name"]: r for r in rows(env, db, "sys", "service_message_types")}
    assert types["DEFAULT"]["validation_desc"] == "BINARY"
    assert types["http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"][
        "validation_desc"] == "EMPTY"
    contracts = {r["name"]: r["service_contract_id"]
                 for r in rows(env, db, "sys", "service_contracts")}
    usages = [r for r in rows(env, db, "sys", "service_contract_message_usages")
              if r["service_contract_id"] == contracts[CONTRACT]]
    assert sorted((r["is_sent_by_initiator"], r["is_sent_by_target"]) for r in usages) == [
        (0, 1), (1, 0)]
    queues = {r["name"]: r for r in rows(env, db, "sys", "service_queues")}
    assert queues["TargQ"]["is_receive_enabled"] == 1 and queues["TargQ"]["type"] == "SQ"
    services = {r["name"]: r for r in rows(env, db, "sys", "services")}
    assert services[TARGET_SVC]["service_queue_id"] == queues["TargQ"]["object_id"]
    assert [r["name"] for r in rows(env, db, "sys", "routes")] == ["AutoCreatedLocal"]
    env.run(lambda t: env.broker.alter_queue(t, db, None, "TargQ", status=False))
    h = env.dialog(db)
    env.send(db, h, REQ, b"held")
    tq = rows(env, db, "sys", "transmission_queue")
    assert [(r["to_service_name"], r["is_end_of_dialog"], r["message_body"]) for r in tq] == [
        (TARGET_SVC, 0, b"held")]
    assert "disabled" in tq[0]["transmission_status"]


def test_queue_monitors_view_without_activation_manager(env: Env) -> None:
    from tsqlbroker.engine.broker import ActivationSettings
    d = env.new_db("Mon")
    env.run(lambda t: env.broker.create_queue(
        t, d, None, "AQ", activation=ActivationSettings(True, "p", 1, "OWNER")))
    got = rows(env, d, "sys", "dm_broker_queue_monitors")
    assert [(r["state"], r["tasks_waiting"]) for r in got] == [("INACTIVE", 0)]
