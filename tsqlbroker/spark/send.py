"""Batch write, "send": every row of a DataFrame becomes a message SENT on a dialog.

Each partition is one transaction: its dialogs begun, its messages sent, and a ledger row
saying "partition p of write w committed" (:mod:`.ledger`). SEND's own checks apply — state,
message type, contract and direction (Msg 8426, 8428, 8429, 8431, 8432, 8434 …): a bad row
fails its task with the T-SQL error and nothing of the partition is sent. When Spark runs a
task again whose first attempt committed (a lost executor, a failure after the commit), the
ledger row is found and nothing is sent twice. ``writeId`` names a write, so that re-running
a failed job sends only the partitions that did not commit.

Dialogs: a ``conversationColumn`` sends on existing dialogs (replies); a ``keyColumn`` gives
rows with the same key one dialog, in row order within a partition (the ledger maps keys to
dialogs across partitions, and the driver ends them after the write with ``endDialogs``);
otherwise each row gets a dialog of its own, ended at once with ``endDialogs``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark import TaskContext
from pyspark.sql import Row
from pyspark.sql.datasource import DataSourceWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from tsqlbroker.errors import TSqlError

from .ledger import Ledger
from .options import OptionError, SourceOptions
from .stores import begin, broker_of, commit, rollback, task_session

# Errors END CONVERSATION raises for a dialog that is already over.
_ALREADY_ENDED = (8426, 8427)


class SendError(RuntimeError):
    """A row SEND refused: the T-SQL error, and where it came from."""


class FailAfterCommit(RuntimeError):
    """The test hook ``testFailAfterCommit``: the first attempt of a task fails after its
    transaction committed, so that Spark runs it again."""


@dataclass
class SendCommit(WriterCommitMessage):
    """What one partition did."""

    partition_id: int
    rows: int
    already_committed: bool


def message_body(value: Any) -> bytes | None:
    """A body column's value as bytes: binary as is, text as nvarchar's bytes (UTF-16LE,
    what ``CAST(N'…' AS varbinary(max))`` gives), NULL as no body."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode("utf-16-le")


def task_attempt() -> tuple[int, int]:
    """(partition id, attempt number) of the running Spark task."""
    ctx = TaskContext.get()
    if ctx is None:
        return 0, 0
    return ctx.partitionId(), ctx.attemptNumber()


def fail_after_commit(opts: SourceOptions, attempt: int, what: str) -> None:
    """Raise :class:`FailAfterCommit` on a first attempt when the test hook is on."""
    if opts.test_fail_after_commit and attempt == 0:
        raise FailAfterCommit(f"testFailAfterCommit: {what} committed; failing attempt 0")


class SendWriter(DataSourceWriter):
    """See the module docstring."""

    def __init__(self, opts: SourceOptions, schema: StructType) -> None:
        names = {f.name.lower(): f.name for f in schema.fields}

        def column(option: str, value: str | None, required: bool = False) -> str | None:
            if value is None:
                if required:
                    raise OptionError(f"option {option} is required")
                return None
            if value.lower() not in names:
                raise OptionError(f"option {option}: the DataFrame has no column {value!r}")
            return names[value.lower()]

        self.opts = opts
        self.conversation_column = column("conversationColumn", opts.conversation_column)
        if self.conversation_column is None and not (opts.from_service and opts.to_service):
            raise OptionError("options fromService and toService are required (or "
                                  "conversationColumn, to send on existing dialogs)")
        self.key_column = column("keyColumn", opts.key_column)
        self.type_column = column("messageTypeColumn", opts.message_type_column)
        self.body_column = column("bodyColumn", opts.body_column
                                  if opts.body_column.lower() in names else None)
        self.write_id = opts.write_id or uuid.uuid4().hex

    def write(self, iterator: Iterator[Row]) -> SendCommit:
        """Send the partition's rows in one transaction (see the module docstring)."""
        partition, attempt = task_attempt()
        opts = self.opts
        with task_session(opts.url, opts.database) as session:
            broker = broker_of(session)
            ledger = Ledger.get(session.instance.store)
            ledger.ensure(session.conn)
            txn = begin(session)
            try:
                txn.write()         # the ledger is read under the write lock (SQLite)
                if ledger.partition_done(session.conn, self.write_id, partition):
                    rollback(session)
                    return SendCommit(partition, 0, True)
                count = 0
                for index, row in enumerate(iterator):
                    try:
                        self._send(session, broker, ledger, txn, row)
                    except TSqlError as err:
                        raise SendError(f"servicebroker send: partition {partition}, row "
                                        f"{index}: {err}") from None
                    count += 1
                ledger.record_partition(session.conn, self.write_id, partition, count)
                commit(session)
            finally:
                rollback(session)
        fail_after_commit(opts, attempt, f"partition {partition}")
        return SendCommit(partition, count, False)

    def _send(self, session: Any, broker: Any, ledger: Ledger, txn: Any, row: Row) -> None:
        opts = self.opts
        db_id = session.db_id
        if self.conversation_column is not None:
            handle = row[self.conversation_column]
            new_dialog = False
        elif self.key_column is not None:
            key = str(row[self.key_column])
            handle = ledger.dialog_for(session.conn, self.write_id, key)
            if handle is None:
                opened = str(broker.begin_dialog(txn, db_id, opts.from_service, opts.to_service,
                                                 contract=opts.contract)).upper()
                handle = ledger.claim_dialog(session.conn, self.write_id, key, opened)
                if handle != opened:    # another partition claimed the key first
                    broker.end_conversation(txn, db_id, opened)
            new_dialog = False
        else:
            handle = broker.begin_dialog(txn, db_id, opts.from_service, opts.to_service,
                                         contract=opts.contract)
            new_dialog = True
        mtype = row[self.type_column] if self.type_column is not None else opts.message_type
        body = message_body(row[self.body_column]) if self.body_column is not None else None
        broker.send(txn, db_id, [handle], mtype, body, False)
        if new_dialog and opts.end_dialogs:
            broker.end_conversation(txn, db_id, handle)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """On the driver, after every partition committed: end (``endDialogs``) and forget
        the dialogs opened per key."""
        if self.key_column is None:
            return
        opts = self.opts
        with task_session(opts.url, opts.database) as session:
            broker = broker_of(session)
            ledger = Ledger.get(session.instance.store)
            txn = begin(session)
            try:
                txn.write()
                if opts.end_dialogs:
                    for handle in ledger.write_dialogs(session.conn, self.write_id):
                        try:
                            broker.end_conversation(txn, session.db_id, handle)
                        except TSqlError as err:
                            if err.number not in _ALREADY_ENDED:
                                raise
                ledger.forget_dialogs(session.conn, self.write_id)
                commit(session)
            finally:
                rollback(session)
