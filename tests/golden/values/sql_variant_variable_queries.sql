-- A sql_variant variable inside a query with FROM keeps its base type.
CREATE TABLE dbo.t (id int, v sql_variant)
INSERT dbo.t VALUES (1, 1)
DECLARE @v sql_variant = CAST(2 AS smallint)
SELECT id, SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p FROM dbo.t
SET @v = 'abc'
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length,
       SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS total FROM dbo.t
SET @v = CAST(46279.1 AS decimal(8,2))
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s FROM dbo.t
-- INSERT VALUES and INSERT ... SELECT of the variable keep its base type.
SET @v = CAST(2 AS smallint)
INSERT dbo.t VALUES (2, @v)
SET @v = $5
INSERT dbo.t VALUES (3, @v)
SET @v = CAST('2021-03-04' AS date)
INSERT dbo.t SELECT 4, @v FROM dbo.t WHERE id = 1
SET @v = N'xy'
INSERT dbo.t SELECT 5, @v
-- The same statement run again with another base type (no stale plan).
DECLARE @i int = 0
WHILE @i < 2
BEGIN
    IF @i = 0 SET @v = CAST(6 AS tinyint) ELSE SET @v = CAST(7 AS bigint)
    SET @i += 1
    INSERT dbo.t VALUES (5 + @i, @v)
    SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS loop_base FROM dbo.t WHERE id = 1
END
SELECT id, SQL_VARIANT_PROPERTY(v, 'BaseType') AS base, v FROM dbo.t ORDER BY id
-- A value read back into the variable and written again.
SELECT @v = v FROM dbo.t WHERE id = 3
INSERT dbo.t VALUES (8, @v)
SELECT id, SQL_VARIANT_PROPERTY(v, 'BaseType') AS base, v FROM dbo.t WHERE id = 8
-- The variable still compares as its value.
SET @v = 1
SELECT id FROM dbo.t WHERE id = @v
SET @v = NULL
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS null_base FROM dbo.t WHERE id = 1
DROP TABLE dbo.t
