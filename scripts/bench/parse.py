"""Parser benchmark: tsqlbroker's T-SQL parser on a generated corpus, against sqlglot.

The corpus is generated deterministically: stored procedures with control flow, DML and
Service Broker statements (a few hundred KB), plus a DML-only part (SELECT / INSERT / UPDATE /
DELETE). Prints KB/s and statements/s for our parser on the whole corpus, then both parsers on
the *same* DML-only text (``sqlglot.parse(text, read="tsql")``) and the ratio of our time per
KB to sqlglot's, with the goal ratio ≤ 1.0.

Run: ``python scripts/bench/parse.py`` (``--size KB`` sets the corpus size, default 300).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import sqlglot

from tsqlbroker.grammar import ast, parse, parse_batch
from tsqlbroker.grammar.loader import get_driver

REPEATS = 3
RATIO_REPEATS = 5
GOAL = 1.0

TABLES = ["orders", "order_lines", "customers", "trades", "dbo.positions", "audit_log"]
COLUMNS = ["id", "customer_id", "order_id", "qty", "price", "status", "created_at", "name",
           "ric_code", "volume", "note"]


def _col(r: random.Random) -> str:
    return r.choice(COLUMNS)


def _cond(r: random.Random, alias: str = "") -> str:
    prefix = f"{alias}." if alias else ""
    parts = [
        f"{prefix}{_col(r)} = {r.randint(1, 999)}",
        f"{prefix}{_col(r)} IN ({', '.join(str(r.randint(1, 99)) for _ in range(3))})",
        f"{prefix}{_col(r)} IS NOT NULL",
        f"{prefix}{_col(r)} BETWEEN {r.randint(1, 50)} AND {r.randint(51, 99)}",
        f"{prefix}name LIKE N'%{r.choice(['abc', 'x', 'trade'])}%'",
        f"{prefix}price * qty > {r.randint(100, 9999)}.50",
    ]
    return " AND ".join(r.sample(parts, r.randint(1, 3)))


def dml_statement(r: random.Random) -> str:
    """One realistic DML statement that both parsers accept."""
    t, u = r.sample(TABLES, 2)
    kind = r.random()
    if kind < 0.45:
        cols = ", ".join(f"a.{_col(r)}" for _ in range(r.randint(2, 5)))
        extra = r.choice([
            "",
            ", CAST(a.price AS decimal(10, 2)) AS price2",
            ", CASE WHEN a.qty > 10 THEN 'big' ELSE 'small' END AS size",
            f", COALESCE(b.{_col(r)}, 0) AS fallback",
            f", (SELECT MAX(x.id) FROM {u} x WHERE x.id = a.id) AS max_id",
        ])
        top = r.choice(["", "TOP (10) ", "DISTINCT "])
        tail = r.choice(["", f" ORDER BY a.{_col(r)} DESC", f" GROUP BY a.{_col(r)}"])
        if "GROUP BY" in tail:
            g = tail.split("a.")[1]
            cols, extra, top = f"a.{g}, COUNT(*) AS n", "", ""
        return (f"SELECT {top}{cols}{extra} FROM {t} a JOIN {u} b ON a.id = b.order_id "
                f"WHERE {_cond(r, 'a')}{tail}")
    if kind < 0.7:
        cols = r.sample(COLUMNS, 3)
        rows = ", ".join(
            f"({r.randint(1, 9999)}, N'n{r.randint(1, 99)}', {r.randint(1, 999)}.{r.randint(0, 99)})"
            for _ in range(r.randint(1, 4)))
        return f"INSERT INTO {t} ({', '.join(cols)}) VALUES {rows}"
    if kind < 0.9:
        return (f"UPDATE {t} SET {_col(r)} = {_col(r)} + {r.randint(1, 9)}, "
                f"note = 'updated' WHERE {_cond(r)}")
    return f"DELETE FROM {t} WHERE {_cond(r)}"


def procedure(r: random.Random, n: int) -> str:
    """A stored procedure in the shape of the chapter's service programs."""
    body = [
        f"CREATE PROCEDURE dbo.proc_{n}",
        "    @customer_id int,",
        "    @limit int = 10,",
        "    @result nvarchar(max) OUTPUT",
        "AS",
        "BEGIN",
        "    SET NOCOUNT ON;",
        "    DECLARE @dh uniqueidentifier, @msg varbinary(max), @mt sysname, @i int = 0;",
        "    DECLARE @t TABLE (id int PRIMARY KEY, body varbinary(max));",
        "    WHILE @i < @limit",
        "    BEGIN",
        "        BEGIN TRY",
        "            BEGIN TRAN;",
        "            WAITFOR (",
        "                RECEIVE TOP (1) @dh = conversation_handle, @msg = message_body,",
        "                    @mt = message_type_name",
        f"                FROM dbo.queue_{n % 7}",
        "            ), TIMEOUT 5000;",
        "            IF @@ROWCOUNT = 0",
        "            BEGIN",
        "                ROLLBACK TRAN;",
        "                BREAK;",
        "            END",
        "            IF @mt = N'//www.develop.com/DMBrokerage/TradeEntry'",
        "            BEGIN",
    ]
    for _ in range(r.randint(2, 5)):
        body.append("                " + dml_statement(r) + ";")
    body += [
        "                SEND ON CONVERSATION @dh",
        "                    MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck]",
        "                    (CAST(N'<ack id=\"1\"/>' AS varbinary(max)));",
        "            END",
        "            ELSE IF @mt = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'",
        "                END CONVERSATION @dh;",
        "            ELSE",
        "                END CONVERSATION @dh WITH ERROR = 50001 DESCRIPTION = N'unexpected';",
        "            COMMIT TRAN;",
        "        END TRY",
        "        BEGIN CATCH",
        "            IF XACT_STATE() <> 0 ROLLBACK TRAN;",
        "            SET @result = ERROR_MESSAGE();",
        "            THROW;",
        "        END CATCH",
        "        SET @i += 1;",
        "    END",
        "    RETURN 0;",
        "END",
        "GO",
    ]
    return "\n".join(body)


