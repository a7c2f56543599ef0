"""PostgreSQL benchmark: SEND + RECEIVE throughput of tsqlbroker with 1, 2 and 4 processes
sharing one store, against a minimal hand-written ``SKIP LOCKED`` table queue (the PGMQ
style) doing the same work with the same number of processes.

Each process, once all are ready (a barrier), runs ``n`` rounds of two transactions:

* tsqlbroker, one T-SQL batch: ``BEGIN TRAN; SEND ON CONVERSATION @h …; COMMIT;
  BEGIN TRAN; RECEIVE TOP (1) … FROM TargQ; COMMIT`` (its own dialog; the RECEIVE takes
  whichever conversation group is free — other processes' groups are skipped while locked);
* the table queue, through SQLAlchemy on psycopg: ``INSERT INTO q (body) VALUES (…)`` in one
  transaction, ``DELETE FROM q WHERE id = (SELECT id FROM q ORDER BY id LIMIT 1 FOR UPDATE
  SKIP LOCKED) RETURNING id, body`` in another.

Throughput = messages sent and received by all processes / wall time of the slowest. Goal: the
broker at least 0.5 of the table queue at each process count. Best of ``--rounds`` (the
machine may be shared).

Run: ``python scripts/bench/postgres.py [--n 300] [--rounds 2] [--check]`` — the server is
``$TSQLBROKER_PG_URL`` or a private one started with ``scripts/ci/postgres.sh``. Exit status
0 (it is a report) unless ``--check`` is given and a goal is missed (1).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

GOAL = 0.5
PROCESS_COUNTS = (1, 2, 4)

SETUP = """
CREATE DATABASE bench;
GO
USE bench;
CREATE MESSAGE TYPE [//bench/Msg] VALIDATION = NONE;
CREATE CONTRACT [//bench/Contract] ([//bench/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
CREATE SERVICE [//bench/Init] ON QUEUE InitQ;
CREATE SERVICE [//bench/Targ] ON QUEUE TargQ ([//bench/Contract]);
"""

OPEN_DIALOG = """
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//bench/Init] TO SERVICE '//bench/Targ'
    ON CONTRACT [//bench/Contract] WITH ENCRYPTION = OFF;
SELECT @h;
"""

LOOP = """
SET NOCOUNT ON;
DECLARE @h uniqueidentifier = '{handle}', @i int = 0, @b varbinary(max);
WHILE @i < {n}
BEGIN
    BEGIN TRANSACTION;
    SEND ON CONVERSATION @h MESSAGE TYPE [//bench/Msg] (0x3132333435363738);
    COMMIT;
    BEGIN TRANSACTION;
    RECEIVE TOP (1) @b = message_body FROM TargQ;
    COMMIT;
    SET @i = @i + 1;
END
"""


# -- the server and fresh schemas ---------------------------------------------------------------
@contextmanager
def server() -> Iterator[str]:
    """``$TSQLBROKER_PG_URL``, or a private server for the run."""
    url = os.environ.get("TSQLBROKER_PG_URL")
    if url:
        yield url
        return
    workdir = tempfile.mkdtemp(prefix="tsqlbroker-bench-pg-")
    os.chmod(workdir, 0o755)
    script = ROOT / "scripts" / "ci" / "postgres.sh"
    done = subprocess.run([str(script), "start", workdir, str(os.getpid())],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        raise SystemExit(f"could not start PostgreSQL: {done.stderr}")
    try:
        yield done.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(script), "stop", workdir], capture_output=True, check=False)


@contextmanager
def fresh_schema(server_url: str) -> Iterator[str]:
    """A URL whose connections live in a new schema (dropped afterwards)."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        yield make_url(server_url).update_query_dict(
            {"options": f"-csearch_path={name}"}).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


# -- workers ------------------------------------------------------------------------------------
def _broker_worker(url: str, n: int, barrier: Any, out: Any) -> None:
    import faulthandler
    faulthandler.dump_traceback_later(600, exit=True)  # a hung worker says where
    from tsqlbroker.interpreter.instance import Instance
    from tsqlbroker.interpreter.sink import CollectingSink

    inst = Instance(url)
    sink = CollectingSink()
    session = inst.session(sink, database="bench")
    try:
        session.execute(OPEN_DIALOG)
        handle = str(sink.resultsets()[-1].rows[0][0]).upper()
        session.execute(LOOP.format(handle=handle, n=max(n // 10, 1)))  # warm-up
        sink.events.clear()
        barrier.wait()
        t0 = time.perf_counter()
        session.execute(LOOP.format(handle=handle, n=n))
        elapsed = time.perf_counter() - t0
        errors = [e.render() for e in sink.errors()]
        out.put(("error", "\n".join(errors)) if errors else ("ok", elapsed))
    finally:
        session.close()
        inst.close()


def _raw_worker(url: str, n: int, barrier: Any, out: Any) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    put = text("INSERT INTO q (body) VALUES (:b)")
    take = text("DELETE FROM q WHERE id = (SELECT id FROM q ORDER BY id LIMIT 1 "
                "FOR UPDATE SKIP LOCKED) RETURNING id, body")
    with engine.connect() as conn:
        def loop(count: int) -> None:
            for _ in range(count):
                conn.exec_driver_sql("BEGIN")
                conn.execute(put, {"b": b"12345678"})
                conn.exec_driver_sql("COMMIT")
                conn.exec_driver_sql("BEGIN")
                conn.execute(take).first()
                conn.exec_driver_sql("COMMIT")
        loop(max(n // 10, 1))
        barrier.wait()
        t0 = time.perf_counter()
        loop(n)
        out.put(("ok", time.perf_counter() - t0))
    engine.dispose()


def _run_processes(target: Any, url: str, processes: int, n: int) -> float:
    """Messages per second of ``processes`` workers running ``target`` at once."""
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(processes)
    out = ctx.Queue()
    procs = [ctx.Process(target=target, args=(url, n, barrier, out)) for _ in range(processes)]
    for p in procs:
        p.start()
    results: list[tuple[str, Any]] = []
    while len(results) < len(procs):
        try:
            results.append(out.get(timeout=1.0))
        except queue.Empty:
            # A worker that died (its traceback is on stderr) never reports: stop waiting.
            if any(p.exitcode not in (None, 0) for p in procs):
                for p in procs:
                    p.terminate()
                raise SystemExit("a worker process died; see its traceback above") from None
    for p in procs:
        p.join(60)
    failed = [r[1] for r in results if r[0] != "ok"]
    if failed:
        raise SystemExit("a worker failed:\n" + "\n".join(failed))
    return processes * n / max(r[1] for r in results)


def broker_rate(server_url: str, processes: int, n: int) -> float:
    """tsqlbroker SEND + RECEIVE messages per second with ``processes`` processes."""
    from tsqlbroker.interpreter.instance import Instance
    from tsqlbroker.interpreter.sink import CollectingSink

    with fresh_schema(server_url) as url:
        inst = Instance(url)
        sink = CollectingSink()
        session = inst.session(sink)
        session.execute(SETUP)
        errors = [e.render() for e in sink.errors()]
        session.close()
        inst.close()
        if errors:
            raise SystemExit("\n".join(errors))
        return _run_processes(_broker_worker, url, processes, n)


def raw_rate(server_url: str, processes: int, n: int) -> float:
    """Table-queue INSERT + DELETE … SKIP LOCKED messages per second."""
    with fresh_schema(server_url) as url:
        engine = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
        with engine.connect() as c:
            c.exec_driver_sql("CREATE TABLE q (id bigserial PRIMARY KEY, body bytea NOT NULL)")
        engine.dispose()
        return _run_processes(_raw_worker, url, processes, n)


def main(argv: list[str] | None = None) -> int:
    """Print the figures and goals; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="rounds per process")
    parser.add_argument("--rounds", type=int, default=2, help="best of this many runs")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)
    missed = False
    with server() as url:
        print(f"SEND+RECEIVE, one message per transaction, {args.n} per process "
              f"(best of {args.rounds}); goal: tsqlbroker >= {GOAL} x the table queue")
        print(f"{'processes':>9}  {'tsqlbroker msg/s':>16}  {'table queue msg/s':>17}  "
              f"{'ratio':>6}  goal")
        for processes in PROCESS_COUNTS:
            broker = max(broker_rate(url, processes, args.n) for _ in range(args.rounds))
            raw = max(raw_rate(url, processes, args.n) for _ in range(args.rounds))
            ratio = broker / raw
            ok = ratio >= GOAL
            missed |= not ok
            print(f"{processes:>9}  {broker:>16.0f}  {raw:>17.0f}  {ratio:>6.2f}  "
                  f">= {GOAL}: {'met' if ok else 'MISSED'}", flush=True)
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
