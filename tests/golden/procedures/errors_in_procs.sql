CREATE PROCEDURE fails_midway
AS
BEGIN
    PRINT 'start'
    DECLARE @x int = 1 / 0
    PRINT 'statement errors do not stop the procedure'
    RAISERROR('custom in proc', 16, 1)
    RETURN 5
END
GO
DECLARE @rc int
EXEC @rc = fails_midway
PRINT @rc
GO
CREATE PROCEDURE inner_throw AS THROW 50010, 'thrown inside', 2
GO
CREATE PROCEDURE outer_catch
AS
BEGIN TRY
    EXEC inner_throw
END TRY
BEGIN CATCH
    PRINT ERROR_PROCEDURE() + ': ' + ERROR_MESSAGE() + ' (line '
        + CAST(ERROR_LINE() AS varchar(10)) + ')'
END CATCH
GO
EXEC outer_catch
GO
CREATE PROCEDURE last_fails AS DECLARE @z int = 1 / 0
GO
EXEC last_fails
PRINT @@ERROR
EXEC ('PRINT ''dynamic ok''')
PRINT @@ERROR
