-- A value read back from a sql_variant column and written again keeps its base type.
CREATE TABLE dbo.src (id int, v sql_variant)
INSERT dbo.src VALUES (1, CAST(1 AS tinyint)), (2, N'abc'), (3, CAST(46279.1 AS decimal(8,2))),
    (4, $3), (5, 'xy'), (6, CAST(2.5 AS float)), (7, CAST('2020-01-02' AS date)), (8, NULL)
-- SELECT @v = column: the variable keeps the stored base type.
DECLARE @v sql_variant
SELECT @v = v FROM dbo.src WHERE id = 1
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length
SELECT @v = v FROM dbo.src WHERE id = 4
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, CAST(@v AS varchar(10)) AS as_text
SELECT @v = v FROM dbo.src WHERE id = 3
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(@v, 'Scale') AS s
SELECT @v = v FROM dbo.src WHERE id = 5
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(@v, 'MaxLength') AS max_length
-- INSERT ... SELECT into a sql_variant column: each row keeps its base type.
CREATE TABLE dbo.copy (id int, v sql_variant)
INSERT dbo.copy SELECT id, v FROM dbo.src
SELECT id, SQL_VARIANT_PROPERTY(v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(v, 'TotalBytes') AS total, v
FROM dbo.copy ORDER BY id
-- SELECT ... INTO: the new column is sql_variant and the rows keep their types.
SELECT id, v INTO dbo.copied FROM dbo.src WHERE id <> 8
SELECT id, SQL_VARIANT_PROPERTY(v, 'BaseType') AS base, v FROM dbo.copied ORDER BY id
SELECT c.name, t.name AS type_name FROM sys.columns c JOIN sys.types t ON t.user_type_id = c.user_type_id
WHERE c.object_id = OBJECT_ID('dbo.copied') ORDER BY c.column_id
-- Into a column of another type the value converts from its base type.
CREATE TABLE dbo.ints (id int, n int)
INSERT dbo.ints SELECT id, v FROM dbo.src WHERE id IN (1, 3, 4)
SELECT id, n FROM dbo.ints ORDER BY id
-- FETCH INTO a sql_variant variable: each row's own base type.
DECLARE c CURSOR FOR SELECT v FROM dbo.src WHERE id IN (1, 4) ORDER BY id
OPEN c
FETCH NEXT FROM c INTO @v
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS fetched_base
FETCH NEXT FROM c INTO @v
SELECT SQL_VARIANT_PROPERTY(@v, 'BaseType') AS fetched_base
CLOSE c
DEALLOCATE c
DROP TABLE dbo.ints
DROP TABLE dbo.copied
DROP TABLE dbo.copy
DROP TABLE dbo.src
