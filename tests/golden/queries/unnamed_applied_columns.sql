-- Msg 8155 for an applied query or table value constructor whose columns have no names,
-- raised when the statement is bound: before anything runs (so a DML statement is not
-- followed by "The statement has been terminated."), and before any other refusal.
CREATE TABLE dbo.t (a int)
INSERT dbo.t VALUES (4)
GO
SELECT * FROM dbo.t CROSS APPLY (SELECT 1) x
GO
SELECT * FROM dbo.t OUTER APPLY (SELECT 1) x
GO
SELECT x.* FROM dbo.t CROSS APPLY (SELECT 1 UNION ALL SELECT 2) x
GO
SELECT t.a FROM dbo.t CROSS APPLY (SELECT TOP 1 a + 1 FROM dbo.t) x
GO
SELECT * FROM dbo.t CROSS APPLY (VALUES (1)) x
GO
SELECT * FROM dbo.t OUTER APPLY (VALUES (1, 2)) AS y
GO
SELECT * FROM (VALUES (1)) v
GO
SELECT * FROM dbo.t JOIN (VALUES (1)) AS v ON 1 = 1
GO
WITH c AS (SELECT * FROM (VALUES (1)) v) SELECT * FROM c
GO
MERGE dbo.t AS t USING (VALUES (4)) AS s ON t.a = 4 WHEN MATCHED THEN DELETE;
GO
UPDATE t SET a = 5 FROM dbo.t t CROSS APPLY (SELECT 1) x
GO
INSERT dbo.t SELECT t.a FROM dbo.t t OUTER APPLY (SELECT 1) x
GO
DELETE t FROM dbo.t t JOIN (SELECT 1) d ON 1 = 1
GO
SELECT * INTO #n FROM dbo.t CROSS APPLY (SELECT 1) x
GO
SELECT * FROM dbo.t CROSS APPLY (SELECT 1) x (c) CROSS APPLY (SELECT 2) y
GO
SELECT (SELECT COUNT(*) FROM dbo.t CROSS APPLY (SELECT 1) x) AS c
GO
-- Named, they run.
SELECT * FROM dbo.t CROSS APPLY (VALUES (1, 2)) x (p, q) CROSS APPLY (SELECT 3 AS r) y
SELECT * FROM (VALUES (7)) v (n)
UPDATE t SET a = x.c FROM dbo.t t CROSS APPLY (SELECT 5) x (c)
SELECT a FROM dbo.t
GO
