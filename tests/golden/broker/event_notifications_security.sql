-- The security DDL events (DDL Events, DDL Event Groups, the EVENTDATA schema): CREATE /
-- ALTER / DROP USER, ROLE, ADD / DROP_ROLE_MEMBER, GRANT / DENY / REVOKE_DATABASE,
-- ALTER_AUTHORIZATION_DATABASE reach a notification ON DATABASE FOR
-- DDL_DATABASE_SECURITY_EVENTS; logins, endpoints, GRANT … server permissions and server role
-- members reach one ON SERVER FOR DDL_SERVER_SECURITY_EVENTS, DDL_ENDPOINT_EVENTS, which
-- also takes the database's GRANT / DENY / REVOKE (DDL_GDR_DATABASE_EVENTS): a
-- database-level event goes to the server's notifications too. CREATE TABLE is in none of
-- these groups and sends nothing. Each EVENT_INSTANCE carries the event's own elements
-- (DefaultSchema, RoleName, Grantor, Permissions, Grantees, GrantOption, CascadeOption,
-- OwnerName, EndpointName, LoginType); server-level ones have no UserName / DatabaseName.
CREATE DATABASE Sec;
GO
USE Sec;
CREATE QUEUE DbQueue;
CREATE SERVICE DbService ON QUEUE DbQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
CREATE QUEUE ServerQueue;
CREATE SERVICE ServerService ON QUEUE ServerQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO
CREATE EVENT NOTIFICATION db_security ON DATABASE FOR DDL_DATABASE_SECURITY_EVENTS
TO SERVICE 'DbService', 'current database';
CREATE EVENT NOTIFICATION server_security ON SERVER
FOR DDL_SERVER_SECURITY_EVENTS, DDL_ENDPOINT_EVENTS, DDL_GDR_DATABASE_EVENTS
TO SERVICE 'ServerService', 'current database';
GO
CREATE LOGIN app_login WITH PASSWORD = 'Str0ng!Passw0rd';
ALTER LOGIN app_login DISABLE;
GO
CREATE SCHEMA app;
GO
CREATE USER app_user FOR LOGIN app_login WITH DEFAULT_SCHEMA = app;
ALTER USER app_user WITH DEFAULT_SCHEMA = dbo;
CREATE ROLE readers;
ALTER ROLE readers ADD MEMBER app_user;
CREATE TABLE app.orders (id int);
GRANT SELECT, INSERT ON OBJECT::app.orders TO readers WITH GRANT OPTION;
DENY CREATE TABLE TO app_user;
REVOKE GRANT OPTION FOR SELECT ON OBJECT::app.orders FROM readers CASCADE;
ALTER AUTHORIZATION ON SCHEMA::app TO readers;
ALTER ROLE readers DROP MEMBER app_user;
GRANT VIEW SERVER STATE TO app_login;
ALTER SERVER ROLE sysadmin ADD MEMBER app_login;
CREATE ENDPOINT sec_ep STATE = STOPPED AS TCP (LISTENER_PORT = 4096)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE no_cert);
DROP ENDPOINT sec_ep;
GO
DECLARE @db TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM DbQueue INTO @db), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/UserName)[1]', 'sysname') AS UserName,
       body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') AS DatabaseName,
       body.value('(/EVENT_INSTANCE/SchemaName)[1]', 'sysname') AS SchemaName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/DefaultSchema)[1]', 'sysname') AS DefaultSchema,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.value('(/EVENT_INSTANCE/OwnerName)[1]', 'sysname') AS OwnerName
FROM @db ORDER BY n;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/Grantor)[1]', 'sysname') AS Grantor,
       body.value('(/EVENT_INSTANCE/Permissions/Permission)[1]', 'sysname') AS Permission1,
       body.value('(/EVENT_INSTANCE/Permissions/Permission)[2]', 'sysname') AS Permission2,
       body.value('(/EVENT_INSTANCE/Grantees/Grantee)[1]', 'sysname') AS Grantee,
       body.value('(/EVENT_INSTANCE/GrantOption)[1]', 'sysname') AS GrantOption,
       body.value('(/EVENT_INSTANCE/CascadeOption)[1]', 'sysname') AS CascadeOption,
       body.value('(/EVENT_INSTANCE/TSQLCommand/CommandText)[1]', 'nvarchar(100)')
           AS CommandText
FROM @db WHERE body.exist('/EVENT_INSTANCE/Grantor') = 1 ORDER BY n;
GO
DECLARE @server TABLE (n int IDENTITY, body xml);
WAITFOR (RECEIVE CAST(message_body AS xml) FROM ServerQueue INTO @server), TIMEOUT 5000;
SELECT n, body.value('(/EVENT_INSTANCE/EventType)[1]', 'sysname') AS EventType,
       body.value('(/EVENT_INSTANCE/LoginName)[1]', 'sysname') AS LoginName,
       body.exist('/EVENT_INSTANCE/UserName') AS HasUserName,
       body.value('(/EVENT_INSTANCE/DatabaseName)[1]', 'sysname') AS DatabaseName,
       body.value('(/EVENT_INSTANCE/ObjectName)[1]', 'sysname') AS ObjectName,
       body.value('(/EVENT_INSTANCE/ObjectType)[1]', 'sysname') AS ObjectType,
       body.value('(/EVENT_INSTANCE/LoginType)[1]', 'sysname') AS LoginType,
       body.value('(/EVENT_INSTANCE/RoleName)[1]', 'sysname') AS RoleName,
       body.value('(/EVENT_INSTANCE/Grantor)[1]', 'sysname') AS Grantor,
       body.value('(/EVENT_INSTANCE/Permissions/Permission)[1]', 'sysname') AS Permission1,
       body.value('(/EVENT_INSTANCE/EndpointName)[1]', 'sysname') AS EndpointName
FROM @server ORDER BY n;
GO
DROP EVENT NOTIFICATION server_security ON SERVER;
DROP EVENT NOTIFICATION db_security ON DATABASE;
GO
