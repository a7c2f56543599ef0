RAISERROR(50001, 16, 1)
PRINT 'continues'
RAISERROR('too severe', 19, 1)
RAISERROR('%d', 16, 1, 'not a number')
BEGIN TRY
    RAISERROR('state %d', 11, 9, 9)
END TRY
BEGIN CATCH
    PRINT CAST(ERROR_SEVERITY() AS varchar(5)) + '/' + CAST(ERROR_STATE() AS varchar(5))
        + ' ' + ERROR_MESSAGE()
END CATCH
EXEC ('SELECT 1 +')
PRINT 'after dynamic syntax error'
SELECT NULL AS nothing, 0x0A0B AS bin, CAST('6F9619FF-8B86-D011-B42D-00C04FC964FF' AS uniqueidentifier), N'x' + 'y'
