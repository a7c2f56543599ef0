"""How a sequence hands out values, shared by the sequence catalog (``sequences.py``) and
SQLite's ``tsqlb_nextval`` backend function (``sqlfuncs.py``; PostgreSQL's is PL/pgSQL in
``sequences.py``). State: a ``tsqlb_sequences`` row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import BindError, tsql_error

_SQLITE_ROW = "SELECT * FROM tsqlb_sequences WHERE object_id = ?"
_SQLITE_UPDATE = ("UPDATE tsqlb_sequences SET current_value = ?, last_used_value = ?, "
                  "next_value = ? WHERE object_id = ?")


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


def sqlite_nextval(dbapi: Any) -> Callable[[int], int]:
    """SQLite's ``tsqlb_nextval(object_id)`` on connection ``dbapi``: it moves the state row
    through the same connection, inside the calling statement's transaction."""
    def nextval(object_id: int) -> int:
        cursor = dbapi.cursor()
        try:
            cursor.execute(_SQLITE_ROW, (object_id,))
            found = cursor.fetchone()
            if found is None:
                raise tsql_error(208, str(object_id), cls=BindError)
            row = {d[0]: v for d, v in zip(cursor.description, found, strict=True)}
            first, last, _cycles, following = advance(row, 1)
            cursor.execute(_SQLITE_UPDATE, (last, last, following, object_id))
        finally:
            cursor.close()
        return first
    return nextval
