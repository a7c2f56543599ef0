"""Service Broker benchmark: T-SQL SEND/RECEIVE against a hand-written table queue, batched
RECEIVE and activation latency, on an SQLite file (WAL) and on ``sqlite://``.

Prints each figure with its goal and whether it is met:

(a) SEND + RECEIVE of one message per transaction through T-SQL (a loop in one batch:
    ``BEGIN TRAN; SEND …; COMMIT; BEGIN TRAN; RECEIVE TOP (1) …; COMMIT``) against the same
    rows written and deleted by a minimal table queue through SQLAlchemy (a table of the
    broker's message columns and nothing else — no index, no conversation state; INSERT in
    one transaction, SELECT + DELETE in another): goal ≥ 0.5 of the table queue's rate. For
    reference the line also gives the ratio to a queue of two-column rows (id, body);
(b) ``RECEIVE TOP (100)``, each RECEIVE its own transaction, from a queue filled beforehand:
    goal ≥ 10× the message rate of (a);
(c) activation latency from the start of the SEND's COMMIT to the activated procedure's
    RECEIVE returning (``SYSDATETIME()`` right after it): with the procedure already waiting in
    ``WAITFOR (RECEIVE …)`` (warm) and with a procedure started for each message (cold; the
    first start also compiles the procedure): goal median ≤ 10 ms.

(a) and (b) take the best of three rounds (one with ``--quick``): the machine may be shared.

Run: ``python scripts/bench/broker.py [--quick] [--check]``. Exit status 0 (it is a report)
unless ``--check`` is given and a goal is missed (1).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import create_engine, text

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

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

# (a): one message per transaction each way, the loop compiled once.
SEND_RECEIVE_LOOP = """
SET NOCOUNT ON;
DECLARE @i int = 0, @h uniqueidentifier = '{handle}', @b varbinary(max);
WHILE @i < {n}
BEGIN
    BEGIN TRAN;
    SEND ON CONVERSATION @h MESSAGE TYPE [//bench/Msg] (0x3132333435363738);
    COMMIT;
    BEGIN TRAN;
    RECEIVE TOP (1) @b = message_body FROM TargQ;
    COMMIT;
    SET @i += 1;
END;
"""

FILL = """
SET NOCOUNT ON;
DECLARE @i int = 0, @h uniqueidentifier = '{handle}';
BEGIN TRAN;
WHILE @i < {n}
BEGIN
    SEND ON CONVERSATION @h MESSAGE TYPE [//bench/Msg] (0x3132333435363738);
    SET @i += 1;
END;
COMMIT;
"""

# (b): RECEIVE TOP (100) until the queue is empty; the rows go to the client as result sets.
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

# (c) warm: the activated procedure stays in WAITFOR between messages.
WARM_PROC = """
CREATE PROCEDURE ActProc AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @b varbinary(max), @t datetime2(7);
    WHILE 1 = 1
    BEGIN
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @b = message_body FROM TargQ), TIMEOUT 5000;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT;
            BREAK;
        END;
        SET @t = SYSDATETIME();
        INSERT INTO Lat (n, t) VALUES (CAST(CAST(@b AS varchar(20)) AS int), @t);
        COMMIT;
    END;
END;
"""

# (c) cold: one RECEIVE per activation; the procedure ends and the next message starts it.
COLD_PROC = """
CREATE PROCEDURE ActProc AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @b varbinary(max), @t datetime2(7);
    BEGIN TRAN;
    RECEIVE TOP (1) @b = message_body FROM TargQ;
    SET @t = SYSDATETIME();
    IF @b IS NOT NULL
        INSERT INTO Lat (n, t) VALUES (CAST(CAST(@b AS varchar(20)) AS int), @t);
    COMMIT;
END;
"""

ACTIVATE = """
ALTER QUEUE TargQ WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = ActProc,
    MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
"""


class NullSink:
    """Counts rows and keeps errors; result sets of the benchmark are not kept."""

    def __init__(self) -> None:
        self.rows = 0
        self.errors: list[Any] = []

    def message(self, text: str) -> None:
        """PRINT output is ignored."""

    def resultset(self, rs: Any) -> None:
        self.rows += len(rs.rows)

    def error(self, err: Any) -> None:
        self.errors.append(err)

    def rows_affected(self, n: int) -> None:
        """Row counts are ignored."""


class Client:
    """A T-SQL session whose errors stop the benchmark."""

    def __init__(self, instance: Instance, database: str, sink: Any = None) -> None:
        self.sink = sink if sink is not None else CollectingSink()
        self.session = instance.session(self.sink, database)

    def run(self, text_: str) -> None:
        if not self.session.execute(text_):
            errors = self.sink.errors if isinstance(self.sink, NullSink) else \
                self.sink.errors()
            raise SystemExit("benchmark T-SQL failed: " + errors[0].render())

    def scalar(self, text_: str) -> Any:
        assert isinstance(self.sink, CollectingSink)
        self.sink.events.clear()
        self.run(text_)
        return self.sink.resultsets()[-1].rows[0][0]

    def rows(self, text_: str) -> list[tuple[Any, ...]]:
        assert isinstance(self.sink, CollectingSink)
        self.sink.events.clear()
        self.run(text_)
        return self.sink.resultsets()[-1].rows


@dataclass
class Storage:
    """Where one round runs: the broker's storage and the raw queue's SQLite file."""

    label: str
    directory: str | None     # a fresh SQLite file here per measurement; None: sqlite://
    raw_path: str
    used: int = 0

    def new_url(self) -> str:
        """A URL for a new, empty store."""
        if self.directory is None:
            return "sqlite://"
        self.used += 1
        return f"sqlite:///{self.directory}/broker{self.used}.db"


@contextmanager
def storages() -> Iterator[list[Storage]]:
    """An SQLite file in a temporary directory (WAL), and ``sqlite://`` (memory-backed
    files under /dev/shm where it exists; the raw queue gets a file beside it)."""
    disk = tempfile.mkdtemp(prefix="tsqlbroker-bench-")
    shm = tempfile.mkdtemp(prefix="tsqlbroker-bench-",
                           dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    try:
        yield [Storage("file", disk, f"{disk}/raw.db"),
               Storage("memory", None, f"{shm}/raw.db")]
    finally:
        shutil.rmtree(disk, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)


@contextmanager
def broker_db(storage: Storage) -> Iterator[tuple[Instance, Client, str]]:
    """An instance with database ``bench``, its services and one open dialog."""
    inst = Instance(storage.new_url())
    try:
        admin = Client(inst, "master")
        admin.run("CREATE DATABASE bench")
        admin.run("USE bench")
        admin.run(SETUP)
        handle = str(admin.scalar(OPEN_DIALOG)).upper()
        yield inst, admin, handle
    finally:
        inst.close()


def _timed(fn: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# -- (a) ---------------------------------------------------------------------------------------
def send_receive_rates(storage: Storage, n: int, rounds: int
                       ) -> tuple[float, float, float]:
    """(T-SQL, table queue of message rows, table queue of id+body rows) messages per second,
    SEND/INSERT and RECEIVE/SELECT+DELETE one per transaction; rounds alternate between them
    and the best of each counts (the machine may be shared)."""
    with broker_db(storage) as (_inst, admin, handle), \
            raw_queue(storage, MESSAGE_ROW) as raw_loop, \
            raw_queue(storage, NARROW_ROW) as narrow_loop:
        def tsql_loop(count: int) -> None:
            admin.run(SEND_RECEIVE_LOOP.format(handle=handle, n=count))
        warm = max(n // 10, 1)                  # warm-up: compile caches, pages
        tsql_loop(warm)
        raw_loop(warm)
        narrow_loop(warm)
        tsql = raw = narrow = float("inf")
        for _ in range(rounds):
            tsql = min(tsql, _timed(lambda: tsql_loop(n)))
            raw = min(raw, _timed(lambda: raw_loop(n)))
            narrow = min(narrow, _timed(lambda: narrow_loop(n)))
        left = admin.scalar("SELECT COUNT(*) FROM TargQ")
        if left:
            raise SystemExit(f"(a) left {left} messages in the queue")
    return n / tsql, n / raw, n / narrow


@dataclass(frozen=True)
class RawRow:
    """The rows a raw table queue stores: its CREATE TABLE, INSERT, and the values of the
    next message (``values(i)``)."""

    name: str
    create: str
    insert: str
    take: str
    values: Callable[[int], dict[str, Any]]


_BENCH_GROUP, _BENCH_HANDLE = str(uuid.uuid4()).upper(), str(uuid.uuid4()).upper()
MESSAGE_ROW = RawRow(
    "message",
    "CREATE TABLE q (queuing_order INTEGER PRIMARY KEY, database_id INTEGER NOT NULL, "
    "queue_id INTEGER NOT NULL, status INTEGER NOT NULL, priority INTEGER NOT NULL, "
    "conversation_group_id VARCHAR(36) NOT NULL, conversation_handle VARCHAR(36) NOT NULL, "
    "message_sequence_number INTEGER NOT NULL, service_name VARCHAR(512) NOT NULL, "
    "service_id INTEGER NOT NULL, service_contract_name VARCHAR(256) NOT NULL, "
    "service_contract_id INTEGER NOT NULL, message_type_name VARCHAR(256) NOT NULL, "
    "message_type_id INTEGER NOT NULL, validation VARCHAR(2) NOT NULL, message_body BLOB, "
    "message_enqueue_time DATETIME NOT NULL, message_id VARCHAR(36) NOT NULL, "
    "rank INTEGER NOT NULL)",
    "INSERT INTO q (database_id, queue_id, status, priority, conversation_group_id, "
    "conversation_handle, message_sequence_number, service_name, service_id, "
    "service_contract_name, service_contract_id, message_type_name, message_type_id, "
    "validation, message_body, message_enqueue_time, message_id, rank) VALUES (:db, :q, 1, "
    ":prio, :grp, :h, :seq, :svc, :svc_id, :contract, :contract_id, :mt, :mt_id, :v, :b, "
    ":t, :mid, 2)",
    "SELECT queuing_order, status, priority, conversation_group_id, conversation_handle, "
    "message_sequence_number, service_name, service_id, service_contract_name, "
    "service_contract_id, message_type_name, message_type_id, validation, message_body, "
    "message_enqueue_time, message_id FROM q ORDER BY queuing_order LIMIT 1",
    lambda i: {"db": 5, "q": 261575970, "prio": 5, "grp": _BENCH_GROUP, "h": _BENCH_HANDLE,
               "seq": i, "svc": "//bench/Targ", "svc_id": 65537,
               "contract": "//bench/Contract", "contract_id": 65536, "mt": "//bench/Msg",
               "mt_id": 65536, "v": "N", "b": b"12345678",
               "t": datetime.now(UTC).replace(tzinfo=None).isoformat(" "),
               "mid": str(uuid.uuid4()).upper()})
NARROW_ROW = RawRow(
    "narrow", "CREATE TABLE q (id INTEGER PRIMARY KEY, body BLOB)",
    "INSERT INTO q (body) VALUES (:b)", "SELECT id, body FROM q ORDER BY id LIMIT 1",
    lambda _i: {"b": b"12345678"})


@contextmanager
def raw_queue(storage: Storage, row: RawRow = MESSAGE_ROW
              ) -> Iterator[Callable[[int], None]]:
    """``loop(count)``: a minimal SQL table queue through SQLAlchemy, same pragmas as the
    broker's store; each message INSERTed in one transaction, SELECTed and DELETEd in
    another."""
    path = f"{storage.raw_path}.{row.name}.db"
    Path(path).unlink(missing_ok=True)
    engine = create_engine("sqlite:///" + path, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA journal_mode=WAL")
            conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
            conn.exec_driver_sql(row.create)
            put = text(row.insert)
            take = text(row.take)
            drop = text("DELETE FROM q WHERE rowid = :id")
            sequence = iter(range(1 << 62))

            def loop(count: int) -> None:
                for _ in range(count):
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    conn.execute(put, row.values(next(sequence)))
                    conn.exec_driver_sql("COMMIT")
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    got = conn.execute(take).first()
                    assert got is not None
                    conn.execute(drop, {"id": got[0]})
                    conn.exec_driver_sql("COMMIT")
            yield loop
    finally:
        engine.dispose()


# -- (b) ---------------------------------------------------------------------------------------
def batched_receive_rate(storage: Storage, n: int, rounds: int) -> float:
    """Messages per second through RECEIVE TOP (100), one transaction per RECEIVE, from a
    queue holding ``n`` messages (best of ``rounds``)."""
    best = float("inf")
    with broker_db(storage) as (inst, admin, handle):
        sink = NullSink()
        reader = Client(inst, "bench", sink)
        for _ in range(rounds):
            admin.run(FILL.format(handle=handle, n=n))
            sink.rows = 0
            best = min(best, _timed(lambda: reader.run(BATCHED_RECEIVE)))
            if sink.rows != n:
                raise SystemExit(f"(b) received {sink.rows} of {n} messages")
        reader.session.close()
    return n / best


# -- (c) ---------------------------------------------------------------------------------------
def activation_latencies(storage: Storage, n: int, *, warm: bool) -> list[float]:
    """Milliseconds from the start of each SEND's COMMIT to the activated RECEIVE."""
    with broker_db(storage) as (inst, admin, handle):
        admin.run(WARM_PROC if warm else COLD_PROC)
        admin.run(ACTIVATE)
        sender = Client(inst, "bench")
        sender.run("SET NOCOUNT ON")
        runtime = runtime_for(inst)
        manager = runtime.manager
        sent: dict[int, datetime] = {}
        for i in range(n + 1):                    # message 0 starts the procedure (warm)
            if not warm or i > 0:
                _settle(manager, warm)
            sender.run(f"DECLARE @h uniqueidentifier = '{handle}'; BEGIN TRAN; "
                       "SEND ON CONVERSATION @h MESSAGE TYPE [//bench/Msg] "
                       f"(CAST('{i}' AS varbinary(20)));")
            sent[i] = datetime.now()
            sender.run("COMMIT")
            _wait_for_row(admin, i)
        got = dict(admin.rows("SELECT n, t FROM Lat"))
        runtime.stop()
    first = 1 if warm else 0
    return [(got[i] - sent[i]).total_seconds() * 1000 for i in range(first, n + 1)]


