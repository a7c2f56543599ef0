-- CREATE SCHEMA, ALTER SCHEMA ... TRANSFER, DROP SCHEMA: the examples of SQL Server's
-- statement pages (users created first), then the errors.
CREATE DATABASE Shop
GO
USE Shop
GO
CREATE USER Annik WITHOUT LOGIN
CREATE USER Mandar WITHOUT LOGIN
CREATE USER Prasanna WITHOUT LOGIN
GO
-- CREATE SCHEMA, example A: the schema with a table and permissions, in one statement.
CREATE SCHEMA Sprockets AUTHORIZATION Annik
    CREATE TABLE NineProngs (source int, cost int, partnumber int)
    GRANT SELECT ON SCHEMA::Sprockets TO Mandar
    DENY SELECT ON SCHEMA::Sprockets TO Prasanna;
GO
INSERT INTO Sprockets.NineProngs VALUES (1, 20, 300)
SELECT * FROM Sprockets.NineProngs
SELECT name, schema_id, principal_id FROM sys.schemas ORDER BY schema_id
SELECT s.name AS [schema], o.name FROM sys.objects AS o
    JOIN sys.schemas AS s ON s.schema_id = o.schema_id WHERE o.name = 'NineProngs'
SELECT class_desc, permission_name, state_desc, USER_NAME(grantee_principal_id) AS grantee
    FROM sys.database_permissions WHERE class_desc = 'SCHEMA' ORDER BY grantee
GO
-- Objects of every kind live in any schema.
CREATE SCHEMA Sales
GO
CREATE TABLE Sales.Orders (id int IDENTITY PRIMARY KEY, amount money NOT NULL)
GO
CREATE VIEW Sales.BigOrders AS SELECT id, amount FROM Sales.Orders WHERE amount > 10
GO
CREATE PROCEDURE Sales.AddOrder @amount money AS INSERT Sales.Orders (amount) VALUES (@amount)
GO
CREATE FUNCTION Sales.Total() RETURNS money AS BEGIN RETURN (SELECT SUM(amount) FROM Sales.Orders) END
GO
CREATE TYPE Sales.OrderList AS TABLE (id int)
GO
EXEC Sales.AddOrder 5
EXEC Sales.AddOrder @amount = 20
SELECT * FROM Sales.BigOrders
SELECT Sales.Total() AS total
DECLARE @list Sales.OrderList
INSERT @list VALUES (1)
SELECT COUNT(*) AS listed FROM @list
SELECT o.name, o.type FROM sys.objects AS o WHERE o.schema_id = SCHEMA_ID('Sales')
    AND o.parent_object_id = 0 ORDER BY o.name
SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES ORDER BY TABLE_NAME
GO
-- ALTER SCHEMA, example A: a table moves with its constraints and rows.
CREATE SCHEMA HumanResources
GO
ALTER SCHEMA HumanResources TRANSFER Sales.Orders
SELECT * FROM HumanResources.Orders
SELECT s.name AS [schema], o.type FROM sys.objects AS o
    JOIN sys.schemas AS s ON s.schema_id = o.schema_id
    WHERE o.object_id = OBJECT_ID('HumanResources.Orders')
       OR o.parent_object_id = OBJECT_ID('HumanResources.Orders') ORDER BY o.type
SELECT OBJECT_ID('Sales.Orders') AS gone
GO
SELECT * FROM Sales.Orders
GO
-- Errors.
CREATE SCHEMA Sprockets
GO
ALTER SCHEMA HumanResources TRANSFER Sales.Nothing
ALTER SCHEMA Nowhere TRANSFER HumanResources.Orders
ALTER SCHEMA HumanResources TRANSFER TYPE::Sales.BigOrders
CREATE TABLE Sales.NineProngs (a int)
ALTER SCHEMA Sales TRANSFER Sprockets.NineProngs
DROP TABLE Sales.NineProngs
DROP SCHEMA Sprockets
DROP SCHEMA Nowhere
DROP SCHEMA IF EXISTS Nowhere
DROP SCHEMA dbo
GO
CREATE SCHEMA Widgets AUTHORIZATION Nobody
GO
-- A failing element undoes the whole statement.
CREATE SCHEMA Atomic
    CREATE TABLE One (a int)
    CREATE TABLE One (a int)
GO
SELECT COUNT(*) AS atomic_schemas FROM sys.schemas WHERE name = 'Atomic'
GO
SELECT 1 AS one
CREATE SCHEMA Late
GO
-- DROP SCHEMA example: its objects first.
DROP TABLE Sprockets.NineProngs
DROP SCHEMA Sprockets
SELECT name FROM sys.schemas WHERE schema_id > 4 ORDER BY name
GO
USE master
DROP DATABASE Shop
