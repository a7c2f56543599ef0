-- sysobjects, the SQL Server 2000 compatibility view: the same objects as sys.objects in the
-- old column names, found as sysobjects, dbo.sysobjects and sys.sysobjects
CREATE TABLE dbo.orders (id int CONSTRAINT pk_orders PRIMARY KEY, note varchar(10))
GO
CREATE PROCEDURE dbo.list_orders AS SELECT id FROM dbo.orders
GO
SELECT name, xtype, type, uid, userstat, parent_obj
FROM sysobjects WHERE name IN ('orders', 'list_orders') ORDER BY name
-- the scripted-by-a-tool existence test
IF EXISTS (SELECT * FROM dbo.sysobjects
           WHERE id = OBJECT_ID(N'[dbo].[orders]') AND OBJECTPROPERTY(id, N'IsUserTable') = 1)
    PRINT 'orders is a user table'
IF NOT EXISTS (SELECT * FROM sysobjects WHERE name = 'missing' AND xtype = 'U')
    PRINT 'no table missing'
-- a constraint names its table in parent_obj; id and crdate are sys.objects' own
SELECT c.name, c.xtype
FROM sys.sysobjects AS c JOIN sysobjects AS t ON c.parent_obj = t.id
WHERE t.name = 'orders'
SELECT COUNT(*) AS same_rows
FROM sysobjects AS s JOIN sys.objects AS o
  ON o.object_id = s.id AND o.name = s.name AND o.create_date = s.crdate AND o.schema_id = s.uid
WHERE s.name IN ('orders', 'list_orders', 'pk_orders')
-- read-only, as every catalog view
DELETE FROM sysobjects WHERE name = 'orders'
