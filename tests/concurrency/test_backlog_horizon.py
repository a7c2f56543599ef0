"""How far a consumer reading a queue in queuing order may go (engine/broker/backlog.py):
limits, bounds, and on PostgreSQL the wait for a commit that took a lower queuing order and
is not visible yet."""

from __future__ import annotations

import threading
import time
import uuid

from sqlalchemy import insert, select
from tsql_client import Client

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.backlog import ready_horizon
from tsqlbroker.interpreter.instance import Instance

SETUP = """
CREATE DATABASE bh;
GO
USE bh;
CREATE QUEUE Q;
CREATE SERVICE S ON QUEUE Q ([DEFAULT]);
"""
SEND = """
USE bh;
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE S TO SERVICE 'S' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (0x01);
"""


def _queue(inst: Instance) -> tuple[Broker, int]:
    broker = Broker.get(inst.store)
    conn = inst.store.connect()
    try:
        [q] = [q for q in broker.queues(conn) if q.name == "Q"]
    finally:
        conn.close()
    return broker, q.object_id


def test_limits_and_bounds(instance: Instance) -> None:
    client = Client(instance)
    client.run(SETUP)
    for _ in range(5):
        client.run(SEND)
    broker, queue_id = _queue(instance)
    conn = instance.store.connect()
    try:
        orders = sorted(conn.execute(select(broker.t.messages.c.queuing_order).where(
            broker.t.messages.c.queue_id == queue_id)).scalars())
        assert ready_horizon(broker.t, conn, queue_id, 0) == (orders[-1], 5)
        assert ready_horizon(broker.t, conn, queue_id, 0, limit=2) == (orders[1], 2)
        assert ready_horizon(broker.t, conn, queue_id, orders[1], limit=2) == (orders[3], 2)
        assert ready_horizon(broker.t, conn, queue_id, 0, upto=orders[2]) == (orders[2], 3)
        assert ready_horizon(broker.t, conn, queue_id, orders[-1]) == (orders[-1], 0)
    finally:
        conn.close()


def test_postgresql_waits_for_a_lower_queuing_order_still_committing(
        fresh_postgres: object) -> None:
    inst = Instance(fresh_postgres.url(), background=False)  # type: ignore[attr-defined]
    try:
        client = Client(inst)
        client.run(SETUP)
        client.run(SEND)
        broker, queue_id = _queue(inst)
        m = broker.t.messages
        slow = inst.store.connect()
        reader = inst.store.connect()
        try:
            first = dict(slow.execute(select(m)).mappings().one())
            # A commit that took the next queuing order and has not committed yet …
            slow.write()
            row = {k: v for k, v in first.items() if k != "queuing_order"}
            row["message_id"] = str(uuid.uuid4()).upper()
            slow.execute(insert(m).values(**row))
            # … while a later one is committed and visible.
            client.run(SEND)
            threading.Timer(0.6, slow.commit).start()
            start = time.monotonic()
            end, count = ready_horizon(broker.t, reader, queue_id, first["queuing_order"])
            waited = time.monotonic() - start
            assert waited >= 0.5, waited
            assert count == 1                  # what was visible when it looked
            got = reader.execute(select(m.c.queuing_order).where(
                m.c.queue_id == queue_id, m.c.queuing_order > first["queuing_order"],
                m.c.queuing_order <= end)).scalars().all()
            assert len(got) == 2               # the slow commit's message is below the end
        finally:
            slow.close()
            reader.close()
    finally:
        inst.close()
