"""One conversation group drained inside a Spark task: by a Python handler or by the queue's
activation procedure, interpreted in the executor.

**Python handler** (``module:function``, called with a :class:`GroupWork`): one transaction
per group. It RECEIVEs every ready message of the group (``WHERE conversation_group_id = g``,
so the group is locked as RECEIVE locks it, against activated readers and other drains
alike), runs the handler — whose effects (``work.execute``, ``work.insert``, ``work.send`` …)
join that transaction — and commits effects, SENDs and the removal of the messages together.
A handler that raises rolls everything back; the group is tried again up to ``attempts``
times and then reported as failed, its messages still in the queue. Each rollback of a
transaction that received counts toward the queue's poison-message handling, as activation's
do (five in a row in one process disable the queue).

**Activation procedure**: the procedure runs as activation runs it (its own transactions,
its own RECEIVE / GET CONVERSATION GROUP loop), with its RECEIVEs confined to the task's group
(:class:`~tsqlbroker.interpreter.broker_stmts.ReceiveScope`) and its WAITFORs returning at
once when the group has nothing more; it is called again while it makes progress. Each of its
transactions commits its effects with the removal of what it received.

Either way a message is removed only in the transaction that commits what it caused, so a
task Spark runs again, or a drain run again after a killed executor or driver, finds only
what is still to do.
"""

from __future__ import annotations

import importlib
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from tsqlbroker.engine.broker import QUEUE_COLUMNS
from tsqlbroker.engine.broker.validation import decode_body
from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.broker_stmts import ReceiveScope, confine_receives
from tsqlbroker.interpreter.session import Session

from .columns import tsql_value
from .send import FailAfterCommit, message_body, task_attempt
from .stores import (
    TaskSink,
    begin,
    broker_of,
    check_not_taken,
    commit,
    insert_rows,
    rollback,
    run_sql,
    task_session,
)

_QUEUE_DISABLED = 9617


class Message(NamedTuple):
    """One received message: the queue's columns (``RECEIVE *`` plus ``message_id``)."""

    status: int
    priority: int
    queuing_order: int
    conversation_group_id: uuid.UUID
    conversation_handle: uuid.UUID
    message_sequence_number: int
    service_name: str
    service_id: int
    service_contract_name: str
    service_contract_id: int
    message_type_name: str
    message_type_id: int
    validation: str
    message_body: bytes | None
    message_enqueue_time: datetime
    message_id: uuid.UUID

    @property
    def text(self) -> str | None:
        """The body as text (UTF-16 or UTF-8, as XML bodies are read), or None."""
        return None if self.message_body is None else decode_body(self.message_body)


assert Message._fields == tuple(c for c, _t in QUEUE_COLUMNS)


