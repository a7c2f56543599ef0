-- GROUP BY and DISTINCT over a sql_variant column compare values within a family as SQL Server
-- does: tinyint 1, int 1 and 1.00 are one group; 'a' and N'A' (case-insensitive collation) one.
CREATE TABLE dbo.g (id int, v sql_variant)
INSERT dbo.g VALUES (1, CAST(1 AS tinyint)), (2, 1), (3, 1.00), (4, 'a'), (5, N'A'),
    (6, CAST(2.5 AS float)), (7, NULL), (8, 2), (9, 'b'), (10, CAST(1 AS float))
SELECT COUNT(*) AS n, MIN(id) AS first_id FROM dbo.g GROUP BY v ORDER BY MIN(id)
SELECT COUNT(*) AS n, SQL_VARIANT_PROPERTY(v, 'BaseType') AS some_base
FROM dbo.g WHERE id IN (6, 8) GROUP BY v ORDER BY some_base
SELECT id % 2 AS odd, COUNT(*) AS n FROM dbo.g WHERE id IN (1, 2, 3, 8) GROUP BY id % 2, v ORDER BY odd, n
SELECT COUNT(*) AS n FROM (SELECT DISTINCT v FROM dbo.g) d
SELECT COUNT(*) AS n FROM (SELECT DISTINCT id % 2 AS odd, v FROM dbo.g WHERE id IN (1, 2, 4, 5)) d
-- ORDER BY a sql_variant column of a grouped or DISTINCT query: by family, then value.
SELECT v, COUNT(*) AS n FROM dbo.g WHERE id IN (6, 8, 9) GROUP BY v ORDER BY v
SELECT DISTINCT v FROM dbo.g WHERE id IN (6, 7, 8, 9) ORDER BY v
SELECT DISTINCT v FROM dbo.g WHERE id IN (6, 8, 9) ORDER BY v DESC
SELECT DISTINCT TOP (2) v AS first_two FROM dbo.g WHERE id IN (6, 8, 9) ORDER BY v
DROP TABLE dbo.g
