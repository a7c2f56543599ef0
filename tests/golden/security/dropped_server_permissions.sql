-- DROP LOGIN and DROP ENDPOINT take the server permissions on what they drop with them
-- (LOGIN::, ENDPOINT::): one created later with the same name starts without them, as in
-- SQL Server.
SET NOCOUNT ON
USE master
CREATE LOGIN grantee_login WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN lg2 WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Str0ng!pass2'
CREATE CERTIFICATE ec WITH SUBJECT = 'ec'
CREATE ENDPOINT ep STATE = STOPPED AS TCP (LISTENER_PORT = 4099)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE ec)
GRANT CONNECT ON ENDPOINT::ep TO grantee_login
GRANT IMPERSONATE ON LOGIN::lg2 TO grantee_login
SELECT class_desc, permission_name FROM sys.server_permissions
    WHERE grantee_principal_id = SUSER_ID('grantee_login') AND class <> 100 ORDER BY class
DROP ENDPOINT ep
DROP LOGIN lg2
SELECT COUNT(*) AS left_after_drop FROM sys.server_permissions
    WHERE grantee_principal_id = SUSER_ID('grantee_login') AND class <> 100
CREATE LOGIN lg2 WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE ENDPOINT ep STATE = STOPPED AS TCP (LISTENER_PORT = 4099)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE ec)
SELECT COUNT(*) AS on_the_new_ones FROM sys.server_permissions
    WHERE grantee_principal_id = SUSER_ID('grantee_login') AND class <> 100
DROP ENDPOINT ep
GO
