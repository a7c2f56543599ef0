-- MERGE into a view WITH CHECK OPTION: every row it updates or inserts must still be seen
-- through the view, else Msg 550 and the whole statement is undone; deleting is not
-- checked. A view over such a view checks the lower view's condition.
SET NOCOUNT ON
CREATE TABLE dbo.stock (id int PRIMARY KEY, qty int)
INSERT INTO dbo.stock VALUES (1, 5), (2, 50), (3, 500)
GO
CREATE VIEW dbo.small AS SELECT id, qty FROM dbo.stock WHERE qty < 100 WITH CHECK OPTION
GO
CREATE VIEW dbo.small_ids AS SELECT id, qty FROM dbo.small WHERE id < 10
GO
MERGE dbo.small AS t
USING (VALUES (1, 6), (4, 7)) AS s (id, qty) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET qty = s.qty
WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty);
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.stock ORDER BY id
GO
MERGE dbo.small AS t
USING (VALUES (1, 600), (5, 8)) AS s (id, qty) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET qty = s.qty
WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty);
PRINT 'after 550'
SELECT * FROM dbo.stock ORDER BY id
GO
MERGE dbo.small AS t
USING (VALUES (6, 700)) AS s (id, qty) ON t.id = s.id
WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty);
GO
MERGE dbo.small_ids AS t
USING (VALUES (2, 900), (20, 9)) AS s (id, qty) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET qty = s.qty
WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty);
GO
MERGE dbo.small_ids AS t
USING (VALUES (20, 9)) AS s (id, qty) ON t.id = s.id
WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, s.qty);
MERGE dbo.small AS t
USING (VALUES (2)) AS s (id) ON t.id = s.id
WHEN MATCHED THEN DELETE;
SELECT * FROM dbo.stock ORDER BY id
