"""PostgreSQL benchmark: tsqlbroker against PGMQ and a plain ``SKIP LOCKED`` table on one
server, through the plain driver (psycopg, no SQLAlchemy) (issue 18, items 1 and 7).

Contenders run interleaved round by round (the order rotating), each figure is the median of
the rounds' ratios with the lowest and highest beside it, and each is printed with its goal:

1. SEND + RECEIVE of one message per transaction, with 1, 2 and 4 processes (each its own
   dialog / connection, started together at a barrier; rate = messages of all processes /
   time of the slowest):
   * tsqlbroker, one T-SQL batch looping ``BEGIN TRAN; SEND …; COMMIT; BEGIN TRAN;
     RECEIVE TOP (1) … FROM TargQ; COMMIT``;
   * PGMQ consuming in a transaction, the guarantee tsqlbroker gives (a message is gone only
     when the consumer commits): ``pgmq.send``; then ``BEGIN; pgmq.read(q, 30, 1);
     pgmq.delete(q, id); COMMIT`` — goal: tsqlbroker >= 1.0 of it;
   * PGMQ pop: ``pgmq.send``; ``pgmq.pop(q)`` (the message is gone as it is read) — goal
     >= 0.7;
   * a plain table: ``INSERT``; ``DELETE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)
     RETURNING`` (reference, no goal).
2. Batched: a queue filled beforehand (untimed; tsqlbroker's over 8 dialogs) emptied by 1, 2
   and 4 processes with ``RECEIVE TOP (100)`` a transaction, against PGMQ's batched read
   consumed in a transaction (``BEGIN; pgmq.read(q, 30, 100); pgmq.delete(q, ids); COMMIT``)
   — goal >= 0.8.
3. After a burst: a new store, 10 000 SENDs on one dialog in one transaction, then
   ``RECEIVE TOP (1)`` a transaction straight away (the planner has no statistics of the new
   rows yet) against the same after ``ANALYZE`` of the store's tables — goal >= 0.8.
4. A held group: another process holds (in an open transaction, after a RECEIVE) the group of a
   dialog with 10 000 waiting messages; the SEND + RECEIVE loop of 1. on another dialog of
   that queue, against the same loop on a store without them — goal >= 0.8.

PGMQ is installed into schema ``pgmq`` of the server's database for the run from its published
SQL (``pgmq.sql``: plain SQL / PL/pgSQL functions, no C extension), which the ``pgmq`` Python
package ships (``pip install pgmq``), or from ``--pgmq-sql FILE``; without it the PGMQ rows
say so and are skipped.

Run: ``python scripts/bench/postgres.py [--url URL] [--quick] [--rounds N] [--check]``: the
server is ``--url``, else ``$TSQLBROKER_PG_URL``, else a private one started with
``scripts/ci/postgres.sh``. Exit status 0 (it is a report) unless ``--check`` is given and a
goal is missed (1).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

import psycopg
from broker_session import (
    BATCHED_RECEIVE,
    FILL,
    QUEUE_DEPTH,
    RECEIVE_LOOP,
    SEND_RECEIVE_LOOP,
    Client,
    bench_client,
)
from yardstick import (
    PG_URL_ENV,
    BenchError,
    Figure,
    Goal,
    Report,
    Schema,
    analyze_store,
    arguments,
    conninfo,
    fresh_schema,
    interleaved,
    pgmq_installed,
    pgmq_sql_file,
    postgres_server,
    ratio_figure,
)

PGMQ_BODY = '"12345678"'             # the 8 bytes tsqlbroker sends, as PGMQ's jsonb
WORKER_TIMEOUT = 600.0


@dataclass(frozen=True)
class Sizes:
    """Per round: ``loop`` messages per process (1., 4.), ``batch`` per process (2.), ``burst``
    messages (3.) then ``after`` RECEIVEs, a ``held`` group of that many messages (4.)."""

    processes: tuple[int, ...]
    loop: int
    batch: int
    burst: int
    after: int
    held: int


FULL = Sizes((1, 2, 4), loop=300, batch=2000, burst=10_000, after=300, held=10_000)
QUICK = Sizes((1, 2), loop=20, batch=200, burst=300, after=20, held=300)


@dataclass(frozen=True)
class Places:
    """Where the contenders work: the tsqlbroker store, the plain table's schema, the server
    (PGMQ's functions) and PGMQ's queue (None: no PGMQ)."""

    store_url: str
    table_dsn: str
    server_dsn: str
    pgmq_queue: str | None


# -- contenders, in the worker processes ----------------------------------------------------
# A consumer that finds nothing tries again: with several processes a take may come back
# empty while a message waits. Under read committed its statement sees the queue as it was
# when it started; the row it meant to take may be taken by another process meanwhile, and
# a message sent since then is not in its view.
_ATTEMPTS = range(1000)


def _until_one(take: Callable[[], Any]) -> bool:
    """Run ``take`` (a cursor with the taken rows) until it returns a row."""
    return any(take().fetchone() is not None for _attempt in _ATTEMPTS)


class BrokerSide:
    """A tsqlbroker client with a dialog of its own."""

    def __init__(self, stack: ExitStack, places: Places) -> None:
        _inst, self.client = stack.enter_context(bench_client(places.store_url, create=False))
        self.handle = self.client.open_dialog()

    def loop(self, n: int) -> int:
        self.client.run(SEND_RECEIVE_LOOP.format(handle=self.handle, n=n))
        return n

    def drain(self) -> int:
        self.client.sink.rows = 0
        self.client.run(BATCHED_RECEIVE)
        return self.client.sink.rows


class PgmqSide:
    """A psycopg connection using PGMQ's functions on one queue."""

    SEND = "SELECT * FROM pgmq.send(%s, %s::jsonb)"

    def __init__(self, stack: ExitStack, places: Places) -> None:
        self.conn = stack.enter_context(psycopg.connect(places.server_dsn, autocommit=True))
        self.queue = places.pgmq_queue

    def loop_in_transaction(self, n: int) -> int:
        conn, q = self.conn, self.queue
        for _ in range(n):
            conn.execute(self.SEND, (q, PGMQ_BODY))
            for _attempt in _ATTEMPTS:
                with conn.transaction():
                    row = conn.execute("SELECT * FROM pgmq.read(%s, 30, 1)", (q,)).fetchone()
                    if row is not None:
                        conn.execute("SELECT pgmq.delete(%s, %s::bigint)", (q, row[0]))
                        break
            else:
                raise BenchError("pgmq.read kept finding no message")
        return n

    def loop_pop(self, n: int) -> int:
        conn, q = self.conn, self.queue
        for _ in range(n):
            conn.execute(self.SEND, (q, PGMQ_BODY))
            if not _until_one(lambda: conn.execute("SELECT * FROM pgmq.pop(%s)", (q,))):
                raise BenchError("pgmq.pop kept finding no message")
        return n

    def drain(self) -> int:
        conn, q, got = self.conn, self.queue, 0
        while True:
            with conn.transaction():
                rows = conn.execute("SELECT * FROM pgmq.read(%s, 30, 100)", (q,)).fetchall()
                if rows:
                    conn.execute("SELECT pgmq.delete(%s, %s::bigint[])",
                                 (q, [r[0] for r in rows]))
            if not rows:
                return got
            got += len(rows)


class TableSide:
    """A psycopg connection on a plain ``(id bigserial, body bytea)`` table."""

    TAKE = ("DELETE FROM q WHERE id = (SELECT id FROM q ORDER BY id LIMIT 1 "
            "FOR UPDATE SKIP LOCKED) RETURNING id, body")

    def __init__(self, stack: ExitStack, places: Places) -> None:
        self.conn = stack.enter_context(psycopg.connect(places.table_dsn, autocommit=True))

    def loop(self, n: int) -> int:
        conn = self.conn
        for _ in range(n):
            conn.execute("INSERT INTO q (body) VALUES (%s)", (b"12345678",))
            if not _until_one(lambda: conn.execute(self.TAKE)):
                raise BenchError("the SKIP LOCKED table kept giving no row")
        return n


def _operations(stack: ExitStack, places: Places) -> dict[str, Callable[..., int]]:
    """Each contender's timed operation by name."""
    broker, table = BrokerSide(stack, places), TableSide(stack, places)
    ops: dict[str, Callable[..., int]] = {
        "tsqlbroker": broker.loop, "tsqlbroker-batch": broker.drain, "table": table.loop}
    if places.pgmq_queue:
        pgmq = PgmqSide(stack, places)
        ops.update({"pgmq-txn": pgmq.loop_in_transaction, "pgmq-pop": pgmq.loop_pop,
                    "pgmq-batch": pgmq.drain})
    return ops


def _worker(pipe: Any, barrier: Any, places: Places) -> None:
    """A worker process: opens every contender, then runs what the parent asks — untimed
    (``warm``) or timed from a barrier shared with the other workers (``run``) — and answers
    ``("ok", seconds, messages)`` or ``("error", traceback)``."""
    with ExitStack() as stack:
        try:
            ops = _operations(stack, places)
            pipe.send(("ok", 0.0, 0))
        except (Exception, BenchError):  # noqa: BLE001 - any failure goes to the parent
            pipe.send(("error", traceback.format_exc()))
            return
        while (cmd := pipe.recv())[0] != "quit":
            kind, name, args = cmd
            try:
                if kind == "warm":
                    pipe.send(("ok", 0.0, ops[name](*args)))
                    continue
                barrier.wait(WORKER_TIMEOUT)
                t0 = time.perf_counter()
                got = ops[name](*args)
                pipe.send(("ok", time.perf_counter() - t0, got))
            except (Exception, BenchError):  # noqa: BLE001 - any failure goes to the parent
                barrier.abort()                      # the others stop waiting for this one
                pipe.send(("error", traceback.format_exc()))


class Workers:
    """``count`` worker processes sharing a barrier."""

    def __init__(self, count: int, places: Places) -> None:
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(count)
        self.pipes: list[Any] = []
        self.procs: list[Any] = []
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(theirs, barrier, places), daemon=True)
            proc.start()
            self.pipes.append(mine)
            self.procs.append(proc)
        self._answers()

    def _answers(self) -> list[tuple[float, int]]:
        out: list[tuple[float, int]] = []
        for pipe, proc in zip(self.pipes, self.procs, strict=True):
            deadline = time.monotonic() + WORKER_TIMEOUT
            while not pipe.poll(0.5):
                if not proc.is_alive() or time.monotonic() > deadline:
                    raise BenchError(f"a worker process died or hung (exit {proc.exitcode})")
            answer = pipe.recv()
            if answer[0] != "ok":
                raise BenchError("a worker failed:\n" + answer[1])
            out.append((answer[1], answer[2]))
        return out

    def run(self, name: str, *args: Any, timed: bool = True) -> tuple[float, int]:
        """Every worker runs operation ``name``: (seconds of the slowest, messages of all)."""
        for pipe in self.pipes:
            pipe.send(("run" if timed else "warm", name, args))
        answers = self._answers()
        return max(a[0] for a in answers), sum(a[1] for a in answers)

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(("quit", "", ()))
        for proc in self.procs:
            proc.join(30)
            if proc.is_alive():
                proc.terminate()


