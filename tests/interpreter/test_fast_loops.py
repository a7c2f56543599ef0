"""Integer WHILE loops compiled to Python code (issue 18 item 5) mean what the closures mean:
random loops near the ends of int and bigint, with divisors that may be zero, NULLs, TRY…CATCH
and XACT_ABORT, give the same rows, messages, errors (numbers and lines) and @@ERROR /
@@ROWCOUNT either way."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from tsqlbroker.interpreter import fastloop
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

VARS = {"@a": "int", "@b": "bigint", "@c": "int"}
EDGES = [0, 1, -1, 2, 3, -7, 1000, 46341, -46341, 2**31 - 1, -2**31, 2**31 - 5, 3037000500]


class Program:
    """A random batch of nested integer loops (every loop bounded by its own counter)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counters = 0

    def const(self) -> str:
        n = self.rng.choice(EDGES[:-1] + [self.rng.randint(-50, 50)])
        return str(n)

    def expr(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 2 or r < 0.35:
            return self.rng.choice(list(VARS)) if self.rng.random() < 0.6 else self.const()
        if r < 0.45:
            return f"-({self.expr(depth + 1)})"
        op = self.rng.choice("+-*/%")
        return f"({self.expr(depth + 1)} {op} {self.expr(depth + 1)})"

    def cond(self, depth: int = 0) -> str:
        if depth < 2 and self.rng.random() < 0.3:
            joint = self.rng.choice(["AND", "OR"])
            inner = f"{self.cond(depth + 1)} {joint} {self.cond(depth + 1)}"
            return f"NOT ({inner})" if self.rng.random() < 0.3 else f"({inner})"
        op = self.rng.choice(["=", "<>", "<", ">", "<=", ">=", "!="])
        return f"{self.expr(1)} {op} {self.expr(1)}"

    def stmt(self, depth: int) -> str:
        r = self.rng.random()
        if depth < 2 and r < 0.15:
            return self.loop(depth + 1)
        if depth < 3 and r < 0.35:
            text = f"IF {self.cond()} {self.stmt(depth + 1)}"
            if self.rng.random() < 0.5:
                text += f"\nELSE {self.stmt(depth + 1)}"
            return text
        if r < 0.42:
            return "BEGIN " + "; ".join(self.stmt(depth + 1) for _ in range(2)) + " END"
        op = self.rng.choice(["=", "=", "+=", "-=", "*=", "/=", "%="])
        return f"SET {self.rng.choice(list(VARS))} {op} {self.expr()}"

    def loop(self, depth: int) -> str:
        self.counters += 1
        n = f"@n{self.counters}"
        body = "\n".join(self.stmt(depth) for _ in range(self.rng.randint(1, 3)))
        extra = f" AND {self.cond()}" if self.rng.random() < 0.3 else ""
        return (f"BEGIN SET {n} = 0\nWHILE {n} < {self.rng.randint(0, 4)}{extra}\nBEGIN\n"
                f"SET {n} += 1\n{body}\nEND END")

    def batch(self) -> str:
        loop = self.loop(0)
        declare = ", ".join(f"{v} {t}" + ("" if self.rng.random() < 0.05
                                          else f" = {self.const()}")
                            for v, t in VARS.items())
        counters = ", ".join(f"@n{i} int" for i in range(1, self.counters + 1))
        text = f"DECLARE {declare}, {counters}\n{loop}\n"
        if self.rng.random() < 0.3:
            text = (f"BEGIN TRY\n{text}END TRY\nBEGIN CATCH SELECT ERROR_NUMBER(), "
                    "ERROR_LINE(), @a, @b, @c END CATCH\n")
        if self.rng.random() < 0.1:
            text = "SET XACT_ABORT ON\n" + text
        return text + "SELECT @a, @b, @c, @@ERROR, @@ROWCOUNT\n"


def events(sink: CollectingSink) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for kind, payload in sink.events:
        if kind == "error":
            out.append((kind, (payload.number, payload.line, payload.message)))
        elif kind == "resultset":
            out.append((kind, [list(r) for r in payload.rows]))
        else:
            out.append((kind, payload))
    return out


def run_both(batches: list[str], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each batch's events with the fast loops on and off (an instance for each)."""
    got = []
    for enabled in (True, False):
        monkeypatch.setattr(fastloop, "ENABLED", enabled)
        inst = Instance("sqlite://")
        try:
            outs = []
            for text in batches:
                sink = CollectingSink()
                s = inst.session(sink)
                s.execute(text)
                s.close()
                outs.append(events(sink))
            got.append(outs)
        finally:
            inst.close()
    return got


def test_random_integer_loops_mean_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(18)
    batches = [Program(rng).batch() for _ in range(100)]
    generated: list[str] = []

    def compiling(source: str, *args: Any) -> Any:
        generated.append(source)
        return compile(source, *args)
    monkeypatch.setattr(fastloop, "compile", compiling, raising=False)
    fast, closures = run_both(batches, monkeypatch)
    assert len(generated) >= 60         # most loops ran as Python code
    for text, a, b in zip(batches, fast, closures, strict=True):
        assert a == b, text
    errors = {e[1][0] for out in closures for e in out if e[0] == "error"}
    assert {8115, 8134} <= errors       # the edges were reached


def test_the_loop_of_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("DECLARE @i int = 0, @s int = 0\nWHILE @i < 5000\nBEGIN\n    SET @i += 1\n"
            "    SET @s = (@s + @i * 3) % 1000\nEND\nSELECT @i, @s")
    fast, closures = run_both([text], monkeypatch)
    assert fast == closures == [[("resultset", [[5000, 500]]), ("rows", 1)]]


def test_a_fast_loop_is_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastloop, "ENABLED", True)
    inst = Instance("sqlite://")
    sink = CollectingSink()
    s = inst.session(sink)
    try:
        timer = threading.Timer(0.3, s.cancel)
        timer.start()
        started = time.monotonic()
        assert not s.execute("DECLARE @i bigint = 0\nWHILE 1 = 1 SET @i += 1\nPRINT 'no'")
        assert time.monotonic() - started < 10
        assert [e.number for e in sink.errors()] == [3621]
        assert sink.messages() == []
    finally:
        s.close()
        inst.close()


def test_loops_beyond_what_python_compiles_keep_their_closures() -> None:
    chain = " + ".join(["@i"] * 600)                    # deeper than Python's recursion
    nested = ("SET @n = 0 WHILE @n < 2 BEGIN SET @n += 1 " * 25   # beyond its 20 blocks
              + "SET @s += 1" + " END" * 25)
    inst = Instance("sqlite://")
    sink = CollectingSink()
    s = inst.session(sink)
    try:
        assert s.execute(f"DECLARE @i bigint = 0, @s bigint = 0, @n int\n"
                         f"WHILE @i < 3 BEGIN SET @s = {chain}; SET @i += 1 END\n"
                         "SELECT @s")
        assert s.execute(f"DECLARE @s int = 0, @n int\nBEGIN {nested} END\nSELECT @s")
        assert [list(rs.rows[0]) for rs in sink.resultsets()] == [[1200], [2]]
    finally:
        s.close()
        inst.close()
