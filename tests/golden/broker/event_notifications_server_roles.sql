-- CREATE / ALTER / DROP SERVER ROLE and ALTER SERVER ROLE … ADD / DROP MEMBER raise their
-- server-level events (DDL_SERVER_SECURITY_EVENTS): CREATE_SERVER_ROLE, ALTER_SERVER_ROLE,
-- DROP_SERVER_ROLE, ADD_SERVER_ROLE_MEMBER, DROP_SERVER_ROLE_MEMBER; a failed one raises none.
CREATE DATABASE WatchRoles;
GO
USE WatchRoles;
CREATE QUEUE NotifyQueue;
CREATE SERVICE NotifyService ON QUEUE NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION log_roles ON SERVER FOR DDL_SERVER_SECURITY_EVENTS
TO SERVICE 'NotifyService', 'current database';
GO
CREATE LOGIN role_watch_login WITH PASSWORD = 'Str0ng!Passw0rd1';
CREATE SERVER ROLE Watchers;
ALTER SERVER ROLE Watchers ADD MEMBER role_watch_login;
ALTER SERVER ROLE Watchers ADD MEMBER no_such_login;
ALTER SERVER ROLE Watchers DROP MEMBER role_watch_login;
ALTER SERVER ROLE Watchers WITH NAME = Observers;
DROP SERVER ROLE Observers;
DROP SERVER ROLE Observers;
DROP LOGIN role_watch_login;
GO
DECLARE @events TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM NotifyQueue INTO @events), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @events ORDER BY n;
GO
DROP EVENT NOTIFICATION log_roles ON SERVER;
USE master;
DROP DATABASE WatchRoles;
