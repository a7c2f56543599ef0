-- OUTPUT and TOP (n) on INSERT, UPDATE and DELETE through a view: OUTPUT reads the view's
-- columns (inserted.* / deleted.* are the view's, a derived one computed from the row).
-- With an INSTEAD OF trigger on the view, OUTPUT without INTO is Msg 334 (the target may
-- have no enabled trigger); OUTPUT … INTO gets the rows as if the statement had run, and
-- TOP (n) hands the trigger n rows. (Duplicate rows keep TOP's choice the same everywhere.)
SET NOCOUNT ON
CREATE TABLE dbo.t (id int, v int)
INSERT INTO dbo.t VALUES (1, 10), (1, 10), (2, 20), (2, 20), (3, 30)
CREATE TABLE dbo.log1 (msg varchar(40))
GO
CREATE VIEW dbo.vv AS SELECT id, v, v * 2 AS d FROM dbo.t WHERE id < 10
GO
CREATE VIEW dbo.vi AS SELECT id, v FROM dbo.t
GO
CREATE TRIGGER dbo.vi_io ON dbo.vi INSTEAD OF INSERT, UPDATE, DELETE AS
    INSERT INTO dbo.log1 SELECT CONCAT('i', id, ':', v) FROM inserted
    UNION ALL SELECT CONCAT('d', id, ':', v) FROM deleted
GO
UPDATE TOP (1) dbo.vv SET v = 0 OUTPUT inserted.id, deleted.v, inserted.d WHERE id = 1
DELETE TOP (1) FROM dbo.vv OUTPUT deleted.* WHERE id = 2
INSERT TOP (1) INTO dbo.vv (id, v) OUTPUT inserted.* SELECT 7, 70 UNION ALL SELECT 7, 70
INSERT TOP (1) INTO dbo.t SELECT 8, 80 UNION ALL SELECT 8, 80
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.t ORDER BY id, v
GO
PRINT '-- INSTEAD OF trigger: OUTPUT INTO and TOP'
DECLARE @o TABLE (act varchar(10), old_id int, old_v int, new_id int, new_v int)
UPDATE TOP (1) dbo.vi SET v = v + 1
    OUTPUT 'update', deleted.id, deleted.v, inserted.id, inserted.v INTO @o
    WHERE id = 1 AND v = 10
SELECT @@ROWCOUNT AS [rowcount]
DELETE FROM dbo.vi OUTPUT 'delete', deleted.id, deleted.v, NULL, NULL INTO @o WHERE id = 8
INSERT INTO dbo.vi (id, v) OUTPUT 'insert', NULL, NULL, inserted.id, inserted.v INTO @o
    VALUES (5, 50)
DECLARE @n int = 1
DELETE TOP (@n) FROM dbo.vi WHERE id = 2
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM @o ORDER BY act, old_id, new_id
SELECT msg FROM dbo.log1 ORDER BY msg
SELECT * FROM dbo.t ORDER BY id, v
GO
UPDATE dbo.vi SET v = 0 OUTPUT inserted.v
PRINT 'not reached'
GO
DELETE FROM dbo.vi OUTPUT deleted.id
GO
INSERT INTO dbo.vi OUTPUT inserted.id VALUES (6, 60)
GO
SELECT COUNT(*) AS log_rows FROM dbo.log1
GO
PRINT '-- INSERT TOP (n): n an integer, not negative (as UPDATE / DELETE TOP)'
DECLARE @neg int = -1
INSERT TOP (@neg) INTO dbo.t SELECT 9, 90
GO
INSERT TOP (-1) INTO dbo.t SELECT 9, 90
GO
INSERT TOP (1.5) INTO dbo.t SELECT 9, 90
GO
PRINT '-- TOP … PERCENT on DML is not implemented: refused, nothing written'
INSERT TOP (50) PERCENT INTO dbo.t SELECT 9, 90
DELETE TOP (50) PERCENT FROM dbo.t
GO
SELECT COUNT(*) AS nines FROM dbo.t WHERE id = 9
