-- DECLARE CURSOR … FOR UPDATE OF with columns written with their table (t.c) or alone
CREATE TABLE dbo.stock (item varchar(10), qty int)
INSERT INTO dbo.stock VALUES ('pen', 1), ('ink', 2)
DECLARE by_table CURSOR FOR SELECT item, qty FROM dbo.stock ORDER BY item FOR UPDATE OF stock.qty
DECLARE plain CURSOR FOR SELECT item, qty FROM dbo.stock ORDER BY item FOR UPDATE OF qty, item
OPEN by_table
FETCH NEXT FROM by_table
CLOSE by_table
DEALLOCATE by_table
OPEN plain
FETCH NEXT FROM plain
CLOSE plain
DEALLOCATE plain
