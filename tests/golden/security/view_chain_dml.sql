-- INSERT / UPDATE / DELETE through a view follow the ownership chain as SELECT does: the
-- base table is not checked when it has the view's owner, and is checked (Msg 229 for the
-- statement's permission) where the chain breaks; what the checks let through is written
-- to the base table.
SET NOCOUNT ON
CREATE TABLE dbo.items (id int, name varchar(20))
INSERT INTO dbo.items VALUES (1, 'one')
CREATE USER vowner WITHOUT LOGIN
CREATE USER writer WITHOUT LOGIN
GO
CREATE VIEW dbo.v_items AS SELECT id, name FROM dbo.items
GO
CREATE SCHEMA other AUTHORIZATION vowner
GO
CREATE VIEW other.v_items AS SELECT id, name FROM dbo.items
GO
CREATE VIEW dbo.v_nested AS SELECT id, name FROM other.v_items
GO
GRANT SELECT, INSERT, UPDATE, DELETE ON dbo.v_items TO writer
GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA::other TO writer
GRANT SELECT, INSERT, UPDATE, DELETE ON dbo.v_nested TO writer
PRINT '-- one owner: the chain holds'
EXECUTE AS USER = 'writer'
INSERT INTO dbo.v_items VALUES (2, 'two')
UPDATE dbo.v_items SET name = 'TWO' WHERE id = 2
DELETE FROM dbo.v_items WHERE id = 2
REVERT
PRINT '-- another owner: the chain breaks'
EXECUTE AS USER = 'writer'
INSERT INTO other.v_items VALUES (3, 'three')
UPDATE other.v_items SET name = 'x' WHERE id = 1
DELETE FROM other.v_items WHERE id = 1
INSERT INTO dbo.v_nested VALUES (3, 'three')
REVERT
PRINT '-- with INSERT on the table'
GRANT INSERT ON dbo.items TO writer
EXECUTE AS USER = 'writer'
INSERT INTO other.v_items VALUES (3, 'three')
UPDATE other.v_items SET name = 'x' WHERE id = 1
REVERT
DENY INSERT ON dbo.items TO writer
EXECUTE AS USER = 'writer'
INSERT INTO dbo.v_items VALUES (4, 'four')
REVERT
SELECT id, name FROM dbo.items ORDER BY id
