-- INSTEAD OF triggers on views: a join view's INSERT split into its two tables, UPDATE and
-- DELETE with inserted / deleted as the view's rows, UPDATE(column), @@ROWCOUNT, an aggregate
-- view made writable, nested views, DISABLE / ENABLE, ALTER / DROP, sys.triggers, the errors.
CREATE DATABASE ViewTrig
GO
USE ViewTrig
GO
CREATE TABLE dbo.Person (PersonID int PRIMARY KEY, Name varchar(20) NOT NULL)
CREATE TABLE dbo.Phone (PersonID int NOT NULL, Phone varchar(20))
GO
CREATE VIEW dbo.PersonPhone AS
SELECT p.PersonID, p.Name, ph.Phone
FROM dbo.Person AS p JOIN dbo.Phone AS ph ON ph.PersonID = p.PersonID
GO
-- Without a trigger the join view takes no INSERT that writes both tables.
INSERT dbo.PersonPhone VALUES (9, 'Nobody', '000')
GO
CREATE TRIGGER dbo.PersonPhone_ins ON dbo.PersonPhone INSTEAD OF INSERT
AS
BEGIN
  SELECT @@ROWCOUNT AS rows_in_trigger
  IF UPDATE(Phone) PRINT 'Phone given'
  INSERT dbo.Person (PersonID, Name) SELECT PersonID, Name FROM inserted
  INSERT dbo.Phone (PersonID, Phone) SELECT PersonID, Phone FROM inserted
END
GO
INSERT dbo.PersonPhone VALUES (1, 'Ann', '555-1'), (2, 'Bob', '555-2')
SELECT @@ROWCOUNT AS after_insert
-- Columns not given are NULL in inserted.
INSERT dbo.PersonPhone (PersonID, Name) VALUES (3, 'Cy')
INSERT dbo.PersonPhone (PersonID, Name, Phone) SELECT PersonID + 10, Name + '2', NULL
FROM dbo.Person WHERE PersonID = 1
SELECT * FROM dbo.PersonPhone ORDER BY PersonID
SELECT * FROM dbo.Person ORDER BY PersonID
GO
CREATE TRIGGER dbo.PersonPhone_upd ON dbo.PersonPhone INSTEAD OF UPDATE
AS
BEGIN
  SELECT d.PersonID, d.Name AS old_name, i.Name AS new_name, d.Phone AS old_phone,
         i.Phone AS new_phone
  FROM deleted AS d JOIN inserted AS i ON i.PersonID = d.PersonID ORDER BY d.PersonID
  IF UPDATE(Name) PRINT 'Name updated'
  IF UPDATE(PersonID) PRINT 'PersonID updated'
  UPDATE p SET Name = i.Name FROM dbo.Person AS p JOIN inserted AS i ON i.PersonID = p.PersonID
  UPDATE ph SET Phone = i.Phone
  FROM dbo.Phone AS ph JOIN inserted AS i ON i.PersonID = ph.PersonID
END
GO
UPDATE dbo.PersonPhone SET Name = Name + '!', Phone = '999' WHERE PersonID BETWEEN 2 AND 3
SELECT @@ROWCOUNT AS after_update
SELECT * FROM dbo.PersonPhone ORDER BY PersonID
-- An alias in FROM, and no row: the trigger still runs once.
UPDATE v SET Name = 'x' FROM dbo.PersonPhone AS v WHERE v.PersonID = 42
GO
CREATE TRIGGER dbo.PersonPhone_del ON dbo.PersonPhone INSTEAD OF DELETE
AS
BEGIN
  SELECT * FROM deleted ORDER BY PersonID
  SELECT COUNT(*) AS inserted_rows FROM inserted
  DELETE dbo.Phone WHERE PersonID IN (SELECT PersonID FROM deleted)
  DELETE dbo.Person WHERE PersonID IN (SELECT PersonID FROM deleted)
