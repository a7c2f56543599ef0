-- CREATE EVENT NOTIFICATION … ON DATABASE for DDL events (CREATE EVENT NOTIFICATION page,
-- example B, on the database): each CREATE / ALTER / DROP of a table, view, procedure or
-- function the notification asks for (an event type or a group) sends its service an
-- EventNotification message whose body is the event's EVENT_INSTANCE document, once the
-- statement has committed; sys.event_notifications shows the database as the parent.
CREATE DATABASE AdventureWorks2022;
GO
USE AdventureWorks2022;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
CREATE ROUTE NotifyRoute WITH SERVICE_NAME = 'NotifyService', ADDRESS = 'LOCAL';
GO
CREATE EVENT NOTIFICATION Notify_ALTER_T1
ON DATABASE
FOR ALTER_TABLE, DDL_VIEW_EVENTS, DDL_PROCEDURE_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
SELECT name, parent_class, parent_class_desc, parent_id, service_name, broker_instance
FROM sys.event_notifications;
GO
CREATE TABLE dbo.T1 (c1 int);
ALTER TABLE dbo.T1 ADD c2 int;
GO
CREATE OR ALTER VIEW dbo.V1 AS SELECT c1 FROM dbo.T1;
GO
CREATE OR ALTER VIEW dbo.V1 AS SELECT c1, c2 FROM dbo.T1;
GO
CREATE PROCEDURE dbo.P1 AS SELECT 1 AS one;
GO
DROP VIEW IF EXISTS dbo.V1, dbo.NoSuchView;
DROP PROCEDURE dbo.P1;
DROP TABLE dbo.T1;
GO
-- A transaction rolled back raises nothing.
BEGIN TRANSACTION;
GO
CREATE VIEW dbo.Gone AS SELECT 1 AS one;
GO
ROLLBACK;
GO
DECLARE @events TABLE (n int IDENTITY, message_type sysname, body xml);
WAITFOR (RECEIVE message_type_name, CAST(message_body AS xml) FROM NotifyQueue
         INTO @events), TIMEOUT 5000;
SELECT n, message_type,
       body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') AS DatabaseName,
       body.value('(/EVENT_INSTANCE/SchemaName)[1]', 'sysname') AS SchemaName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/LoginName)[1]', 'sysname') AS LoginName,
       body.value('(/EVENT_INSTANCE/UserName)[1]', 'sysname') AS UserName,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @events ORDER BY n;
GO
-- Groups take every event in them; an unknown event type is Msg 1084; names are unique.
CREATE EVENT NOTIFICATION Notify_DDL ON DATABASE FOR DDL_DATABASE_LEVEL_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE FUNCTION dbo.F1 () RETURNS int AS BEGIN RETURN 1 END;
GO
DECLARE @type sysname;
WAITFOR (RECEIVE TOP (1) @type = CAST(message_body AS xml).value(
    '(/EVENT_INSTANCE/EventType)[1]', 'sysname') FROM NotifyQueue), TIMEOUT 5000;
SELECT @type AS EventType;
GO
CREATE EVENT NOTIFICATION Notify_Bad ON DATABASE FOR NOT_AN_EVENT
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION Notify_DDL ON DATABASE FOR CREATE_TABLE
TO SERVICE 'NotifyService', 'current database';
GO
DROP EVENT NOTIFICATION Notify_ALTER_T1, Notify_DDL ON DATABASE;
SELECT COUNT(*) AS notifications FROM sys.event_notifications;
GO
DROP EVENT NOTIFICATION Notify_DDL ON DATABASE;
GO
USE master;
DROP DATABASE AdventureWorks2022;
