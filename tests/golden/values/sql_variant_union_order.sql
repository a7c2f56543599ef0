-- ORDER BY a sql_variant column of a UNION sorts by family (strings, exact numbers,
-- approximate numbers, date and time), then by value.
CREATE TABLE dbo.a (id int, v sql_variant)
CREATE TABLE dbo.b (id int, v sql_variant)
INSERT dbo.a VALUES (1, 10), (2, 'x'), (3, CAST(2.5 AS float))
INSERT dbo.b VALUES (4, 9), (5, N'Y'), (6, CAST('2020-01-01' AS date)), (7, 10)
SELECT v FROM dbo.a UNION SELECT v FROM dbo.b WHERE id < 7 ORDER BY v
SELECT id, v FROM dbo.a UNION ALL SELECT id, v FROM dbo.b ORDER BY v DESC, id
SELECT id, v AS value FROM dbo.a UNION ALL SELECT id, v FROM dbo.b ORDER BY id DESC
DROP TABLE dbo.a
DROP TABLE dbo.b
