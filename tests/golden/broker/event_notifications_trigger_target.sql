-- CREATE / ALTER / DROP_TRIGGER: TargetObjectType is the kind of object the trigger is on,
-- TABLE or VIEW (an INSTEAD OF trigger on a view); DROP TRIGGER names no target.
CREATE DATABASE TriggerTargetDb;
GO
USE TriggerTargetDb;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE TABLE dbo.T1 (c1 int);
GO
CREATE VIEW dbo.V1 AS SELECT c1 FROM dbo.T1;
GO
CREATE EVENT NOTIFICATION Notify_Triggers ON DATABASE FOR DDL_TRIGGER_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE TRIGGER dbo.TR_T ON dbo.T1 AFTER INSERT AS SELECT 1 AS one;
GO
CREATE TRIGGER dbo.TR_V ON dbo.V1 INSTEAD OF INSERT AS SELECT 1 AS one;
GO
ALTER TRIGGER dbo.TR_V ON dbo.V1 INSTEAD OF DELETE AS SELECT 1 AS one;
GO
DROP TRIGGER dbo.TR_V;
GO
DECLARE @events TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM NotifyQueue INTO @events), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/TargetObjectName)[1]', 'sysname') AS TargetObjectName,
       body.value('(/EVENT_INSTANCE/TargetObjectType)[1]', 'sysname') AS TargetObjectType
FROM @events ORDER BY n;
GO
USE master;
DROP DATABASE TriggerTargetDb;
GO
