-- A string beginning with CHAR(1) (the first character of a sql_variant column's stored
-- form) is a value like any other: stored with its own base type, the table still reads.
CREATE TABLE dbo.t (id int PRIMARY KEY, v sql_variant)
INSERT dbo.t VALUES (1, CAST(CHAR(1) AS varchar(1)))
INSERT dbo.t VALUES (2, CAST(CHAR(1) + '9|int|10|0|4||6|int' + CHAR(2) + '5' AS varchar(30)))
INSERT dbo.t VALUES (3, 5)
INSERT dbo.t SELECT 4, v FROM dbo.t WHERE id = 2
SELECT id, CAST(SQL_VARIANT_PROPERTY(v, 'BaseType') AS sysname) AS base,
    CAST(SQL_VARIANT_PROPERTY(v, 'MaxLength') AS int) AS max_length
FROM dbo.t ORDER BY id
SELECT COUNT(*) AS n FROM dbo.t WHERE v = CHAR(1)
DECLARE @v sql_variant
SELECT @v = v FROM dbo.t WHERE id = 1
SELECT CAST(SQL_VARIANT_PROPERTY(@v, 'BaseType') AS sysname) AS base, ASCII(CAST(@v AS varchar(1))) AS code
