-- MERGE into a view over one base table: only the view's rows match (the others are
-- neither updated nor deleted), its columns are the base table's, INSERT fills the rest
-- with defaults.
SET NOCOUNT ON
CREATE TABLE dbo.stock (id int IDENTITY, sku varchar(5), qty int, active bit DEFAULT 1)
INSERT INTO dbo.stock (sku, qty, active) VALUES ('a', 1, 1), ('b', 2, 1), ('c', 3, 0)
GO
CREATE VIEW dbo.live AS SELECT sku AS code, qty AS amount FROM dbo.stock WHERE active = 1
GO
DECLARE @out TABLE (act nvarchar(10), old_code varchar(5), new_code varchar(5), amount int)
MERGE dbo.live AS t
USING (VALUES ('a', 10), ('c', 30), ('d', 40)) AS s (code, amount) ON t.code = s.code
WHEN MATCHED THEN UPDATE SET amount = t.amount + s.amount
WHEN NOT MATCHED THEN INSERT (code, amount) VALUES (s.code, s.amount)
WHEN NOT MATCHED BY SOURCE THEN DELETE
OUTPUT $action, deleted.code, inserted.code, inserted.amount INTO @out;
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM @out ORDER BY act, old_code, new_code
SELECT sku, qty, active FROM dbo.stock ORDER BY sku, active
