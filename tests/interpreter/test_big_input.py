"""A 10 MB literal runs through a session (variables, storage) in a small multiple of its
size, on both stores."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from tsqlbroker.interpreter.sink import CollectingSink

SIZE = 10_000_000


@pytest.mark.parametrize("batch", [
    "DECLARE @s nvarchar(max) = N'{big}'; PRINT LEN(@s)",
    "INSERT INTO t VALUES (N'{big}'); SELECT LEN(v) AS n FROM t",
])
def test_a_10mb_literal_runs_in_bounded_memory(session: Any, sink: CollectingSink,
                                                batch: str) -> None:
    session.execute("CREATE TABLE t (v nvarchar(max)); DECLARE @w nvarchar(max) = N'w';")
    text = batch.replace("{big}", "x" * SIZE)
    tracemalloc.start()
    try:
        session.execute(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.errors() == []
    assert str(SIZE) in sink.messages() + [str(rs.rows[0][0]) for rs in sink.resultsets()]
    assert peak < 10 * SIZE