END
GO
DELETE FROM dbo.PersonPhone WHERE Name LIKE 'A%'
SELECT @@ROWCOUNT AS after_delete
SELECT * FROM dbo.Person ORDER BY PersonID
SELECT name, OBJECT_NAME(parent_id) AS parent, type, is_instead_of_trigger, is_disabled
FROM sys.triggers ORDER BY name
GO
-- One INSTEAD OF trigger per action; AFTER triggers do not go on views.
CREATE TRIGGER dbo.PersonPhone_ins2 ON dbo.PersonPhone INSTEAD OF INSERT, DELETE AS SELECT 1
GO
CREATE TRIGGER dbo.PersonPhone_after ON dbo.PersonPhone AFTER INSERT AS SELECT 1
GO
CREATE TRIGGER dbo.PersonPhone_for ON dbo.PersonPhone FOR UPDATE AS SELECT 1
GO
-- A view WITH CHECK OPTION takes no INSTEAD OF trigger.
CREATE VIEW dbo.Checked AS SELECT PersonID, Name FROM dbo.Person WHERE PersonID > 0
WITH CHECK OPTION
GO
CREATE TRIGGER dbo.Checked_ins ON dbo.Checked INSTEAD OF INSERT AS SELECT 1
GO
-- Disabled, the view is the plain join view again (Msg 4405).
DISABLE TRIGGER dbo.PersonPhone_ins ON dbo.PersonPhone
GO
INSERT dbo.PersonPhone VALUES (5, 'Eve', '555-5')
GO
ENABLE TRIGGER dbo.PersonPhone_ins ON dbo.PersonPhone
INSERT dbo.PersonPhone VALUES (5, 'Eve', '555-5')
SELECT * FROM dbo.PersonPhone WHERE PersonID = 5
GO
-- An error in the trigger rolls the statement (and the trigger's writes) back.
ALTER TRIGGER dbo.PersonPhone_ins ON dbo.PersonPhone INSTEAD OF INSERT
AS
BEGIN
  INSERT dbo.Person (PersonID, Name) SELECT PersonID, Name FROM inserted
  INSERT dbo.Phone (PersonID, Phone) SELECT PersonID, Phone FROM inserted
  IF EXISTS (SELECT 1 FROM inserted WHERE Phone IS NULL)
    THROW 50001, 'Every person needs a phone.', 1
END
GO
INSERT dbo.PersonPhone VALUES (6, 'Fay', '555-6'), (7, 'Gus', NULL)
SELECT 'not reached' AS after_error
GO
SELECT COUNT(*) AS people, @@TRANCOUNT AS trancount FROM dbo.Person WHERE PersonID IN (6, 7)
GO
-- A NOT NULL base column the trigger fills from inserted's NULL: Msg 515 from the trigger.
BEGIN TRY
  INSERT dbo.PersonPhone (PersonID, Phone) VALUES (8, '555-8')
END TRY
BEGIN CATCH
  SELECT ERROR_NUMBER() AS number, ERROR_PROCEDURE() AS in_procedure, XACT_STATE() AS state
  ROLLBACK
END CATCH
SELECT COUNT(*) AS people FROM dbo.Person WHERE PersonID = 8
GO
-- An aggregate view made writable: its INSERT adds to the base table.
CREATE TABLE dbo.Sale (Region varchar(10), Amount int)
GO
CREATE VIEW dbo.RegionTotal AS
SELECT Region, SUM(Amount) AS Total, COUNT(*) AS Sales FROM dbo.Sale GROUP BY Region
GO
UPDATE dbo.RegionTotal SET Total = 0
GO
CREATE TRIGGER dbo.RegionTotal_ins ON dbo.RegionTotal INSTEAD OF INSERT
AS INSERT dbo.Sale (Region, Amount) SELECT Region, Total FROM inserted
GO
CREATE TRIGGER dbo.RegionTotal_upd ON dbo.RegionTotal INSTEAD OF UPDATE
AS
  -- A region's new total: one more sale of the difference.
  INSERT dbo.Sale (Region, Amount)
  SELECT i.Region, i.Total - d.Total FROM inserted AS i JOIN deleted AS d ON d.Region = i.Region
  WHERE i.Total <> d.Total
GO
INSERT dbo.RegionTotal (Region, Total) VALUES ('North', 10), ('South', 5), ('North', 7)
UPDATE dbo.RegionTotal SET Total = 20 WHERE Region = 'North'
SELECT * FROM dbo.RegionTotal ORDER BY Region
GO
-- Nested views: a view over a view. The outer view's trigger writes through the inner view
-- (an updatable one-table view), and inside its own trigger a view's DML is the plain one.
CREATE VIEW dbo.Named AS SELECT PersonID, Name FROM dbo.Person
GO
CREATE VIEW dbo.NamedUpper AS SELECT PersonID, UPPER(Name) AS Name FROM dbo.Named
GO
CREATE TRIGGER dbo.NamedUpper_ins ON dbo.NamedUpper INSTEAD OF INSERT
AS INSERT dbo.Named (PersonID, Name) SELECT PersonID, LOWER(Name) FROM inserted
GO
CREATE TRIGGER dbo.Named_del ON dbo.Named INSTEAD OF DELETE
AS
BEGIN
  PRINT 'Named_del'
  DELETE dbo.Named WHERE PersonID IN (SELECT PersonID FROM deleted WHERE PersonID > 20)
END
GO
INSERT dbo.NamedUpper VALUES (21, 'Hal'), (22, 'Ida')
SELECT * FROM dbo.Named WHERE PersonID > 20 ORDER BY PersonID
SELECT * FROM dbo.NamedUpper WHERE PersonID > 20 ORDER BY PersonID
-- Through the outer view, which has no DELETE trigger: rewritten down to the table.
DELETE dbo.NamedUpper WHERE PersonID = 22
DELETE dbo.Named WHERE PersonID IN (2, 21)
SELECT PersonID, Name FROM dbo.Person ORDER BY PersonID
GO
-- UPDATE … FROM the view joined to a table is Msg 414 (DELETE: 415) when the view has an
-- INSTEAD OF trigger for it; a derived column takes the given value in inserted; an
-- unknown column is Msg 207.
CREATE TABLE dbo.NewName (PersonID int, Name varchar(20))
INSERT dbo.NewName VALUES (3, 'Cyd')
GO
CREATE VIEW dbo.Doubled AS SELECT PersonID, Name, PersonID * 2 AS Twice FROM dbo.Person
GO
CREATE TRIGGER dbo.Doubled_upd ON dbo.Doubled INSTEAD OF UPDATE
AS
BEGIN
  SELECT i.PersonID, d.Name AS old_name, i.Name AS new_name, d.Twice AS old_twice,
         i.Twice AS new_twice
  FROM inserted AS i JOIN deleted AS d ON d.PersonID = i.PersonID
  IF UPDATE(Twice) PRINT 'Twice updated'
  UPDATE p SET Name = i.Name FROM dbo.Person AS p JOIN inserted AS i ON i.PersonID = p.PersonID
END
GO
UPDATE d SET Name = n.Name, Twice = 0 FROM dbo.Doubled AS d JOIN dbo.NewName AS n
ON n.PersonID = d.PersonID
GO
UPDATE dbo.Doubled SET Name = 'x' FROM dbo.NewName AS n WHERE n.PersonID = Doubled.PersonID
GO
DELETE v FROM dbo.PersonPhone AS v JOIN dbo.NewName AS n ON n.PersonID = v.PersonID
GO
UPDATE d SET Name = (SELECT n.Name FROM dbo.NewName AS n WHERE n.PersonID = d.PersonID),
    Twice = 0 FROM dbo.Doubled AS d WHERE d.PersonID = 3
SELECT * FROM dbo.Doubled WHERE PersonID = 3
GO
UPDATE dbo.Doubled SET Nickname = 'x'
GO
-- DROP TRIGGER, and DROP VIEW drops the view's triggers.
DROP TRIGGER dbo.PersonPhone_del
SELECT name FROM sys.triggers WHERE parent_id = OBJECT_ID('dbo.PersonPhone') ORDER BY name
DROP VIEW dbo.PersonPhone
DROP VIEW dbo.NamedUpper
SELECT name FROM sys.triggers ORDER BY name
SELECT COUNT(*) AS objects_left FROM sys.objects WHERE type = 'TR'
GO
USE master
GO
DROP DATABASE ViewTrig
GO
