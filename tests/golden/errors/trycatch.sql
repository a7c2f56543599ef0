BEGIN TRY
    DECLARE @x int = 1, @y int
    SET @y = @x / 0
    PRINT 'not reached'
END TRY
BEGIN CATCH
    PRINT ERROR_NUMBER()
    PRINT ERROR_SEVERITY()
    PRINT ERROR_STATE()
    PRINT ERROR_LINE()
    PRINT ERROR_MESSAGE()
    PRINT ISNULL(ERROR_PROCEDURE(), 'no procedure')
END CATCH
PRINT ISNULL(CAST(ERROR_NUMBER() AS varchar(10)), 'NULL outside CATCH')
GO
BEGIN TRY
    BEGIN TRY
        RAISERROR('inner problem', 16, 3)
    END TRY
    BEGIN CATCH
        PRINT 'inner catch: ' + ERROR_MESSAGE();
        THROW;
    END CATCH
END TRY
BEGIN CATCH
    PRINT 'outer catch: ' + CAST(ERROR_NUMBER() AS varchar(10)) + ' state '
        + CAST(ERROR_STATE() AS varchar(10)) + ' line ' + CAST(ERROR_LINE() AS varchar(10))
END CATCH
GO
BEGIN TRY
    RAISERROR('informational only', 10, 1)
    PRINT 'severity 10 is not caught'
END TRY
BEGIN CATCH
    PRINT 'wrong'
END CATCH
GO
BEGIN TRY
    PRINT 'try'
END TRY
BEGIN CATCH
    PRINT 'no error, no catch'
END CATCH
BEGIN TRY
    DECLARE @q int = 1 / 0
END TRY
BEGIN CATCH
    PRINT 'error in catch follows'
    DECLARE @z int = CAST('x' AS int)
    PRINT 'not reached'
END CATCH
PRINT 'not reached either'
GO
PRINT 'next batch runs'