class GroupWork:
    """What a Python handler gets for one conversation group: its messages, in RECEIVE order,
    and the means to act in the group's transaction."""

    def __init__(self, session: Session, group: uuid.UUID, messages: list[Message]) -> None:
        self.session = session
        self.group_id = group
        self.messages = messages
        self._broker = broker_of(session)

    @property
    def database(self) -> str:
        """The database the drain runs in."""
        return self.session.current_database

    def execute(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        """Run one T-SQL data statement (SELECT, INSERT, UPDATE, DELETE, MERGE …) in the
        group's transaction; ``params`` are bound as ``@name`` (never spliced). The rows of
        its result, if it has one."""
        bound = {f"@{k}": tsql_value(v) for k, v in params.items()}
        rs = run_sql(self.session, sql, bound)
        return list(rs.rows) if rs is not None else []

    def insert(self, table: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert rows (mappings of column → value) into ``table``."""
        batch = [dict(r) for r in rows]
        if not batch:
            return 0
        columns = list(batch[0])
        return insert_rows(self.session, table, columns,
                           [tuple(r[c] for c in columns) for r in batch])

    def send(self, conversation_handle: Any, message_type: str | None = None,
             body: bytes | str | None = None) -> None:
        """``SEND ON CONVERSATION h MESSAGE TYPE t (body)``; a str body goes as nvarchar's
        bytes (UTF-16LE)."""
        self._broker.send(self.session.txn, self.session.db_id, [conversation_handle],
                          message_type, message_body(body), False)

    def end_conversation(self, conversation_handle: Any, error: int | None = None,
                         description: str | None = None) -> None:
        """``END CONVERSATION h [WITH ERROR = n DESCRIPTION = 'text']``."""
        self._broker.end_conversation(self.session.txn, self.session.db_id,
                                      conversation_handle, error, description)

    def begin_dialog(self, from_service: str, to_service: str, contract: str | None = None
                     ) -> uuid.UUID:
        """``BEGIN DIALOG`` from ``from_service`` to ``to_service``; the new handle."""
        result: uuid.UUID = self._broker.begin_dialog(
            self.session.txn, self.session.db_id, from_service, to_service, contract=contract)
        return result


Handler = Callable[[GroupWork], Any]


def load_handler(spec: str) -> Handler:
    """``module:function`` → the function (imported in the worker)."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"a handler is module:function, not {spec!r}")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise TypeError(f"{spec}: {name} is not a function of module {module}")
    return fn


@dataclass(frozen=True)
class DrainPlan:
    """What every task needs to drain its groups (shipped to the executors)."""

    url: str
    database: str
    queue_schema: str
    queue_name: str
    procedure: str | None = None
    handler: str | None = None
    attempts: int = 3
    lock_timeout: float = 5.0
    fail_after_commit: bool = False     # test hook: fail attempt 0 after its first commit


@dataclass(frozen=True)
class GroupOutcome:
    """How one group went: ``done`` (drained), ``empty`` (nothing left: drained before),
    ``busy`` (locked by another reader past the lock timeout) or ``failed``."""

    group: str
    status: str
    messages: int
    attempts: int
    seconds: float
    error: str | None = None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TSqlError):
        return exc.render().replace("\n", ": ", 1)
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""
    return f"{type(exc).__name__}: {exc}{where}"


class GroupDrainer:
    """Drains groups one after another in one worker session."""

    def __init__(self, plan: DrainPlan, session: Session) -> None:
        self.plan = plan
        self.session = session
        self.broker = broker_of(session)
        self.handler = load_handler(plan.handler) if plan.handler else None
        self.committed_once = False
        self.attempt = task_attempt()[1]

    def ready(self, group: str) -> int:
        """How many messages of ``group`` are ready in the queue."""
        p = self.plan
        rs = run_sql(self.session, f"SELECT COUNT(*) FROM [{p.queue_schema}].[{p.queue_name}] "
                                   "WHERE status = 1 AND conversation_group_id = @g",
                     {"@g": (group, "uniqueidentifier")})
        return int(rs.rows[0][0]) if rs is not None and rs.rows else 0

    def drain(self, group: str) -> GroupOutcome:
        """Drain one group (see the module docstring)."""
        start = time.monotonic()
        run = self._by_procedure if self.handler is None else self._by_handler
        status, messages, attempts, error = run(group)
        return GroupOutcome(group, status, messages, attempts, time.monotonic() - start, error)

    def _after_commit(self, group: str) -> None:
        if self.plan.fail_after_commit and self.attempt == 0 and not self.committed_once:
            self.committed_once = True
            raise FailAfterCommit(f"testFailAfterCommit: group {group} committed; failing "
                                  "attempt 0")
        self.committed_once = True

    def _by_handler(self, group: str) -> tuple[str, int, int, str | None]:
        p, s = self.plan, self.session
        error: str | None = None
        for attempt in range(1, p.attempts + 1):
            try:
                txn = begin(s)
                rs = self.broker.receive(txn, s.db_id, p.queue_schema, p.queue_name, None,
                                         "conversation_group_id", group,
                                         lock_timeout=p.lock_timeout)
                if not rs.rows:
                    rollback(s)
                    return ("busy" if self.ready(group) else "empty"), 0, attempt, None
                messages = [Message(*r) for r in rs.rows]
                # The handler may compute for a while before it writes: on a shared SQLite
                # file the group's claim is published and the write lock let go meanwhile,
                # so other tasks and processes go on (a no-op on PostgreSQL).
                txn.pause()
                assert self.handler is not None
                work = GroupWork(s, messages[0].conversation_group_id, messages)
                self.handler(work)
                txn.write()
                check_not_taken(s, [m.queuing_order for m in messages])
                commit(s)
            except Exception as exc:  # noqa: BLE001 - a handler's failure is reported
                rollback(s)
                error = _describe(exc)
                if isinstance(exc, TSqlError) and exc.number == _QUEUE_DISABLED:
                    return "failed", 0, attempt, error
                continue
            self._after_commit(group)
            return "done", len(messages), attempt, None
        return "failed", 0, p.attempts, error

    def _by_procedure(self, group: str) -> tuple[str, int, int, str | None]:
        p, s = self.plan, self.session
        assert p.procedure is not None
        sink = s.sink
        assert isinstance(sink, TaskSink)
        confine_receives(s, ReceiveScope(s.db_id, p.queue_schema.lower(), p.queue_name.lower(),
                                         uuid.UUID(group)))
        consumed, failures, calls = 0, 0, 0
        error: str | None = None
        try:
            left = self.ready(group)
            if left == 0:
                return "empty", 0, 0, None
            while left and failures < p.attempts:
                calls += 1
                s.call_procedure(p.procedure)
                errors = sink.take_errors()
                if s.trancount:
                    rollback(s)     # left open by the procedure: activation's Msg 8415
                now = self.ready(group)
                if now < left:
                    consumed += left - now
                    self._after_commit(group)
                if errors:
                    error = _describe(errors[0])
                    if errors[0].number == _QUEUE_DISABLED:
                        break
                if errors or now >= left:
                    failures += 1
                left = now
        finally:
            confine_receives(s, None)
        if left == 0:
            return "done", consumed, calls, None
        if error is None:
            error = f"{p.procedure} left {left} message(s) of the group in the queue"
        return "failed", consumed, calls, error


def drain_groups(plan: DrainPlan, groups: Iterable[Sequence[str]]) -> Iterator[GroupOutcome]:
    """A Spark task: drain the groups of the partition's group lists, one at a time."""
    with task_session(plan.url, plan.database) as session:
        drainer = GroupDrainer(plan, session)
        for batch in groups:
            for group in batch:
                yield drainer.drain(group)
