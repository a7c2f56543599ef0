"""The broker's background life inside an :class:`Instance`: activation, timers, the log.

One :class:`BrokerRuntime` per instance, created with it. It attaches the engine's
:class:`~tsqlbroker.engine.activation.ActivationManager` to the broker and is the
:class:`~tsqlbroker.engine.activation.ActivationRunner` that manager calls: each activated
procedure runs in a background session of its own, whose PRINT output and errors go to the
broker log in SQL Server's Msg 9724 form, whose result sets are discarded and whose open
transaction at exit is rolled back (Msg 8415).

*Hosting.* Activation, the broker clock and transmission run in one process per store at a
time, the holder of the store's host lease (``engine/broker/hosting.py``). :meth:`start`
makes the runtime a candidate (``run``, the REPL and ``serve`` at start-up; other clients at
their first Service Broker statement that gives the broker background work); whether and
when it hosts follows its mode (docs/decisions.md, "One host per store"):

* ``on`` (``serve`` always): insists — hosts as soon as it has the lease, never yields it;
* ``auto``: hosts when it can have the lease and no process insists; yields to one that
  does (``serve`` started beside a REPL takes over within :data:`LEASE_CHECK_S`);
* ``off``: never hosts; it only runs its own batches.

A thread checks the lease every :data:`LEASE_CHECK_S`: a candidate takes it over when its
holder ends or dies.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.activation import ActivatedTask, ActivationManager, log_error
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.transport import Transport
from tsqlbroker.engine.brokerlog import BrokerLog
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import TSqlError, message_text
from tsqlbroker.storage.backends.leases import NoSlot

from .impersonation import owner_name, run_as_user
from .procedures import parse_object_name, resolve_module
from .server_info import SERVER_NAME

if TYPE_CHECKING:
    from .instance_protocol import InstanceLike

_lock = threading.Lock()
_SLOT_RETRY_S = 0.2
MODES = ("auto", "on", "off")
# How often a runtime looks at the host lease (takes it over, yields it).
LEASE_CHECK_S = 0.5


class _ActivationSink:
    """Where an activated procedure's output goes: the broker log (Msg 9724)."""

    def __init__(self, log: BrokerLog, task: ActivatedTask, runtime: BrokerRuntime) -> None:
        self.log = log
        self.task = task
        self.runtime = runtime

    def _write(self, text: str, record: dict[str, Any]) -> None:
        task = self.task
        self.log.write(f"spid{task.spid}s",
                       message_text(9724, task.procedure, task.queue_name, text), "output",
                       # An error keeps its own "procedure" (where it was raised).
                       record={"procedure": task.procedure, **record, "source": "activation",
                               "queue": task.queue_name, "spid": task.spid})

    def message(self, text: str) -> None:
        self._write(text, {"type": "message", "text": text})

    def resultset(self, rs: Any) -> None:
        """Result sets of activated procedures go nowhere, as in SQL Server."""

    def error(self, err: TSqlError) -> None:
        if self.task.ended_by_broker or (self.runtime.stopping and err.number == 3621):
            # Ended by the broker (queue dropped: Msg 28085 is logged; shutdown): what fails
            # after that is a consequence, not the procedure's fault.
            return
        self._write(err.render().replace("\n", " "), err.as_record())

    def rows_affected(self, n: int) -> None:
        """Row counts are not logged."""


