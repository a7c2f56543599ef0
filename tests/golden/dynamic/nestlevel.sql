-- EXEC (string) runs one level down, sp_executesql two (the system procedure is a level)
SELECT @@NESTLEVEL AS batch
EXEC ('SELECT @@NESTLEVEL AS one_greater')
EXEC sp_executesql N'SELECT @@NESTLEVEL AS two_greater'
GO
CREATE PROC usp_NestLevelValues AS
    SELECT @@NESTLEVEL AS 'Current Nest Level';
EXEC ('SELECT @@NESTLEVEL AS OneGreater');
EXEC sp_executesql N'SELECT @@NESTLEVEL as TwoGreater' ;
GO
EXEC usp_NestLevelValues;
GO
CREATE PROCEDURE dbo.show_level AS PRINT @@NESTLEVEL
GO
EXEC sp_executesql N'EXEC dbo.show_level'
DECLARE @lvl int
EXEC sp_executesql N'SET @l = @@NESTLEVEL', N'@l int OUTPUT', @l = @lvl OUTPUT
PRINT @lvl
PRINT @@NESTLEVEL
