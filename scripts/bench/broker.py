"""Service Broker benchmark on SQLite: T-SQL SEND/RECEIVE against the same rows moved by plain
``sqlite3``, batched RECEIVE, a client sending one batch per message, and activation latency,
on an SQLite file (WAL) and on ``sqlite://`` (issue 18, items 1 and 7).

Every figure is printed with its goal and whether it is met:

(a) SEND + RECEIVE of one message per transaction, a T-SQL loop in one batch
    (``BEGIN TRAN; SEND …; COMMIT; BEGIN TRAN; RECEIVE TOP (1) …; COMMIT``), against a table
    queue of the same rows through plain ``sqlite3`` — a table of the broker's message columns
    and nothing else (no index, no conversation state), each message INSERTed in one
    transaction and taken with ``DELETE … RETURNING`` in another, six statements a message:
    goal >= 0.35 of its rate;
(b) ``RECEIVE TOP (100)``, each RECEIVE its own transaction, emptying a queue filled
    beforehand, against the plain table queue taking 100 rows a transaction
    (``DELETE … WHERE … IN (SELECT … LIMIT 100) RETURNING``): goal >= 0.3; and the same rate
    against (a): goal >= 10x;
(c) activation latency from the start of the SEND's COMMIT to the activated procedure's
    RECEIVE returning (``SYSDATETIME()`` right after it): with the procedure already waiting in
    ``WAITFOR (RECEIVE …)`` (warm) and with a procedure started for each message (cold; the
    first start also compiles the procedure): goal median <= 10 ms;
(d) a client sending one batch per message (the body of (a)'s loop, the same text every
    time, through ``Session.execute``) against (a)'s loop in one batch: goal >= 0.8.

(a), (b) and (d) interleave their contenders round by round and print medians with the
lowest and highest round; the ratio is the median of the rounds' ratios.

Run: ``python scripts/bench/broker.py [--quick] [--rounds N] [--check]``. Exit status 0 (it
is a report) unless ``--check`` is given and a goal is missed (1).
"""

from __future__ import annotations

import shutil
import sqlite3
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

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

from broker_session import (
    BATCHED_RECEIVE,
    FILL,
    QUEUE_DEPTH,
    SEND_RECEIVE_LOOP,
    SEND_RECEIVE_ONCE,
    Client,
    bench_client,
)
from yardstick import BenchError, Figure, Goal, Report, arguments, interleaved, ratio_figure

from tsqlbroker.interpreter.broker_runtime import runtime_for

# -- the activated procedures of (c) -------------------------------------------------------
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




@dataclass
class Storage:
    """Where one set of figures runs: a fresh broker store per call of :meth:`new_url`, and
    the plain queue's SQLite file beside it."""

    label: str
    directory: str | None     # a fresh SQLite file here per store; None: sqlite://
    plain_path: str
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
    files under /dev/shm where it exists; the plain queue gets a file beside it)."""
    disk = tempfile.mkdtemp(prefix="tsqlbroker-bench-")
    shm = tempfile.mkdtemp(prefix="tsqlbroker-bench-",
                           dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    try:
        yield [Storage("file", disk, f"{disk}/plain.db"),
               Storage("memory", None, f"{shm}/plain.db")]
    finally:
        shutil.rmtree(disk, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)


def timed(fn: Callable[[], Any]) -> float:
    """Seconds ``fn`` takes."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# -- the plain sqlite3 queue -------------------------------------------------------------------
_BENCH_GROUP, _BENCH_HANDLE = str(uuid.uuid4()).upper(), str(uuid.uuid4()).upper()
MESSAGE_COLUMNS = (
    "queuing_order INTEGER PRIMARY KEY, database_id INTEGER NOT NULL, "
    "queue_id INTEGER NOT NULL, status INTEGER NOT NULL, priority INTEGER NOT NULL, "
    "conversation_group_id VARCHAR(36) NOT NULL, conversation_handle VARCHAR(36) NOT NULL, "
    "message_sequence_number INTEGER NOT NULL, service_name VARCHAR(512) NOT NULL, "
    "service_id INTEGER NOT NULL, service_contract_name VARCHAR(256) NOT NULL, "
    "service_contract_id INTEGER NOT NULL, message_type_name VARCHAR(256) NOT NULL, "
    "message_type_id INTEGER NOT NULL, validation VARCHAR(2) NOT NULL, message_body BLOB, "
    "message_enqueue_time DATETIME NOT NULL, message_id VARCHAR(36) NOT NULL, "
    "rank INTEGER NOT NULL")
