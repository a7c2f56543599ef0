-- DML triggers: the examples of SQL Server's CREATE TRIGGER page (A: a reminder; C: a
-- business rule that rolls back), inserted / deleted, UPDATE(column), INSTEAD OF, nesting,
-- DISABLE / ENABLE, sys.triggers, DROP, and the errors.
CREATE DATABASE Trig
GO
USE Trig
GO
CREATE SCHEMA Sales
GO
CREATE SCHEMA Purchasing
GO
CREATE TABLE Sales.Customer (CustomerID int PRIMARY KEY, Name varchar(20))
CREATE TABLE Purchasing.Vendor (BusinessEntityID int PRIMARY KEY, CreditRating tinyint)
CREATE TABLE Purchasing.PurchaseOrderHeader (PurchaseOrderID int PRIMARY KEY, VendorID int)
INSERT Purchasing.Vendor VALUES (1, 1), (2, 5)
GO
-- Example A: a trigger that raises a reminder.
CREATE TRIGGER reminder1 ON Sales.Customer
AFTER INSERT, UPDATE
AS RAISERROR ('Notify Customer Relations', 16, 10);
GO
INSERT Sales.Customer VALUES (1, 'Contoso')
UPDATE Sales.Customer SET Name = 'Fabrikam' WHERE CustomerID = 1
SELECT * FROM Sales.Customer
GO
-- Example C: a business rule between tables; the trigger rolls the insert back.
CREATE TRIGGER Purchasing.LowCredit ON Purchasing.PurchaseOrderHeader
AFTER INSERT
AS
IF (ROWCOUNT_BIG() = 0)
RETURN;
IF EXISTS (SELECT 1
           FROM inserted AS i
           JOIN Purchasing.Vendor AS v
           ON v.BusinessEntityID = i.VendorID
           WHERE v.CreditRating = 5
          )
BEGIN
RAISERROR ('A vendor''s credit rating is too low to accept new purchase orders.', 16, 1);
ROLLBACK TRANSACTION;
RETURN
END;
GO
INSERT Purchasing.PurchaseOrderHeader VALUES (10, 1)
INSERT Purchasing.PurchaseOrderHeader VALUES (11, 2)
SELECT 'not reached' AS after_rollback
GO
SELECT * FROM Purchasing.PurchaseOrderHeader
SELECT @@TRANCOUNT AS trancount
GO
-- inserted and deleted, UPDATE(column), @@TRANCOUNT inside; an audit table.
CREATE TABLE dbo.Orders (id int PRIMARY KEY, qty int, note varchar(20))
CREATE TABLE dbo.Audit (seq int IDENTITY, what varchar(10), id int, old_qty int, new_qty int)
GO
CREATE TRIGGER dbo.trOrders ON dbo.Orders AFTER INSERT, UPDATE, DELETE AS
BEGIN
    SET NOCOUNT ON
    INSERT dbo.Audit (what, id, old_qty, new_qty)
        SELECT CASE WHEN d.id IS NULL THEN 'insert' ELSE 'update' END, i.id, d.qty, i.qty
        FROM inserted AS i LEFT JOIN deleted AS d ON d.id = i.id
    INSERT dbo.Audit (what, id, old_qty, new_qty)
        SELECT 'delete', d.id, d.qty, NULL FROM deleted AS d
        WHERE NOT EXISTS (SELECT 1 FROM inserted)
    IF UPDATE(qty) PRINT 'qty written'
    IF UPDATE(note) PRINT 'note written'
    PRINT 'trancount ' + CAST(@@TRANCOUNT AS varchar(5))
