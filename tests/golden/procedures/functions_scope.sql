CREATE FUNCTION dbo.double_it (@v int) RETURNS int
AS
BEGIN
    RETURN @v * 2
END
GO
PRINT dbo.double_it(21)
DECLARE @r int = dbo.double_it(dbo.double_it(5))
PRINT @r
GO
CREATE PROCEDURE reads_missing
AS
BEGIN
    PRINT 'before'
    SELECT * FROM no_such_table
    PRINT 'not reached: 208 ends the procedure'
END
GO
EXEC reads_missing
PRINT 'the caller continues'
BEGIN TRY
    EXEC reads_missing
END TRY
BEGIN CATCH
    PRINT 'caught ' + CAST(ERROR_NUMBER() AS varchar(10)) + ' from ' + ERROR_PROCEDURE()
END CATCH
GO
CREATE PROCEDURE makes_temp AS
BEGIN
    CREATE TABLE #inside (i int)
    INSERT INTO #inside VALUES (1)
    SELECT COUNT(*) AS inside_rows FROM #inside
END
GO
EXEC makes_temp
PRINT COALESCE(CAST(OBJECT_ID('tempdb..#inside') AS varchar(20)), 'dropped with the procedure')
GO
BEGIN TRY
    SELECT * FROM no_such_table
END TRY
BEGIN CATCH
    PRINT 'not caught at the same level'
END CATCH
PRINT 'not reached: the batch ends'
GO
PRINT 'next batch'
