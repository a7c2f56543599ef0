"""Internal activation: one queue monitor per queue, starting activated procedures.

Follows the reference §5.13 (understanding-when-activation-occurs, Remus Rusanu's
"understanding queue monitors"):

* a monitor is INACTIVE while nothing is ready; a message arriving on a queue with no running
  activated task launches one and the monitor becomes NOTIFIED;
* a NOTIFIED monitor launches nothing more until some session RECEIVEs from the queue
  (RECEIVES_OCCURRING);
* while tasks run and the monitor is not NOTIFIED, every ``recheck_seconds`` it launches one
  more task if messages are still unread (in a conversation group nobody has locked), no
  activated task is waiting in RECEIVE / GET CONVERSATION GROUP, and no RECEIVE came back
  empty within that time — never more than MAX_QUEUE_READERS;
* the monitor goes INACTIVE when nothing is left to receive; ALTER QUEUE takes effect at once
  (raising MAX_QUEUE_READERS may start a task without waiting for the period, lowering never
  stops them; STATUS OFF stops new launches, ON again launches at once if messages wait);
* a task that ends without having received leaves the monitor NOTIFIED ("stranded", Msg 28087
  in the log) until ALTER QUEUE; :meth:`ActivationManager.wait_idle` counts it as idle.

Failures go to the broker log as ``Msg n, Level l, State 1, text`` (:func:`log_error`): 9648
(MAX_QUEUE_READERS = 0), 28085 (queue dropped), 28087; the runner adds 8415 and 9653.

Poison messages (§5.12): five consecutive rollbacks of transactions that received from a queue
disable it (unless POISON_MESSAGE_HANDLING is OFF), logged as a Broker:Queue Disabled event.

The engine knows nothing of the interpreter: activated procedures run through an
:class:`ActivationRunner` the interpreter registers. The same background thread is the
broker's clock (conversation timers, lifetimes, transmission retries via ``broker.tick``).
"""

from __future__ import annotations

import datetime as _dt
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tsqlbroker.engine.brokerlog import BrokerLog, LogEntry
from tsqlbroker.errors import MESSAGES, message_text

POISON_THRESHOLD = 5
_task_ids = itertools.count(1)


def log_error(log: BrokerLog, source: str, number: int, *args: Any) -> LogEntry:
    """Write SQL Server error ``number`` to the broker log as ``Msg n, Level l, State 1, <text>``
    (the form the tools print errors in, on one line)."""
    severity = MESSAGES[number][0]
    text = message_text(number, *args)
    return log.write(source, f"Msg {number}, Level {severity}, State 1, {text}",
                     record={"type": "error", "number": number, "severity": severity,
                             "state": 1, "line": 1, "message": text, "source": "broker"})


@dataclass(frozen=True)
class QueueSettings:
    """What activation needs to know about a queue, read from the broker's catalog."""

    db_id: int
    queue_id: int
    name: str  # db.schema.queue
    procedure: str | None  # db.schema.proc
    max_readers: int
    activation_enabled: bool
    receive_enabled: bool
    execute_as: str | None
    poison_message_handling: bool
    # A QUEUE_ACTIVATION event notification: the monitor notifies instead of starting a
    # procedure (external activation).
    notification: bool = False

    @property
    def internal(self) -> bool:
        """Whether the queue's monitor starts an activation procedure."""
        return self.activation_enabled and bool(self.procedure) and self.max_readers > 0

    @property
    def external(self) -> bool:
        """Whether the queue's monitor sends QUEUE_ACTIVATION event notifications."""
        return self.notification and not self.internal


@dataclass(eq=False)
class ActivatedTask:
    """One running activated procedure (a row of sys.dm_broker_activated_tasks)."""

    db_id: int
    queue_id: int
    queue_name: str
    procedure: str
    execute_as: str | None
    id: int = field(default_factory=lambda: next(_task_ids))
    spid: int | None = None
    started: _dt.datetime = field(default_factory=_dt.datetime.now)
    waiting: bool = False  # blocked in WAITFOR (RECEIVE | GET CONVERSATION GROUP) on its queue
    received: bool = False  # executed RECEIVE / GET CONVERSATION GROUP at least once
    aborted: bool = False  # the runner refused to start it (and logged why, e.g. Msg 9653)
    # The broker ended it (queue dropped, shutdown): errors that follow are consequences.
    ended_by_broker: bool = False
    cancel: Callable[[], None] | None = None
    thread: threading.Thread | None = None