def corpus(size_kb: int, seed: int = 1) -> tuple[str, str]:
    """(full corpus with procedures and GO batches, DML-only text), each about size_kb."""
    r = random.Random(seed)
    procs: list[str] = []
    total = 0
    while total < size_kb * 1024:
        p = procedure(r, len(procs))
        procs.append(p)
        total += len(p) + 1
    dml: list[str] = []
    total = 0
    while total < size_kb * 1024:
        s = dml_statement(r) + ";"
        dml.append(s)
        total += len(s) + 1
    return "\n".join(procs) + "\n", "\n".join(dml) + "\n"


def best(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Best wall time of :data:`REPEATS` runs and the last result."""
    times = []
    result = None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def best_interleaved(a: Callable[[], Any], b: Callable[[], Any]
                     ) -> tuple[tuple[float, Any], tuple[float, Any]]:
    """Best times of ``a`` and ``b`` run alternately :data:`RATIO_REPEATS` times each, so that
    a change in the machine's load hits both sides of the ratio alike."""
    results: list[list[float]] = [[], []]
    last: list[Any] = [None, None]
    for _ in range(RATIO_REPEATS):
        for i, fn in enumerate((a, b)):
            t0 = time.perf_counter()
            last[i] = fn()
            results[i].append(time.perf_counter() - t0)
    return (min(results[0]), last[0]), (min(results[1]), last[1])


def count_statements(node: Any) -> int:
    """Statements in an AST, nested ones (procedure bodies, blocks, IF branches) included."""
    if isinstance(node, tuple):
        return sum(count_statements(x) for x in node)
    if not isinstance(node, ast.Node):
        return 0
    own = 1 if isinstance(node, ast.Stmt) else 0
    return own + sum(count_statements(getattr(node, f.name)) for f in dataclasses.fields(node)
                     if f.name != "span" and isinstance(getattr(node, f.name), (tuple, ast.Stmt)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=300, help="corpus size in KB (each part)")
    args = ap.parse_args(argv)

    full, dml = corpus(args.size)
    get_driver()  # build (or load) the grammar outside the timings
    parse_batch("SELECT 1")
    sqlglot.parse("SELECT 1", read="tsql")

    t_full, script = best(lambda: parse(full))
    n_full = count_statements(script.batches)
    kb_full = len(full.encode()) / 1024
    print(f"corpus: {kb_full:.0f} KB, {len(script.batches)} batches (procedures), {n_full} "
          f"statements")
    print(f"tsqlbroker  full corpus : {kb_full / t_full:8.1f} KB/s  {n_full / t_full:9.0f} stmt/s")

    kb_dml = len(dml.encode()) / 1024
    (t_ours, batch), (t_glot, trees) = best_interleaved(lambda: parse_batch(dml),
                                                        lambda: sqlglot.parse(dml, read="tsql"))
    n_dml = len(batch.statements)
    assert len([t for t in trees if t is not None]) == n_dml, "the parsers disagree on the count"
    print(f"DML-only part: {kb_dml:.0f} KB, {n_dml} statements")
    print(f"tsqlbroker  DML         : {kb_dml / t_ours:8.1f} KB/s  {n_dml / t_ours:9.0f} stmt/s")
    print(f"sqlglot     DML (tsql)  : {kb_dml / t_glot:8.1f} KB/s  {n_dml / t_glot:9.0f} stmt/s")
    ratio = (t_ours / kb_dml) / (t_glot / kb_dml)
    verdict = "met" if ratio <= GOAL else "NOT met"
    print(f"ratio (our time per KB / sqlglot's) = {ratio:.2f}  goal <= {GOAL:.1f}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
