"""The broker's background life inside an :class:`Instance`: activation, timers, the log.

One :class:`BrokerRuntime` per instance, created on first use (the first Service Broker
statement, or explicitly by ``run``, the REPL and ``serve``). It attaches the engine's
:class:`~tsqlbroker.engine.activation.ActivationManager` to the broker and is the
:class:`~tsqlbroker.engine.activation.ActivationRunner` that manager calls: each activated
procedure runs in a background session of its own, whose PRINT output and errors go to the
broker log in SQL Server's Msg 9724 form, whose result sets are discarded and whose open
transaction at exit is rolled back (Msg 8415).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.activation import ActivatedTask, ActivationManager, log_error
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.pgsync import ReaderSlot
from tsqlbroker.engine.brokerlog import BrokerLog
from tsqlbroker.errors import TSqlError, message_text

if TYPE_CHECKING:
    from .instance import Instance

_lock = threading.Lock()
_SLOT_RETRY_S = 0.2


class _NoSlot:
    """The reader slot of a single-process store: the queue monitor's count is the cap."""

    def release(self) -> None:
        """Nothing to give back."""


class _ActivationSink:
    """Where an activated procedure's output goes: the broker log (Msg 9724)."""

    def __init__(self, log: BrokerLog, task: ActivatedTask, runtime: BrokerRuntime) -> None:
        self.log = log
        self.task = task
        self.runtime = runtime

    def _write(self, text: str) -> None:
        self.log.write(f"spid{self.task.spid}s",
                       message_text(9724, self.task.procedure, self.task.queue_name, text),
                       "output")

    def message(self, text: str) -> None:
        self._write(text)

    def resultset(self, rs: Any) -> None:
        """Result sets of activated procedures go nowhere, as in SQL Server."""

    def error(self, err: TSqlError) -> None:
        if self.task.ended_by_broker or (self.runtime.stopping and err.number == 3621):
            # Ended by the broker (queue dropped: Msg 28085 is logged; shutdown): what fails
            # after that is a consequence, not the procedure's fault.
            return
        self._write(err.render().replace("\n", " "))

    def rows_affected(self, n: int) -> None:
        """Row counts are not logged."""


