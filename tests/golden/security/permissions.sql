-- GRANT / REVOKE / DENY on the securables of a Service Broker set-up, and their errors.
CREATE DATABASE sec_perm
GO
USE sec_perm
GO
SET NOCOUNT ON
CREATE MESSAGE TYPE [//sec/Request] VALIDATION = WELL_FORMED_XML
CREATE CONTRACT [//sec/Contract] ([//sec/Request] SENT BY INITIATOR)
CREATE QUEUE dbo.SecQueue
CREATE SERVICE [//sec/Svc] ON QUEUE dbo.SecQueue ([//sec/Contract])
CREATE TABLE dbo.orders (id int, qty int)
GO
CREATE PROCEDURE dbo.take_order AS SELECT 1 AS taken
GO
SET NOCOUNT ON
CREATE USER broker_user WITHOUT LOGIN
CREATE USER [reader] WITHOUT LOGIN WITH DEFAULT_SCHEMA = dbo
CREATE USER broker_user WITHOUT LOGIN
GRANT SEND ON SERVICE::[//sec/Svc] TO PUBLIC
GRANT CONNECT TO [reader]
GRANT RECEIVE ON dbo.SecQueue TO broker_user
GRANT REFERENCES ON CONTRACT::[//sec/Contract] TO broker_user
GRANT VIEW DEFINITION ON MESSAGE TYPE::[//sec/Request] TO reader
GRANT EXECUTE ON dbo.take_order TO broker_user WITH GRANT OPTION
GRANT SELECT (qty), UPDATE ON OBJECT::dbo.orders TO reader
GRANT CREATE TABLE, ALTER ANY USER TO reader
DENY DELETE ON dbo.orders TO reader
SELECT p.class_desc, o.name AS object_name, p.minor_id, u.name AS grantee, g.name AS grantor,
       p.permission_name, p.state, p.state_desc
FROM sys.database_permissions AS p
JOIN sys.objects AS o ON o.object_id = p.major_id
JOIN sys.database_principals AS u ON u.principal_id = p.grantee_principal_id
JOIN sys.database_principals AS g ON g.principal_id = p.grantor_principal_id
WHERE p.class = 1 ORDER BY o.name, p.minor_id, p.permission_name
SELECT p.class_desc, p.major_id, u.name AS grantee, RTRIM(p.type) AS type, p.permission_name,
       p.state_desc
FROM sys.database_permissions AS p
JOIN sys.database_principals AS u ON u.principal_id = p.grantee_principal_id
WHERE p.class <> 1 ORDER BY p.class, p.grantee_principal_id, p.permission_name
PRINT '-- errors'
GRANT SEND ON SERVICE::[//sec/svc] TO PUBLIC
GRANT SEND ON SERVICE::[//sec/Svc] TO nobody
GRANT EXECUTE ON dbo.orders TO reader
GRANT SELECT ON dbo.missing TO reader
GRANT SEND ON CONTRACT::[//sec/Contract] TO reader
REVOKE EXECUTE ON dbo.take_order FROM broker_user
DENY EXECUTE ON dbo.take_order TO broker_user
PRINT '-- revoke'
REVOKE GRANT OPTION FOR EXECUTE ON dbo.take_order FROM broker_user CASCADE
SELECT permission_name, state_desc FROM sys.database_permissions WHERE major_id = OBJECT_ID('dbo.take_order')
REVOKE EXECUTE ON dbo.take_order FROM broker_user
REVOKE SEND ON SERVICE::[//sec/Svc] FROM PUBLIC
REVOKE DELETE ON dbo.orders TO reader
SELECT COUNT(*) AS remaining FROM sys.database_permissions WHERE class IN (1, 17)
PRINT '-- drop'
DROP USER reader
DROP USER reader
DROP USER IF EXISTS reader
DROP USER dbo
SELECT name, principal_id, type, type_desc, default_schema_name, authentication_type_desc
FROM sys.database_principals WHERE principal_id < 16384 ORDER BY principal_id
GO
USE master
DROP DATABASE sec_perm
