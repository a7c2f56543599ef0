-- DENY VIEW DEFINITION (or CONTROL) hides a securable from the catalog whatever else is
-- granted (on the object, its schema or the database); the permissions themselves still
-- work. ALTER VIEW keeps the view's permissions, column ones included; DROP / CREATE loses
-- them. DROP LOGIN of a login that owns an endpoint is Msg 15141.
SET NOCOUNT ON
CREATE DATABASE vdd
GO
USE vdd
CREATE TABLE dbo.t1 (a int, b int)
CREATE TABLE dbo.t2 (a int)
INSERT INTO dbo.t1 VALUES (1, 2)
GO
CREATE SCHEMA s2
GO
CREATE TABLE s2.t3 (a int)
CREATE MESSAGE TYPE [//m/x]
CREATE QUEUE dbo.q
CREATE SERVICE [//s/x] ON QUEUE dbo.q
CREATE USER u WITHOUT LOGIN
CREATE USER w WITHOUT LOGIN
GRANT SELECT ON dbo.t1 TO u
GRANT SELECT ON dbo.t2 TO u
GRANT SELECT ON s2.t3 TO u
GRANT SEND ON SERVICE::[//s/x] TO u
DENY VIEW DEFINITION ON dbo.t1 TO u
DENY VIEW DEFINITION ON SCHEMA::s2 TO u
DENY CONTROL ON SERVICE::[//s/x] TO u
GRANT VIEW DEFINITION TO w
DENY VIEW DEFINITION ON dbo.t2 TO w
GO
EXECUTE AS USER = 'u'
SELECT name FROM sys.tables ORDER BY name
SELECT name FROM sys.services
SELECT OBJECT_ID('dbo.t1') AS t1_id, OBJECT_ID('dbo.t2') - OBJECT_ID('dbo.t2') AS t2_seen
SELECT a, b FROM dbo.t1
REVERT
EXECUTE AS USER = 'w'
SELECT name FROM sys.tables ORDER BY name
REVERT
DENY VIEW DEFINITION TO w
EXECUTE AS USER = 'w'
SELECT COUNT(*) AS w_sees FROM sys.objects
REVERT
GO
-- ALTER VIEW keeps GRANT and column GRANT / DENY; DROP and CREATE start afresh
CREATE VIEW dbo.v AS SELECT a, b FROM dbo.t1
GO
GRANT SELECT ON dbo.v TO w
DENY SELECT (b) ON dbo.v TO w
GO
ALTER VIEW dbo.v AS SELECT a, b, a + b AS c FROM dbo.t1
GO
SELECT permission_name, state_desc, minor_id
FROM sys.database_permissions WHERE major_id = OBJECT_ID('dbo.v') ORDER BY state_desc
EXECUTE AS USER = 'w'
SELECT a, c FROM dbo.v
SELECT b FROM dbo.v
REVERT
DROP VIEW dbo.v
GO
CREATE VIEW dbo.v AS SELECT a FROM dbo.t1
GO
SELECT COUNT(*) AS after_recreate FROM sys.database_permissions
    WHERE major_id = OBJECT_ID('dbo.v')
GO
USE master
DROP DATABASE vdd
CREATE LOGIN ep_owner WITH PASSWORD = 'Ep0wner!Passw0rd', CHECK_POLICY = OFF
CREATE ENDPOINT vdd_ep AUTHORIZATION ep_owner STATE = STOPPED
    AS TCP (LISTENER_PORT = 4099) FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE no_cert)
GO
DROP LOGIN ep_owner
SELECT COUNT(*) AS still_there FROM sys.server_principals WHERE name = 'ep_owner'
DROP ENDPOINT vdd_ep
DROP LOGIN ep_owner
SELECT COUNT(*) AS gone FROM sys.server_principals WHERE name = 'ep_owner'
