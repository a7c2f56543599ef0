"""The queue monitor state machine, with a fake broker and real threads (bounded waits)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tsqlbroker.engine.activation import ActivatedTask, ActivationManager, QueueSettings
from tsqlbroker.engine.brokerlog import BrokerLog


class FakeBroker:
    """A queue holding a count of ready messages; settings adjustable like ALTER QUEUE."""

    def __init__(self, max_readers: int = 2, poison: bool = True) -> None:
        self.ready = 0
        self.settings = QueueSettings(1, 10, "db.dbo.q", "db.dbo.p", max_readers, True, True,
                                      None, poison)
        self.disabled = False
        self.ticks = 0
        self.lock = threading.Lock()
        # What the monitor did, in order: ("watch", bool) and ("look", None).
        self.calls: list[tuple[str, bool | None]] = []

    def activation_queue_settings(self, db_id: int, queue_id: int) -> QueueSettings:
        return self.settings

    def activation_queues(self) -> list[tuple[int, int]]:
        return [(1, 10)]

    def queue_ready(self, db_id: int, queue_id: int) -> bool:
        with self.lock:
            self.calls.append(("look", None))
            return self.ready > 0 and not self.disabled

    def watch_queue(self, db_id: int, queue_id: int, watching: bool) -> None:
        with self.lock:
            self.calls.append(("watch", watching))

    def disable_queue(self, db_id: int, queue_id: int) -> None:
        self.disabled = True
        s = self.settings
        self.settings = QueueSettings(s.db_id, s.queue_id, s.name, s.procedure, s.max_readers,
                                      s.activation_enabled, False, s.execute_as,
                                      s.poison_message_handling)

    def tick(self, now: object = None) -> float | None:
        self.ticks += 1
        return None

    def take(self) -> bool:
        with self.lock:
            if self.ready:
                self.ready -= 1
                return True
            return False


class Runner:
    """An activated 'procedure' that receives messages slowly until the queue is empty."""

    def __init__(self, broker: FakeBroker, manager: ActivationManager, delay: float) -> None:
        self.broker, self.manager, self.delay = broker, manager, delay
        self.started = 0
        self.max_concurrent = 0
        self.running = 0
        self.lock = threading.Lock()

    def run_activated(self, task: ActivatedTask) -> None:
        with self.lock:
            self.started += 1
            self.running += 1
            self.max_concurrent = max(self.max_concurrent, self.running)
        try:
            while self.broker.take():
                task.received = True
                self.manager.notify("received", 1, 10)
                time.sleep(self.delay)
            self.manager.notify("empty_receive", 1, 10)
        finally:
            with self.lock:
                self.running -= 1


def make(max_readers: int = 2, delay: float = 0.01, recheck: float = 0.05):
    broker = FakeBroker(max_readers)
    manager = ActivationManager(broker, BrokerLog(), recheck_seconds=recheck, clock_seconds=0.05)
    runner = Runner(broker, manager, delay)
    return broker, manager, runner


@contextmanager
def running(manager: ActivationManager, runner: Any) -> Iterator[None]:
    """The manager started with ``runner`` for the block, stopped after it."""
    manager.start(runner)
    try:
        yield
    finally:
        manager.stop()


def test_message_arrival_activates_and_queue_drains() -> None:
    broker, manager, runner = make()
    with running(manager, runner):
        broker.ready = 3
        manager.notify("enqueued", 1, 10)
        assert manager.wait_idle(5.0)
        assert broker.ready == 0 and runner.started >= 1
        assert broker.ticks > 0  # the same thread is the broker clock


def test_more_readers_while_messages_stay_unread_never_beyond_max() -> None:
    broker, manager, runner = make(max_readers=3, delay=0.02, recheck=0.03)
    with running(manager, runner):
        broker.ready = 60
        manager.notify("enqueued", 1, 10)
        assert manager.wait_idle(10.0)
        assert broker.ready == 0
        assert runner.max_concurrent >= 2  # the monitor added readers under load
        assert runner.max_concurrent <= 3  # and never one beyond MAX_QUEUE_READERS


def test_activation_off_starts_nothing() -> None:
    broker, manager, runner = make()
    s = broker.settings
    broker.settings = QueueSettings(s.db_id, s.queue_id, s.name, s.procedure, s.max_readers,
                                    False, True, None, True)
    with running(manager, runner):
        broker.ready = 2
        manager.notify("enqueued", 1, 10)
        assert manager.wait_idle(2.0)  # not activatable: idle at once
        assert runner.started == 0 and broker.ready == 2


def test_the_monitor_watches_an_activated_queue_before_it_looks_and_stops_when_off() -> None:
    # Other processes' enqueues reach the monitor only while it watches (PostgreSQL): it must
    # watch before its first look at the queue, and stop once activation is off.
    broker, manager, runner = make()
    with running(manager, runner):
        broker.ready = 1
        manager.notify("enqueued", 1, 10)
        assert manager.wait_idle(5.0)
        with broker.lock:
            calls = list(broker.calls)
        assert calls[0] == ("watch", True)
        assert ("look", None) in calls
        s = broker.settings
        broker.settings = QueueSettings(s.db_id, s.queue_id, s.name, s.procedure,
                                        s.max_readers, False, True, None, True)
        manager.notify("altered", 1, 10)
        assert manager.wait_idle(5.0)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with broker.lock:
                if broker.calls[-1] == ("watch", False):
                    break
            time.sleep(0.01)
        with broker.lock:
            assert broker.calls[-1] == ("watch", False)


def test_procedure_that_never_receives_strands_the_monitor_until_altered() -> None:
    broker = FakeBroker(2)
    log = BrokerLog()
    manager = ActivationManager(broker, log, recheck_seconds=0.05, clock_seconds=0.05)
    calls: list[int] = []

    class Lazy:
        def run_activated(self, task: ActivatedTask) -> None:
            calls.append(task.id)

    with running(manager, Lazy()):
        broker.ready = 1
        manager.notify("enqueued", 1, 10)
        time.sleep(0.5)
        assert len(calls) == 1  # stranded in NOTIFIED: no relaunch loop
        assert any("did not execute RECEIVE" in e.text for e in log.entries())
        manager.notify("altered", 1, 10)  # cycling activation resets the monitor
        time.sleep(0.3)
        assert len(calls) == 2


def test_five_consecutive_rollbacks_disable_the_queue() -> None:
    broker, manager, _runner = make()
    log = manager.log
    for _ in range(4):
        manager.receive_outcome(1, 10, committed=False)
    manager.receive_outcome(1, 10, committed=True)  # a commit resets the count
    for _ in range(4):
        manager.receive_outcome(1, 10, committed=False)
    assert not broker.disabled
    manager.receive_outcome(1, 10, committed=False)
    assert broker.disabled
    assert any("Broker:Queue Disabled" in e.text for e in log.entries())


def test_forced_rollbacks_neither_count_nor_reset() -> None:
    broker, manager, _runner = make()
    for _ in range(4):
        manager.receive_outcome(1, 10, committed=False)
    for _ in range(10):         # deadlock victims, lock timeouts, lost connections
        manager.receive_outcome(1, 10, committed=False, forced=True)
    assert not broker.disabled
    manager.receive_outcome(1, 10, committed=False)
    assert broker.disabled


def test_poison_handling_off_keeps_the_queue() -> None:
    broker = FakeBroker(1, poison=False)
    manager = ActivationManager(broker, BrokerLog())
    for _ in range(10):
        manager.receive_outcome(1, 10, committed=False)
    assert not broker.disabled


def test_zero_max_readers_is_logged() -> None:
    broker, manager, runner = make(max_readers=0)
    with running(manager, runner):
        broker.ready = 1
        manager.notify("enqueued", 1, 10)
        time.sleep(0.3)
        assert runner.started == 0
        assert any("MAX_QUEUE_READERS is zero" in e.text for e in manager.log.entries())
