-- CREATE EVENT NOTIFICATION … ON SERVER (CREATE EVENT NOTIFICATION page, example A):
-- server-level DDL events (CREATE_DATABASE …) and every database's DDL events go to the
-- service of the database the notification was made in ('current database'); it is listed
-- in sys.server_event_notifications, not sys.event_notifications. Any DDL event type or
-- group is accepted; trace events (DEADLOCK_GRAPH …) are not supported here (Msg 40000), a
-- queue's event is Msg 1098, a name that is no event type Msg 1084; DROP … ON SERVER removes
-- it.
CREATE DATABASE Watch;
GO
USE Watch;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION log_ddl1 ON SERVER FOR CREATE_DATABASE, DROP_DATABASE, CREATE_TABLE
TO SERVICE 'NotifyService', 'current database';
CREATE EVENT NOTIFICATION log_logins ON SERVER FOR DDL_LOGIN_EVENTS, DDL_SERVER_SECURITY_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION bad ON SERVER FOR NOT_AN_EVENT
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION bad ON SERVER FOR CREATE_DATABASE, DEADLOCK_GRAPH
TO SERVICE 'NotifyService', 'current database';
GO
CREATE EVENT NOTIFICATION bad ON SERVER FOR QUEUE_ACTIVATION
TO SERVICE 'NotifyService', 'current database';
GO
SELECT name, parent_class, parent_class_desc, parent_id, service_name, broker_instance
FROM sys.server_event_notifications ORDER BY name;
SELECT COUNT(*) AS on_database FROM sys.event_notifications;
GO
CREATE DATABASE Other;
GO
USE Other;
CREATE TABLE dbo.t (a int);
GO
USE Watch;
DROP DATABASE Other;
GO
DECLARE @events TABLE (n int IDENTITY, message_type sysname, body xml);
WAITFOR (RECEIVE message_type_name, CAST(message_body AS xml) FROM NotifyQueue
         INTO @events), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') AS DatabaseName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @events ORDER BY n;
GO
DROP EVENT NOTIFICATION log_ddl1, log_logins ON SERVER;
GO
DROP EVENT NOTIFICATION log_ddl1 ON SERVER;
GO
SELECT COUNT(*) AS left_over FROM sys.server_event_notifications;
GO
