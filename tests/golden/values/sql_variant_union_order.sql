-- ORDER BY a sql_variant column of a UNION sorts by family (strings, exact numbers,
-- approximate numbers, date and time), then by value.
CREATE TABLE dbo.a (id int, v sql_variant)
CREATE TABLE dbo.b (id int, v sql_variant)
INSERT dbo.a VALUES (1, 10), (2, 'x'), (3, CAST(2.5 AS float))
INSERT dbo.b VALUES (4, 9), (5, N'Y'), (6, CAST('2020-01-01' AS date)), (7, 10)
SELECT v FROM dbo.a UNION SELECT v FROM dbo.b WHERE id < 7 ORDER BY v
SELECT id, v FROM dbo.a UNION ALL SELECT id, v FROM dbo.b ORDER BY v DESC, id
SELECT id, v AS value FROM dbo.a UNION ALL SELECT id, v FROM dbo.b ORDER BY id DESC
-- UNION's duplicates are the rows whose values compare equal: tinyint 1 and int 1, 'q' and N'Q'.
INSERT dbo.a VALUES (8, CAST(1 AS tinyint)), (9, 'q')
INSERT dbo.b VALUES (10, 1), (11, N'Q')
SELECT COUNT(*) AS n FROM (SELECT v FROM dbo.a UNION SELECT v FROM dbo.b) u
SELECT COUNT(*) AS n FROM (SELECT v FROM dbo.a UNION ALL SELECT v FROM dbo.b) u
SELECT v FROM dbo.a WHERE id IN (1, 3, 8) UNION SELECT v FROM dbo.b WHERE id IN (4, 6, 10) ORDER BY v DESC
SELECT id % 2 AS odd, v AS value FROM dbo.a WHERE id IN (1, 8) UNION SELECT id % 2, v FROM dbo.b WHERE id IN (7, 10)
ORDER BY odd, value
DROP TABLE dbo.a
DROP TABLE dbo.b
