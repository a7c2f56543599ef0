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
