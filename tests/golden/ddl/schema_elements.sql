-- CREATE SCHEMA's elements are created together (CREATE SCHEMA: "CREATE SCHEMA can create a
-- schema, the tables and views it contains, and GRANT, REVOKE, or DENY permissions on any
-- securable in a single statement"; forward references are allowed): a GRANT names a table
-- of the same statement, even one written after it, and each element sends its own DDL
-- event (CREATE_TABLE, GRANT_DATABASE) as it would standing alone.
SET NOCOUNT ON
CREATE DATABASE SchemaElements;
GO
USE SchemaElements;
CREATE QUEUE DdlQueue;
CREATE SERVICE DdlService ON QUEUE DdlQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION schema_ddl ON DATABASE FOR DDL_DATABASE_LEVEL_EVENTS
TO SERVICE 'DdlService', 'current database';
GO
CREATE SCHEMA s CREATE TABLE t (a int) GRANT SELECT ON t TO public
GO
CREATE SCHEMA fwd DENY INSERT ON later TO public CREATE TABLE later (b int)
GO
SELECT SCHEMA_NAME(schema_id) AS schema_name, name FROM sys.tables ORDER BY schema_name;
SELECT OBJECT_SCHEMA_NAME(major_id) AS schema_name, OBJECT_NAME(major_id) AS object_name,
       permission_name, state_desc, USER_NAME(grantee_principal_id) AS grantee
    FROM sys.database_permissions WHERE class = 1 ORDER BY schema_name;
GO
-- A failing element undoes the whole statement: nothing of it remains.
CREATE SCHEMA bad CREATE TABLE x (a int) GRANT SELECT ON missing TO public
GO
SELECT SCHEMA_ID('bad') AS bad_schema, OBJECT_ID('bad.x') AS bad_table;
GO
DECLARE @ev TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM DdlQueue INTO @ev), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/SchemaName)[1]', 'sysname') AS SchemaName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @ev ORDER BY n;
GO
DROP EVENT NOTIFICATION schema_ddl ON DATABASE;
GO