# -- the parent's side ----------------------------------------------------------------------
class Pgmq:
    """PGMQ's queue for the run, from the parent: fill it and see how deep it is."""

    def __init__(self, server_dsn: str) -> None:
        self.conn = psycopg.connect(server_dsn, autocommit=True)
        self.queue = f"bench_{uuid.uuid4().hex[:8]}"
        self.conn.execute("SELECT pgmq.create(%s)", (self.queue,))

    def fill(self, n: int) -> None:
        self.conn.execute("SELECT count(*) FROM pgmq.send_batch(%s, "
                          "array_fill(%s::jsonb, ARRAY[%s]))", (self.queue, PGMQ_BODY, n))

    def depth(self) -> int:
        row = self.conn.execute("SELECT queue_length FROM pgmq.metrics(%s)",
                                (self.queue,)).fetchone()
        return int(row[0]) if row else -1

    def close(self) -> None:
        self.conn.execute("SELECT pgmq.drop_queue(%s)", (self.queue,))
        self.conn.close()


def rate(result: tuple[float, int], expected: int) -> float:
    """Messages per second of a run that had to move ``expected`` messages."""
    seconds, moved = result
    if moved != expected:
        raise BenchError(f"moved {moved} of {expected} messages")
    return moved / seconds


@contextmanager
def contenders_for(server: str, processes: int, pgmq_ok: bool
                   ) -> Iterator[tuple[Workers, Client, list[str], Pgmq | None]]:
    """The workers of sections 1 and 2 with ``processes`` processes; the parent's client on
    their store with 8 dialogs to fill, and PGMQ's queue (None without PGMQ)."""
    with ExitStack() as stack:
        store = stack.enter_context(fresh_schema(server))
        table = stack.enter_context(fresh_schema(server))
        with psycopg.connect(table.dsn, autocommit=True) as c:
            c.execute("CREATE TABLE q (id bigserial PRIMARY KEY, body bytea NOT NULL)")
        _inst, client = stack.enter_context(bench_client(store.url, create=True))
        dialogs = [client.open_dialog() for _ in range(8)]
        pgmq = Pgmq(conninfo(server)) if pgmq_ok else None
        if pgmq:
            stack.callback(pgmq.close)
        workers = Workers(processes, Places(store.url, table.dsn, conninfo(server),
                                            pgmq.queue if pgmq else None))
        stack.callback(workers.close)
        yield workers, client, dialogs, pgmq


