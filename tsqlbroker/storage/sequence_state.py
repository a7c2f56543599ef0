"""How a sequence hands out values, shared by the sequence catalog (engine/sequences.py) and
SQLite's ``tsqlb_nextval`` function (backends/sqlite/functions.py; PostgreSQL's is PL/pgSQL
in engine/sequences.py). State: a ``tsqlb_sequences`` row."""

from __future__ import annotations

from typing import Any

from ..errors import tsql_error


def advance(row: Any, count: int) -> tuple[int, int, int, int | None]:
    """``count`` values from state ``row``: ``(first, last, cycles, next_value after)``;
    Msg 11728 when a sequence without CYCLE has too few values left."""
    inc, lo, hi = int(row["increment"]), int(row["minimum_value"]), int(row["maximum_value"])
    nxt = row["next_value"]
    if nxt is None:
        raise tsql_error(11728, row["name"])
    first = value = int(nxt)
    cycles = 0
    following: int | None = first
    for i in range(count):
        if following is None:
            raise tsql_error(11728 if count == 1 else 11732, row["name"])
        value = following
        following = value + inc
        if not lo <= following <= hi:
            following = (lo if inc > 0 else hi) if row["is_cycling"] else None
            if following is not None and i < count - 1:
                cycles += 1
    return first, value, cycles, following
