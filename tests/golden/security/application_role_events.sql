-- sp_addapprole / sp_dropapprole send CREATE_APPLICATION_ROLE / DROP_APPLICATION_ROLE as
-- CREATE / DROP APPLICATION ROLE do (the DDL Events page lists the procedures under those
-- events); a call that fails sends none.
SET NOCOUNT ON
CREATE DATABASE AppRoleEvents;
GO
USE AppRoleEvents;
CREATE QUEUE DdlQueue;
CREATE SERVICE DdlService ON QUEUE DdlQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION approle_ddl ON DATABASE FOR DDL_DATABASE_SECURITY_EVENTS
TO SERVICE 'DdlService', 'current database';
GO
EXEC sp_addapprole 'legacy_app', 'Str0ng!Passw0rd';
EXEC sp_addapprole @rolename = 'named_app', @password = 'Str0ng!Passw0rd';
GO
-- Fails: the role exists (Msg 15023), no password (Msg 15600), no such role (Msg 15151).
EXEC sp_addapprole 'legacy_app', 'Str0ng!Passw0rd';
GO
EXEC sp_addapprole 'no_password', NULL;
GO
EXEC sp_dropapprole 'no_such_app';
GO
EXEC sp_dropapprole 'legacy_app';
EXEC sp_dropapprole @rolename = 'named_app';
GO
DECLARE @ev TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM DdlQueue INTO @ev), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/UserName)[1]', 'sysname') AS UserName,
       -- (the password's text is left out: SQL Server hides it in CommandText)
       CASE WHEN body.exist('/EVENT_INSTANCE[EventType="DROP_APPLICATION_ROLE"]') = 1
            THEN body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
       END AS CommandText
FROM @ev ORDER BY n;
GO
DROP EVENT NOTIFICATION approle_ddl ON DATABASE;
GO