@dataclass
class Section:
    """Sections 1 and 2 at one process count: the workers, the parent's client on their
    store with the dialogs it fills, PGMQ's queue (None: no PGMQ, and why)."""

    processes: int
    workers: Workers
    client: Client
    dialogs: list[str]
    pgmq: Pgmq | None
    pgmq_why: str

    def loops(self, n: int, rounds: int) -> Iterator[Figure]:
        """Section 1: SEND+RECEIVE, one message per transaction."""
        loops = ["tsqlbroker", "table"] + (["pgmq-txn", "pgmq-pop"] if self.pgmq else [])
        for name in loops:                          # warm: compile, prepare
            self.workers.run(name, max(n // 10, 2), timed=False)
        total = self.processes * n
        got = interleaved({name: (lambda name=name: rate(self.workers.run(name, n), total))
                           for name in loops}, rounds)
        label = f"1. SEND+RECEIVE 1 msg/txn, {self.processes} proc"
        for against, title, goal in (("pgmq-txn", "PGMQ read+delete in a txn", Goal(1.0)),
                                     ("pgmq-pop", "PGMQ send+pop", Goal(0.7))):
            if self.pgmq is None:
                yield Figure(f"{label} vs {title}", "", skipped=self.pgmq_why)
            else:
                yield ratio_figure(f"{label} vs {title}", ("tsqlbroker", got["tsqlbroker"]),
                                   (against, got[against]), goal)
        yield ratio_figure(f"{label} vs plain SKIP LOCKED table",
                           ("tsqlbroker", got["tsqlbroker"]), ("table", got["table"]), None)
        empty = self.check_empty("SEND+RECEIVE", several=self.processes > 1)
        receives = self.processes * (max(n // 10, 2) + n * rounds)
        yield Figure(f"{label}: tsqlbroker RECEIVEs that found nothing",
                     f"{empty} of {receives} (their messages waited for later RECEIVEs; "
                     "PGMQ's and the table's takes try again instead)")

    def batches(self, per_process: int, rounds: int) -> Iterator[Figure]:
        """Section 2: RECEIVE TOP (100) against PGMQ's batched read."""
        label = f"2. RECEIVE TOP (100), {self.processes} proc vs PGMQ read(100)+delete in a txn"
        pgmq = self.pgmq
        if pgmq is None:
            yield Figure(label, "", skipped=self.pgmq_why)
            return
        self.fill_dialogs(10)                       # warm: compile, prepare
        self.workers.run("tsqlbroker-batch", timed=False)
        pgmq.fill(10 * len(self.dialogs))
        self.workers.run("pgmq-batch", timed=False)
        total = self.processes * per_process

        def broker_batch() -> float:
            self.fill_dialogs(total // len(self.dialogs))
            return rate(self.workers.run("tsqlbroker-batch"), total)

        def pgmq_batch() -> float:
            pgmq.fill(total)
            return rate(self.workers.run("pgmq-batch"), total)

        got = interleaved({"tsqlbroker": broker_batch, "pgmq": pgmq_batch}, rounds)
        yield ratio_figure(label, ("tsqlbroker", got["tsqlbroker"]), ("PGMQ", got["pgmq"]),
                           Goal(0.8))
        self.check_empty("RECEIVE TOP (100)")

    def fill_dialogs(self, each: int) -> None:
        for handle in self.dialogs:
            self.client.run(FILL.format(handle=handle, n=each))

    def check_empty(self, what: str, *, several: bool = False) -> int:
        """PGMQ's queue is empty after a section (its consumers try again when a take finds
        nothing), and so is tsqlbroker's with one process. With ``several``, a RECEIVE may
        find nothing while another process's message waits (another process holds that
        group, or the message committed after the RECEIVE's statement began): the messages
        left so are received here, untimed, so that the next section starts empty. Returns
        how many there were."""
        left = (self.client.scalar(QUEUE_DEPTH), self.pgmq.depth() if self.pgmq else 0)
        if left[1] or (left[0] and not several):
            raise BenchError(f"{what} left messages behind (tsqlbroker, PGMQ): {left}")
        if left[0]:
            self.client.run(BATCHED_RECEIVE)
        return int(left[0])


def throughput(server: str, sizes: Sizes, rounds: int, pgmq_why: str | None
               ) -> Iterator[Figure]:
    """Sections 1 and 2 at each process count."""
    for p in sizes.processes:
        with contenders_for(server, p, pgmq_why is None) as (workers, client, dialogs, pgmq):
            section = Section(p, workers, client, dialogs, pgmq, str(pgmq_why))
            yield from section.loops(sizes.loop, rounds)
            yield from section.batches(sizes.batch, rounds)


def timed_rate(client: Client, text: str, n: int) -> float:
    t0 = time.perf_counter()
    client.run(text)
    return n / (time.perf_counter() - t0)


def after_burst(server: str, sizes: Sizes, rounds: int) -> Figure:
    """Section 3: each round a new store, a burst, RECEIVEs before and after ANALYZE."""
    receive = RECEIVE_LOOP.format(n=sizes.after)
    before: list[float] = []
    after: list[float] = []
    for _ in range(rounds):
        with fresh_schema(server) as store, \
                bench_client(store.url, create=True) as (_inst, client):
            handle = client.open_dialog()
            client.run(SEND_RECEIVE_LOOP.format(handle=handle, n=10))   # warm: compile, prepare
            client.run(receive)                  # the same text, on the empty queue
            client.run(FILL.format(handle=handle, n=sizes.burst))
            before.append(timed_rate(client, receive, sizes.after))
            analyze_store(store.dsn, store.name)
            after.append(timed_rate(client, receive, sizes.after))
    return ratio_figure(f"3. RECEIVE right after a {sizes.burst:,}-message burst",
                        ("before ANALYZE", before), ("after", after), Goal(0.8))


def _hold(url: str, pipe: Any) -> None:
    """Another process: RECEIVE one message (of the only group with messages) in a
    transaction it keeps open, holding the group, until the parent says stop."""
    try:
        with bench_client(url, create=False) as (_inst, client):
            client.run("BEGIN TRAN; DECLARE @b varbinary(max); "
                       "RECEIVE TOP (1) @b = message_body FROM TargQ;")
            pipe.send("holding" if client.scalar("SELECT @@TRANCOUNT") == 1 else "no lock")
            pipe.recv()
            client.run("ROLLBACK")
    except (Exception, BenchError):  # noqa: BLE001 - any failure goes to the parent
        pipe.send(traceback.format_exc())


@contextmanager
def group_held(store: Schema, messages: int) -> Iterator[None]:
    """A dialog of ``messages`` waiting messages in ``store`` whose group another process
    holds."""
    with bench_client(store.url, create=False) as (_inst, client):
        client.run(FILL.format(handle=client.open_dialog(), n=messages))
    ctx = mp.get_context("spawn")
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=_hold, args=(store.url, theirs), daemon=True)
    proc.start()
    try:
        while not mine.poll(0.5):
            if not proc.is_alive():
                raise BenchError("the process holding the group died")
        said = mine.recv()
        if said != "holding":
            raise BenchError(f"the process holding the group failed: {said}")
        yield
    finally:
        with suppress(OSError):                 # it may be gone already
            mine.send("stop")
        proc.join(30)


def held_group(server: str, sizes: Sizes, rounds: int) -> Figure:
    """Section 4: the loop on a queue with a held group of ``sizes.held`` messages against
    the loop on a queue without."""
    with ExitStack() as stack:
        clients = {}
        for name in ("normal", "held"):
            store = stack.enter_context(fresh_schema(server))
            _inst, client = stack.enter_context(bench_client(store.url, create=True))
            if name == "held":
                stack.enter_context(group_held(store, sizes.held))
            handle = client.open_dialog()
            text = SEND_RECEIVE_LOOP.format(handle=handle, n=sizes.loop)
            client.run(SEND_RECEIVE_LOOP.format(handle=handle, n=max(sizes.loop // 10, 2)))
            clients[name] = (client, text)
        got = interleaved({name: (lambda c=c, t=t: timed_rate(c, t, sizes.loop))
                           for name, (c, t) in clients.items()}, rounds)
        left = clients["held"][0].scalar(QUEUE_DEPTH)
        if left != sizes.held:
            raise BenchError(f"4. the held queue has {left} messages, not {sizes.held}")
    return ratio_figure(f"4. SEND+RECEIVE beside a held {sizes.held:,}-message group",
                        ("held", got["held"]), ("normal", got["normal"]), Goal(0.8))


def main(argv: list[str] | None = None) -> int:
    """Print the figures and goals; see the module docstring."""
    ap = arguments(__doc__)
    ap.add_argument("--url", help=f"the server (default ${PG_URL_ENV}, else a private one)")
    ap.add_argument("--pgmq-sql", help="PGMQ's SQL install script (default: the pgmq package's)")
    ap.add_argument("--sections", default="1234",
                    help="which sections to run (default 1234; 1 and 2 run together)")
    args = ap.parse_args(argv)
    sizes, rounds = (QUICK, 2) if args.quick else (FULL, args.rounds)
    with postgres_server(args.url) as server, ExitStack() as stack:
        if server is None:
            raise BenchError("no PostgreSQL server: give --url or $TSQLBROKER_PG_URL, or "
                             "install PostgreSQL (initdb)")
        sql_file, source = pgmq_sql_file(args.pgmq_sql)
        why = None if sql_file else source
        if sql_file:
            try:
                note = stack.enter_context(pgmq_installed(server, sql_file))
                print(f"PGMQ: {source}, {note}")
            except psycopg.Error as exc:
                why = f"PGMQ's SQL from {source} did not install: {exc}"
        report = Report(f"PostgreSQL, {rounds} rounds interleaved; rates are median "
                        "(lowest-highest round), ratios the median of the rounds' ratios")
        if why:
            print(f"PGMQ rows skipped: {why}")
        if {"1", "2"} & set(args.sections):
            for fig in throughput(server, sizes, rounds, why):
                report.add(fig)
        if "3" in args.sections:
            report.add(after_burst(server, sizes, rounds))
        if "4" in args.sections:
            report.add(held_group(server, sizes, rounds))
    return report.close(args.check)


if __name__ == "__main__":
    sys.exit(main())
