-- CREATE / DROP SYNONYM: the statement page's examples (a synonym for a table, then one
-- for a procedure), sys.synonyms, and the errors.
CREATE DATABASE Syn
GO
USE Syn
GO
CREATE SCHEMA Production
GO
CREATE TABLE Production.Product (ProductID int, Name varchar(20))
INSERT Production.Product VALUES (1, 'Bolt'), (2, 'Nut'), (7, 'Gear')
GO
-- CREATE SYNONYM, example A: a synonym for a table (three-part name).
CREATE SYNONYM MyProduct FOR Syn.Production.Product;
GO
SELECT ProductID, Name FROM MyProduct WHERE ProductID < 5 ORDER BY ProductID;
GO
-- DML through the synonym reaches the base table.
INSERT MyProduct VALUES (3, 'Washer')
UPDATE MyProduct SET Name = 'Big ' + Name WHERE ProductID = 1
DELETE FROM MyProduct WHERE ProductID = 2
SELECT p.ProductID, p.Name FROM dbo.MyProduct AS p JOIN Production.Product AS q
    ON q.ProductID = p.ProductID ORDER BY p.ProductID
SELECT name, type, type_desc, base_object_name FROM sys.synonyms
SELECT name, type, type_desc FROM sys.objects WHERE type = 'SN'
GO
-- A synonym for a procedure, in another schema.
CREATE PROCEDURE Production.Hello @who varchar(10) AS SELECT 'hello ' + @who AS greeting
GO
CREATE SCHEMA Shortcuts
GO
CREATE SYNONYM Shortcuts.Hi FOR Production.Hello
GO
EXEC Shortcuts.Hi 'you'
SELECT name, SCHEMA_NAME(schema_id) AS [schema], base_object_name FROM sys.synonyms
    ORDER BY name
GO
-- The base object need not exist when the synonym is made, only when it is used.
CREATE SYNONYM Later FOR dbo.NotYet
GO
SELECT * FROM Later
GO
CREATE TABLE NotYet (a int)
INSERT Later VALUES (42)
SELECT * FROM Later
GO
-- Errors.
CREATE SYNONYM MyProduct FOR dbo.Other
DROP SYNONYM NoSuch
DROP SYNONYM IF EXISTS NoSuch
GO
DROP SYNONYM MyProduct
DROP SYNONYM Shortcuts.Hi
DROP SYNONYM Later
SELECT COUNT(*) AS synonyms FROM sys.synonyms
SELECT COUNT(*) AS products FROM Production.Product
GO
USE master
DROP DATABASE Syn
