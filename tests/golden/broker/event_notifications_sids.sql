-- EVENTDATA's SIDs (the EVENTDATA schema's SID type: base64Binary): CREATE / ALTER / DROP
-- LOGIN and USER carry the principal's SID, ADD / DROP_(SERVER_)ROLE_MEMBER the member's
-- SID and the role's RoleSID — the values sys.server_principals / sys.database_principals
-- show (a DROP's as they were before it), left out where the catalog shows none.
CREATE DATABASE Sids;
GO
USE Sids;
CREATE QUEUE DbQueue;
CREATE SERVICE DbService ON QUEUE DbQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
CREATE QUEUE ServerQueue;
CREATE SERVICE ServerService ON QUEUE ServerQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION db_security ON DATABASE FOR DDL_DATABASE_SECURITY_EVENTS
TO SERVICE 'DbService', 'current database';
CREATE EVENT NOTIFICATION server_security ON SERVER FOR DDL_SERVER_SECURITY_EVENTS
TO SERVICE 'ServerService', 'current database';
GO
CREATE TABLE dbo.sids (name sysname, b64 varchar(200));
CREATE LOGIN sid_login WITH PASSWORD = 'Str0ng!Passw0rd';
ALTER LOGIN sid_login DISABLE;
CREATE USER sid_user FOR LOGIN sid_login;
CREATE USER loose_user WITHOUT LOGIN;
CREATE ROLE sid_role;
ALTER ROLE sid_role ADD MEMBER sid_user;
EXEC sp_addrolemember 'db_datareader', 'loose_user';
ALTER SERVER ROLE sysadmin ADD MEMBER sid_login;
ALTER SERVER ROLE sysadmin DROP MEMBER sid_login;
-- What the catalog shows, base64 as FOR XML writes binary.
INSERT dbo.sids SELECT name, (SELECT sid AS [*] FOR XML PATH(''))
FROM sys.server_principals WHERE name = 'sid_login';
INSERT dbo.sids SELECT name, (SELECT sid AS [*] FOR XML PATH(''))
FROM sys.database_principals WHERE name IN ('sid_user', 'loose_user');
ALTER ROLE sid_role DROP MEMBER sid_user;
DROP USER loose_user;
GO
DECLARE @db TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM DbQueue INTO @db), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       CASE WHEN body.value('(/EVENT_INSTANCE/SID)[1]', 'varchar(200)') = s.b64
            THEN 'catalog' ELSE body.value('(/EVENT_INSTANCE/SID)[1]', 'varchar(200)')
       END AS SID,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.exist('/EVENT_INSTANCE/RoleSID') AS HasRoleSID
FROM @db LEFT JOIN dbo.sids AS s
    ON s.name = body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname')
ORDER BY n;
GO
DECLARE @server TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM ServerQueue INTO @server), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       CASE WHEN body.value('(/EVENT_INSTANCE/SID)[1]', 'varchar(200)') = s.b64
            THEN 'catalog' ELSE body.value('(/EVENT_INSTANCE/SID)[1]', 'varchar(200)')
       END AS SID,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.exist('/EVENT_INSTANCE/RoleSID') AS HasRoleSID
FROM @server LEFT JOIN dbo.sids AS s
    ON s.name = body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname')
WHERE body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') IS NULL
ORDER BY n;
GO
DROP EVENT NOTIFICATION server_security ON SERVER;
DROP EVENT NOTIFICATION db_security ON DATABASE;
DROP USER sid_user;
DROP LOGIN sid_login;
GO
