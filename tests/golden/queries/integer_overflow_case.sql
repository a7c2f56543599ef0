-- A CASE or IIF whose results are integers is of their type of highest precedence: integer
-- arithmetic over it overflows in that type (Msg 8115) on every store.
CREATE TABLE dbo.t (i int, b bigint, s smallint, y tinyint)
INSERT dbo.t VALUES (2147483647, 9223372036854775807, 32767, 255)
GO
SELECT CASE WHEN i > 0 THEN i + 0 ELSE 0 END * 2 AS c FROM dbo.t
GO
SELECT IIF(i > 0, i, 0) * 2 AS c FROM dbo.t
GO
SELECT CASE WHEN i > 0 THEN i END + 1 AS c FROM dbo.t
GO
SELECT CASE WHEN s > 0 THEN s ELSE y END + s AS c FROM dbo.t
GO
SELECT CASE y WHEN 255 THEN y END + y AS c FROM dbo.t
GO
SELECT CASE WHEN s > 0 THEN s ELSE 1 END + s AS widened, CASE WHEN s > 0 THEN 1.5 ELSE s END + s AS dec,
       CASE WHEN s > 0 THEN b ELSE s END - 1 AS big, CASE WHEN s < 0 THEN s END + 1 AS none
FROM dbo.t
GO
DECLARE @s smallint = 1
SELECT CASE WHEN @s > 0 THEN s ELSE @s END + @s FROM dbo.t
GO
