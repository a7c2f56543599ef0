DECLARE @sql nvarchar(200) = N'PRINT ''dynamic at level '' + CAST(@@NESTLEVEL AS varchar(5))'
EXEC (@sql)
EXEC ('PRINT ''concatenated '' + ''parts''' + ';')
DECLARE @r int
EXEC sp_executesql N'SET @out = @a * 2', N'@a int, @out int OUTPUT', @a = 21, @out = @r OUTPUT
PRINT @r
EXEC sp_executesql N'PRINT @p', N'@p varchar(20)', 'positional'
EXEC sp_executesql N'PRINT ''no parameters'''
GO
CREATE DATABASE dyn_db
GO
EXEC ('USE dyn_db; PRINT DB_NAME()')
PRINT DB_NAME()
EXEC ('PRINT @undeclared')
PRINT 'the caller continues'
DECLARE @outer int = 1
EXEC ('PRINT @outer')
GO
DROP DATABASE dyn_db
PRINT DB_ID('dyn_db')
GO
EXEC sp_executesql N'PRINT @a', N'@a int'
SELECT no_such_builtin(1)
GO
EXEC sp_executesql N'PRINT @a', N'@a int'