class BrokerRuntime:
    """Activation, the broker clock and the broker log of one instance."""

    def __init__(self, instance: Instance, *, recheck_seconds: float = 5.0) -> None:
        self.instance = instance
        self.broker = Broker.get(instance.store)
        conn = instance.store.connect()
        try:
            self.broker.ensure_schema(conn)
        finally:
            conn.close()
        self.log = BrokerLog()
        self.manager = ActivationManager(self.broker, self.log,
                                         recheck_seconds=recheck_seconds)
        self.broker.attach_activation(self.manager)
        self.started = False
        self.stopping = False

    def start(self) -> None:
        """Start activation and the clock (idempotent)."""
        if not self.started:
            self.started = True
            self.manager.start(self)
            # Broker-to-broker delivery over TCP (listens once an endpoint is STARTED).
            from tsqlbroker.engine.broker.transport import Transport
            self.transport = Transport(self.broker, self.log)
            self.transport.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop launching, cancel activated procedures, stop the clock."""
        if self.started:
            self.stopping = True
            self.started = False
            try:
                self.transport.stop(timeout)
                self.manager.stop(timeout)
            finally:
                self.stopping = False

    def wait_idle(self, timeout: float) -> bool:
        """Wait until activated procedures are idle and no activatable message is left."""
        return self.manager.wait_idle(timeout) if self.started else True

    # -- ActivationRunner ---------------------------------------------------------------------
    def _signature_ok(self, session: Any, task: ActivatedTask) -> bool:
        """Msg 9653 (in the log, the task not run) if the procedure has parameters.

        SQL Server checks this when it activates the procedure, not at CREATE/ALTER QUEUE:
        the procedure may be created after the queue, or altered to take parameters later,
        and neither statement looks at the queues that name it. A missing procedure is left
        to ``call_procedure`` (Msg 2812 in the log, like any error of the procedure)."""
        from .procedures import _parse_object_name, resolve_module

        try:
            compiled = resolve_module(session, _parse_object_name(task.procedure), {"P"})
        except TSqlError:
            return True  # reported by call_procedure in the 9724 form
        if compiled is None or not compiled.params:
            return True
        task.aborted = True
        log_error(self.log, f"spid{task.spid}s", 9653, task.procedure)
        return False

    def _reader_slot(self, task: ActivatedTask) -> Any:
        """On PostgreSQL (processes may share the store): wait for one of the queue's
        MAX_QUEUE_READERS slots, store-wide; None if the task should not run after all
        (stopping, queue gone or no longer activating). Elsewhere a no-op slot."""
        if self.instance.store.dialect != "postgresql":
            return _NoSlot()
        slot = ReaderSlot(self.instance.store, task.db_id, task.queue_id)
        waiting = False
        try:
            while not (self.stopping or task.ended_by_broker):
                settings = self.broker.activation_queue_settings(task.db_id, task.queue_id)
                if settings is None or not settings.activation_enabled \
                        or settings.max_readers <= 0:
                    break
                if slot.acquire(settings.max_readers):
                    return slot
                if not waiting:
                    # Every slot is taken by readers of other processes: this task waits
                    # (counted as waiting, so the monitor launches no more meanwhile).
                    waiting = True
                    self.manager.set_waiting(task, True)
                    self.log.write("Activation", f"{task.procedure} on queue "
                                   f"{task.queue_name}: all {settings.max_readers} readers "
                                   "run in other processes; waiting for one to end", "info")
                time.sleep(_SLOT_RETRY_S)
        finally:
            if waiting:
                self.manager.set_waiting(task, False)
        slot.release()
        task.aborted = True
        return None

    def run_activated(self, task: ActivatedTask) -> None:
        """Run the queue's activation procedure in a background session until it returns
        (holding one of the queue's reader slots meanwhile)."""
        slot = self._reader_slot(task)
        if slot is None:
            return
        try:
            self._run_activated(task)
        finally:
            slot.release()

    def _run_activated(self, task: ActivatedTask) -> None:
        conn = self.instance.store.connect()
        try:
            row = self.instance.catalog.database(conn, task.db_id)
        finally:
            conn.close()
        if row is None:
            return
        session = self.instance.session(_ActivationSink(self.log, task, self),
                                        database=row.name)
        task.spid = session.id
        task.cancel = session.cancel
        session.extensions["activation_task"] = task
        self.log.write("Activation", f"started {task.procedure} on queue {task.queue_name} "
                       f"(spid {task.spid})", "info")
        try:
            if not self._signature_ok(session, task):
                return
            session.call_procedure(task.procedure)
            if session.trancount > 0 and not (self.stopping or task.ended_by_broker):
                log_error(self.log, f"spid{task.spid}s", 8415, task.procedure)
        finally:
            session.close()
            self.log.write("Activation", f"{task.procedure} on queue {task.queue_name} "
                           f"(spid {task.spid}) ended", "info")


def runtime_for(instance: Instance, *, start: bool = True,
                recheck_seconds: float | None = None) -> BrokerRuntime:
    """The instance's broker runtime, created (and started) on first use.

    ``recheck_seconds`` sets how often a queue monitor with running tasks considers launching
    one more (SQL Server's few-seconds timer, 5 s by default; tests use a fraction of a
    second); it takes effect at once, also on a runtime that already runs."""
    rt = instance.extensions.get("broker_runtime")
    if rt is None:
        with _lock:
            rt = instance.extensions.get("broker_runtime")
            if rt is None:
                rt = BrokerRuntime(instance)
                instance.extensions["broker_runtime"] = rt
                instance.extensions.setdefault("on_close", []).insert(0, rt.stop)
    if recheck_seconds is not None:
        rt.manager.recheck_seconds = recheck_seconds
    if start and not rt.started and instance.background:
        rt.start()
    return rt
