-- Quantified comparisons (ANY / SOME / ALL over a subquery), with NULLs and empty sets:
-- SQLite has none, the engine rewrites them to EXISTS / NOT EXISTS.
CREATE TABLE dbo.a (id int)
INSERT dbo.a VALUES (1), (2), (3), (NULL)
CREATE TABLE dbo.e (v int)
SELECT COUNT(*) AS c FROM dbo.a WHERE id > ALL (SELECT 1 UNION SELECT 2)
SELECT COUNT(*) AS c FROM dbo.a WHERE id = ANY (SELECT 1 UNION SELECT 2)
SELECT COUNT(*) AS c FROM dbo.a WHERE id >= SOME (SELECT id FROM dbo.a WHERE id > 1)
SELECT COUNT(*) AS c FROM dbo.a WHERE id > ALL (SELECT v FROM dbo.e)
SELECT COUNT(*) AS c FROM dbo.a WHERE id < ALL (SELECT id FROM dbo.a)
SELECT id FROM dbo.a a1 WHERE id <> ALL (SELECT id FROM dbo.a a2 WHERE a2.id > a1.id) ORDER BY id
