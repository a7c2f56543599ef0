"""Stopping activation while procedures start and run: every task's thread is joined (none is
joined before it starts), and what is left when a wait runs out is said, one line each."""

from __future__ import annotations

import threading

from test_monitor import FakeBroker, make, running

from tsqlbroker.engine.activation import ActivatedTask, ActivationManager
from tsqlbroker.engine.brokerlog import BrokerLog


def test_stop_right_after_launches_joins_every_task() -> None:
    for _ in range(30):
        broker, manager, runner = make(max_readers=4, delay=0.001, recheck=0.0)
        manager.start(runner)
        broker.ready = 50
        for _ in range(5):
            manager.notify("enqueued", 1, 10)
        manager.stop()  # must not raise "cannot join thread before it is started"
        assert all(t.thread is not None and not t.thread.is_alive()
                   for m in manager.monitors() for t in m.tasks)


class Blocked:
    """A procedure that runs until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def run_activated(self, task: ActivatedTask) -> None:
        task.spid = 77
        self.release.wait(10)


def test_what_is_left_when_waiting_runs_out() -> None:
    broker = FakeBroker(max_readers=1)
    manager = ActivationManager(broker, BrokerLog(), recheck_seconds=60, clock_seconds=0.05)
    runner = Blocked()
    with running(manager, runner):
        broker.ready = 2
        manager.notify("enqueued", 1, 10)
        assert not manager.wait_idle(0.3)
        left = manager.unfinished()
        runner.release.set()
    assert len(left) == 2
    assert left[0].startswith("activated procedure db.dbo.p on queue db.dbo.q is still "
                              "running (spid 77, for ")
    assert left[1] == "queue db.dbo.q still has messages for db.dbo.p"
