"""The transpiler: bound parameters, caching, typing of +, functions, errors."""

from __future__ import annotations

import pytest

from tsqlbroker.engine import parsing
from tsqlbroker.engine.dml import ExecContext, register_functions
from tsqlbroker.engine.plans import PlanCache
from tsqlbroker.engine.transpiler import generate
from tsqlbroker.engine.transpiler.binder import Binder
from tsqlbroker.errors import TSqlError, tsql_error

from .conftest import rows, run

EVIL = "x'); DROP TABLE t; --"


def test_parameters_are_bound_never_spliced(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (s nvarchar(100))")
    run(ctx, "INSERT INTO t VALUES (@s)", s=(EVIL, "nvarchar(100)"))
    run(ctx, "INSERT INTO t VALUES ('it''s')")
    assert rows(ctx, "SELECT s FROM t WHERE s = @s", s=(EVIL, "nvarchar(100)")) == [(EVIL,)]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE s LIKE @p", p=("it's", "varchar(10)")) == [
        (1,)]
    binder = Binder(ctx, {"@s": (EVIL, "nvarchar(100)")})
    compiled = binder.compile_text("SELECT s FROM t WHERE s = @s")
    assert EVIL not in compiled.sql.text and "DROP" not in compiled.sql.text
    if ctx.conn.backend.name == "sqlite":
        assert ":v_s" in compiled.sql.text and compiled.sql.names is None
    else:
        assert "$1" in compiled.sql.text and compiled.sql.names == ("v_s",)
    assert binder.binds == {"v_s": EVIL}


def test_undeclared_variable(ctx: ExecContext) -> None:
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT @nope")
    assert ei.value.number == 137
    assert ei.value.message == 'Must declare the scalar variable "@nope".'


def test_parse_and_compile_are_cached(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int)")
    generate.clear_caches()
    sql = "SELECT a FROM t WHERE a = @a"
    for value in (1, 2, 3):
        run(ctx, sql, a=(value, "int"))
    # The second and third runs reuse the compiled plan: neither parsed nor compiled again.
    assert parsing.stats["parse_misses"] == 1 and parsing.stats["parse_hits"] == 0
    assert parsing.stats["compile_misses"] == 1 and parsing.stats["compile_hits"] == 0
    assert PlanCache.get(ctx.conn.store).stats["hits"] >= 2
    # A change of the table's definition invalidates the generated SQL.
    run(ctx, "ALTER TABLE t ADD b int NULL")
    run(ctx, sql, a=(1, "int"))
    assert parsing.stats["compile_misses"] == 2


