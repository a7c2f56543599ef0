-- CREATE EVENT NOTIFICATION … ON DATABASE takes any of SQL Server's database-level DDL event
-- types and groups (DDL Event Groups page): those the engine does not raise are kept, a
-- name that is no event type is Msg 1084, a server-level one (CREATE_DATABASE) Msg 1098.
-- CREATE / ALTER / DROP QUEUE raise CREATE_QUEUE … (in DDL_QUEUE_EVENTS, DDL_SSB_EVENTS).
CREATE DATABASE EventTypes;
GO
USE EventTypes;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION Security ON DATABASE
FOR CREATE_USER, DDL_ROLE_EVENTS, GRANT_DATABASE, DDL_SCHEMA_EVENTS, RENAME
TO SERVICE 'NotifyService', 'current database';
CREATE EVENT NOTIFICATION Ssb ON DATABASE FOR DDL_SSB_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION Bad ON DATABASE FOR CREATE_USER, NOT_AN_EVENT
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION ServerOnly ON DATABASE FOR CREATE_DATABASE
TO SERVICE 'NotifyService', 'current database';
GO
SELECT name, parent_class_desc FROM sys.event_notifications ORDER BY name;
GO
CREATE QUEUE dbo.Work;
ALTER QUEUE dbo.Work WITH RETENTION = ON;
DROP QUEUE dbo.Work;
CREATE TABLE dbo.NotAsked (a int);
GO
DECLARE @events TABLE (n int IDENTITY, message_type sysname, body xml);
WAITFOR (RECEIVE message_type_name, CAST(message_body AS xml) FROM NotifyQueue
         INTO @events), TIMEOUT 5000;
SELECT n, message_type,
       body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/SchemaName)[1]', 'sysname') AS SchemaName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType
FROM @events ORDER BY n;
GO
DROP EVENT NOTIFICATION Security, Ssb ON DATABASE;
SELECT COUNT(*) AS left_over FROM sys.event_notifications;
GO
