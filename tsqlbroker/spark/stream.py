"""Streaming read, "drain": a queue's ready messages as a stream, consumed by the sink.

Offsets are queuing orders (``{"queuing_order": q, "messages": n}``: a micro-batch takes the
ready messages with start < queuing order <= q, n of them when planned).
``maxMessagesPerTrigger`` bounds a batch. Reading removes nothing: a message leaves the queue
in the transaction in which the ``servicebroker`` sink (:class:`DrainSink`) commits the rows
made from it — with the group's lock, as RECEIVE takes it — and the sink records it in the
ledger in that transaction. A batch Spark runs again (a failed task, a restart from the
checkpoint) reads only the messages still in the queue, so nothing is lost or repeated; the
ledger tells messages consumed by this stream from messages removed by someone else, which
``failOnDataLoss`` turns into an error (the default) or a warning. When Spark commits a batch,
its ledger rows go.

Partitions are whole conversation groups of the batch (a group's messages in queuing order).
Messages a query filters out before the sink are not consumed: they stay in the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Row
from pyspark.sql.datasource import (
    DataSourceStreamReader,
    DataSourceStreamWriter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from tsqlbroker.engine.broker.backlog import ready_horizon
from tsqlbroker.errors import TSqlError, tsql_error

from .columns import tsql_value
from .filters import Condition
from .ledger import Ledger
from .observe import Shape, balance, select_keys
from .options import OptionError, SourceOptions
from .send import fail_after_commit, message_body, task_attempt
from .stores import (
    begin,
    broker_of,
    check_not_taken,
    commit,
    find_queue,
    insert_rows,
    rollback,
    run_sql,
    task_session,
)

log = logging.getLogger(__name__)
_BOOKKEEPING = ("queuing_order", "conversation_group_id")


class DataLossError(RuntimeError):
    """Messages of a micro-batch were removed from the queue by someone else."""


def _offset(queuing_order: int, messages: int = 0) -> dict[str, int]:
    return {"queuing_order": int(queuing_order), "messages": int(messages)}


class DrainPartition(InputPartition):
    """Whole groups of one micro-batch and its queuing-order range (after, upto]."""

    def __init__(self, groups: list[str], after: int, upto: int) -> None:
        super().__init__(len(groups))
        self.groups = groups
        self.after = after
        self.upto = upto


class DrainStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """See the module docstring."""

    def __init__(self, opts: SourceOptions, shape: Shape) -> None:
        self.opts = opts
        self.shape = shape
        self.available_now: int | None = None
        self.schema_name, self.queue_name = opts.queue_name()

    def _queue(self, session: Any) -> Any:
        return find_queue(session, self.schema_name, self.queue_name)

    def initialOffset(self) -> dict[str, int]:
        """``earliest``: before every message; ``latest``: after the last one now queued."""
        if self.opts.starting == "earliest":
            return _offset(0)
        with task_session(self.opts.url, self.opts.database) as session:
            rs = run_sql(session, f"SELECT MAX(queuing_order) FROM {self.shape.source}")
        top = rs.rows[0][0] if rs is not None and rs.rows else None
        return _offset(top or 0)

    def getDefaultReadLimit(self) -> ReadLimit:
        """``maxMessagesPerTrigger`` as a row limit."""
        if self.opts.max_messages is not None:
            return ReadMaxRows(max_rows=self.opts.max_messages)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        """``trigger(availableNow=True)``: drain what is queued now, in batches of
        ``maxMessagesPerTrigger``, then stop."""
        with task_session(self.opts.url, self.opts.database) as session:
            rs = run_sql(session, f"SELECT MAX(queuing_order) FROM {self.shape.source}")
        top = rs.rows[0][0] if rs is not None and rs.rows else None
        self.available_now = int(top or 0)

    def latestOffset(self, start: dict[str, int], limit: ReadLimit
                     ) -> dict[str, int]:
        """Up to the limit's worth of ready messages after ``start``."""
        after = int(start["queuing_order"])
        rows = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        with task_session(self.opts.url, self.opts.database) as session:
            q = self._queue(session)
            broker = broker_of(session)
            end, count = ready_horizon(broker.t, session.conn, q.object_id, after, rows,
                                       self.available_now)
        return _offset(end, count) if count else start

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[DrainPartition]:
        """Whole groups of the batch's ready messages; checks nothing went missing."""
        after, upto = int(start["queuing_order"]), int(end["queuing_order"])
        if upto <= after:
            return []
        with task_session(self.opts.url, self.opts.database) as session:
            q = self._queue(session)
            rs = run_sql(session, "SELECT conversation_group_id, COUNT(*) FROM "
                                  f"{self.shape.source} WHERE status = 1 AND queuing_order > "
                                  "@a AND queuing_order <= @b GROUP BY conversation_group_id",
                         {"@a": (after, "bigint"), "@b": (upto, "bigint")})
            counts = [(str(g).upper(), int(n)) for g, n in (rs.rows if rs else [])]
            present = sum(n for _g, n in counts)
            consumed = Ledger.get(session.instance.store).drained_between(
                session.conn, session.db_id, q.object_id, after, upto)
        missing = int(end.get("messages", 0)) - present - consumed
        if missing > 0:
            self._lost(f"{missing} message(s) of queue {self.opts.queue} with queuing order "
                       f"in ({after}, {upto}] were removed by someone else before this "
                       "stream consumed them")
        return [DrainPartition(b, after, upto) for b in balance(counts, self.opts.partitions)]

    def _lost(self, text: str) -> None:
        if self.opts.fail_on_data_loss:
            raise DataLossError(text + " (option failOnDataLoss=false goes on without them)")
        log.warning("%s", text)

    def read(self, partition: DrainPartition) -> Iterator[tuple[Any, ...]]:
        """The batch's ready messages of the partition's groups, group by group in order."""
        conds = [Condition("status = 1 AND queuing_order > @a AND queuing_order <= @b",
                           {"@a": (partition.after, "bigint"),
                            "@b": (partition.upto, "bigint")})]
        yield from select_keys(self.opts, self.shape, partition.groups, conds)

    def commit(self, end: dict[str, int]) -> None:
        """Spark committed the batches up to ``end``: forget their ledger rows."""
        with task_session(self.opts.url, self.opts.database) as session:
            q = self._queue(session)
            ledger = Ledger.get(session.instance.store)
            ledger.ensure(session.conn)
            txn = begin(session)
            try:
                txn.write()
                ledger.forget_drained(session.conn, session.db_id, q.object_id,
                                      int(end["queuing_order"]))
                commit(session)
            finally:
                rollback(session)


