-- DATALENGTH of a sql_variant: the bytes of its value in its base type (nvarchar two per
-- character, varchar one, int 4, decimal(5,2) 5 …), of a variable, a CAST and a column.
DECLARE @v sql_variant = CAST(N'abc ' AS nvarchar(10))
SELECT DATALENGTH(@v) AS nvarchar_value, DATALENGTH(CAST(1.5 AS sql_variant)) AS decimal_value,
       DATALENGTH(CAST('xy' AS sql_variant)) AS varchar_value
SET @v = CAST(7 AS bigint)
SELECT DATALENGTH(@v) AS bigint_value
GO
CREATE TABLE dbo.v (id int, v sql_variant)
INSERT dbo.v VALUES (1, CAST(42 AS int)), (2, CAST(N'abc ' AS nvarchar(10))),
  (3, CAST('xy' AS varchar(5))), (4, CAST(1.50 AS decimal(5,2))), (5, NULL),
  (6, CAST('2024-01-02' AS date)), (7, CAST('10:00' AS time(3))), (8, CAST(0x0102 AS varbinary(4))),
  (9, CAST(1.5 AS float)), (10, CAST(2 AS tinyint)), (11, CAST(42 AS smallint))
SELECT id, DATALENGTH(v) AS dl, SQL_VARIANT_PROPERTY(v, 'TotalBytes') AS total FROM dbo.v ORDER BY id
GO
-- INTERSECT and EXCEPT compare sql_variant values as SQL Server does: by family, then by
-- value (int 42 and bigint 42 match, nvarchar 'abc ' and varchar 'ABC' too, decimal 1.50
-- and float 1.5 do not: other families); NULL matches NULL; the result is distinct.
CREATE TABLE dbo.w (k int, v sql_variant)
INSERT dbo.w VALUES (1, CAST(42 AS bigint)), (2, CAST('ABC' AS varchar(5))), (3, CAST(1.5 AS float)), (4, NULL)
SELECT v FROM dbo.v WHERE id IN (1, 2, 3, 4, 5, 11) INTERSECT SELECT v FROM dbo.w ORDER BY v
SELECT v FROM dbo.v WHERE id IN (1, 2, 3, 4, 5, 11) EXCEPT SELECT v FROM dbo.w ORDER BY v
SELECT v AS val FROM dbo.w EXCEPT SELECT v FROM dbo.v ORDER BY val
SELECT COUNT(*) AS n FROM (SELECT v FROM dbo.v INTERSECT SELECT v FROM dbo.w) AS s
GO
