-- Logins, users mapped to them, server permissions and EXECUTE AS / REVERT.
SET NOCOUNT ON
CREATE LOGIN BrokerLogin WITH PASSWORD = 'L0gin!Passw0rd', CHECK_POLICY = OFF
CREATE LOGIN brokerlogin WITH PASSWORD = 'x'
CREATE LOGIN [DOMAIN\BrokerSvc] FROM WINDOWS
CREATE LOGIN NotWindows FROM WINDOWS
CREATE LOGIN Disabled WITH PASSWORD = 'L0gin!Passw0rd' MUST_CHANGE, CHECK_EXPIRATION = ON
ALTER LOGIN Disabled DISABLE
SELECT name, type, type_desc, is_disabled, default_database_name
FROM sys.server_principals WHERE principal_id >= 256 ORDER BY principal_id
SELECT name FROM sys.server_principals WHERE type = 'R' AND principal_id <= 3 ORDER BY principal_id
SELECT name, is_policy_checked FROM sys.sql_logins WHERE name = 'BrokerLogin'
GRANT VIEW SERVER STATE TO BrokerLogin
GRANT CONNECT SQL TO nobody
SELECT p.class_desc, p.permission_name, p.state_desc
FROM sys.server_permissions AS p JOIN sys.server_principals AS l ON l.principal_id = p.grantee_principal_id
WHERE l.name = 'BrokerLogin'
PRINT SUSER_ID('BrokerLogin') - SUSER_ID('sa')
GO
CREATE DATABASE sec_login
GO
USE sec_login
SET NOCOUNT ON
CREATE USER BrokerUser FOR LOGIN BrokerLogin
CREATE USER Again FOR LOGIN BrokerLogin
CREATE USER NoSuchLogin
CREATE USER [DOMAIN\BrokerSvc]
SELECT name, type_desc, authentication_type_desc, default_schema_name
FROM sys.database_principals WHERE principal_id >= 5 AND principal_id < 16384 ORDER BY principal_id
SELECT u.name AS user_name, l.name AS login_name
FROM sys.database_principals AS u JOIN sys.server_principals AS l ON l.sid = u.sid
WHERE u.principal_id >= 5 ORDER BY u.principal_id
ALTER USER BrokerUser WITH NAME = ServiceUser, DEFAULT_SCHEMA = guest
ALTER USER Missing WITH NAME = Other
SELECT name, default_schema_name FROM sys.database_principals WHERE name = 'ServiceUser'
PRINT '-- execute as'
SELECT USER_NAME() AS [user], SUSER_SNAME() AS [login], USER_ID() AS uid
EXECUTE AS USER = 'ServiceUser'
SELECT USER_NAME() AS [user], CURRENT_USER AS [current], SUSER_SNAME() AS [login], USER_ID() AS uid
EXECUTE AS USER = 'nobody'
REVERT
SELECT USER_NAME() AS [user], SUSER_SNAME() AS [login]
EXECUTE AS LOGIN = 'BrokerLogin'
SELECT USER_NAME() AS [user], SYSTEM_USER AS [login]
REVERT
EXECUTE AS LOGIN = 'Disabled'
DECLARE @cookie varbinary(100)
EXECUTE AS USER = 'ServiceUser' WITH COOKIE INTO @cookie
PRINT DATALENGTH(@cookie)
REVERT
SELECT USER_NAME() AS still_impersonating
REVERT WITH COOKIE = @cookie
SELECT USER_NAME() AS reverted
PRINT USER_NAME(1)
PRINT COALESCE(USER_NAME(999), 'no user 999')
PRINT DATABASE_PRINCIPAL_ID('ServiceUser')
GO
USE master
DROP DATABASE sec_login
DROP LOGIN BrokerLogin
DROP LOGIN BrokerLogin
DROP LOGIN sa
DROP LOGIN [DOMAIN\BrokerSvc]
DROP LOGIN Disabled
SELECT COUNT(*) AS created_logins FROM sys.server_principals WHERE principal_id >= 256
