CREATE TABLE src (id int, label varchar(10))
INSERT INTO src VALUES (1, 'one'), (2, 'two'), (3, 'three')
GO
CREATE PROCEDURE get_src @min int AS SELECT id, label FROM src WHERE id >= @min
GO
SET NOCOUNT ON
DECLARE @t TABLE (id int, label varchar(10))
INSERT INTO @t EXEC get_src 2
SELECT id, label FROM @t ORDER BY id
CREATE TABLE #copy (id int, label varchar(10))
INSERT INTO #copy (id, label) EXEC sp_executesql N'SELECT id, label FROM src WHERE id = 1'
SELECT COUNT(*) AS copied FROM #copy
PRINT CASE WHEN OBJECT_ID('tempdb..#copy') IS NOT NULL THEN 'temp table found' END
PRINT CASE WHEN OBJECT_ID('src', 'U') IS NOT NULL THEN 'src is a table' END
PRINT COALESCE(CAST(OBJECT_ID('src', 'P') AS varchar(20)), 'src is not a procedure')
PRINT OBJECT_NAME(OBJECT_ID('get_src'))
CREATE TABLE dbo.[odd name] (id int, label varchar(10))
INSERT INTO master.dbo.[odd name] EXEC get_src 3
INSERT INTO master..[odd name] (id, label) EXEC get_src 1
SELECT COUNT(*) AS odd_rows FROM [odd name]