INSERT = (
    "INSERT INTO q (database_id, queue_id, status, priority, conversation_group_id, "
    "conversation_handle, message_sequence_number, service_name, service_id, "
    "service_contract_name, service_contract_id, message_type_name, message_type_id, "
    "validation, message_body, message_enqueue_time, message_id, rank) VALUES (:db, :q, 1, "
    ":prio, :grp, :h, :seq, :svc, :svc_id, :contract, :contract_id, :mt, :mt_id, :v, :b, "
    ":t, :mid, 2)")
_RETURNED = ("queuing_order, status, priority, conversation_group_id, conversation_handle, "
             "message_sequence_number, service_name, service_id, service_contract_name, "
             "service_contract_id, message_type_name, message_type_id, validation, "
             "message_body, message_enqueue_time, message_id")
TAKE_ONE = ("DELETE FROM q WHERE queuing_order = (SELECT MIN(queuing_order) FROM q) "
            f"RETURNING {_RETURNED}")
TAKE_100 = ("DELETE FROM q WHERE queuing_order IN (SELECT queuing_order FROM q "
            "ORDER BY queuing_order LIMIT 100) "
            "RETURNING conversation_handle, message_type_name, message_body")


def message_values(i: int) -> dict[str, Any]:
    """The values of message ``i``: every message its own id and enqueue time, as the
    broker's rows."""
    return {"db": 5, "q": 261575970, "prio": 5, "grp": _BENCH_GROUP, "h": _BENCH_HANDLE,
            "seq": i, "svc": "//bench/Targ", "svc_id": 65537,
            "contract": "//bench/Contract", "contract_id": 65536, "mt": "//bench/Msg",
            "mt_id": 65536, "v": "N", "b": b"12345678",
            "t": datetime.now(UTC).replace(tzinfo=None).isoformat(" "),
            "mid": str(uuid.uuid4()).upper()}


