-- compile errors in a module count lines from its batch start
PRINT 1
GO
CREATE PROCEDURE dbo.x AS
BEGIN
    PRINT @nope
END
GO
PRINT 2
GO
/* leading comment */
CREATE PROCEDURE dbo.y AS
    BREAK
