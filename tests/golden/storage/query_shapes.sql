SET NOCOUNT ON
-- The new query shapes inside UPDATE, SELECT @v =, loops (compiled plans reused), views, CTEs,
-- derived tables, EXISTS and INSERT … SELECT
CREATE TABLE p (id int, tags varchar(100), js nvarchar(max))
INSERT p (id) VALUES (1), (2)
CREATE TABLE tg (pid int, tag varchar(10))
INSERT tg VALUES (1, 'red'), (1, 'blue'), (2, 'green')
UPDATE p SET tags = STUFF((SELECT ';' + tag FROM tg WHERE tg.pid = p.id ORDER BY tag FOR XML PATH('')), 1, 1, '')
UPDATE p SET js = (SELECT tag FROM tg WHERE tg.pid = p.id ORDER BY tag FOR JSON PATH)
SELECT id, tags, js FROM p ORDER BY id
DECLARE @all varchar(100)
SELECT @all = STUFF((SELECT ',' + tag FROM tg ORDER BY tag FOR XML PATH('')), 1, 1, '')
PRINT @all
DECLARE @i int = 0
WHILE @i < 2
BEGIN
    SELECT TOP (1) WITH TIES pid FROM tg ORDER BY pid
    SELECT tag FROM tg WHERE pid = 9 FOR JSON PATH
    SELECT p.id, x.tag FROM p CROSS APPLY (SELECT TOP (1) tag FROM tg WHERE tg.pid = p.id ORDER BY tag) x ORDER BY p.id
    SET @i += 1
END
GO
CREATE VIEW v_tags AS SELECT p.id, STUFF((SELECT ',' + tag FROM tg WHERE tg.pid = p.id ORDER BY tag FOR XML PATH('')), 1, 1, '') AS tags FROM p
GO
SELECT * FROM v_tags ORDER BY id
;WITH c AS (SELECT id FROM p) SELECT c.id, v.n FROM c CROSS APPLY (VALUES (c.id * 10), (c.id * 100)) v(n) ORDER BY c.id, v.n
SELECT * FROM (SELECT TOP (1) WITH TIES pid, tag FROM tg ORDER BY pid) d ORDER BY tag
SELECT id FROM p WHERE EXISTS (SELECT 1 FROM p AS q CROSS APPLY (SELECT COUNT(*) AS n FROM tg WHERE tg.pid = q.id) z WHERE z.n > 1 AND q.id = p.id)
INSERT INTO p (id, tags) SELECT v.a, v.b FROM (VALUES (3, 'x'), (4, NULL)) AS v(a, b)
SELECT COUNT(*) FROM p
SELECT t.* FROM (VALUES (1, N'a'), (2, N'b')) AS t(n, s) ORDER BY n DESC
GO
-- Views over the new shapes (their backend SQL is read back as a derived table)
CREATE TABLE c (id int, a int, b int)
INSERT c VALUES (1, 10, 11), (2, 20, NULL)
CREATE TABLE o (cust int, amount int)
INSERT o VALUES (1, 5), (1, 7), (2, 1)
GO
CREATE VIEW v1 AS SELECT c.id, v.col FROM c CROSS APPLY (VALUES (c.a), (c.b)) v(col)
GO
CREATE VIEW v2 AS SELECT c.id, x.amount FROM c
OUTER APPLY (SELECT TOP (1) amount FROM o WHERE o.cust = c.id ORDER BY amount DESC) x
GO
CREATE VIEW v3 AS SELECT TOP (1) WITH TIES cust, amount FROM o ORDER BY cust
GO
CREATE VIEW v4 AS SELECT x, y FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, y)
GO
SELECT * FROM v1 ORDER BY id, col
SELECT * FROM v2 ORDER BY id
SELECT * FROM v3 ORDER BY amount
SELECT * FROM v4 ORDER BY x
SELECT v1.id, v4.y FROM v1 JOIN v4 ON v4.x = v1.id WHERE v1.col IS NULL
GO
-- SUM / AVG refuse types SQL Server refuses
CREATE TABLE z (b bit, s varchar(5))
SELECT SUM(b) FROM z
GO
SELECT AVG(s) FROM z
GO
