-- MERGE with every clause kind and OUTPUT $action / inserted / deleted, to the client and
-- INTO a table variable; OUTPUT of a source column is refused.
CREATE TABLE dbo.tgt (id int PRIMARY KEY, v int)
CREATE TABLE dbo.src (id int, v int)
INSERT dbo.tgt VALUES (1, 10), (2, 20), (3, 30)
INSERT dbo.src VALUES (2, 200), (3, NULL), (4, 400)
MERGE dbo.tgt AS t USING dbo.src AS s ON t.id = s.id
WHEN MATCHED AND s.v IS NULL THEN DELETE
WHEN MATCHED THEN UPDATE SET t.v = s.v
WHEN NOT MATCHED BY TARGET THEN INSERT (id, v) VALUES (s.id, s.v)
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.v = -1
OUTPUT $action, inserted.id, deleted.id, deleted.v AS old_v, inserted.v * 2 AS dbl;
SELECT id, v FROM dbo.tgt ORDER BY id
DECLARE @log TABLE (act nvarchar(10), id int)
MERGE dbo.tgt AS t USING (VALUES (1, 5), (9, 90)) AS s (id, v) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET v = s.v
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)
OUTPUT $action, ISNULL(inserted.id, deleted.id) INTO @log;
SELECT act, id FROM @log ORDER BY id
GO
CREATE TABLE dbo.m (id int PRIMARY KEY, s varchar(10), d datetime, n decimal(6, 2))
INSERT dbo.m VALUES (1, 'a', '2024-01-02 03:04:05', 1.5)
MERGE dbo.m AS t USING (SELECT 1 AS id) AS s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET s = 'b', d = DATEADD(day, 1, d), n = n * 2
OUTPUT $action AS a, deleted.s + '>' + inserted.s AS s, inserted.d, deleted.n, inserted.n;
