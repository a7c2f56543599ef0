PRINT 'before'
;THROW 50001, 'Custom failure', 1
PRINT 'after'
GO
PRINT 'next batch'
BEGIN TRY
    THROW 51000, 'The record does not exist.', 7;
END TRY
BEGIN CATCH
    PRINT CAST(ERROR_NUMBER() AS varchar(10)) + ' ' + CAST(ERROR_SEVERITY() AS varchar(10))
        + ' ' + CAST(ERROR_STATE() AS varchar(10)) + ' ' + ERROR_MESSAGE()
END CATCH
GO
THROW 49999, 'too small', 1
GO
BEGIN TRY
    DECLARE @i int = CAST('abc' AS int)
END TRY
BEGIN CATCH
    THROW
END CATCH
GO
THROW
