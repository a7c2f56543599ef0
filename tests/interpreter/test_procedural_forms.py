"""Everyday procedural forms whose SQL Server answer is not pinned by a golden script."""

from __future__ import annotations

from typing import Any

from tsqlbroker.interpreter.sink import CollectingSink


def _messages(sink: CollectingSink) -> list[str]:
    return [e[1] for e in sink.events if e[0] == "message"]


def test_cursor_status_of_cursor_variables(session: Any, sink: CollectingSink) -> None:
    # -2: a declared cursor variable with no cursor assigned (again after DEALLOCATE);
    # -3: no such variable; NULL for a scope word that is not local/global/variable.
    session.execute(
        "DECLARE @c CURSOR\n"
        "PRINT CURSOR_STATUS('variable', '@c')\n"
        "SET @c = CURSOR FAST_FORWARD FOR SELECT 1 WHERE 1 = 0\n"
        "OPEN @c\n"
        "PRINT CURSOR_STATUS('variable', '@c')\n"
        "CLOSE @c DEALLOCATE @c\n"
        "PRINT CURSOR_STATUS('variable', '@c')\n"
        "PRINT CURSOR_STATUS('variable', '@missing')\n"
        "PRINT ISNULL(CAST(CURSOR_STATUS('elsewhere', 'c') AS varchar(5)), 'null')\n")
    assert _messages(sink) == ["-2", "1", "-2", "-3", "null"]
