-- A sql_variant column keeps each value's base type: SQL_VARIANT_PROPERTY reads it per row.
CREATE TABLE dbo.variants (id int, v sql_variant)
INSERT dbo.variants VALUES (1, CAST(1 AS tinyint))
INSERT dbo.variants VALUES (2, N'abc')
INSERT dbo.variants VALUES (3, CAST('2020-01-01' AS date))
INSERT dbo.variants VALUES (4, 1.5)
INSERT dbo.variants VALUES (5, 10), (6, 9)
INSERT dbo.variants VALUES (7, NULL)
INSERT dbo.variants VALUES (8, CAST(46279.1 AS decimal(8,2)))
INSERT dbo.variants VALUES (9, 'xyz')
INSERT dbo.variants VALUES (10, $3)
INSERT dbo.variants VALUES (11, CAST(2.5 AS float))
DECLARE @s smallint = 4
INSERT dbo.variants VALUES (12, @s)
SELECT id, SQL_VARIANT_PROPERTY(v, 'BaseType') AS base, SQL_VARIANT_PROPERTY(v, 'Precision') AS p,
       SQL_VARIANT_PROPERTY(v, 'Scale') AS s, SQL_VARIANT_PROPERTY(v, 'MaxLength') AS max_length,
       SQL_VARIANT_PROPERTY(v, 'TotalBytes') AS total, SQL_VARIANT_PROPERTY(v, 'Collation') AS coll,
       SQL_VARIANT_PROPERTY(v, 'nonsense') AS other
FROM dbo.variants ORDER BY id
-- The values read back with their types.
SELECT id, v FROM dbo.variants WHERE id IN (1, 3, 4, 8) ORDER BY id
-- ORDER BY: a higher family sorts after a lower one (strings, exact numbers, approximate
-- numbers, date and time); within one family by value; NULL first.
SELECT id FROM dbo.variants ORDER BY v, id
SELECT id FROM dbo.variants ORDER BY v DESC, id
-- Comparisons: values of one family by value, of different families by family.
SELECT id FROM dbo.variants WHERE v = 10
SELECT id FROM dbo.variants WHERE v = 1 ORDER BY id
SELECT id FROM dbo.variants WHERE v = N'ABC'
SELECT id FROM dbo.variants WHERE v > 5 ORDER BY id
SELECT id FROM dbo.variants WHERE v <> 10 ORDER BY id
SELECT id FROM dbo.variants WHERE v IN (9, N'xyz', 2.5E0) ORDER BY id
SELECT id FROM dbo.variants WHERE v NOT IN (1, 10) ORDER BY id
SELECT id FROM dbo.variants WHERE v BETWEEN 2 AND 10 ORDER BY id
SELECT id, CAST(v AS int) AS as_int FROM dbo.variants WHERE id IN (1, 5, 8, 10) ORDER BY id
SELECT id FROM dbo.variants WHERE SQL_VARIANT_PROPERTY(v, 'BaseType') = 'int' ORDER BY id
-- UPDATE keeps the new value's type.
UPDATE dbo.variants SET v = CAST(7 AS bigint) WHERE id = 6
SELECT SQL_VARIANT_PROPERTY(v, 'BaseType') AS updated_base, v FROM dbo.variants WHERE id = 6
-- Two sql_variant columns compare by family, then by value.
CREATE TABLE dbo.variant_pairs (a sql_variant, b sql_variant)
INSERT dbo.variant_pairs VALUES (CAST(1 AS tinyint), 1)
INSERT dbo.variant_pairs VALUES (2, 1.5)
INSERT dbo.variant_pairs VALUES (N'a', 1)
INSERT dbo.variant_pairs VALUES (CAST(1 AS float), 9)
SELECT SQL_VARIANT_PROPERTY(a, 'BaseType') AS a_base, SQL_VARIANT_PROPERTY(b, 'BaseType') AS b_base,
       CASE WHEN a = b THEN 'equal' WHEN a > b THEN 'greater' ELSE 'less' END AS compared
FROM dbo.variant_pairs
DROP TABLE dbo.variant_pairs
DROP TABLE dbo.variants
