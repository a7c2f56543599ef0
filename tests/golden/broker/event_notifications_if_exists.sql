-- DROP … IF EXISTS of something that is not there does nothing: no error and no DDL event
-- (DROP INDEX, DROP SEQUENCE …); of several names, only the ones dropped raise their event.
CREATE DATABASE IfExistsDb;
GO
USE IfExistsDb;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION Notify_DDL ON DATABASE FOR DDL_DATABASE_LEVEL_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE TABLE dbo.T1 (c1 int);
CREATE INDEX IX1 ON dbo.T1 (c1);
CREATE SEQUENCE dbo.S1;
GO
CREATE TRIGGER dbo.TR1 ON dbo.T1 AFTER INSERT AS SELECT 1 AS one;
GO
DROP INDEX IF EXISTS NoSuchIndex ON dbo.T1;
DROP INDEX IF EXISTS dbo.T1.NoSuchIndex;
DROP INDEX IF EXISTS IX1 ON dbo.T1;
DROP INDEX IF EXISTS IX1 ON dbo.T1;
DROP TABLE IF EXISTS dbo.NoSuchTable;
DROP VIEW IF EXISTS dbo.NoSuchView;
DROP PROCEDURE IF EXISTS dbo.NoSuchProcedure;
DROP FUNCTION IF EXISTS dbo.NoSuchFunction;
DROP TYPE IF EXISTS dbo.NoSuchType;
DROP SYNONYM IF EXISTS dbo.NoSuchSynonym;
DROP SCHEMA IF EXISTS NoSuchSchema;
DROP USER IF EXISTS NoSuchUser;
DROP ROLE IF EXISTS NoSuchRole;
DROP SEQUENCE IF EXISTS dbo.S1, dbo.NoSuchSequence;
DROP TRIGGER IF EXISTS dbo.NoSuchTrigger, dbo.TR1;
GO
DECLARE @events TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM NotifyQueue INTO @events), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @events ORDER BY n;
GO
USE master;
DROP DATABASE IfExistsDb;
