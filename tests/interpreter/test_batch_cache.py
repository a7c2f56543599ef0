"""Compiled batches are reused (issue 18 item 4) and a reused batch means what its text means
now: SET options, the database, temporary tables, tables and procedures changed between two
runs of the same text are seen by the second run."""

from __future__ import annotations

from typing import Any

import pytest

from tsqlbroker.grammar import parser
from tsqlbroker.interpreter.batchcache import MAX_TEXT, CompiledCache
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def rows(sink: CollectingSink, session: Any, text: str) -> list[list[Any]]:
    """The rows of the last result set ``text`` returns (no error allowed)."""
    sink.__init__()  # type: ignore[misc]
    assert session.execute(text), [e.render() for e in sink.errors()]
    return [list(r) for r in sink.resultsets()[-1].rows]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts parsed as batches from now on."""
    seen: list[str] = []
    real = parser.parse_batch

    def counting(text: str, *args: Any, **kw: Any) -> Any:
        seen.append(text)
        return real(text, *args, **kw)
    monkeypatch.setattr(parser, "parse_batch", counting)
    return seen


def test_a_batch_sent_again_is_not_parsed_again(session: Any, sink: CollectingSink,
                                                parses: list[str]) -> None:
    text = "DECLARE @i int = 1; SELECT @i + 1;"
    assert rows(sink, session, text) == [[2]]
    assert rows(sink, session, text) == [[2]]
    assert rows(sink, session, text + " ") == [[2]]      # another text
    assert parses == [text, text + " "]


def test_sessions_of_an_instance_share_it(instance: Instance, parses: list[str]) -> None:
    a, b = instance.session(CollectingSink()), instance.session(CollectingSink())
    try:
        assert a.execute("PRINT 'x'") and b.execute("PRINT 'x'")
        assert parses == ["PRINT 'x'"]
        assert b.sink.messages() == ["x"]
    finally:
        a.close()
        b.close()


def test_set_options_are_read_when_it_runs(session: Any, sink: CollectingSink) -> None:
    weekday = "SELECT DATEPART(weekday, '20240107'), @@DATEFIRST;"   # a Sunday
    assert rows(sink, session, weekday) == [[1, 7]]
    session.execute("SET DATEFIRST 1")
    assert rows(sink, session, weekday) == [[7, 1]]
    insert = "CREATE TABLE #n (a int); INSERT INTO #n VALUES (1); DROP TABLE #n;"
    sink.__init__()  # type: ignore[misc]
    session.execute(insert)
    assert [k for k, _ in sink.events if k == "rows"] == ["rows"]
    session.execute("SET NOCOUNT ON")
    sink.__init__()  # type: ignore[misc]
    session.execute(insert)
    assert sink.events == []


def test_the_database_context_is_read_when_it_runs(session: Any, sink: CollectingSink) -> None:
    session.execute("CREATE DATABASE cache_a; CREATE DATABASE cache_b;")
    session.execute("USE cache_a; CREATE TABLE t (v varchar(10)); INSERT t VALUES ('in a');")
    session.execute("USE cache_b; CREATE TABLE t (v varchar(10)); INSERT t VALUES ('in b');")
    query = "SELECT v, DB_NAME() FROM t;"
    assert rows(sink, session, query) == [["in b", "cache_b"]]
    session.execute("USE cache_a")
    assert rows(sink, session, query) == [["in a", "cache_a"]]
    session.execute("USE master; DROP DATABASE cache_a; DROP DATABASE cache_b;")


def test_procedures_altered_dropped_and_recreated(session: Any, sink: CollectingSink) -> None:
    session.execute("CREATE PROCEDURE p AS SELECT 1;")
    call = "EXEC p;"
    assert rows(sink, session, call) == [[1]]
    session.execute("ALTER PROCEDURE p AS SELECT 2;")
    assert rows(sink, session, call) == [[2]]
    session.execute("DROP PROCEDURE p;")
    sink.__init__()  # type: ignore[misc]
    assert not session.execute(call)
    assert [e.number for e in sink.errors()] == [2812]
    session.execute("CREATE PROCEDURE p @x int = 5 AS SELECT @x * 10;")
    assert rows(sink, session, call) == [[50]]


def test_tables_and_temp_tables_recreated(session: Any, sink: CollectingSink) -> None:
    query = "SELECT * FROM #t; SELECT * FROM t;"
    session.execute("CREATE TABLE #t (a int); INSERT #t VALUES (1);"
                    "CREATE TABLE t (a int); INSERT t VALUES (2);")
    sink.__init__()  # type: ignore[misc]
    session.execute(query)
    assert [[list(r) for r in rs.rows] for rs in sink.resultsets()] == [[[1]], [[2]]]
    session.execute("DROP TABLE #t; CREATE TABLE #t (a int, b varchar(5)); "
                    "INSERT #t VALUES (3, 'x'); DROP TABLE t; CREATE TABLE t (c varchar(5));"
                    "INSERT t VALUES ('y');")
    sink.__init__()  # type: ignore[misc]
    session.execute(query)
    got = sink.resultsets()
    assert [rs.columns for rs in got] == [["a", "b"], ["c"]]
    assert [[list(r) for r in rs.rows] for rs in got] == [[[3, "x"]], [["y"]]]


def test_variables_start_fresh_and_lines_are_the_batch_s(session: Any,
                                                         sink: CollectingSink) -> None:
    text = "DECLARE @n int; SET @n = ISNULL(@n, 0) + 1; SELECT @n;\nSELECT 1/0;"
    for start in (1, 1, 10):
        sink.__init__()  # type: ignore[misc]
        session.execute(text, start_line=start)
        assert [list(r) for r in sink.resultsets()[0].rows] == [[1]]
        assert [(e.number, e.line) for e in sink.errors()] == [(8134, start + 1)]


def test_sp_executesql_compiles_its_text_once(session: Any, sink: CollectingSink,
                                              parses: list[str]) -> None:
    session.execute("CREATE TABLE k (a int); INSERT k VALUES (1), (2), (3);")
    for n, want in ((1, 3), (2, 2), (3, 1)):
        got = rows(sink, session, f"EXEC sp_executesql N'SELECT COUNT(*) FROM k WHERE a >= @m',"
                                  f" N'@m int', @m = {n};")
        assert got == [[want]]
    inner = [t for t in parses if t == "SELECT COUNT(*) FROM k WHERE a >= @m"]
    assert len(inner) == 1


def test_errors_and_big_batches_are_not_kept(instance: Instance, session: Any,
                                             sink: CollectingSink, parses: list[str]) -> None:
    bad = "SELECT @undeclared;"
    session.execute(bad)
    session.execute(bad)
    assert parses.count(bad) == 2
    assert [e.number for e in sink.errors()] == [137, 137]
    big = "PRINT 'x'" + " " * MAX_TEXT
    session.execute(big)
    session.execute(big)
    assert parses.count(big) == 2


def test_the_cache_is_bounded() -> None:
    cache = CompiledCache(size=3)
    for i in range(5):
        cache.put(("text", i), i)
    cache.get(("text", 2))
    cache.put(("text", 5), 5)
    assert len(cache) == 3
    assert [cache.get(("text", i)) for i in range(6)] == [None, None, 2, None, 4, 5]


def test_a_procedure_called_again_is_not_compiled_again(session: Any, sink: CollectingSink,
                                                        parses: list[str]) -> None:
    create = "CREATE PROCEDURE twice @x int AS SELECT @x + 1;"
    session.execute(create)
    for n in range(3):
        assert rows(sink, session, f"EXEC twice {n};") == [[n + 1]]
    assert parses.count(create) == 2        # the batch, then the body on its first call