class PlainQueue:
    """A table queue of the broker's message rows through plain ``sqlite3``, with the pragmas
    of the broker's store (WAL, ``synchronous=NORMAL``)."""

    def __init__(self, path: str) -> None:
        Path(path).unlink(missing_ok=True)
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute(f"CREATE TABLE q ({MESSAGE_COLUMNS})")
        self.sequence = iter(range(1 << 62))

    def send_receive(self, count: int) -> None:
        """``count`` times: INSERT in one transaction, DELETE … RETURNING in another."""
        conn = self.conn
        for _ in range(count):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(INSERT, message_values(next(self.sequence)))
            conn.execute("COMMIT")
            conn.execute("BEGIN IMMEDIATE")
            got = conn.execute(TAKE_ONE).fetchall()
            conn.execute("COMMIT")
            if len(got) != 1:
                raise BenchError(f"the plain queue returned {len(got)} rows, not 1")

    def fill(self, count: int) -> None:
        """``count`` messages in one transaction (untimed)."""
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(INSERT, (message_values(next(self.sequence))
                                       for _ in range(count)))
        self.conn.execute("COMMIT")

    def drain(self) -> int:
        """Take 100 rows a transaction until the table is empty; how many were taken."""
        conn, taken = self.conn, 0
        while True:
            conn.execute("BEGIN IMMEDIATE")
            got = conn.execute(TAKE_100).fetchall()
            conn.execute("COMMIT")
            if not got:
                return taken
            taken += len(got)

    def depth(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM q").fetchone()[0])

    def close(self) -> None:
        self.conn.close()


@contextmanager
def contenders(storage: Storage) -> Iterator[tuple[Client, str, PlainQueue]]:
    """A broker store with database ``bench`` and one open dialog (a client and its
    handle), and a plain queue."""
    url = storage.new_url()
    with bench_client(url, create=True) as (_inst, client):
        plain = PlainQueue(storage.plain_path)
        try:
            yield client, client.open_dialog(), plain
        finally:
            plain.close()


def _empty(client: Client, plain: PlainQueue, what: str) -> None:
    left = (client.scalar(QUEUE_DEPTH), plain.depth())
    if left != (0, 0):
        raise BenchError(f"{what} left messages behind (broker, plain): {left}")


# -- (a), (b), (d) --------------------------------------------------------------------------
def throughput(storage: Storage, sizes: Sizes, rounds: int) -> Iterator[Figure]:
    """(a), (b) and (d) on one store, each interleaving its contenders."""
    with contenders(storage) as (client, handle, plain):
        def tsql_loop(count: int) -> None:
            client.run(SEND_RECEIVE_LOOP.format(handle=handle, n=count))

        warm = max(sizes.a // 10, 1)             # compile caches, pages
        tsql_loop(warm)
        plain.send_receive(warm)
        n = sizes.a
        a = interleaved({"tsql": lambda: n / timed(lambda: tsql_loop(n)),
                         "plain": lambda: n / timed(lambda: plain.send_receive(n))}, rounds)
        _empty(client, plain, "(a)")
        yield ratio_figure(f"{storage.label:<7}(a) SEND+RECEIVE 1 msg/txn vs plain sqlite3",
                           ("T-SQL", a["tsql"]), ("sqlite3", a["plain"]), Goal(0.35))

        def tsql_batched() -> float:
            for _ in range(sizes.dialogs):
                client.run(FILL.format(handle=handle, n=sizes.b // sizes.dialogs))
            client.sink.rows = 0
            elapsed = timed(lambda: client.run(BATCHED_RECEIVE))
            return _received(client.sink.rows, sizes.b) / elapsed

        def plain_batched() -> float:
            plain.fill(sizes.b)
            t0 = time.perf_counter()
            taken = plain.drain()
            return _received(taken, sizes.b) / (time.perf_counter() - t0)

        b = interleaved({"tsql": tsql_batched, "plain": plain_batched}, rounds)
        _empty(client, plain, "(b)")
        yield ratio_figure(f"{storage.label:<7}(b) RECEIVE TOP (100) vs plain sqlite3 x100",
                           ("T-SQL", b["tsql"]), ("sqlite3", b["plain"]), Goal(0.3))
        yield ratio_figure(f"{storage.label:<7}(b) RECEIVE TOP (100) vs (a)",
                           ("TOP (100)", b["tsql"]), ("(a)", a["tsql"]), Goal(10), "msg/s")

        once = SEND_RECEIVE_ONCE.format(handle=handle)

        def one_batch_each(count: int) -> None:
            for _ in range(count):
                client.run(once)

        one_batch_each(warm)
        d = interleaved({"each": lambda: n / timed(lambda: one_batch_each(n)),
                         "loop": lambda: n / timed(lambda: tsql_loop(n))}, rounds)
        _empty(client, plain, "(d)")
        yield ratio_figure(f"{storage.label:<7}(d) one batch per message vs in-batch loop",
                           ("batch each", d["each"]), ("loop", d["loop"]), Goal(0.8))


def _received(got: int, expected: int) -> int:
    if got != expected:
        raise BenchError(f"received {got} of {expected} messages")
    return got



# -- (c) ---------------------------------------------------------------------------------------
def activation_latencies(storage: Storage, n: int, *, warm: bool) -> list[float]:
    """Milliseconds from the start of each SEND's COMMIT to the activated RECEIVE."""
    with bench_client(storage.new_url(), create=True) as (inst, admin):
        handle = admin.open_dialog()
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
    raise BenchError("(c) the activated procedure did not settle")


def _wait_for_row(admin: Client, i: int) -> None:
    # Idle first: a client busy in Python right after its COMMIT would hold the GIL and
    # delay the woken reader by up to the interpreter's switch interval (5 ms).
    time.sleep(0.03)
    deadline = time.monotonic() + 10
    while admin.scalar(f"SELECT COUNT(*) FROM Lat WHERE n = {i}") == 0:
        if time.monotonic() > deadline:
            raise BenchError(f"(c) message {i} was not received by the activated procedure")
        time.sleep(0.02)
    time.sleep(0.02)       # let the procedure finish its transaction before the next send


def latency_figures(storage: Storage, n: int) -> Iterator[Figure]:
    """(c) warm and cold."""
    goal = Goal(10, at_least=False)
    for warm in (True, False):
        lat = activation_latencies(storage, n, warm=warm)
        median = statistics.median(lat)
        yield Figure(
            f"{storage.label:<7}(c) activation latency, {'warm (WAITFOR)' if warm else 'cold'}",
            f"median {median:.1f} ms (min {min(lat):.1f}, max {max(lat):.1f})", goal,
            goal.met(median))


# -- report ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sizes:
    """Messages per round: (a) and (d) ``a``, (b) ``b`` over ``dialogs`` dialogs; (c) ``c``
    activations."""

    a: int
    b: int
    c: int
    dialogs: int = 4


FULL, QUICK = Sizes(1000, 10000, 40), Sizes(30, 400, 3)


def measure(storage: Storage, quick: bool, rounds: int) -> Iterator[Figure]:
    """Every figure for one storage, as it is measured."""
    sizes = QUICK if quick else FULL
    yield from throughput(storage, sizes, rounds)
    yield from latency_figures(storage, sizes.c)


def main(argv: list[str] | None = None) -> int:
    """Measure, print every figure with its goal; 1 under ``--check`` if a goal is missed."""
    args = arguments(__doc__).parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    report = Report(f"SQLite, {rounds} rounds; rates are median (lowest-highest round)")
    with storages() as where:
        for storage in where:
            for fig in measure(storage, args.quick, rounds):
                report.add(fig)
    return report.close(args.check)


if __name__ == "__main__":
    raise SystemExit(main())
