-- Views over TOP, OFFSET … FETCH and CTEs are updatable: UPDATE and DELETE write only the
-- rows the view yields (its TOP chosen by its ORDER BY), INSERT writes the base table.
-- TOP under WITH CHECK OPTION is Msg 4427. UNION views: writing a column is Msg 4406, a
-- DELETE Msg 4426 (4405 when the first branch joins); EXCEPT / INTERSECT Msg 4403; a UNION
-- ALL view of plain member tables is taken as a partitioned view, Msg 4436 when no member
-- has CHECK constraints. Messages name the target as the statement writes it.
SET NOCOUNT ON
CREATE TABLE dbo.x (id int, v int, w int)
INSERT INTO dbo.x VALUES (1, 5, 100), (1, 9, 200), (1, 7, 300), (2, 1, 400)
CREATE TABLE dbo.a1 (k int PRIMARY KEY, v int)
CREATE TABLE dbo.a2 (k int PRIMARY KEY, v int)
INSERT INTO dbo.a1 VALUES (1, 10)
INSERT INTO dbo.a2 VALUES (2, 20)
GO
CREATE VIEW dbo.v1 AS SELECT id, v, w FROM dbo.x
GO
CREATE VIEW dbo.vt AS SELECT TOP 1 id, v FROM dbo.v1 ORDER BY v
GO
CREATE VIEW dbo.vt2 AS SELECT TOP (2) id, v AS val FROM dbo.x ORDER BY val DESC
GO
CREATE VIEW dbo.vpage AS SELECT id, v FROM dbo.x WHERE id = 1 ORDER BY v OFFSET 1 ROWS FETCH NEXT 1 ROWS ONLY
GO
CREATE VIEW dbo.vover AS SELECT id AS i, v FROM dbo.vt2 WHERE v > 8
GO
CREATE VIEW dbo.vcte AS WITH c AS (SELECT id, v, w FROM dbo.x WHERE w >= 100) SELECT id, v FROM c WHERE id = 1
GO
CREATE VIEW dbo.vtc AS SELECT TOP 3 id, v FROM dbo.x ORDER BY w WITH CHECK OPTION
GO
CREATE VIEW dbo.vun AS SELECT id, v FROM dbo.x UNION SELECT k, v FROM dbo.a1
GO
CREATE VIEW dbo.vo AS SELECT * FROM dbo.vun
GO
CREATE VIEW dbo.vall AS SELECT id, v FROM dbo.x WHERE w > 0 UNION ALL SELECT k, v FROM dbo.a1
GO
CREATE VIEW dbo.vjun AS SELECT x.id, x.v FROM dbo.x JOIN dbo.a1 ON a1.k = x.id UNION SELECT k, v FROM dbo.a2
GO
CREATE VIEW dbo.vex AS SELECT id, v FROM dbo.x EXCEPT SELECT k, v FROM dbo.a1
GO
CREATE VIEW dbo.pv AS SELECT k, v FROM dbo.a1 UNION ALL SELECT k, v FROM dbo.a2
GO
CREATE VIEW dbo.vdist AS SELECT DISTINCT id FROM dbo.x
GO
CREATE VIEW dbo.vgrp AS SELECT id, MAX(v) AS top_v FROM dbo.x GROUP BY id
GO
UPDATE dbo.vt SET id = 7
SELECT @@ROWCOUNT AS [rowcount]
UPDATE dbo.vt2 SET id = 8 WHERE val < 9
SELECT * FROM dbo.x ORDER BY w
DELETE FROM dbo.vpage
SELECT @@ROWCOUNT AS [rowcount]
UPDATE dbo.vover SET i = 9
INSERT INTO dbo.vt VALUES (3, 3)
SELECT * FROM dbo.x ORDER BY w
GO
PRINT '-- a view with a CTE'
UPDATE dbo.vcte SET v = v * 10
INSERT INTO dbo.vcte VALUES (4, 4)
SELECT * FROM dbo.vcte ORDER BY v
DELETE FROM dbo.vcte WHERE v = 50
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.x ORDER BY w
GO
PRINT '-- MERGE into a TOP view matches only its rows'
MERGE dbo.vt2 AS t USING (VALUES (8, 0)) AS s (id, v) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET val = -t.val;
SELECT * FROM dbo.x ORDER BY w
GO
UPDATE dbo.vtc SET v = 0
PRINT 'not reached'
GO
INSERT INTO dbo.vtc VALUES (1, 1)
GO
UPDATE dbo.vun SET v = 1
GO
INSERT INTO dbo.vun (id) VALUES (1)
GO
DELETE dbo.vun
GO
UPDATE vo SET v = 1
GO
DELETE FROM vo
GO
MERGE dbo.vun AS t USING (VALUES (1)) AS s (id) ON t.id = s.id WHEN MATCHED THEN DELETE;
GO
UPDATE dbo.vall SET v = 1
GO
DELETE dbo.vall
GO
DELETE dbo.vjun
GO
UPDATE dbo.vex SET v = 1
GO
DELETE dbo.vex
GO
UPDATE dbo.pv SET v = 1
GO
INSERT INTO dbo.pv VALUES (3, 30)
GO
DELETE dbo.pv
GO
DELETE dbo.vdist
GO
UPDATE dbo.vgrp SET id = 1
GO
SELECT * FROM dbo.a1
SELECT * FROM dbo.a2
