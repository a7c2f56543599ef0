-- A procedure's #temp table hides its caller's of the same name until it ends; an error
-- inside a function stops the function and the statement that called it; INSERT … EXEC
-- rows and counts; errors inside a transaction (208 ends the batch, the transaction stays
-- open; 2812 ends the statement); XACT_STATE() in CATCH under XACT_ABORT ON.
CREATE PROC inner_p AS BEGIN CREATE TABLE #t (y int); INSERT #t VALUES (2); SELECT * FROM #t END
GO
CREATE PROC outer_p AS BEGIN CREATE TABLE #t (x int); INSERT #t VALUES (1); EXEC inner_p; SELECT * FROM #t END
GO
CREATE PROC reader AS SELECT * FROM #t
GO
SET NOCOUNT ON
EXEC outer_p
CREATE TABLE #t (z varchar(5))
INSERT #t VALUES ('batch')
EXEC inner_p
EXEC reader
EXEC outer_p
SELECT * FROM #t
CREATE TABLE #t (again int)
GO
CREATE FUNCTION dbo.div(@x int) RETURNS int AS BEGIN DECLARE @r int = 10 / @x; RETURN @r + 1 END
GO
CREATE FUNCTION dbo.tf(@x int) RETURNS @r TABLE (a int) AS
BEGIN
  INSERT @r VALUES (1)
  INSERT @r VALUES (10 / @x)
  RETURN
END
GO
SET NOCOUNT ON
SELECT dbo.div(0) AS r
PRINT 'the batch goes on'
DECLARE @v int = 5
SET @v = dbo.div(0)
PRINT @v
CREATE TABLE nums (a int)
INSERT nums VALUES (1), (0)
SELECT a, dbo.div(a) AS d FROM nums
SELECT * FROM dbo.tf(0)
BEGIN TRY
  SELECT dbo.div(0)
END TRY
BEGIN CATCH
  PRINT 'caught: ' + ERROR_MESSAGE() + ' in ' + ERROR_PROCEDURE()
END CATCH
SELECT dbo.div(2) AS ok, (SELECT COUNT(*) FROM dbo.tf(5)) AS tf_rows
GO
CREATE TABLE r (x int, y varchar(5))
GO
CREATE PROC two_sets AS BEGIN SELECT 1, 'a'; PRINT 'in proc'; SELECT 2, 'b' UNION ALL SELECT 3, 'c' END
GO
INSERT r EXEC two_sets
PRINT @@ROWCOUNT
INSERT r (y, x) EXEC ('SELECT ''z'', 9')
SELECT x, y FROM r ORDER BY x
GO
BEGIN TRAN
SELECT * FROM no_such_table
PRINT 'not printed: the batch ends'
GO
PRINT @@TRANCOUNT
ROLLBACK
GO
BEGIN TRAN
EXEC no_such_proc
PRINT 'printed: the statement ends'
PRINT @@TRANCOUNT
ROLLBACK
GO
SET XACT_ABORT ON
BEGIN TRY
  BEGIN TRAN
  SELECT 1 / 0
END TRY
BEGIN CATCH
  PRINT XACT_STATE()
  ROLLBACK
END CATCH
PRINT @@TRANCOUNT
