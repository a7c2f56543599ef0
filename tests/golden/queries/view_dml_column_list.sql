-- A view with a column list over a join: its columns pair with the select list by
-- position, so two same-named source columns (a.id, b.id) stay two columns.
CREATE TABLE dbo.a (id int PRIMARY KEY, p int)
CREATE TABLE dbo.b (id int PRIMARY KEY, aid int)
INSERT dbo.a VALUES (1, 10), (2, 20)
INSERT dbo.b VALUES (100, 1), (200, 2)
GO
CREATE VIEW dbo.v (x1, x2, p) AS SELECT a.id, b.id, a.p FROM dbo.a JOIN dbo.b ON b.aid = a.id
GO
SELECT x1, x2, p FROM dbo.v ORDER BY x1
PRINT '-- x1 is a.id'
UPDATE dbo.v SET x1 = 5 WHERE x2 = 100
SELECT id, p FROM dbo.a ORDER BY id
SELECT id, aid FROM dbo.b ORDER BY id
PRINT '-- x2 is b.id'
UPDATE dbo.v SET x2 = 300 WHERE x2 = 200
SELECT id, p FROM dbo.a ORDER BY id
SELECT id, aid FROM dbo.b ORDER BY id
PRINT '-- a column named like a source column is still the one at its position'
GO
CREATE VIEW dbo.w (id, p) AS SELECT b.id, a.p FROM dbo.a JOIN dbo.b ON b.aid = a.id
GO
UPDATE dbo.w SET id = 400 WHERE p = 20
SELECT id, aid FROM dbo.b ORDER BY id
SELECT id, p FROM dbo.w ORDER BY id