class BrokerRuntime:
    """Activation, the broker clock and the broker log of one instance."""

    def __init__(self, instance: InstanceLike, *, recheck_seconds: float = 5.0) -> None:
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
        self.broker.server_name = SERVER_NAME     # EVENT_INSTANCE's ServerName
        # Broker-to-broker delivery over TCP (listens once an endpoint is STARTED).
        self.transport = Transport(self.broker, self.log)
        self.lease = self.broker.store_hosting.lease
        self.mode = "auto"
        self.role = "client"
        self.started = False       # a candidate host (start() was called)
        self.hosting = False       # holds the lease and runs the background work
        self.stopping = False
        self._host_lock = threading.RLock()
        self._lease_wake = threading.Event()
        self._lease_thread: threading.Thread | None = None
        self._said_standby = False

    # -- hosting ------------------------------------------------------------------------------
    def configure(self, *, mode: str | None = None, role: str | None = None) -> None:
        """Set the hosting mode (auto | on | off) and how this process names itself to the
        others (``serve``, ``run`` …); a new mode takes effect at once."""
        if role is not None:
            self.role = role
        if mode is None:
            return
        if mode not in MODES:
            raise ValueError(f"activation mode must be one of {', '.join(MODES)}")
        with self._host_lock:
            self.mode = mode
            self._said_standby = False
            self.lease.insist(mode == "on" and self.started)
        if self.started:
            self.check_lease()

    def start(self) -> None:
        """Become a candidate host (idempotent): host now if the mode and the lease allow,
        and keep looking at the lease in the background."""
        with self._host_lock:
            if self.started or self.stopping:
                return
            self.started = True
            self.lease.insist(self.mode == "on")
        self.check_lease()
        thread = threading.Thread(target=self._lease_loop, name="tsqlbroker-host-lease",
                                  daemon=True)
        self._lease_thread = thread
        thread.start()

    def check_lease(self) -> None:
        """Take the lease over, keep it or yield it, as the mode says."""
        with self._host_lock:
            if self.hosting:
                if not self.lease.still_held():
                    self.log.write("Broker", "lost the host lease (the store connection "
                                   "broke): activation, timers and transmission stop here",
                                   "error")
                    self._stop_hosting(release=False)
                elif self.mode == "off" or (self.mode == "auto"
                                            and self.lease.others_insist()):
                    self.log.write("Broker", "handing activation, timers and transmission "
                                   "over to a process that insists on hosting them", "info")
                    self._stop_hosting(release=True)
                return
            if self.lease.still_held():
                # Hosting ended while cancelled activated procedures still ran: the lease
                # stays until they are gone, so no two processes' readers overlap.
                if self.manager.activated_tasks():
                    return
                self.lease.release()
            if not self.started or self.stopping or self.mode == "off":
                return
            if self.mode == "auto" and self.lease.others_insist():
                self._standby()
                return
            if self.lease.try_acquire(f"pid {os.getpid()} ({self.role})"):
                self.hosting = True
                self._said_standby = False
                self.log.write("Broker", "hosting activation, timers and transmission of "
                               "this store", "info")
                self.manager.start(self)
                self.transport.start()
            else:
                self._standby()

    def _standby(self) -> None:
        if not self._said_standby:
            self._said_standby = True
            holder = self.lease.holder()
            self.log.write("Broker", f"standing by: {holder or 'another process'} hosts "
                           "activation, timers and transmission of this store", "info")

    def _stop_hosting(self, *, release: bool) -> None:
        self.hosting = False
        try:
            self.transport.stop()
            self.manager.stop()
        finally:
            if release and not self.manager.activated_tasks():
                self.lease.release()

    def _lease_loop(self) -> None:
        stop = self._lease_wake      # this thread's own: stop() replaces it for a restart
        while not stop.wait(LEASE_CHECK_S):
            try:
                self.check_lease()
            except Exception as exc:  # noqa: BLE001 - the lease thread must survive
                self.log.write("Broker", f"internal error checking the host lease: {exc!r}")

    def stop(self, timeout: float = 5.0) -> None:
        """Stop hosting: no launches, activated procedures cancelled, the clock and the
        transport stopped, the lease given back."""
        with self._host_lock:
            if not self.started:
                return
            self.stopping = True
            self.started = False
            self._lease_wake.set()
            try:
                if self.hosting:
                    self.hosting = False
                    self.transport.stop(timeout)
                    self.manager.stop(timeout)
            finally:
                if not self.manager.activated_tasks():
                    self.lease.release()
                self.lease.insist(False)
                self.stopping = False
        if self._lease_thread is not None and self._lease_thread is not threading.current_thread():
            self._lease_thread.join(timeout)
        self._lease_thread = None
        self._lease_wake = threading.Event()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until activated procedures are idle and no activatable message is left —
        when this process hosts; another host's work is not waited for (``on``: waits for
        the lease first, within ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if self.hosting:
                if self.manager.wait_idle(max(0.0, min(remaining, LEASE_CHECK_S))):
                    return True
            elif self.started and self.mode == "on":
                time.sleep(max(0.0, min(remaining, 0.05)))
            else:
                return True
            if remaining <= 0:
                return False

    def status(self) -> str:
        """How this process stands towards hosting, in words (for the REPL)."""
        if self.hosting:
            what = "hosts activation, timers and transmission"
        elif not self.started:
            what = "has not started the broker's background work"
        elif self.mode == "off":
            what = "does not host (activation off)"
        else:
            what = f"stands by: {self.lease.holder() or 'another process'} hosts"
        return f"Activation {self.mode}: this process (pid {os.getpid()}) {what}."

    # -- ActivationRunner ---------------------------------------------------------------------
    def _signature_ok(self, session: Any, task: ActivatedTask) -> bool:
        """Msg 9653 (in the log, the task not run) if the procedure has parameters.

        SQL Server checks this when it activates the procedure, not at CREATE/ALTER QUEUE:
        the procedure may be created after the queue, or altered to take parameters later,
        and neither statement looks at the queues that name it. A missing procedure is left
        to ``call_procedure`` (Msg 2812 in the log, like any error of the procedure)."""
        try:
            compiled = resolve_module(session, parse_object_name(task.procedure), {"P"})
        except TSqlError:
            return True  # reported by call_procedure in the 9724 form
        if compiled is None or not compiled.params:
            return True
        task.aborted = True
        log_error(self.log, f"spid{task.spid}s", 9653, task.procedure)
        return False

    def _run_as(self, session: Any, task: ActivatedTask) -> bool:
        """Switch the activation session to the queue's EXECUTE AS user (OWNER: the queue's
        owner; SELF is kept as the creator's principal id, a literal SELF of an older store
        runs as dbo). A user that no longer exists, or an owner
        that is a role: Msg 15517 in the log and the task not run."""
        who = task.execute_as
        if who is None or who.upper() == "SELF":
            return True
        if who.upper() == "OWNER":
            who = owner_name(session, task.db_id, task.queue_id)
        name = who
        if who.isdigit():
            user = Security.get(self.instance.store).user_by_id(session.conn, task.db_id,
                                                                int(who))
            if user is None:
                task.aborted = True
                log_error(self.log, f"spid{task.spid}s", 15517, f"principal_id {who}")
                return False
            name = user.name
        if name.lower() == "dbo":
            return True
        try:
            run_as_user(session, name)
        except TSqlError:
            task.aborted = True
            log_error(self.log, f"spid{task.spid}s", 15517, name)
            return False
        return True

    def _reader_slot(self, task: ActivatedTask) -> Any:
        """Wait for one of the queue's MAX_QUEUE_READERS slots, over every process sharing
        the store (``hosting.StoreHosting.reader_slot``); None if the task should not run after
        all (stopping, queue gone or no longer activating)."""
        slot = self.broker.store_hosting.reader_slot(task.db_id, task.queue_id)
        if isinstance(slot, NoSlot):
            return slot
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
        if task.ended_by_broker:  # stopped before it could be cancelled: do not start it
            session.close()
            return
        session.extensions["activation_task"] = task
        self.log.write("Activation", f"started {task.procedure} on queue {task.queue_name} "
                       f"(spid {task.spid})", "info")
        try:
            if not self._signature_ok(session, task) or not self._run_as(session, task):
                return
            session.call_procedure(task.procedure)
            if session.trancount > 0 and not (self.stopping or task.ended_by_broker):
                log_error(self.log, f"spid{task.spid}s", 8415, task.procedure)
        finally:
            session.close()
            self.log.write("Activation", f"{task.procedure} on queue {task.queue_name} "
                           f"(spid {task.spid}) ended", "info")


def runtime_for(instance: InstanceLike, *, start: bool = True,
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
