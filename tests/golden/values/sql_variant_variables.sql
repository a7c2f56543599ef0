-- A sql_variant variable keeps the base type of the value assigned to it (not the type its
-- value looks like): declared precision, scale and length included.
DECLARE @v sql_variant = CAST(1.5 AS decimal(5,2))
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length,
       SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS total, SQL_VARIANT_PROPERTY(@v, 'Collation') AS coll,
       @v AS v
SET @v = 1
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length, SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS total
SET @v = 1.5
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s
SET @v = 'abc'
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length,
       SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS total, SQL_VARIANT_PROPERTY(@v, 'Collation') AS coll
SET @v = N'abc'
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length,
       SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS total
SET @v = CAST('abc' AS char(10))
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length
SET @v = GETDATE()
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s
SET @v = CAST('2020-01-01' AS date)
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p, @v AS v
SET @v = CAST(5 AS smallmoney)
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s
-- The base type travels with the value: from variable to variable, through CAST … AS sql_variant.
SET @v = CAST(2 AS tinyint)
DECLARE @w sql_variant = @v
SELECT SQL_VARIANT_PROPERTY(@w, 'BaseType') AS from_variable
SELECT @w = CAST(3 AS smallint)
SELECT SQL_VARIANT_PROPERTY(@w, 'BaseType') AS select_assigned
SET @w = CAST(CAST(7 AS bigint) AS sql_variant)
SELECT SQL_VARIANT_PROPERTY(@w, 'BaseType') AS through_cast,
       SQL_VARIANT_PROPERTY(CAST(CAST(1 AS real) AS sql_variant), 'BaseType') AS cast_argument
-- CAST of a sql_variant converts from its base type: money gives two decimals.
SET @v = $1.5
SELECT CAST(@v AS varchar(20)) AS money_text, CAST(@v AS int) AS money_int
SET @v = NULL
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS null_base, SQL_VARIANT_PROPERTY(@v, 'TotalBytes') AS null_total
-- Values read from a table keep the column's type.
CREATE TABLE dbo.variant_src (a smallint, b nvarchar(10), c decimal(9,3))
INSERT dbo.variant_src VALUES (5, N'xy', 1.25)
SELECT @v = a, @w = c FROM dbo.variant_src
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS a_base, SQL_VARIANT_PROPERTY(@w, 'BaseType') AS c_base,
       SQL_VARIANT_PROPERTY(@w, 'Precision') AS c_p, SQL_VARIANT_PROPERTY(@w, 'Scale') AS c_s
DECLARE cur CURSOR FOR SELECT b FROM dbo.variant_src
OPEN cur
FETCH cur INTO @v
CLOSE cur
DEALLOCATE cur
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS fetched_base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS fetched_length
DROP TABLE dbo.variant_src
GO
-- A (max) type, xml or text cannot be held by a sql_variant: Msg 206 when the batch compiles.
DECLARE @v sql_variant = CAST('a' AS varchar(max))
PRINT 'not reached'
GO
DECLARE @v sql_variant
SET @v = CAST(N'<a/>' AS xml)
GO
-- Parameters: an argument keeps its base type, a default its own, OUTPUT gives it back.
CREATE PROCEDURE dbo.variant_params @x sql_variant, @y sql_variant = 2.50 OUTPUT AS
SELECT SQL_VARIANT_PROPERTY(@x, 'BaseType') AS x_base, SQL_VARIANT_PROPERTY(@y, 'BaseType') AS y_base,
       SQL_VARIANT_PROPERTY(@y, 'Scale') AS y_scale
SET @y = CAST(4 AS smallint)
GO
DECLARE @o sql_variant = CAST(1 AS bigint)
EXEC dbo.variant_params CAST(1 AS tinyint)
EXEC dbo.variant_params N'x', @o OUTPUT
SELECT SQL_VARIANT_PROPERTY(@o, 'BaseType') AS output_base
DECLARE @q sql_variant
EXEC sp_executesql N'SELECT SQL_VARIANT_PROPERTY(@a, ''BaseType'') AS a_base; SET @b = CAST(1 AS bit)',
     N'@a sql_variant, @b sql_variant OUTPUT', @a = CAST(1 AS smallmoney), @b = @q OUTPUT
SELECT SQL_VARIANT_PROPERTY(@q, 'BaseType') AS executesql_output
DROP PROCEDURE dbo.variant_params
GO
