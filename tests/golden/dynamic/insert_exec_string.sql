-- INSERT … EXEC with dynamic SQL as the row source: a literal string and a variable.
SET NOCOUNT ON
CREATE TABLE dbo.src (id int, label varchar(10))
INSERT INTO dbo.src VALUES (1, 'one'), (2, 'two'), (3, 'three')
CREATE TABLE #picked (id int, label varchar(10))
INSERT INTO #picked EXEC ('SELECT id, label FROM dbo.src WHERE id = 1')
DECLARE @sql nvarchar(200) = N'SELECT id, label FROM dbo.src WHERE id > ' + CAST(1 AS nvarchar(5))
INSERT #picked (id, label) EXEC (@sql)
INSERT INTO #picked EXECUTE ('SELECT 9, ''nine''' + ' UNION ALL SELECT 10, ''ten''')
SELECT id, label FROM #picked ORDER BY id
DECLARE @t TABLE (n int)
INSERT INTO @t EXEC ('SELECT COUNT(*) FROM dbo.src')
SELECT n AS counted FROM @t
SET NOCOUNT OFF
INSERT INTO @t EXEC ('SELECT 7 UNION ALL SELECT 8')
PRINT @@ROWCOUNT
INSERT INTO @t EXEC ('SELECT 1, 2')
INSERT INTO @t EXEC ('SELECT * FROM dbo.nope')