def _settle(manager: Any, warm: bool) -> None:
    """Before a send: the warm procedure waits in WAITFOR; no cold procedure is running."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        tasks = manager.activated_tasks()
        if (warm and tasks and all(t.waiting for t in tasks)) or (not warm and not tasks):
            return
        time.sleep(0.005)
    raise SystemExit("(c) the activated procedure did not settle")


def _wait_for_row(admin: Client, i: int) -> None:
    # Idle first: a client busy in Python right after its COMMIT would hold the GIL and
    # delay the woken reader by up to the interpreter's switch interval (5 ms).
    time.sleep(0.03)
    deadline = time.monotonic() + 10
    while admin.scalar(f"SELECT COUNT(*) FROM Lat WHERE n = {i}") == 0:
        if time.monotonic() > deadline:
            raise SystemExit(f"(c) message {i} was not received by the activated procedure")
        time.sleep(0.02)
    time.sleep(0.02)       # let the procedure finish its transaction before the next send


# -- report ------------------------------------------------------------------------------------
@dataclass
class Figure:
    """One printed line: what, the measured value, the goal and whether it is met."""

    storage: str
    name: str
    value: str
    goal: str
    met: bool


def measure(storage: Storage, quick: bool) -> Iterator[Figure]:
    """Every figure for one storage, as it is measured."""
    n_a, n_b, n_c = (50, 500, 3) if quick else (2000, 20000, 40)
    rounds = 1 if quick else 3
    tsql, raw, narrow = send_receive_rates(storage, n_a, rounds)
    yield Figure(storage.label, "(a) SEND+RECEIVE, 1 msg/txn, T-SQL vs table queue",
                 f"{tsql:,.0f} vs {raw:,.0f} msg/s = {tsql / raw:.2f} "
                 f"(id+body rows: {tsql / narrow:.2f})", ">= 0.50", tsql / raw >= 0.5)
    batched = batched_receive_rate(storage, n_b, rounds)
    yield Figure(storage.label, "(b) RECEIVE TOP (100) vs (a)",
                 f"{batched:,.0f} msg/s = {batched / tsql:.1f}x", ">= 10x", batched / tsql >= 10)
    for warm in (True, False):
        lat = activation_latencies(storage, n_c, warm=warm)
        median = statistics.median(lat)
        yield Figure(
            storage.label, f"(c) activation latency, {'warm (WAITFOR)' if warm else 'cold'}",
            f"median {median:.1f} ms (min {min(lat):.1f}, max {max(lat):.1f})",
            "<= 10 ms", median <= 10)


def main(argv: list[str] | None = None) -> int:
    """Measure, print every figure with its goal; 1 under ``--check`` if a goal is missed."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = ap.parse_args(argv)
    figures: list[Figure] = []
    with storages() as where:
        for storage in where:
            for fig in measure(storage, args.quick):
                figures.append(fig)
                print(f"{fig.storage:<7} {fig.name:<52} {fig.value:<58} goal {fig.goal:<9} "
                      f"{'MET' if fig.met else 'NOT MET'}", flush=True)
    missed = [f for f in figures if not f.met]
    print(f"{len(figures) - len(missed)} of {len(figures)} goals met")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
