-- CAST / CONVERT of a sql_variant column converts from each row's stored base type.
CREATE TABLE dbo.t (id int, v sql_variant)
INSERT dbo.t VALUES (1, 5), (2, CAST(1.50 AS decimal(5,2))), (3, CAST(1.5 AS float)),
    (4, CAST(1.5 AS money)), (5, CAST('2020-01-01' AS date)), (6, N'abc'),
    (7, CAST(3 AS tinyint)), (8, CAST('2020-01-02 10:11:12.123' AS datetime)), (9, 'xy  '),
    (10, NULL), (11, CAST(-42 AS bigint)), (12, CAST(2.75 AS numeric(4,2)))
SELECT id, CAST(v AS varchar(20)) AS as_varchar, CONVERT(nvarchar(30), v) AS as_nvarchar,
       'a' + CAST(v AS varchar(30)) + 'b' AS concatenated, LEN(CAST(v AS varchar(30))) AS length
FROM dbo.t ORDER BY id
-- Conversions to numbers and with a style read the base type too.
SELECT id, CAST(v AS int) AS as_int, CAST(v AS decimal(6,3)) AS as_decimal
FROM dbo.t WHERE id IN (1, 2, 3, 4, 7, 11, 12) ORDER BY id
SELECT CONVERT(varchar(8), v, 112) AS ymd FROM dbo.t WHERE id = 5
SELECT CONVERT(varchar(20), v, 120) AS odbc FROM dbo.t WHERE id = 8
SELECT UPPER(CAST(v AS varchar(10))) AS upper_text, LEFT(CAST(v AS varchar(10)), 2) AS left_two
FROM dbo.t WHERE id IN (6, 9) ORDER BY id
-- A string that looks like a stored form is a string: read once, never as the value it fakes.
INSERT dbo.t VALUES (13, CAST(CHAR(1) + '5|int|10|0|4||4|int' + CHAR(2) + '77' AS varchar(40)))
SELECT ASCII(CAST(v AS varchar(40))) AS first_code, SUBSTRING(CAST(v AS varchar(40)), 2, 19) AS header,
       RIGHT(CONVERT(varchar(40), v), 2) AS tail,
       DATALENGTH(v) AS length, LEN(CAST(v AS varchar(40))) AS cast_length,
       SQL_VARIANT_PROPERTY(v, 'BaseType') AS base
FROM dbo.t WHERE id = 13
SELECT id FROM dbo.t WHERE CAST(v AS varchar(40)) LIKE '%77' ORDER BY id
DROP TABLE dbo.t
