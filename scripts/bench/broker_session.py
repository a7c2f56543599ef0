"""The benchmarks' Service Broker side: the services, the T-SQL loops they time, and a
client session whose errors stop the benchmark.

Every loop is one batch compiled once (the interpreter's best case) unless a benchmark says
otherwise; every message is the same 8 bytes, ``0x3132333435363738``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

from yardstick import BenchError

from tsqlbroker.interpreter.instance import Instance

SETUP = """
CREATE MESSAGE TYPE [//bench/Msg] VALIDATION = NONE;
CREATE CONTRACT [//bench/Contract] ([//bench/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
CREATE SERVICE [//bench/Init] ON QUEUE InitQ;
CREATE SERVICE [//bench/Targ] ON QUEUE TargQ ([//bench/Contract]);
CREATE TABLE Lat (n int NOT NULL, t datetime2(7) NOT NULL);
"""

OPEN_DIALOG = """
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//bench/Init] TO SERVICE '//bench/Targ'
    ON CONTRACT [//bench/Contract] WITH ENCRYPTION = OFF;
SELECT @h;
"""

SEND_ONE = "SEND ON CONVERSATION @h MESSAGE TYPE [//bench/Msg] (0x3132333435363738);"
RECEIVE_ONE = "RECEIVE TOP (1) @b = message_body FROM TargQ;"
# One message per transaction each way: the work PGMQ and plain tables are held against.
PAIR = f"""
    BEGIN TRAN;
    {SEND_ONE}
    COMMIT;
    BEGIN TRAN;
    {RECEIVE_ONE}
    COMMIT;"""
_DECLARE = "SET NOCOUNT ON;\nDECLARE {counter}@h uniqueidentifier = '{{handle}}', @b varbinary(max);"

# The pair ``n`` times in one batch.
SEND_RECEIVE_LOOP = (_DECLARE.format(counter="@i int = 0, ")
                     + "\nWHILE @i < {n}\nBEGIN" + PAIR + "\n    SET @i += 1;\nEND;\n")

# The pair alone: what a client sends when it sends one batch per message.
SEND_RECEIVE_ONCE = _DECLARE.format(counter="") + PAIR + "\n"

# ``n`` messages on one dialog in one transaction (a burst; untimed fills).
FILL = f"""
SET NOCOUNT ON;
DECLARE @i int = 0, @h uniqueidentifier = '{{handle}}';
BEGIN TRAN;
WHILE @i < {{n}}
BEGIN
    {SEND_ONE}
    SET @i += 1;
END;
COMMIT;
"""

# ``n`` RECEIVE TOP (1), each its own transaction, from a queue holding at least ``n``.
RECEIVE_LOOP = f"""
SET NOCOUNT ON;
DECLARE @i int = 0, @b varbinary(max);
WHILE @i < {{n}}
BEGIN
    BEGIN TRAN;
    {RECEIVE_ONE}
    COMMIT;
    SET @i += 1;
END;
"""

# RECEIVE TOP (100) until the queue is empty; the rows go to the client as result sets.
BATCHED_RECEIVE = """
SET NOCOUNT ON;
WHILE 1 = 1
BEGIN
    BEGIN TRAN;
    RECEIVE TOP (100) conversation_handle, message_type_name, message_body FROM TargQ;
    IF @@ROWCOUNT = 0
    BEGIN
        COMMIT;
        BREAK;
    END;
    COMMIT;
END;
"""

QUEUE_DEPTH = "SELECT COUNT(*) FROM TargQ"


class BenchSink:
    """Counts the rows of result sets, keeps the last one and every error."""

    def __init__(self) -> None:
        self.rows = 0
        self.last: list[tuple[Any, ...]] = []
        self.errors: list[Any] = []

    def message(self, text: str) -> None:
        """PRINT output is not kept."""

    def resultset(self, rs: Any) -> None:
        self.rows += len(rs.rows)
        self.last = rs.rows

    def error(self, err: Any) -> None:
        self.errors.append(err)

    def rows_affected(self, n: int) -> None:
        """Row counts are not kept."""


class Client:
    """A T-SQL session whose errors stop the benchmark."""

    def __init__(self, instance: Instance, database: str) -> None:
        self.sink = BenchSink()
        self.session = instance.session(self.sink, database)

    def run(self, text: str) -> None:
        if not self.session.execute(text):
            raise BenchError("benchmark T-SQL failed: " + self.sink.errors[0].render())

    def rows(self, text: str) -> list[tuple[Any, ...]]:
        self.sink.last = []
        self.run(text)
        return self.sink.last

    def scalar(self, text: str) -> Any:
        return self.rows(text)[0][0]

    def open_dialog(self) -> str:
        """A new dialog from //bench/Init to //bench/Targ; its handle."""
        return str(self.scalar(OPEN_DIALOG)).upper()

    def close(self) -> None:
        self.session.close()


@contextmanager
def bench_client(url: str, *, create: bool) -> Iterator[tuple[Instance, Client]]:
    """An instance on ``url`` and a client session in its database ``bench`` (created first,
    with the benchmark's services, when ``create``)."""
    inst = Instance(url)
    try:
        if create:
            client = Client(inst, "master")
            client.run("CREATE DATABASE bench")
            client.run("USE bench")
            client.run(SETUP)
        else:
            client = Client(inst, "bench")
        yield inst, client
    finally:
        inst.close()