END
GO
INSERT dbo.Orders VALUES (1, 10, 'a'), (2, 20, 'b')
UPDATE dbo.Orders SET qty = qty + 1 WHERE id = 1
DELETE dbo.Orders WHERE id = 2
SELECT seq, what, id, old_qty, new_qty FROM dbo.Audit ORDER BY seq
GO
-- An error in the statement's trigger undoes the statement: inside a transaction too.
BEGIN TRAN
INSERT dbo.Orders VALUES (3, 30, 'c')
SELECT @@TRANCOUNT AS trancount, COUNT(*) AS audits FROM dbo.Audit
ROLLBACK
SELECT COUNT(*) AS orders FROM dbo.Orders
SELECT COUNT(*) AS audits FROM dbo.Audit
GO
-- DISABLE / ENABLE TRIGGER.
DISABLE TRIGGER dbo.trOrders ON dbo.Orders
INSERT dbo.Orders VALUES (4, 40, 'd')
SELECT COUNT(*) AS audits FROM dbo.Audit
SELECT name, is_disabled, is_instead_of_trigger, OBJECT_NAME(parent_id) AS [table]
    FROM sys.triggers ORDER BY name
ENABLE TRIGGER ALL ON dbo.Orders
SELECT name, is_disabled FROM sys.triggers WHERE name = 'trOrders'
ALTER TABLE dbo.Orders DISABLE TRIGGER trOrders
SELECT name, is_disabled FROM sys.triggers WHERE name = 'trOrders'
ALTER TABLE dbo.Orders ENABLE TRIGGER ALL
SELECT name, is_disabled FROM sys.triggers WHERE name = 'trOrders'
GO
-- A MERGE fires the triggers of the actions it takes; an UPDATE of no row fires its own.
MERGE dbo.Orders AS o USING (SELECT 6 AS id, 60 AS qty) AS s ON o.id = s.id
    WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.qty, 'm');
UPDATE dbo.Orders SET qty = 0 WHERE id = 99
GO
-- INSTEAD OF: the trigger runs in place of the statement and writes the table itself.
CREATE TABLE dbo.Items (id int, name varchar(10))
GO
CREATE TRIGGER dbo.trItems ON dbo.Items INSTEAD OF INSERT, DELETE AS
BEGIN
    INSERT dbo.Items SELECT id * 100, UPPER(name) FROM inserted
    IF EXISTS (SELECT 1 FROM deleted) PRINT 'deleting is not allowed'
END
GO
INSERT dbo.Items VALUES (1, 'abc'), (2, 'def')
DELETE dbo.Items WHERE id = 100
SELECT * FROM dbo.Items ORDER BY id
GO
-- Nested triggers: a trigger's write fires the next table's trigger.
CREATE TABLE dbo.A (n int)
CREATE TABLE dbo.B (n int)
GO
CREATE TRIGGER dbo.trA ON dbo.A AFTER INSERT AS
    INSERT dbo.B SELECT n + 1 FROM inserted
GO
CREATE TRIGGER dbo.trB ON dbo.B AFTER INSERT AS
    SELECT n AS b_inserted, @@NESTLEVEL AS nestlevel FROM inserted
GO
INSERT dbo.A VALUES (1)
SELECT * FROM dbo.B
GO
-- ALTER TRIGGER, then DROP TRIGGER.
ALTER TRIGGER dbo.trB ON dbo.B AFTER INSERT AS PRINT 'altered'
GO
INSERT dbo.B VALUES (9)
DROP TRIGGER dbo.trA, dbo.trB
INSERT dbo.A VALUES (5)
SELECT COUNT(*) AS b_rows FROM dbo.B
GO
-- Errors.
CREATE TRIGGER dbo.trNope ON dbo.NoSuchTable AFTER INSERT AS PRINT 1
GO
CREATE TRIGGER dbo.trItems2 ON dbo.Items INSTEAD OF INSERT AS PRINT 2
GO
DROP TRIGGER dbo.NoSuchTrigger
DROP TRIGGER IF EXISTS dbo.NoSuchTrigger
DISABLE TRIGGER NoSuchTrigger ON dbo.Orders
GO
SELECT 1 AS one
CREATE TRIGGER dbo.trLate ON dbo.A AFTER INSERT AS PRINT 3
GO
USE master
DROP DATABASE Trig
