-- Common table expressions: recursive (written without RECURSIVE, as T-SQL does), with a
-- column list, several in one WITH, hierarchy walks.
WITH n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT i FROM n ORDER BY i
GO
WITH n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT i FROM n ORDER BY i
GO
CREATE TABLE dbo.emp (id int PRIMARY KEY, name varchar(20), mgr int NULL)
INSERT dbo.emp VALUES (1, 'ann', NULL), (2, 'bob', 1), (3, 'cy', 1), (4, 'di', 3)
;WITH h AS (
  SELECT id, name, mgr, 0 AS lvl, CAST(name AS varchar(100)) AS path
  FROM dbo.emp WHERE mgr IS NULL
  UNION ALL
  SELECT e.id, e.name, e.mgr, h.lvl + 1, CAST(h.path + '/' + e.name AS varchar(100))
  FROM dbo.emp e JOIN h ON e.mgr = h.id)
SELECT id, lvl, path FROM h ORDER BY path
;WITH a AS (SELECT id, mgr FROM dbo.emp), b AS (SELECT id FROM a WHERE mgr = 1)
SELECT COUNT(*) AS c FROM b
GO
-- A CTE feeding UPDATE / DELETE: as the target (one base table, renamed columns, TOP,
-- ROW_NUMBER de-duplication) and as a joined source.
CREATE TABLE dbo.tgt (id int PRIMARY KEY, v int)
INSERT dbo.tgt VALUES (1, 10), (2, 20), (3, 30), (4, 40)
;WITH c AS (SELECT id, v AS w FROM dbo.tgt WHERE id >= 3) UPDATE c SET w = w + 1 WHERE id = 4
;WITH c AS (SELECT TOP (1) id FROM dbo.tgt ORDER BY id) DELETE FROM c
SELECT id, v FROM dbo.tgt ORDER BY id
GO
CREATE TABLE dbo.s (g char(1), x int)
INSERT dbo.s VALUES ('a', 1), ('a', 2), ('a', 2), ('b', 5), ('b', 5), ('c', NULL)
;WITH d AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY g, x ORDER BY x) rn FROM dbo.s)
DELETE FROM d WHERE rn > 1
SELECT g, x FROM dbo.s ORDER BY g, x
;WITH m AS (SELECT g, MAX(x) mx FROM dbo.s GROUP BY g)
UPDATE dbo.s SET x = m.mx FROM dbo.s JOIN m ON m.g = s.g WHERE s.x IS NULL OR s.g = 'a'
SELECT g, x FROM dbo.s ORDER BY g, x
;WITH k AS (SELECT id FROM dbo.tgt WHERE v > 25) DELETE FROM dbo.tgt WHERE id IN (SELECT id FROM k)
SELECT id, v FROM dbo.tgt ORDER BY id
