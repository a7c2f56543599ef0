"""Odd and wrong input produces T-SQL errors (or output), never a Python exception."""

from __future__ import annotations

from typing import Any

import pytest

from tsqlbroker.interpreter.sink import CollectingSink

CASES = [
    "PRINT @@NOPE",
    "EXEC sp_executesql",
    "EXEC sp_executesql 'varchar text'",
    "EXEC sp_executesql N'PRINT @a', N'@a int'",
    "EXEC sp_executesql N'SELECT 1', N'@a int', 1, 2",
    "FETCH NEXT FROM nothing",
    "CLOSE nothing",
    "DEALLOCATE nothing",
    "DECLARE @x xml = '<a/>' PRINT @x.value('bad(', 'int')",
    "DECLARE @x xml = '<a>' PRINT 'unreachable'",
    "RAISERROR(NULL, NULL, NULL)",
    "RAISERROR('x', 16, 1, 1, 2, 3, 4)",
    "THROW NULL, NULL, NULL",
    "THROW 50000, NULL, 300",
    "WAITFOR DELAY 'abc'",
    "WAITFOR DELAY NULL",
    "BEGIN TRAN @undeclared",
    "SET DATEFIRST 9",
    "EXEC (NULL)",
    "EXEC ('')",
    "GOTO nowhere",
    "BREAK",
    "CONTINUE",
    "RETURN 1",
    "SELECT 1/0",
    "DECLARE @i int = 'a'",
    "DECLARE @i int, @i int",
    "DECLARE @d date = '2024-02-30'",
    "DECLARE @n tinyint = 300",
    "PRINT CAST(NULL AS xml)",
    "EXEC @undeclared",
    "DECLARE @p sysname = NULL EXEC @p",
    "DECLARE @p sysname = '[a.b' EXEC @p",
    "CREATE PROCEDURE p AS PRINT @nope",
    "CREATE PROCEDURE q @a int, @a int AS RETURN",
    "DROP PROCEDURE nothing",
    "USE [no such db]",
    "DROP DATABASE master",
    "SELECT * FROM nowhere",
    "SELECT @nope = 1 FROM sys.objects",
    "SET @nope = 1",
    "INSERT INTO @nope VALUES (1)",
    "DECLARE @t TABLE (a int) INSERT INTO @t EXEC ('SELECT 1, 2')",
    "COMMIT TRAN",
    "SAVE TRAN x",
    "ROLLBACK TRAN nope",
    "BEGIN TRAN a ROLLBACK TRAN b ROLLBACK",
    "SELECT dbo.no_function(1)",
    "SELECT no_builtin(1)",
    "PRINT LEN()",
    "PRINT SUBSTRING('a')",
    "SELECT OBJECT_ID(NULL), OBJECT_NAME(NULL), DB_NAME(NULL), DB_ID(NULL)",
    "IF 1 PRINT 'x'",
    "WHILE NULL PRINT 'never'",
]


@pytest.mark.parametrize("text", CASES)
def test_no_python_exception(session: Any, sink: CollectingSink, text: str) -> None:
    session.execute(text)
    for err in sink.errors():
        assert err.number != 3624, err.render()  # 3624 = an internal failure surfaced
    session.execute("IF @@TRANCOUNT > 0 ROLLBACK")