@dataclass
class DrainCommit(WriterCommitMessage):
    """What one sink task did."""

    partition_id: int
    consumed: int
    skipped: int


class DrainSink(DataSourceStreamWriter):
    """The drain's sink: per task, one transaction that inserts the rows into ``table``
    (optional), SENDs ``replyMessageType`` with ``replyBodyColumn`` on each row's
    conversation (optional), ends the conversations (``endConversation``) and removes the
    rows' messages from the queue. Rows must carry ``queuing_order`` (and
    ``conversation_group_id``) from the stream."""

    def __init__(self, opts: SourceOptions, schema: StructType) -> None:
        self.opts = opts
        self.columns = [f.name for f in schema.fields]
        lower = {c.lower() for c in self.columns}
        opts.queue_name()
        for needed in _BOOKKEEPING:
            if needed not in lower:
                raise OptionError(f"the servicebroker sink needs column {needed} (from the "
                                  "stream) to know which message each row consumes")
        self.has_handle = "conversation_handle" in lower
        replying = opts.reply_message_type is not None or opts.end_conversation
        if replying and not self.has_handle:
            raise OptionError("replies and endConversation need column conversation_handle")
        if opts.reply_body_column is not None and opts.reply_body_column not in self.columns:
            raise OptionError(f"option replyBodyColumn: no column {opts.reply_body_column!r}")

    def write(self, iterator: Iterator[Row]) -> DrainCommit:
        """Apply the task's rows and consume their messages in one transaction."""
        partition, attempt = task_attempt()
        opts = self.opts
        by_group: dict[str, list[Row]] = {}
        for row in iterator:
            by_group.setdefault(str(row["conversation_group_id"]).upper(), []).append(row)
        if not by_group:
            return DrainCommit(partition, 0, 0)
        schema, name = opts.queue_name()
        with task_session(opts.url, opts.database) as session:
            q = find_queue(session, schema, name)
            ledger = Ledger.get(session.instance.store)
            ledger.ensure(session.conn)
            table_columns = self._table_columns(session)
            txn = begin(session)
            try:
                consumed, skipped = self._apply(session, txn, ledger, q, by_group,
                                                table_columns)
                txn.write()
                check_not_taken(session, consumed)
                ledger.record_drained(session.conn, session.db_id, q.object_id, consumed)
                commit(session)
            finally:
                rollback(session)
        fail_after_commit(opts, attempt, f"sink partition {partition}")
        return DrainCommit(partition, len(consumed), skipped)

    def _table_columns(self, session: Any) -> list[str]:
        """The row columns that go into ``table`` (those the table has)."""
        if self.opts.table is None:
            return []
        rs = run_sql(session, f"SELECT * FROM {self.opts.table} WHERE 1 = 0")
        have = {c.lower() for c in (rs.columns if rs is not None else [])}
        return [c for c in self.columns if c.lower() in have]

    def _apply(self, session: Any, txn: Any, ledger: Ledger, q: Any,
               by_group: dict[str, list[Row]], table_columns: list[str]
               ) -> tuple[list[int], int]:
        """Receive the rows' messages and apply the rows: (the queuing orders received, the
        rows skipped)."""
        opts = self.opts
        broker = broker_of(session)
        received: list[int] = []
        skipped = 0
        inserts: list[tuple[Any, ...]] = []
        seen: set[str] = set()
        for group, rows in by_group.items():
            wanted = {int(r["queuing_order"]) for r in rows}
            rs = broker.receive(txn, session.db_id, q.schema_name, q.name, None,
                                "conversation_group_id", group, lock_timeout=opts.lock_timeout,
                                queuing_orders=wanted)
            got = {int(r[2]) for r in rs.rows}
            if wanted - got:
                skipped += self._missing(session, ledger, q, group, wanted - got, got)
            handles: list[Any] = []
            for row in rows:
                if int(row["queuing_order"]) not in got:
                    continue
                if table_columns:
                    inserts.append(tuple(_value(row[c]) for c in table_columns))
                handle = row["conversation_handle"] if self.has_handle else None
                self._reply(broker, txn, session.db_id, handle, row)
                if handle is not None and str(handle) not in seen:
                    seen.add(str(handle))
                    handles.append(handle)
            if opts.end_conversation:
                for handle in handles:      # after the conversation's last reply
                    self._end(broker, txn, session.db_id, handle)
            received.extend(sorted(got))
        if inserts:
            insert_rows(session, opts.table or "", table_columns, inserts)
        return received, skipped

    def _missing(self, session: Any, ledger: Ledger, q: Any, group: str, missing: set[int],
                 got: set[int]) -> int:
        """Account for rows whose message the group no longer holds ready: consumed by an
        earlier attempt of this stream (skipped), or by someone else (failOnDataLoss); a
        group another transaction holds locked fails the task (Spark runs it again)."""
        if not got:
            left = run_sql(session, "SELECT COUNT(*) FROM "
                                    f"[{q.schema_name}].[{q.name}] WHERE status = 1 AND "
                                    "conversation_group_id = @g", {"@g": (group,
                                                                         "uniqueidentifier")})
            if left is not None and left.rows and left.rows[0][0]:
                raise tsql_error(1222)
        ours = ledger.drained_among(session.conn, session.db_id, q.object_id, missing)
        lost = missing - ours
        if lost:
            text = (f"{len(lost)} message(s) of group {group} were removed by someone else "
                    "before this stream consumed them")
            if self.opts.fail_on_data_loss:
                raise DataLossError(text + " (option failOnDataLoss=false goes on without "
                                           "them)")
            log.warning("%s", text)
        return len(missing)

    def _reply(self, broker: Any, txn: Any, db_id: int, handle: Any, row: Row) -> None:
        opts = self.opts
        if opts.reply_message_type is not None and opts.reply_body_column is not None:
            body = message_body(row[opts.reply_body_column])
            if body is not None:
                broker.send(txn, db_id, [handle], opts.reply_message_type, body, False)

    @staticmethod
    def _end(broker: Any, txn: Any, db_id: int, handle: Any) -> None:
        try:
            broker.end_conversation(txn, db_id, handle)
        except TSqlError as err:
            if err.number not in (8426, 8427):  # the dialog is over already
                raise

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int
               ) -> None:
        """Every task committed its own transaction: nothing is left to do."""

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int
              ) -> None:
        """Tasks that committed stay committed (their messages are gone from the queue, so
        the batch's retry does not see them); the others rolled back."""


def _value(v: Any) -> Any:
    """A Spark row value as the engine takes it for an INSERT."""
    value, _spec = tsql_value(v)
    return value
