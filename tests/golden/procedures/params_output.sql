CREATE PROCEDURE dbo.add_numbers @a int, @b int = 10, @sum int OUTPUT
AS
BEGIN
    SET @sum = @a + @b
    RETURN @sum * 2
END
GO
DECLARE @s int, @r int
EXEC @r = dbo.add_numbers 1, 2, @s OUTPUT
PRINT @s
PRINT @r
EXEC @r = add_numbers @a = 5, @sum = @s OUTPUT
PRINT @s
PRINT @r
EXEC add_numbers 1, 2, @s
PRINT ISNULL(CAST(@s AS varchar(10)), 'unchanged without OUTPUT')
DECLARE @name sysname = N'add_numbers'
EXEC @r = @name 100, 1, @s OUTPUT
PRINT @s
GO
EXEC add_numbers 1
GO
EXEC add_numbers 1, 2, 3, 4
GO
EXEC add_numbers @a = 1, @nope = 2
GO
EXEC no_such_proc
PRINT 'continues after 2812'
GO
CREATE PROCEDURE leaky AS BEGIN TRAN
GO
EXEC leaky
PRINT @@TRANCOUNT
ROLLBACK
GO
CREATE PROCEDURE show_level AS PRINT @@NESTLEVEL
GO
CREATE PROCEDURE call_level AS EXEC show_level
GO
EXEC call_level
PRINT @@NESTLEVEL
GO
ALTER PROCEDURE show_level AS PRINT 'altered'
GO
EXEC call_level
DROP PROCEDURE show_level
EXEC call_level
DROP PROCEDURE show_level
GO
CREATE PROCEDURE sets_options AS
BEGIN
    SET NOCOUNT ON
    SET LOCK_TIMEOUT 10
    SET DATEFIRST 3
    PRINT @@LOCK_TIMEOUT
END
GO
EXEC sets_options
PRINT @@LOCK_TIMEOUT
PRINT @@DATEFIRST
