"""The seams for activation: queue listeners, the activation manager driving real queues,
the poison-message counter fed by receiving transactions."""

from __future__ import annotations

import threading
import time

from broker_env import REQ, Env

from tsqlbroker.engine.activation import ActivatedTask, ActivationManager
from tsqlbroker.engine.broker import ActivationSettings
from tsqlbroker.engine.brokerlog import BrokerLog
from tsqlbroker.storage.txn import Txn


def test_listener_events(env: Env, db: int) -> None:
    events: list[tuple[str, int, int]] = []
    env.broker.add_queue_listener(lambda e, d, q: events.append((e, d, q)))
    qid = env.broker.state.queue(env.conn, db, None, "TargQ").object_id
    h = env.dialog(db)
    env.send(db, h, REQ, b"x")
    assert ("enqueued", db, qid) in events
    txn = Txn(env.conn)
    env.broker.receive(txn, db, None, "TargQ")
    txn.rollback()
    assert ("received", db, qid) in events and ("rollback_receive", db, qid) in events
    env.receive(db, "TargQ")
    assert ("commit_receive", db, qid) in events
    env.receive(db, "TargQ")
    assert ("empty_receive", db, qid) in events
    env.run(lambda t: env.broker.alter_queue(t, db, None, "TargQ", retention=False))
    assert ("altered", db, qid) in events
    assert env.broker.queue_has_ready_messages(env.conn, db, qid) is False


class Runner:
    """Runs an 'activated procedure' that receives everything and records the bodies; with
    ``fail`` it rolls its transaction back instead (a poison message)."""

    def __init__(self, env: Env, fail: bool = False) -> None:
        self.env = env
        self.fail = fail
        self.bodies: list[bytes] = []
        self.lock = threading.Lock()

    def run_activated(self, task: ActivatedTask) -> None:
        b = self.env.broker
        conn = self.env.store.connect()
        try:
            q = b.queue_info(conn, task.db_id, task.queue_id)
            while True:
                txn = Txn(conn)
                rs = b.receive(txn, task.db_id, q.schema_name, q.name)
                task.received = True
                if not rs.rows:
                    txn.commit()
                    return
                if self.fail:
                    txn.rollback()
                    continue
                with self.lock:
                    self.bodies.extend(r[13] for r in rs.rows)
                txn.commit()
        finally:
            conn.close()


def _activate(env: Env, db: int) -> None:
    env.run(lambda t: env.broker.alter_queue(
        t, db, None, "TargQ",
        activation=ActivationSettings(True, "dbo.handler", 2, "OWNER")))


def test_activation_manager_drains_a_queue(env: Env, db: int) -> None:
    manager = ActivationManager(env.broker, BrokerLog(), recheck_seconds=0.2,
                                clock_seconds=0.2)
    env.broker.attach_activation(manager)
    _activate(env, db)
    runner = Runner(env)
    manager.start(runner)
    try:
        for i in range(3):
            h = env.dialog(db)
            env.send(db, h, REQ, f"m{i}".encode())
        deadline = time.monotonic() + 10
        while len(runner.bodies) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sorted(runner.bodies) == [b"m0", b"m1", b"m2"]
        assert manager.wait_idle(10)
    finally:
        manager.stop()


def test_poison_message_disables_the_queue(env: Env, db: int) -> None:
    manager = ActivationManager(env.broker, BrokerLog(), recheck_seconds=0.1,
                                clock_seconds=0.2)
    env.broker.attach_activation(manager)
    h = env.dialog(db)
    env.send(db, h, REQ, b"poison")
    qid = env.broker.state.queue(env.conn, db, None, "TargQ").object_id
    for _ in range(5):
        txn = Txn(env.conn)
        assert env.broker.receive(txn, db, None, "TargQ").rows
        txn.rollback()
    q = env.broker.queue_info(env.conn, db, qid)
    assert not q.is_receive_enabled and not q.is_enqueue_enabled
    settings = env.broker.activation_queue_settings(db, qid)
    assert settings is not None and settings.receive_enabled is False
    manager.stop()


def test_dm_views_read_the_activation_manager(env: Env, db: int) -> None:
    from tsqlbroker.engine.context import ExecContext

    manager = ActivationManager(env.broker, BrokerLog(), recheck_seconds=0.2,
                                clock_seconds=0.2)
    env.broker.attach_activation(manager)
    _activate(env, db)
    qid = env.broker.state.queue(env.conn, db, None, "TargQ").object_id
    manager.notify("startup", db, qid)
    ctx = ExecContext(env.conn, Txn(env.conn), db, 1)
    vt = env.broker.resolve_virtual(ctx, None, "sys", "dm_broker_queue_monitors")
    assert vt is not None
    got = env.conn.exec_driver_sql(vt.sql).fetchall()
    assert [(r[0], r[1], r[2]) for r in got] == [(db, qid, "INACTIVE")]
    tasks = env.broker.resolve_virtual(ctx, None, "sys", "dm_broker_activated_tasks")
    assert tasks is not None and env.conn.exec_driver_sql(tasks.sql).fetchall() == []
    manager.stop()
