-- sp_addsrvrolemember / sp_dropsrvrolemember @loginame, @rolename (deprecated, in older
-- scripts): as ALTER SERVER ROLE … ADD / DROP MEMBER (fixed and created roles, the same
-- permission checks), with their own messages: 15412 for a name that is no server role,
-- 15007 for one that is no login, 15405 for sa, 15002 inside a transaction; they send
-- ADD_SERVER_ROLE_MEMBER / DROP_SERVER_ROLE_MEMBER (a failing call sends none).
SET NOCOUNT ON
CREATE DATABASE SrvRoleProcs;
GO
USE SrvRoleProcs;
CREATE QUEUE SrvQueue;
CREATE SERVICE SrvService ON QUEUE SrvQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION srv_members ON SERVER FOR DDL_SERVER_SECURITY_EVENTS
TO SERVICE 'SrvService', 'current database';
GO
CREATE LOGIN sp_member WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN sp_other WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE SERVER ROLE Helpers
GO
DECLARE @rc int
EXEC @rc = sp_addsrvrolemember 'sp_member', 'dbcreator'
EXEC sp_addsrvrolemember @loginame = 'sp_member', @rolename = 'Helpers'
EXEC sp_addsrvrolemember @rolename = 'securityadmin', @loginame = 'sp_other'
EXEC sp_addsrvrolemember 'sp_member', 'Helpers'
SELECT @rc AS rc, IS_SRVROLEMEMBER('dbcreator', 'sp_member') AS dbcreator,
       IS_SRVROLEMEMBER('Helpers', 'sp_member') AS helpers,
       IS_SRVROLEMEMBER('securityadmin', 'sp_other') AS other_securityadmin
GO
-- Refused.
EXEC sp_addsrvrolemember 'sp_member', 'NoSuchRole'
EXEC sp_addsrvrolemember 'sp_member', 'public'
EXEC sp_addsrvrolemember 'sp_member'
EXEC sp_addsrvrolemember 'nosuch', 'dbcreator'
EXEC sp_addsrvrolemember 'sa', 'dbcreator'
EXEC sp_dropsrvrolemember 'sa', 'sysadmin'
EXEC sp_addsrvrolemember 'Helpers', 'Helpers'
BEGIN TRANSACTION
EXEC sp_addsrvrolemember 'sp_other', 'dbcreator'
ROLLBACK
GO
-- A member of securityadmin may change securityadmin's members, not dbcreator's.
EXECUTE AS LOGIN = 'sp_other'
EXEC sp_addsrvrolemember 'sp_member', 'securityadmin'
EXEC sp_addsrvrolemember 'sp_member', 'sysadmin'
EXEC sp_dropsrvrolemember 'sp_member', 'dbcreator'
REVERT
GO
EXEC sp_dropsrvrolemember 'sp_member', 'dbcreator'
EXEC sp_dropsrvrolemember @loginame = 'sp_member', @rolename = 'Helpers'
EXEC sp_dropsrvrolemember 'sp_other', 'Helpers'
SELECT IS_SRVROLEMEMBER('dbcreator', 'sp_member') AS dbcreator,
       IS_SRVROLEMEMBER('Helpers', 'sp_member') AS helpers,
       IS_SRVROLEMEMBER('securityadmin', 'sp_member') AS securityadmin
GO
DECLARE @ev TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM SrvQueue INTO @ev), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.value('(/EVENT_INSTANCE/LoginName)[1]', 'sysname') AS LoginName,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)') AS CommandText
FROM @ev ORDER BY n;
GO
DROP EVENT NOTIFICATION srv_members ON SERVER;
GO
