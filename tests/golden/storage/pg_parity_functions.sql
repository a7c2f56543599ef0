-- String, date and JSON functions inside storage queries give the same results on every
-- backend (PostgreSQL: the engine's tsqlb_* functions; SQLite: the interpreter's).
SET NOCOUNT ON
CREATE TABLE dbo.f (id int PRIMARY KEY, s varchar(20), n nvarchar(20), d datetime,
                    d2 datetime2(3), j nvarchar(100))
INSERT INTO dbo.f VALUES
  (1, ' Hello ', N'wörld', '2024-02-09 09:05:07.123', '2024-02-09 21:05:07.5', N'{"a":{"b":[10,"x"]},"n":null}'),
  (2, 'a:b', N'x]y', '1999-12-31 23:59:59', '2000-01-01', N'[1,2]')
GO
SELECT id, STUFF(s, 2, 2, 'XY') AS stuffed, PATINDEX('%l_o%', s) AS pat, QUOTENAME(n) AS q,
       CHARINDEX('L', s, 4) AS ci FROM dbo.f ORDER BY id
SELECT id, DATALENGTH(s) AS ds, DATALENGTH(n) AS dn, CONCAT_WS('-', id, n, NULL, s) AS ws,
       ASCII(n) AS a, CHAR(65 + id) AS c, NCHAR(960 + id) AS nc FROM dbo.f ORDER BY id
GO
SELECT id, ISNUMERIC(s) AS isnum, ISDATE(s) AS isdat, STR(id * 2.5, 6, 1) AS str
FROM dbo.f ORDER BY id
SELECT id FROM dbo.f WHERE ISNUMERIC('1e5') = 1 AND ISDATE('2024-02-30') = 0 ORDER BY id
GO
SELECT id, DATENAME(month, d) AS mon, DATENAME(weekday, d) AS wd, DATENAME(year, d) AS y,
       DATENAME(day, d) AS dd, DATENAME(quarter, d) AS q, DATENAME(dayofyear, d) AS dy
FROM dbo.f ORDER BY id
SELECT id, CAST(d AS varchar(20)) AS dflt, CONVERT(varchar(10), d, 101) AS us,
       CONVERT(varchar(10), d, 103) AS brit, CONVERT(varchar(8), d, 112) AS iso,
       CONVERT(varchar(23), d, 121) AS odbc, CONVERT(varchar(30), d, 126) AS iso8601
FROM dbo.f ORDER BY id
SELECT id, CAST(d2 AS varchar(30)) AS d2, CONVERT(varchar(30), d2, 120) AS d2s,
       CAST(CAST(d AS date) AS varchar(10)) AS dt FROM dbo.f ORDER BY id
GO
SELECT id, JSON_VALUE(j, '$.a.b[0]') AS b0, JSON_VALUE(j, '$.a.b[1]') AS b1,
       JSON_VALUE(j, '$.a') AS obj, JSON_VALUE(j, '$.n') AS nul, JSON_VALUE(j, '$[1]') AS el,
       ISJSON(j) AS isj, ISJSON(s) AS iss FROM dbo.f ORDER BY id
SELECT id, HASHBYTES('MD5', n) AS md5, HASHBYTES('SHA2_256', CAST(s AS varbinary(20))) AS sha
FROM dbo.f WHERE id = 2
GO
-- a literal holding ':' and '":1' is text, not a parameter
SELECT id, '{"k":1}' AS lit FROM dbo.f WHERE s = 'a:b'
GO
-- FLOOR lets NULL through
SELECT id, CAST(FLOOR(CAST(NULLIF(id, 2) AS float) * 2.5) AS int) AS fl FROM dbo.f ORDER BY id
