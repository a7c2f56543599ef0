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


def _errors(sink: CollectingSink) -> list[int]:
    return [e[1].number for e in sink.events if e[0] == "error"]


def test_table_type_errors(session: Any, sink: CollectingSink) -> None:
    # Msg 2715 for a variable of an unknown type, 206 for a scalar passed to a table-valued
    # parameter, 218 for DROP TYPE of a missing type (IF EXISTS: nothing).
    session.execute(
        "CREATE TYPE dbo.Ids AS TABLE (id int)\n"
        "GO\n"
        "CREATE PROCEDURE dbo.count_ids @ids dbo.Ids READONLY AS SELECT COUNT(*) FROM @ids\n"
        "GO\n"
        "DECLARE @u dbo.NoSuchType\n"
        "GO\n"
        "DECLARE @n int = 1\n"
        "EXEC dbo.count_ids @n\n"
        "GO\n"
        "DROP PROCEDURE dbo.count_ids\n"
        "DROP TYPE dbo.Ids\n"
        "DROP TYPE IF EXISTS dbo.Ids\n"
        "DROP TYPE dbo.Ids\n")
    assert _errors(sink) == [2715, 206, 218]
