"""Interpreter benchmark: T-SQL through the interpreter versus the same work in Python.

Prints three ratios with their goals:

(a) ``WHILE @i < 1000000 SET @i += 1`` against the same loop in plain Python (goal ≤ 20×);
(b) a loop with string, decimal and IF work against its Python equivalent (goal ≤ 30×);
(c) 10k single-row INSERTs through the interpreter against the same statements through raw
    SQLAlchemy on the same kind of storage (goal ≤ 1.5×); (c*) shows how much of that is the
    interpreter's own work, by running (c) with the storage engine replaced by a direct insert;
(d) a ``WHILE`` loop of integer arithmetic and assignments (``SET @i += 1;
    SET @s = (@s + @i * 3) % 1000``) against the same loop in Python (goal ≤ 5×, issue 18
    item 5) and (e) against the same loop in PL/pgSQL (a ``DO`` block, timed from the
    client; goal ≤ 1.0×: faster than PL/pgSQL). (d) and (e) run their contenders interleaved
    round by round and print medians with the lowest and highest round; (e) needs a
    PostgreSQL server (``--url``, ``$TSQLBROKER_PG_URL``, else a private one is started) and
    is skipped with a message without one.

(a)-(c) take the best of three timings. Run: ``python scripts/bench/interp.py [--quick]
[--check] [--only KEY]`` (``--quick`` divides the sizes by 10 and runs 2 rounds). Exit
status 0 (it is a report) unless ``--check`` is given and a goal is missed (1).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

import psycopg
from sqlalchemy import create_engine, text
from yardstick import (
    Figure,
    Goal,
    Report,
    arguments,
    conninfo,
    interleaved,
    postgres_server,
    ratio_figure,
)

from tsqlbroker.grammar.parser import parse_batch
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def _session() -> tuple[Instance, Any, CollectingSink]:
    inst = Instance("sqlite://")
    sink = CollectingSink()
    return inst, inst.session(sink), sink


REPEATS = 3


def _best(fn: Any) -> float:
    """The best of :data:`REPEATS` timings (the machine may be shared)."""
    return min(fn() for _ in range(REPEATS))


def _timed_py(fn: Any) -> float:
    def once() -> float:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return _best(once)


def _timed_tsql(script: str) -> float:
    return _best(lambda: _timed_tsql_once(script))


def _timed_batch(session: Any, sink: CollectingSink, batch: Any) -> float:
    """Seconds ``session`` takes to run the parsed ``batch``; an error stops the benchmark."""
    t0 = time.perf_counter()
    ok = session.execute_batch(batch)
    elapsed = time.perf_counter() - t0
    if not ok:
        raise SystemExit(f"benchmark script failed: {sink.errors()[0].render()}")
    return elapsed


def _timed_tsql_once(script: str) -> float:
    inst, s, sink = _session()
    try:
        return _timed_batch(s, sink, parse_batch(script, 1))
    finally:
        s.close()
        inst.close()


def bench_loop(n: int) -> tuple[float, float]:
    """(a) counting loop."""
    script = f"DECLARE @i int = 0\nWHILE @i < {n} SET @i += 1"
    t_sql = _timed_tsql(script)

    def py() -> int:
        i = 0
        while i < n:
            i += 1
        return i
    return t_sql, _timed_py(py)


def bench_mixed(n: int) -> tuple[float, float]:
    """(b) strings, decimals and IF in a loop."""
    script = f"""
DECLARE @i int = 0, @s varchar(100) = '', @d decimal(18,2) = 0, @evens int = 0
WHILE @i < {n}
BEGIN
    SET @i += 1
    SET @d = @d + 1.25
    IF @i % 2 = 0
        SET @evens += 1
    ELSE
        SET @s = 'item' + 'x'
