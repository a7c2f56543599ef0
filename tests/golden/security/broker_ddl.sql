-- ALTER / DROP of broker objects and endpoint DDL need their permissions: ALTER (DROP:
-- CONTROL) on the object, ALTER ANY <class> (db_ddladmin), ALTER on the queue's schema; a
-- refusal reads as for a missing object (15151, 3701, 1088). Endpoints: CREATE ENDPOINT /
-- ALTER ANY ENDPOINT / CONTROL on it / CONTROL SERVER.
SET NOCOUNT ON
CREATE DATABASE bddl
GO
USE bddl
CREATE MESSAGE TYPE [//m/a] VALIDATION = NONE
CREATE MESSAGE TYPE [//m/b] VALIDATION = NONE
CREATE CONTRACT [//c/a] ([//m/a] SENT BY ANY)
CREATE CONTRACT [//c/b] ([//m/b] SENT BY ANY)
CREATE QUEUE dbo.qa
CREATE QUEUE dbo.qb
CREATE SERVICE [//s/a] ON QUEUE dbo.qa ([//c/a])
CREATE ROUTE ra WITH ADDRESS = 'LOCAL'
CREATE REMOTE SERVICE BINDING ba TO SERVICE '//s/remote' WITH USER = dbo
CREATE USER plain WITHOUT LOGIN
CREATE USER granted WITHOUT LOGIN
CREATE USER ddl WITHOUT LOGIN
ALTER ROLE db_ddladmin ADD MEMBER ddl
GO
-- nothing granted: every ALTER / DROP reads as "does not exist"
EXECUTE AS USER = 'plain'
ALTER MESSAGE TYPE [//m/a] VALIDATION = EMPTY
DROP MESSAGE TYPE [//m/b]
DROP CONTRACT [//c/b]
ALTER SERVICE [//s/a] (ADD CONTRACT [//c/b])
DROP SERVICE [//s/a]
ALTER QUEUE dbo.qb WITH STATUS = OFF
DROP QUEUE dbo.qb
ALTER ROUTE ra WITH ADDRESS = 'TCP://h:4022'
DROP ROUTE ra
ALTER REMOTE SERVICE BINDING ba WITH ANONYMOUS = ON
DROP REMOTE SERVICE BINDING ba
DROP MESSAGE TYPE [//m/none]
REVERT
GO
-- ALTER on the object allows ALTER, not DROP; CONTROL allows both; ALTER on the schema
-- allows DROP QUEUE
GRANT ALTER ON MESSAGE TYPE::[//m/a] TO granted
GRANT ALTER ON ROUTE::ra TO granted
GRANT CONTROL ON REMOTE SERVICE BINDING::ba TO granted
GRANT ALTER ON OBJECT::dbo.qb TO granted
GO
EXECUTE AS USER = 'granted'
ALTER MESSAGE TYPE [//m/a] VALIDATION = EMPTY
DROP MESSAGE TYPE [//m/a]
ALTER ROUTE ra WITH ADDRESS = 'TCP://h:4022'
DROP ROUTE ra
ALTER REMOTE SERVICE BINDING ba WITH ANONYMOUS = ON
DROP REMOTE SERVICE BINDING ba
ALTER QUEUE dbo.qb WITH STATUS = OFF
DROP QUEUE dbo.qb
REVERT
GRANT ALTER ON SCHEMA::dbo TO granted
EXECUTE AS USER = 'granted'
DROP QUEUE dbo.qb
REVERT
GO
-- DENY beats the role: db_ddladmin holds ALTER ANY CONTRACT, but CONTROL is denied on one
DENY CONTROL ON CONTRACT::[//c/b] TO ddl
GO
EXECUTE AS USER = 'ddl'
DROP CONTRACT [//c/b]
DROP SERVICE [//s/a]
DROP CONTRACT [//c/a]
DROP QUEUE dbo.qa
DROP ROUTE ra
REVERT
GO
SELECT name FROM sys.service_message_types WHERE name LIKE '//m/%' ORDER BY name
SELECT name FROM sys.service_contracts WHERE name LIKE '//c/%' ORDER BY name
SELECT name FROM sys.service_queues ORDER BY name
SELECT name FROM sys.routes ORDER BY name
SELECT validation_desc FROM sys.service_message_types WHERE name = '//m/a'
GO
-- endpoints
USE master
CREATE LOGIN ep_plain WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN ep_create WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN ep_admin WITH PASSWORD = 'Str0ng!Passw0rd'
GRANT CREATE ENDPOINT TO ep_create
ALTER SERVER ROLE serveradmin ADD MEMBER ep_admin
GO
EXECUTE AS LOGIN = 'ep_plain'
CREATE ENDPOINT bddl_ep STATE = STOPPED AS TCP (LISTENER_PORT = 4099)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE no_cert)
REVERT
EXECUTE AS LOGIN = 'ep_create'
CREATE ENDPOINT bddl_ep STATE = STOPPED AS TCP (LISTENER_PORT = 4099)
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE no_cert)
ALTER ENDPOINT bddl_ep STATE = DISABLED
REVERT
SELECT e.name, p.name AS owner, e.state_desc FROM sys.endpoints e
    JOIN sys.server_principals p ON p.principal_id = e.principal_id WHERE e.name = 'bddl_ep'
EXECUTE AS LOGIN = 'ep_plain'
ALTER ENDPOINT bddl_ep STATE = STOPPED
DROP ENDPOINT bddl_ep
REVERT
EXECUTE AS LOGIN = 'ep_admin'
ALTER ENDPOINT bddl_ep STATE = STOPPED
DROP ENDPOINT bddl_ep
REVERT
GRANT CONTROL ON ENDPOINT::bddl_ep TO ep_plain
EXECUTE AS LOGIN = 'ep_plain'
DROP ENDPOINT bddl_ep
REVERT
GO
SELECT name, state_desc FROM sys.endpoints WHERE name = 'bddl_ep'
DROP LOGIN ep_plain
DROP LOGIN ep_create
DROP LOGIN ep_admin
DROP DATABASE bddl
