-- A derived table or CTE without a column list must name every column of its select list
-- (Msg 8155, raised when the statement is bound, before anything runs); a column list, an
-- alias, a column reference or a star names them.
SELECT * FROM (SELECT 1) x
GO
SELECT * FROM (SELECT 1 + 1, 2 AS b) AS d
GO
SELECT b FROM (SELECT 2 AS b, 3) AS d
GO
WITH c AS (SELECT 1) SELECT * FROM c
GO
SELECT * FROM (SELECT 1 AS a UNION SELECT 2) AS u
GO
SELECT * FROM (SELECT 1 UNION SELECT 2 AS a) AS u
GO
CREATE TABLE dbo.t (a int)
INSERT dbo.t VALUES (4)
GO
SELECT * FROM dbo.t JOIN (SELECT a, a * 2 FROM dbo.t) AS j ON j.a = dbo.t.a
GO
SELECT * FROM (SELECT 1, 2) AS x (p, q)
WITH c (n) AS (SELECT 5) SELECT n FROM c
SELECT * FROM (SELECT * FROM dbo.t) AS s
SELECT (SELECT 9) AS scalar
GO
-- An applied query names its columns the same way (CROSS APPLY and OUTER APPLY alike).
SELECT * FROM dbo.t CROSS APPLY (SELECT 1) AS x
GO
SELECT * FROM dbo.t OUTER APPLY (SELECT t.a + 1 AS b, 2) AS y
GO
SELECT * FROM dbo.t CROSS APPLY (SELECT 1) AS x (c)
SELECT t.a, o.b FROM dbo.t OUTER APPLY (SELECT t.a * 3 AS b) AS o
GO