END
"""
    t_sql = _timed_tsql(script)

    def py() -> tuple[int, str, Decimal, int]:
        i, s, d, evens = 0, "", Decimal("0.00"), 0
        step = Decimal("1.25")
        while i < n:
            i += 1
            d = d + step
            if i % 2 == 0:
                evens += 1
            else:
                s = "item" + "x"
        return i, s, d, evens
    return t_sql, _timed_py(py)


def bench_inserts(n: int) -> tuple[float, float]:
    """(c) single-row INSERTs, each its own transaction, both ways."""
    inst, s, sink = _session()
    try:
        s.execute("SET NOCOUNT ON; CREATE TABLE bench_t (id int NOT NULL, name varchar(20))")
        body = "DECLARE @i int = 0\nWHILE @i < " + str(n) + \
               " BEGIN SET @i += 1 INSERT INTO bench_t (id, name) VALUES (@i, 'x') END"
        batch = parse_batch(body, 1)
        t0 = time.perf_counter()
        ok = s.execute_batch(batch)
        t_sql = time.perf_counter() - t0
        if not ok:
            raise SystemExit(f"benchmark script failed: {sink.errors()[0].render()}")
    finally:
        s.close()
        inst.close()
    tmpdir = tempfile.mkdtemp(prefix="tsqlbroker-bench-",
                              dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    path = str(Path(tmpdir) / "raw.db")
    engine = create_engine("sqlite:///" + path, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA journal_mode=WAL")
        conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
        conn.exec_driver_sql("CREATE TABLE bench_t (id INTEGER NOT NULL, name TEXT)")
        stmt = text("INSERT INTO bench_t (id, name) VALUES (:i, 'x')")
        t0 = time.perf_counter()
        for i in range(1, n + 1):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            conn.execute(stmt, {"i": i})
            conn.exec_driver_sql("COMMIT")
        t_raw = time.perf_counter() - t0
    engine.dispose()
    shutil.rmtree(tmpdir, ignore_errors=True)
    return t_sql, t_raw


def bench_interpreter_share(n: int) -> tuple[float, float]:
    """(c*) as (c), with the engine's ``execute_sql`` replaced by the direct insert: what the
    interpreter itself adds (statement wrapper, parameters, implicit transaction)."""
    from tsqlbroker.engine import dml as engine_dml
    from tsqlbroker.engine.context import SqlResult

    inst, s, _sink = _session()
    original = engine_dml.execute_sql
    stmt = text("INSERT INTO bench_raw (id, name) VALUES (:i, 'x')")

    def direct(ctx: Any, sql: str, params: dict[str, Any]) -> Any:
        ctx.txn.write()
        ctx.conn.execute(stmt, {"i": params["@i"][0]})
        return SqlResult(rowcount=1)

    def interpreted() -> float:
        engine_dml.execute_sql = direct
        try:
            t0 = time.perf_counter()
            s.execute_batch(batch)
            return time.perf_counter() - t0
        finally:
            engine_dml.execute_sql = original

    def raw() -> float:
        conn = s.conn
        t0 = time.perf_counter()
        for i in range(1, n + 1):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            conn.execute(stmt, {"i": i})
            conn.exec_driver_sql("COMMIT")
        return time.perf_counter() - t0

    try:
        s.execute("SET NOCOUNT ON")
        s.conn.exec_driver_sql("CREATE TABLE bench_raw (id INTEGER NOT NULL, name TEXT)")
        batch = parse_batch("DECLARE @i int = 0\nWHILE @i < " + str(n) + " BEGIN SET @i += 1 "
                            "INSERT INTO bench_raw (id, name) VALUES (@i, 'x') END", 1)
        # Alternate the two (the table grows; the machine may be shared); keep the best.
        times = [(interpreted(), raw()) for _ in range(REPEATS)]
        t_sql = min(t for t, _r in times)
        t_raw = min(r for _t, r in times)
    finally:
        engine_dml.execute_sql = original
        s.close()
        inst.close()
    return t_sql, t_raw


INT_LOOP_TSQL = """DECLARE @i int = 0, @s int = 0
WHILE @i < {n}
BEGIN
    SET @i += 1
    SET @s = (@s + @i * 3) % 1000
END"""
INT_LOOP_PLPGSQL = """DO $$
DECLARE i int := 0; s int := 0;
BEGIN
    WHILE i < {n} LOOP
        i := i + 1;
        s := (s + i * 3) % 1000;
    END LOOP;