class ActivationRunner(Protocol):
    """Runs an activated procedure to completion (registered by the interpreter)."""

    def run_activated(self, task: ActivatedTask) -> None:
        """Run ``task.procedure`` in a background session; return when it exits."""


class BrokerQueues(Protocol):
    """The broker operations activation uses."""

    def activation_queue_settings(self, db_id: int, queue_id: int) -> QueueSettings | None: ...

    def activation_queues(self) -> list[tuple[int, int]]: ...

    def queue_ready(self, db_id: int, queue_id: int) -> bool: ...

    def watch_queue(self, db_id: int, queue_id: int, watching: bool) -> None: ...

    def disable_queue(self, db_id: int, queue_id: int) -> None: ...

    def tick(self, now: _dt.datetime | None = None) -> float | None: ...

    def post_queue_event(self, db_id: int, queue_id: int, event: str) -> int: ...


@dataclass
class QueueMonitor:
    """State of one queue's monitor (a row of sys.dm_broker_queue_monitors)."""

    db_id: int
    queue_id: int
    state: str = "INACTIVE"
    last_empty_rowset_time: _dt.datetime | None = None
    last_activated_time: _dt.datetime | None = None
    last_launch_monotonic: float = 0.0
    last_empty_monotonic: float = 0.0
    last_evaluated_monotonic: float = 0.0
    last_received_monotonic: float = 0.0
    tasks: set[ActivatedTask] = field(default_factory=set)
    rollbacks: int = 0
    warned_zero_readers: bool = False
    external: bool = False    # activation by QUEUE_ACTIVATION event notification
    # The queue's settings rule activation out (no procedure, STATUS OFF, …): queue events
    # need no evaluation until the queue is altered. Saves the monitor thread a catalog
    # read per SEND and RECEIVE on queues without activation.
    inert: bool = False

    @property
    def tasks_waiting(self) -> int:
        return sum(1 for t in self.tasks if t.waiting)


