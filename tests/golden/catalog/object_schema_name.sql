-- OBJECT_SCHEMA_NAME(object_id [, database_id]) in expressions and in queries.
CREATE SCHEMA Sales
GO
CREATE TABLE Sales.Orders (id int)
GO
DECLARE @s sysname = OBJECT_SCHEMA_NAME(OBJECT_ID('Sales.Orders'));
PRINT @s;
SELECT OBJECT_SCHEMA_NAME(OBJECT_ID('Sales.Orders')) AS s,
       OBJECT_SCHEMA_NAME(OBJECT_ID('Sales.Orders'), DB_ID()) AS s2,
       OBJECT_SCHEMA_NAME(123456789) AS unknown, OBJECT_SCHEMA_NAME(NULL) AS nothing;
SELECT name, OBJECT_SCHEMA_NAME(object_id) AS schema_name FROM sys.objects WHERE name = 'Orders';
GO
SELECT OBJECT_SCHEMA_NAME() AS none
GO
