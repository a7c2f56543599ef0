-- Metadata visibility of the endpoint catalog views: a login sees an endpoint it owns or
-- holds a permission on (CONNECT, ALTER, CONTROL, VIEW DEFINITION on ENDPOINT::), and the
-- built-in TSQL endpoints public may CONNECT to; VIEW ANY DEFINITION, ALTER ANY ENDPOINT,
-- CONTROL SERVER and sysadmin show every one; DENY VIEW DEFINITION hides it again.
SET NOCOUNT ON
USE master
CREATE LOGIN epv_owner WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN epv_plain WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN epv_conn WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN epv_any WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN epv_alter WITH PASSWORD = 'Str0ng!Passw0rd'
GRANT CREATE ENDPOINT TO epv_owner
GRANT VIEW ANY DEFINITION TO epv_any
GRANT ALTER ANY ENDPOINT TO epv_alter
GO
EXECUTE AS LOGIN = 'epv_owner'
CREATE ENDPOINT epv_ep STATE = STOPPED AS TCP (LISTENER_PORT = 4098)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE no_cert)
SELECT name FROM sys.endpoints ORDER BY endpoint_id
SELECT name FROM sys.service_broker_endpoints
REVERT
GO
EXECUTE AS LOGIN = 'epv_plain'
SELECT name FROM sys.endpoints ORDER BY endpoint_id
SELECT name, port FROM sys.tcp_endpoints ORDER BY endpoint_id
SELECT COUNT(*) AS broker_endpoints FROM sys.service_broker_endpoints
REVERT
GO
GRANT CONNECT ON ENDPOINT::epv_ep TO epv_conn
EXECUTE AS LOGIN = 'epv_conn'
SELECT name FROM sys.tcp_endpoints ORDER BY endpoint_id
SELECT name, connection_auth_desc FROM sys.service_broker_endpoints
REVERT
GO
DENY VIEW DEFINITION ON ENDPOINT::epv_ep TO epv_conn
EXECUTE AS LOGIN = 'epv_conn'
SELECT COUNT(*) AS broker_endpoints FROM sys.service_broker_endpoints
REVERT
GO
EXECUTE AS LOGIN = 'epv_any'
SELECT name FROM sys.endpoints ORDER BY endpoint_id
REVERT
EXECUTE AS LOGIN = 'epv_alter'
SELECT name FROM sys.tcp_endpoints ORDER BY endpoint_id
REVERT
GO
SELECT name FROM sys.endpoints ORDER BY endpoint_id
DROP ENDPOINT epv_ep
DROP LOGIN epv_owner
DROP LOGIN epv_plain
DROP LOGIN epv_conn
DROP LOGIN epv_any
DROP LOGIN epv_alter
