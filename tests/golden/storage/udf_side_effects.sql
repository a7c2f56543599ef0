-- A scalar function may not change data (Msg 443 at CREATE); it may fill its own table
-- variables, and a query calls it per row without its statements counting rows.
SET NOCOUNT OFF
CREATE TABLE dbo.t (a int)
GO
CREATE FUNCTION dbo.bad(@x int) RETURNS int AS BEGIN INSERT dbo.t VALUES (@x) RETURN 1 END
GO
CREATE FUNCTION dbo.p(@x int) RETURNS int AS BEGIN
  PRINT 'x'
  RETURN 1
END
GO
CREATE FUNCTION dbo.u(@x int) RETURNS int AS BEGIN
  IF @x > 0 BEGIN UPDATE dbo.t SET a = 1 END
  RETURN 1
END
GO
CREATE FUNCTION dbo.ok(@x int) RETURNS int AS BEGIN
  DECLARE @tv TABLE (v int)
  INSERT @tv VALUES (@x), (@x + 1)
  RETURN (SELECT SUM(v) FROM @tv)
END
GO
INSERT dbo.t VALUES (1), (2)
SELECT a, dbo.ok(a) AS s FROM dbo.t ORDER BY a
SELECT name FROM sys.objects WHERE type = 'FN' ORDER BY name
