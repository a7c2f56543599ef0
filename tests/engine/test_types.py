"""CREATE TABLE / INSERT / SELECT round trips per type, from literals and from parameters."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import pytest

from tsqlbroker.engine.dml import ExecContext
from tsqlbroker.errors import TSqlError

from .conftest import rows, run

CASES: list[tuple[str, Any]] = [
    ("int", 42), ("bigint", 2**40), ("smallint", -7), ("tinyint", 255), ("bit", 1),
    ("decimal(10,2)", Decimal("12.34")), ("numeric(5,0)", Decimal(123)),
    ("money", Decimal("1.2345")), ("float", 1.5), ("real", 0.25),
    ("char(3)", "ab "), ("varchar(10)", "hello"), ("nvarchar(max)", "ünïcødé ✓"),
    ("nchar(2)", "xy"), ("varbinary(max)", b"\x00\x01\xff"), ("binary(2)", b"\x01\x02"),
    ("uniqueidentifier", uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF")),
    ("date", dt.date(2024, 2, 29)), ("datetime", dt.datetime(2024, 1, 2, 3, 4, 5, 123000)),
    ("datetime2", dt.datetime(2024, 1, 2, 3, 4, 5, 123456)), ("time", dt.time(13, 14, 15)),
    ("xml", "<a><b>1</b></a>"), ("sysname", "queue_name"),
]


@pytest.mark.parametrize(("spec", "value"), CASES, ids=[c[0] for c in CASES])
def test_round_trip_through_parameter(ctx: ExecContext, spec: str, value: Any) -> None:
    run(ctx, f"CREATE TABLE t (v {spec} NULL)")
    run(ctx, "INSERT INTO t (v) VALUES (@v)", v=(value, spec))
    run(ctx, "INSERT INTO t (v) VALUES (NULL)")
    result = run(ctx, "SELECT v FROM t")
    rs = result.resultsets[0]
    assert rs.columns == ["v"]
    # sqlglot's T-SQL parser folds numeric into decimal and real into float.
    assert rs.types == [{"numeric(5,0)": "decimal(5,0)", "real": "float"}.get(spec, spec)]
    assert rs.rows == [(value,), (None,)]
    assert type(rs.rows[0][0]) is type(value)


def test_literals_convert_to_declared_types(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (i int, d decimal(6,1), g uniqueidentifier, ts datetime, b bit)")
    run(ctx, "INSERT INTO t VALUES ('12', 2.25, '6f9619ff-8b86-d011-b42d-00c04fc964ff', "
             "'2024-05-06 07:08:09', 'true')")
    assert rows(ctx, "SELECT * FROM t") == [(
        12, Decimal("2.3"), uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF"),
        dt.datetime(2024, 5, 6, 7, 8, 9), 1)]


def test_char_is_padded(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (c char(5))")
    run(ctx, "INSERT INTO t VALUES ('ab')")
    assert rows(ctx, "SELECT c, DATALENGTH(c) FROM t") == [("ab   ", 5)]


def test_conversion_error(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (i int)")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "INSERT INTO t VALUES ('abc')")
    assert ei.value.number == 245
    assert ei.value.message == ("Conversion failed when converting the varchar value 'abc' "
                                "to data type int.")
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE u (g uniqueidentifier)")
        run(ctx, "INSERT INTO u VALUES ('nope')")
    assert ei.value.number == 8169


def test_unknown_type(ctx: ExecContext) -> None:
    with pytest.raises(TSqlError) as ei:
        run(ctx, "CREATE TABLE t (a nosuchtype)")
    assert ei.value.number == 2715


def test_comparisons_on_typed_columns(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (d decimal(10,2), ts datetime, g uniqueidentifier)")
    g = uuid.uuid4()
    run(ctx, "INSERT INTO t VALUES (@d, @ts, @g)", d=(Decimal("10.50"), "decimal(10,2)"),
        ts=(dt.datetime(2024, 1, 1, 12), "datetime"), g=(g, "uniqueidentifier"))
    run(ctx, "INSERT INTO t VALUES (9.75, '2023-12-31', NEWID())")
    assert rows(ctx, "SELECT d FROM t WHERE d > 10 ORDER BY d") == [(Decimal("10.50"),)]
    assert rows(ctx, "SELECT d FROM t WHERE ts < @x", x=(dt.datetime(2024, 1, 1), "datetime")
                ) == [(Decimal("9.75"),)]
    assert rows(ctx, "SELECT d FROM t WHERE g = @g", g=(g, "uniqueidentifier")) == [
        (Decimal("10.50"),)]
    assert rows(ctx, "SELECT SUM(d) FROM t")[0][0] == pytest.approx(20.25)


def test_string_literals_compare_as_the_column_type(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (ts datetime, d date, g uniqueidentifier)")
    run(ctx, "INSERT INTO t VALUES ('2024-01-01', '2024-01-01', "
             "'6F9619FF-8B86-D011-B42D-00C04FC964FF')")
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE ts = '2024-01-01'") == [(1,)]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE '20240101' = ts") == [(1,)]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE d BETWEEN '2023-12-31' AND '2024-01-01'"
                ) == [(1,)]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE g = '6f9619ff-8b86-d011-b42d-00c04fc964ff'"
                ) == [(1,)]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE g IN (@s)",
                s=("6f9619ff-8b86-d011-b42d-00c04fc964ff", "varchar(36)")) == [(1,)]


def test_datetime_plus_number_adds_days(ctx: ExecContext) -> None:
    run(ctx, "CREATE TABLE t (ts datetime)")
    run(ctx, "INSERT INTO t VALUES ('2024-02-28 10:00')")
    assert rows(ctx, "SELECT ts + 1, ts - 28 FROM t") == [
        (dt.datetime(2024, 2, 29, 10), dt.datetime(2024, 1, 31, 10))]
    assert rows(ctx, "SELECT COUNT(*) FROM t WHERE ts > GETDATE() - 100000") == [(1,)]