def test_plus_concatenates_strings_only(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (n int, s nvarchar(10))")
    run(ctx, "INSERT INTO t VALUES (5, N'ab')")
    got = rows(ctx, "SELECT s + N'!', s + @x, n + 1, n + '1', 'a' + 'b' + s, "
                    "CAST(n AS varchar(5)) + 'x' FROM t", x=("?", "varchar(1)"))
    assert got == [("ab!", "ab?", 6, 6, "abab", "5x")]
    assert rows(ctx, "SELECT s + NULL FROM t") == [(None,)]


def test_tsql_functions(ctx: ExecContext) -> None:
    got = rows(ctx, "SELECT LEN('ab  '), DATALENGTH(N'ab'), LEFT('abcdef', 2), "
                    "RIGHT('abcdef', 2), ISNULL(NULL, 'd'), CHARINDEX('c', 'abc'), "
                    "DATEDIFF(month, '2024-01-31', '2024-03-01'), DATEPART(year, '2024-05-06'), "
                    "UPPER('x'), SUBSTRING('abcdef', 2, 3), IIF(1 > 0, 'y', 'n')")
    assert got == [(2, 4, "ab", "ef", "d", 3, 2, 2024, "X", "bcd", "y")]
    now = rows(ctx, "SELECT GETDATE(), NEWID()")[0]
    assert now[0].year >= 2024 and len(str(now[1])) == 36


def test_registered_interpreter_functions(sqlite_ctx: ExecContext) -> None:
    def fail(_x: object) -> object:
        raise tsql_error(8134)

    register_functions(sqlite_ctx.conn.store, {"twice": (1, lambda x: x * 2), "boom": (1, fail)})
    assert rows(sqlite_ctx, "SELECT twice(21), TWICE(@v)", v=(4, "int")) == [(42, 8)]
    with pytest.raises(TSqlError) as ei:
        run(sqlite_ctx, "SELECT boom(1)")
    assert ei.value.number == 8134


def test_errors_are_tsql_errors(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int)")
    cases = {
        "SELEC a FROM t": 102, "SELECT a FROM": 102, "SELECT nope FROM t": 207,
        "SELECT 'unclosed": 105, "SELECT * FROM nowhere": 208,
        "MERGE t USING t AS s ON 1 = 0 WHEN MATCHED THEN DELETE OUTPUT s.a;": 40000,
        "SELECT * FROM t CROSS APPLY dbo.f(t.a) AS z": 208,  # table-valued functions resolve
        "SELECT nosuchfunction(1)": 195,
    }
    for sql, number in cases.items():
        with pytest.raises(TSqlError) as ei:
            run(ctx, sql)
        assert ei.value.number == number, sql


def test_ambiguous_column(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE a (x int)")
    run(ctx, "CREATE TABLE b (x int)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT x FROM a, b")
    assert (ei.value.number, ei.value.message) == (209, "Ambiguous column name 'x'.")


def test_unsupported_query_features_are_refused(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (a int, b int)")
    for sql in ("SELECT * FROM t FOR XML EXPLICIT",
                "SELECT DISTINCT TOP 10 PERCENT a FROM t ORDER BY a",
                "SELECT @@SPID"):
        with pytest.raises(TSqlError) as ei:
            run(ctx, sql)
        assert ei.value.number == 40000, sql
        assert ei.value.message.endswith("is not supported."), sql
    # A table-valued function that does not exist is Msg 208, as in SQL Server.
    with pytest.raises(TSqlError) as ei:
        run(ctx, "SELECT * FROM dbo.fn(1)")
    assert ei.value.number == 208
    for sql in ("SELECT", "UPDATE t SET", "SELECT a FROM t GROUP BY"):
        with pytest.raises(TSqlError) as ei:
            run(ctx, sql)
        assert ei.value.number == 102, sql


def test_session_values_are_parameters(ctx: ExecContext) -> None:
    assert rows(ctx, "SELECT @@SPID, @@ROWCOUNT + 1", **{"@spid": (51, "smallint"),
                                                         "@rowcount": (2, "int")}) == [(51, 3)]


def test_xml_methods_and_namespaces(sqlite_ctx: ExecContext) -> None:
    def value(xml: str, path: str, spec: str, ns: str | None = None) -> str:
        return f"{xml}|{path}|{spec}|{ns}"

    run(sqlite_ctx, "CREATE TABLE t (x xml)")
    run(sqlite_ctx, "INSERT INTO t VALUES ('<a/>')")  # kept as SQL Server writes it: <a />
    # The storage backend's own xml methods (the values layer's), without an interpreter;
    # a function registered on the store replaces them.
    assert rows(sqlite_ctx, "SELECT x.value('(/a)[1]', 'int') FROM t") == [(0,)]
    register_functions(sqlite_ctx.conn.store, {"xml_value": (-1, value)})
    assert rows(sqlite_ctx, "SELECT t.x.value('(/a)[1]', 'int') FROM t") == [
        ("<a />|(/a)[1]|int|None",)]
    got = rows(sqlite_ctx, "WITH XMLNAMESPACES ('urn:p' AS p, DEFAULT 'urn:d') "
                    "SELECT x.value('(/p:a)[1]', 'int') FROM t")
    assert got == [("<a />|(/p:a)[1]|int|p=urn:p;=urn:d",)]


def test_string_agg_within_group_and_choose(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (g int, a int, b varchar(5))")
    run(ctx, "INSERT INTO t VALUES (1, 2, 'y'), (1, 1, 'x'), (1, 3, 'z'), (2, 1, NULL)")
    got = rows(ctx, "SELECT g, STRING_AGG(b, '-') WITHIN GROUP (ORDER BY a DESC) FROM t "
                    "GROUP BY g ORDER BY g")
    assert got == [(1, "z-y-x"), (2, None)]
    assert rows(ctx, "SELECT STRING_AGG(b, ',') WITHIN GROUP (ORDER BY b) FROM t") == [
        ("x,y,z",)]
    assert rows(ctx, "SELECT CHOOSE(a, 'one', 'two') FROM t WHERE g = 1 ORDER BY a") == [
        ("one",), ("two",), (None,)]


def test_conversions_use_the_registered_convert(sqlite_ctx: ExecContext) -> None:
    calls: list[tuple[object, ...]] = []

    def convert(value: object, target: str, style: object, source: object) -> object:
        calls.append((value, target, style, source))
        return f"<{value}>"

    run(sqlite_ctx, "CREATE TABLE t (ts datetime)")
    run(sqlite_ctx, "INSERT INTO t VALUES ('2024-05-06')")
    register_functions(sqlite_ctx.conn.store, {"convert": (4, convert)})
    assert rows(sqlite_ctx, "SELECT CONVERT(varchar(30), ts, 101), CAST(5 AS varchar(3)) FROM t") == [
        ("<2024-05-06 00:00:00.000000>", "<5>")]
    assert calls == [("2024-05-06 00:00:00.000000", "varchar(30)", 101, "datetime"),
                     (5, "varchar(3)", None, "int")]


PLACEHOLDER_LOOKALIKES = ["%s", "%(v_s)s", ":v_s", "?", "%%", "$1", "%"]


def test_placeholder_lookalikes_in_literals_and_names_reach_the_store(ctx: ExecContext) -> None:
    """Literals and quoted names holding driver placeholder syntax are never read as
    placeholders: the generated text keeps them, and the one real parameter is bound."""
    run(ctx, "CREATE TABLE [t%s:x?] ([c%(v_s)s] nvarchar(20), [d:v_s] int)")
    for i, text in enumerate(PLACEHOLDER_LOOKALIKES):
        run(ctx, "INSERT INTO [t%s:x?] ([c%(v_s)s], [d:v_s]) VALUES (@s, @i)",
            s=(text, "nvarchar(20)"), i=(i, "int"))
    literals = ", ".join("'" + t + "'" for t in PLACEHOLDER_LOOKALIKES)
    sql = f"SELECT {literals}, @s, [c%(v_s)s] FROM [t%s:x?] WHERE [d:v_s] = 1"
    assert rows(ctx, sql, s=("bound", "nvarchar(10)")) == [
        (*PLACEHOLDER_LOOKALIKES, "bound", "%(v_s)s")]
    got = rows(ctx, "SELECT [c%(v_s)s] FROM [t%s:x?] ORDER BY [d:v_s]")
    assert [r[0] for r in got] == PLACEHOLDER_LOOKALIKES
    compiled = Binder(ctx, {"@s": ("bound", "nvarchar(10)")}).compile_text(sql)
    for text in PLACEHOLDER_LOOKALIKES:
        assert f"'{text}'" in compiled.sql.text