class ActivationManager:
    """Queue monitors, activated tasks, the poison-message counter and the broker clock."""

    def __init__(self, broker: BrokerQueues, log: BrokerLog, *,
                 recheck_seconds: float = 5.0, clock_seconds: float = 1.0) -> None:
        self.broker = broker
        self.log = log
        self.recheck_seconds = recheck_seconds
        self.clock_seconds = clock_seconds
        self.runner: ActivationRunner | None = None
        self._monitors: dict[tuple[int, int], QueueMonitor] = {}
        self._pending: set[tuple[int, int]] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._busy = 0  # evaluations in progress (for wait_idle)

    # -- life cycle ---------------------------------------------------------------------------
    def start(self, runner: ActivationRunner) -> None:
        """Start the monitor/clock thread; queues with messages already waiting activate."""
        self.runner = runner
        with self._cond:
            if self._thread is not None:
                return
            self._stopping = False
            # Started again (this process hosts again): monitors start afresh, as after a
            # restart — one NOTIFIED when hosting stopped would otherwise look stranded.
            for mon in self._monitors.values():
                if not mon.tasks:
                    mon.state = "INACTIVE"
                    mon.inert = False
            self._thread = threading.Thread(target=self._loop, name="tsqlbroker-broker",
                                            daemon=True)
            self._thread.start()
        try:
            for key in self.broker.activation_queues():
                self.notify("startup", *key)
        except Exception as exc:  # noqa: BLE001 - the store may not have broker tables yet
            self.log.write("Broker", f"activation start-up scan failed: {exc}")

    def stop(self, timeout: float = 5.0) -> None:
        """Stop launching, cancel running tasks and wait (bounded) for them to end."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread, self._thread = self._thread, None
            tasks = [t for m in self._monitors.values() for t in m.tasks]
        for task in tasks:
            task.ended_by_broker = True
            if task.cancel is not None:
                task.cancel()
        deadline = time.monotonic() + timeout
        for task in tasks:
            if task.thread is not None:
                task.thread.join(max(0.0, deadline - time.monotonic()))
        if thread is not None:
            thread.join(max(0.0, deadline - time.monotonic()))

    # -- events -------------------------------------------------------------------------------
    def notify(self, event: str, db_id: int, queue_id: int) -> None:
        """A queue event: enqueued | received | empty_receive | altered | dropped | startup."""
        key = (db_id, queue_id)
        with self._cond:
            mon = self._monitors.get(key)
            if mon is None:
                if event == "dropped":
                    return
                mon = self._monitors[key] = QueueMonitor(db_id, queue_id)
            now = time.monotonic()
            if event == "received":
                mon.last_received_monotonic = now
                # Also from INACTIVE while tasks run: readers are at work (again).
                if mon.state == "NOTIFIED" or (mon.state == "INACTIVE" and mon.tasks):
                    mon.state = "RECEIVES_OCCURRING"
            elif event == "empty_receive":
                mon.last_empty_rowset_time = _dt.datetime.now()
                mon.last_empty_monotonic = now
                if mon.state == "NOTIFIED":
                    mon.state = "RECEIVES_OCCURRING"
            elif event == "altered":
                mon.inert = False
                mon.state = "INACTIVE" if not mon.tasks else mon.state
                mon.warned_zero_readers = False
                # ALTER QUEUE takes effect at once: a raised MAX_QUEUE_READERS may launch
                # without waiting for the recheck period since the last launch.
                mon.last_launch_monotonic = 0.0
            elif event == "dropped":
                for task in list(mon.tasks):
                    log_error(self.log, f"spid{task.spid}s", 28085)
                    task.ended_by_broker = True
                    if task.cancel is not None:
                        task.cancel()
                self._monitors.pop(key, None)
                return
            if event == "startup":
                mon.inert = False
            elif mon.inert and not mon.tasks:
                return
            self._pending.add(key)
            self._cond.notify_all()

    def receive_outcome(self, db_id: int, queue_id: int, committed: bool, *,
                        forced: bool = False) -> None:
        """A transaction that received from the queue ended: count consecutive rollbacks.
        A ``forced`` rollback (deadlock victim, lock timeout, lost connection, cancellation)
        is no sign of a poison message: it neither counts nor resets the count."""
        disable = False
        with self._cond:
            if self._stopping and not committed:
                # Rolled back because shutdown cancelled the session: not the message's fault.
                return
            mon = self._monitors.setdefault((db_id, queue_id), QueueMonitor(db_id, queue_id))
            if committed:
                mon.rollbacks = 0
            elif not forced:
                mon.rollbacks += 1
                if mon.rollbacks >= POISON_THRESHOLD:
                    mon.rollbacks = 0
                    disable = True
            if not mon.inert or mon.tasks:
                self._pending.add((db_id, queue_id))
                self._cond.notify_all()
        if disable:
            settings = self._settings(db_id, queue_id)
            if settings is not None and settings.poison_message_handling:
                self.broker.disable_queue(db_id, queue_id)
                self._post(db_id, queue_id, "BROKER_QUEUE_DISABLED")
                self.log.write("Broker", f"Broker:Queue Disabled: the queue '{settings.name}' "
                               f"was disabled after {POISON_THRESHOLD} consecutive rollbacks "
                               "of transactions that received from it (poison message).")

    def set_waiting(self, task: ActivatedTask, waiting: bool) -> None:
        """The task blocks in (or leaves) a WAITFOR on its queue."""
        with self._cond:
            task.waiting = waiting
            self._cond.notify_all()

    # -- views --------------------------------------------------------------------------------
    def activated_tasks(self) -> list[ActivatedTask]:
        with self._cond:
            return [t for m in self._monitors.values() for t in m.tasks]

    def monitors(self) -> list[QueueMonitor]:
        with self._cond:
            return [m for m in self._monitors.values()]

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no activatable message is left and every activated task is finished or
        idle in a WAITFOR; False if that did not happen within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if self._idle():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with self._cond:
                self._cond.wait(min(remaining, 0.05))

    def _idle(self) -> bool:
        with self._cond:
            if self._pending or self._busy:
                return False
            monitors = list(self._monitors.values())
            busy_tasks = any(not t.waiting for m in monitors for t in m.tasks)
        if busy_tasks:
            return False
        for mon in monitors:
            if mon.state == "NOTIFIED" and not mon.tasks:
                continue  # stranded: nothing starts until ALTER QUEUE cycles activation
            settings = self._settings(mon.db_id, mon.queue_id)
            if settings is None or not self._can_activate(settings):
                continue
            if self.broker.queue_ready(mon.db_id, mon.queue_id):
                return False
        return True

    def unfinished(self) -> list[str]:
        """What keeps activation from being idle, one line each: activated procedures still
        running (not waiting in a WAITFOR), queues with messages still to activate on."""
        now = _dt.datetime.now()
        with self._cond:
            monitors = list(self._monitors.values())
            running = [t for m in monitors for t in m.tasks if not t.waiting]
        lines = [f"activated procedure {t.procedure} on queue {t.queue_name} is still running "
                 f"(spid {t.spid}, for {(now - t.started).total_seconds():.1f} s)"
                 for t in sorted(running, key=lambda t: t.id)]
        for mon in monitors:
            settings = self._settings(mon.db_id, mon.queue_id)
            if settings is not None and self._can_activate(settings) and \
                    self.broker.queue_ready(mon.db_id, mon.queue_id):
                lines.append(f"queue {settings.name} still has messages for {settings.procedure}")
        return lines

    # -- the monitor thread -------------------------------------------------------------------
    def _loop(self) -> None:
        next_tick = 0.0
        while True:
            with self._cond:
                if self._stopping:
                    return
                if not self._pending:
                    now = time.monotonic()
                    wait = min(next_tick - now, self.clock_seconds,
                               *(self._recheck_due(m) - now for m in self._monitors.values()))
                    self._cond.wait(max(0.0, wait))
                if self._stopping:
                    return
                keys = set(self._pending)
                self._pending.clear()
                # Monitors with running tasks re-evaluate every recheck period (rule (b)).
                now = time.monotonic()
                for key, mon in self._monitors.items():
                    if self._recheck_due(mon) <= now:
                        keys.add(key)
                self._busy += 1
            try:
                for key in keys:
                    self._evaluate(*key)
                if time.monotonic() >= next_tick:
                    due = self._tick()
                    next_tick = time.monotonic() + (self.clock_seconds if due is None
                                                    else max(0.01, min(due, self.clock_seconds)))
            except Exception as exc:  # noqa: BLE001 - the broker thread must survive
                self.log.write("Broker", f"internal error in the queue monitor: {exc!r}")
            finally:
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()

    def _recheck_due(self, mon: QueueMonitor) -> float:
        """When (monotonic) ``mon`` is next due for a periodic re-evaluation (inf: never)."""
        if mon.state == "NOTIFIED" or (not mon.tasks and not mon.external):
            return float("inf")
        due = max(mon.last_launch_monotonic, mon.last_empty_monotonic) + self.recheck_seconds
        if mon.last_evaluated_monotonic >= due:  # evaluated since: wait a whole period again
            due = mon.last_evaluated_monotonic + self.recheck_seconds
        return due

    def _tick(self) -> float | None:
        try:
            return self.broker.tick()
        except Exception as exc:  # noqa: BLE001
            self.log.write("Broker", f"internal error in the broker clock: {exc!r}")
            return None

    def _settings(self, db_id: int, queue_id: int) -> QueueSettings | None:
        try:
            return self.broker.activation_queue_settings(db_id, queue_id)
        except Exception:  # noqa: BLE001 - a dropped database or queue: nothing to activate
            return None

    def _watch(self, db_id: int, queue_id: int, watching: bool) -> None:
        try:
            self.broker.watch_queue(db_id, queue_id, watching)
        except Exception as exc:  # noqa: BLE001 - activation goes on within this process
            self.log.write("Broker", f"cannot watch the queue for other processes: {exc!r}")

    @staticmethod
    def _can_activate(s: QueueSettings) -> bool:
        return s.receive_enabled and (s.internal or s.external)

    def _evaluate(self, db_id: int, queue_id: int) -> None:
        settings = self._settings(db_id, queue_id)
        # Before looking at the queue: from then on other processes' enqueues are heard of.
        self._watch(db_id, queue_id, settings is not None and self._can_activate(settings))
        with self._cond:
            mon = self._monitors.get((db_id, queue_id))
            if mon is not None:
                mon.last_evaluated_monotonic = time.monotonic()
        if mon is None or settings is None:
            return
        if settings.activation_enabled and settings.procedure and settings.max_readers == 0 \
                and not settings.external:
            with self._cond:
                mon.inert = True
            if not mon.warned_zero_readers:
                mon.warned_zero_readers = True
                log_error(self.log, "Activation", 9648, settings.name)
            return
        if not self._can_activate(settings):
            with self._cond:
                mon.inert = True
                if not mon.tasks:
                    mon.state = "INACTIVE"
            return
        ready = self.broker.queue_ready(db_id, queue_id)
        if settings.external:
            self._evaluate_external(mon, ready)
            return
        with self._cond:
            mon.inert = False    # (an evaluation of older settings may have set it)
            mon.external = False
            running = len(mon.tasks)
            if not ready:
                # Drained: no task left, or every task waits in RECEIVE, or the last RECEIVE
                # came back empty. (Not while a reader works on what it received: the rest
                # of its conversation group is locked by it, not gone.)
                drained = (not mon.tasks or mon.tasks_waiting == len(mon.tasks)
                           or mon.last_empty_monotonic >= mon.last_received_monotonic)
                if (mon.state == "RECEIVES_OCCURRING" and drained) or not mon.tasks:
                    mon.state = "INACTIVE"
                return
            now = time.monotonic()
            launch = False
            if mon.state == "NOTIFIED":
                # Nothing more until some session RECEIVEs. A NOTIFIED monitor with no task
                # left means the last task never received: SQL Server leaves it stranded
                # until activation is cycled (ALTER QUEUE).
                launch = False
            elif running == 0:
                # (a) messages and no activated task: launch at once.
                launch = True
            else:
                # (b) tasks run but messages stay unread: one more per recheck period, only
                # while nobody waits in RECEIVE and no RECEIVE came back empty lately.
                launch = (running < settings.max_readers and mon.tasks_waiting == 0
                          and now - mon.last_empty_monotonic >= self.recheck_seconds
                          and now - mon.last_launch_monotonic >= self.recheck_seconds)
            if not launch or self._stopping or self.runner is None:
                return
            task = ActivatedTask(db_id, queue_id, settings.name, settings.procedure or "",
                                 settings.execute_as)
            mon.tasks.add(task)
            mon.state = "NOTIFIED"
            mon.last_activated_time = _dt.datetime.now()
            mon.last_launch_monotonic = now
            # Started under the lock: stop() then sees each task with a running thread
            # (joining one not yet started raises RuntimeError).
            task.thread = threading.Thread(target=self._run_task, args=(mon, task),
                                           daemon=True, name=f"tsqlbroker-activation-{task.id}")
            task.thread.start()

    def _evaluate_external(self, mon: QueueMonitor, ready: bool) -> None:
        """The monitor of a queue with a QUEUE_ACTIVATION notification: the same states,
        but where a task would start, the notification is sent (SQL Server "produces queue
        activation events periodically for as long as activation is required")."""
        with self._cond:
            mon.inert = False
            mon.external = True
            if not ready:
                mon.state = "INACTIVE"
                return
            now = time.monotonic()
            if mon.state == "NOTIFIED" or self._stopping:
                return
            if mon.state != "INACTIVE" and (
                    now - mon.last_launch_monotonic < self.recheck_seconds
                    or now - mon.last_empty_monotonic < self.recheck_seconds):
                return
            mon.state = "NOTIFIED"
            mon.last_activated_time = _dt.datetime.now()
            mon.last_launch_monotonic = now
        self._post(mon.db_id, mon.queue_id, "QUEUE_ACTIVATION")

    def _post(self, db_id: int, queue_id: int, event: str) -> None:
        """Send a queue event to the queue's event notifications (if any ask for it)."""
        try:
            self.broker.post_queue_event(db_id, queue_id, event)
        except Exception as exc:  # noqa: BLE001 - reported in the log, as SQL Server does
            self.log.write("Broker", f"the {event} event notification could not be sent: "
                           f"{exc!r}")

    def _run_task(self, mon: QueueMonitor, task: ActivatedTask) -> None:
        runner = self.runner
        try:
            if runner is not None:
                runner.run_activated(task)
        except Exception as exc:  # noqa: BLE001 - reported in the log like SQL Server does
            self.log.write("Activation", f"The activated task was aborted due to an error: "
                           f"{exc!r}")
        finally:
            with self._cond:
                mon.tasks.discard(task)
                if not task.received and not task.aborted and mon.state == "NOTIFIED":
                    # A procedure that never received leaves the monitor NOTIFIED (as SQL
                    # Server does); say so in the log so the user can see why.
                    log_error(self.log, f"spid{task.spid}s", 28087, task.procedure)
                self._pending.add((mon.db_id, mon.queue_id))
                self._cond.notify_all()


def settings_from_row(row: Any) -> QueueSettings:
    """Build :class:`QueueSettings` from any object with the sys.service_queues-like fields."""
    return QueueSettings(
        db_id=row.db_id, queue_id=row.queue_id, name=row.name, procedure=row.procedure,
        max_readers=int(row.max_readers or 0), activation_enabled=bool(row.activation_enabled),
        receive_enabled=bool(row.receive_enabled), execute_as=row.execute_as,
        poison_message_handling=bool(row.poison_message_handling))
