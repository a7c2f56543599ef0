"""Long operator chains (``b + ',' + b …``, ``1 + 1 + …``): typing and transpiling take work
in proportion to the expression, and nothing recurses as deep as the chain is long."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.engine.transpiler import generate
from tsqlbroker.engine.transpiler.annotate import TypeAnnotator
from tsqlbroker.interpreter.sink import CollectingSink


def _chain(term: str, sep: str, n: int) -> str:
    return sep.join([term] * n)


def _values(session: Any, sink: CollectingSink, sql: str) -> list[tuple[Any, ...]]:
    sink.events.clear()
    session.execute(sql)
    assert sink.errors() == []
    return [row for rs in sink.resultsets() for row in rs.rows]


def _typing_steps(session: Any, sink: CollectingSink, monkeypatch: pytest.MonkeyPatch,
                  sql: str) -> int:
    """How many times the binder typed a node (spec or kind) compiling ``sql``."""
    count = [0]
    spec_of, kind_of = TypeAnnotator._spec_of, TypeAnnotator._kind_of

    def counted_spec(self: TypeAnnotator, node: Any) -> Any:
        count[0] += 1
        return spec_of(self, node)

    def counted_kind(self: TypeAnnotator, node: Any) -> Any:
        count[0] += 1
        return kind_of(self, node)

    monkeypatch.setattr(TypeAnnotator, "_spec_of", counted_spec)
    monkeypatch.setattr(TypeAnnotator, "_kind_of", counted_kind)
    generate.clear_caches()
    try:
        _values(session, sink, sql)
    finally:
        monkeypatch.setattr(TypeAnnotator, "_spec_of", spec_of)
        monkeypatch.setattr(TypeAnnotator, "_kind_of", kind_of)
    return count[0]


def test_typing_a_chain_is_linear(session: Any, sink: CollectingSink,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    session.execute("CREATE TABLE t (b varchar(10), i int); INSERT t VALUES ('x', 1)")
    for term, sep in (("b", " + ',' + "), ("i", " + ")):
        small = _typing_steps(session, sink, monkeypatch,
                              f"SELECT {_chain(term, sep, 100)} FROM t")
        large = _typing_steps(session, sink, monkeypatch,
                              f"SELECT {_chain(term, sep, 400)} FROM t")
        # Each node is typed a bounded number of times: four times the terms, at most
        # four times the work (11 pairs took 4^11 steps before).
        assert small > 0
        assert large <= 4 * small + 50, (term, small, large)


def test_500_term_chains_compile_and_run(session: Any, sink: CollectingSink) -> None:
    session.execute("CREATE TABLE t (b varchar(10), i int); INSERT t VALUES ('x', 1)")
    strings = _chain("b", " + ',' + ", 500)
    assert _values(session, sink, f"SELECT LEN({strings}) FROM t") == [(999,)]
    assert _values(session, sink, f"SELECT {_chain('i', ' + ', 500)} FROM t") == [(500,)]
    ones = _chain("1", "+", 500)
    assert _values(session, sink, f"SELECT {ones}") == [(500,)]
    assert _values(session, sink, f"SELECT i FROM t WHERE {ones} = 500") == [(1,)]
    assert _values(session, sink, f"DECLARE @x int = {ones}; SELECT @x") == [(500,)]
    assert _values(session, sink, "DECLARE @s varchar(max) = 'a'; "
                                  f"SELECT LEN({strings.replace('b', '@s')})") == [(999,)]
    # Evaluated left to right as nested operators would be: the types change on the way.
    assert _values(session, sink, f"SELECT {_chain('1', ' - ', 40)} + 0.5") == [
        (Decimal("-37.5"),)]


def test_a_chain_overflows_where_the_nested_form_does(session: Any,
                                                      sink: CollectingSink) -> None:
    session.execute(f"SELECT 2147483647 + {_chain('0', ' + ', 30)} + 1")
    assert [e.number for e in sink.errors()] == [8115]


def test_nesting_beyond_the_backend_is_msg_191(session: Any, sink: CollectingSink) -> None:
    """6000 operators: more than SQLite's parser takes (it has a depth limit of 1000); the
    statement then fails as SQL Server's too-deep statements do, never as an internal
    error. PostgreSQL may still run it."""
    session.execute("CREATE TABLE t (b varchar(10)); INSERT t VALUES ('x')")
    sink.events.clear()
    session.execute(f"SELECT LEN({_chain('b', ' + ', 6000)}) FROM t")
    errors = [(e.number, e.severity) for e in sink.errors()]
    if session.conn.backend.name == "sqlite" or errors:
        assert errors == [(191, 15)]
    else:
        assert [rs.rows for rs in sink.resultsets()] == [[(6000,)]]
