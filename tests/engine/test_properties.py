"""Property tests: any value survives a round trip through parameters and storage."""

from __future__ import annotations

from decimal import Decimal
from itertools import count

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tsqlbroker.engine.dml import ExecContext

from .conftest import rows, run

_ids = count(1)
_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(text=st.text(max_size=200))
def test_any_text_round_trips(ctx: ExecContext, text: str) -> None:
    # PostgreSQL text cannot hold NUL characters (SQL Server's nvarchar can).
    assume(ctx.conn.backend.name == "sqlite" or "\x00" not in text)
    key = next(_ids)
    if "#txt" not in ctx.temp_tables:
        run(ctx, "CREATE TABLE #txt (id int PRIMARY KEY, s nvarchar(max))")
    run(ctx, "INSERT INTO #txt VALUES (@id, @s)", id=(key, "int"), s=(text, "nvarchar(max)"))
    assert rows(ctx, "SELECT s FROM #txt WHERE id = @id", id=(key, "int")) == [(text,)]
    assert rows(ctx, "SELECT LEN(s) FROM #txt WHERE id = @id", id=(key, "int")) == [
        (len(text.rstrip(" ")),)]


@_SETTINGS
@given(value=st.decimals(min_value=Decimal("-99999999.99"), max_value=Decimal("99999999.99"),
                         places=2, allow_nan=False, allow_infinity=False),
       n=st.integers(min_value=-2**31, max_value=2**31 - 1))
def test_numbers_round_trip(ctx: ExecContext, value: Decimal, n: int) -> None:
    if "#num" not in ctx.temp_tables:
        run(ctx, "CREATE TABLE #num (id int IDENTITY PRIMARY KEY, d decimal(10,2), i int)")
    ident = run(ctx, "INSERT INTO #num (d, i) VALUES (@d, @i)", d=(value, "decimal(10,2)"),
                i=(n, "int")).identity
    assert rows(ctx, "SELECT d, i FROM #num WHERE id = @id", id=(ident, "int")) == [(value, n)]