END $$"""


def int_loop_python(n: int) -> int:
    """The loop of (d) in Python."""
    i = s = 0
    while i < n:
        i += 1
        s = (s + i * 3) % 1000
    return s


def bench_int_loop(n: int, rounds: int, server: str | None) -> list[Figure]:
    """(d) and (e): the integer loop in T-SQL, Python and (with a server) PL/pgSQL, rounds
    interleaved; times in seconds."""
    inst, session, sink = _session()
    batch = parse_batch(INT_LOOP_TSQL.format(n=n), 1)

    def tsql() -> float:
        return _timed_batch(session, sink, batch)

    def python() -> float:
        t0 = time.perf_counter()
        int_loop_python(n)
        return time.perf_counter() - t0

    contenders = {"tsql": tsql, "python": python}
    conn = psycopg.connect(conninfo(server), autocommit=True) if server else None
    if conn is not None:
        do_block = INT_LOOP_PLPGSQL.format(n=n)

        def plpgsql() -> float:
            t0 = time.perf_counter()
            conn.execute(do_block)
            return time.perf_counter() - t0
        contenders["plpgsql"] = plpgsql
    try:
        for run in contenders.values():       # warm-up
            run()
        got = interleaved(contenders, rounds)
    finally:
        session.close()
        inst.close()
        if conn is not None:
            conn.close()
    name = f"(d) WHILE integer loop ({n:,}) vs Python"
    figures = [ratio_figure(name, ("T-SQL", got["tsql"]), ("Python", got["python"]),
                            Goal(5, at_least=False), "s", ".3f")]
    name = f"(e) WHILE integer loop ({n:,}) vs PL/pgSQL"
    figures.append(ratio_figure(name, ("T-SQL", got["tsql"]), ("PL/pgSQL", got["plpgsql"]),
                                Goal(1.0, at_least=False), "s", ".3f") if conn is not None
                   else Figure(name, "", skipped="no PostgreSQL server to run PL/pgSQL on"))
    return figures


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print each ratio with its goal and whether it is met."""
    ap = arguments(__doc__)
    ap.add_argument("--only", choices=["a", "b", "c", "c*", "d"], action="append",
                    help="run only these figures (d: with e)")
    ap.add_argument("--url", help="PostgreSQL server for (e) (default $TSQLBROKER_PG_URL, "
                                  "else a private one)")
    args = ap.parse_args(argv)
    div = 10 if args.quick else 1
    rounds = 2 if args.quick else args.rounds
    cases = [
        ("a", "WHILE @i < N SET @i += 1 vs Python", lambda: bench_loop(1_000_000 // div), 20),
        ("b", "string/decimal/IF loop vs Python", lambda: bench_mixed(200_000 // div), 30),
        ("c", "single-row INSERTs vs raw SQLAlchemy", lambda: bench_inserts(10_000 // div),
         1.5),
        ("c*", "(c) with a direct-insert engine: the interpreter's own share",
         lambda: bench_interpreter_share(10_000 // div), None),
    ]
    report = Report("Interpreter; (a)-(c) best of 3, (d)-(e) median (lowest-highest) of "
                    f"{rounds} interleaved rounds; ratios are times, interpreter / reference")
    for key, label, run, bound in cases:
        if args.only and key not in args.only:
            continue
        t_interp, t_ref = run()
        ratio = t_interp / t_ref if t_ref > 0 else float("inf")
        goal = None if bound is None else Goal(bound, at_least=False)
        report.add(Figure(f"({key}) {label}", f"interpreter {t_interp:.3f} s, reference "
                          f"{t_ref:.3f} s = {ratio:.1f}", goal,
                          None if goal is None else goal.met(ratio)))
    if not args.only or "d" in args.only:
        with postgres_server(args.url) as server:
            for fig in bench_int_loop(200_000 // div, rounds, server):
                report.add(fig)
    return report.close(args.check)


if __name__ == "__main__":
    raise SystemExit(main())
