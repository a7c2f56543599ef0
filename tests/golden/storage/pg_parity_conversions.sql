-- Conversions inside storage queries: the same on every backend (PostgreSQL runs them in
-- PL/pgSQL, SQLite through the interpreter's converter).
SET NOCOUNT ON
CREATE TABLE dbo.conv (id int PRIMARY KEY, s varchar(20), n nvarchar(20), b varbinary(50),
                       d decimal(6,2), f float)
INSERT INTO dbo.conv VALUES (1, '42', N'Ab', 0x414243, 1.75, -2.5),
                            (2, 'x12', N'héllo', 0x0000002A, -3.99, 1e3),
                            (3, ' 7 ', N'€', 0xFFFFFFFE, 0.5, 7.9),
                            (4, NULL, NULL, NULL, NULL, NULL)
GO
-- TRY_CAST / TRY_CONVERT give NULL where the value does not convert
SELECT id, TRY_CAST(s AS int) AS i, TRY_CONVERT(int, s) AS c, TRY_CAST(s AS decimal(5,1)) AS dd,
       TRY_CAST(n AS float) AS nf FROM dbo.conv ORDER BY id
SELECT id, TRY_CAST(d AS tinyint) AS t FROM dbo.conv ORDER BY id
SELECT COUNT(*) AS numbers FROM dbo.conv WHERE TRY_CAST(s AS int) IS NOT NULL
GO
-- numbers to int truncate toward zero
SELECT id, CAST(d AS int) AS di, CAST(f AS int) AS fi FROM dbo.conv WHERE id < 4 ORDER BY id
GO
-- varbinary to varchar reads code-page bytes, to nvarchar UTF-16LE
SELECT id, CAST(b AS varchar(10)) AS v, CAST(b AS int) AS i FROM dbo.conv
WHERE id IN (1, 3, 4) ORDER BY id
DECLARE @u varbinary(20) = CAST(N'hé' AS varbinary(20))
SELECT CAST(@u AS nvarchar(10)) AS nv, CAST(b AS nvarchar(10)) AS nb FROM dbo.conv WHERE id = 1
GO
-- character data to varbinary: varchar one byte, nvarchar two bytes per character
SELECT id, CAST(s AS varbinary(10)) AS vs, CAST(n AS varbinary(20)) AS vn FROM dbo.conv
ORDER BY id
-- integers to binary: big-endian bytes of the type's size
SELECT id, CAST(id AS varbinary(4)) AS v4, CAST(id * -1 AS binary(2)) AS b2,
       CAST(CAST(id AS smallint) AS varbinary(8)) AS s FROM dbo.conv WHERE id < 3 ORDER BY id
GO
-- a message body decoded inside INSERT ... SELECT (as tests/concurrency/cc_env.py does)
CREATE TABLE dbo.bodies (body varbinary(100))
INSERT INTO dbo.bodies VALUES (CAST('3:14' AS varbinary(100))), (CAST('10:2' AS varbinary(100)))
CREATE TABLE dbo.parsed (g int, c int)
INSERT INTO dbo.parsed (g, c)
SELECT CAST(LEFT(t.v, CHARINDEX(':', t.v) - 1) AS int),
       CAST(SUBSTRING(t.v, CHARINDEX(':', t.v) + 1, 10) AS int)
FROM (SELECT CAST(body AS varchar(100)) AS v FROM dbo.bodies) AS t
SELECT g, c FROM dbo.parsed ORDER BY g
GO
-- conversion errors are SQL Server's
SELECT CAST(s AS int) AS i FROM dbo.conv WHERE id = 2
GO
SELECT CAST(n AS decimal(5,2)) AS i FROM dbo.conv WHERE id = 2
GO
SELECT CAST(d AS tinyint) AS t FROM dbo.conv WHERE id = 2
GO
SELECT CAST(id * 1000 AS tinyint) AS t FROM dbo.conv WHERE id = 1
GO
SELECT CAST(s + '9999999999' AS int) AS t FROM dbo.conv WHERE id = 1
GO
SELECT CAST(n AS uniqueidentifier) AS g FROM dbo.conv WHERE id = 1
GO
-- a scalar subquery converts as the type of its column (varchar: one byte per character)
SELECT CAST((SELECT s FROM dbo.conv WHERE id = 1) AS varbinary(10)) AS sub,
       CAST(CASE WHEN id = 2 THEN n END AS varbinary(10)) AS cased
FROM dbo.conv WHERE id = 2
GO
SELECT CAST((SELECT n FROM dbo.conv WHERE id = 1) AS int) AS i FROM dbo.conv WHERE id = 1
GO
PRINT 'done'
