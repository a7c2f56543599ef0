-- Owners other than dbo: CREATE SCHEMA … AUTHORIZATION and ALTER AUTHORIZATION record the
-- owner (sys.schemas.principal_id; sys.objects.principal_id is NULL for an object owned
-- through its schema); AUTHORIZATION on CREATE MESSAGE TYPE / CONTRACT too. An owner holds
-- CONTROL on what it owns (SELECT, INSERT, ALTER, DROP, GRANT) without a GRANT, and so do
-- the members of an owning role. ALTER AUTHORIZATION needs TAKE OWNERSHIP and a new owner
-- the caller may name; the permissions on a securable go when its owner changes. DROP USER
-- refuses an owner (Msg 15183 objects, 15138 a schema or a broker object).
SET NOCOUNT ON
CREATE DATABASE own1
GO
USE own1
CREATE USER u1 WITHOUT LOGIN
CREATE USER u2 WITHOUT LOGIN
CREATE USER u3 WITHOUT LOGIN
CREATE ROLE r1
ALTER ROLE r1 ADD MEMBER u3
GO
CREATE SCHEMA s AUTHORIZATION u1
GO
CREATE SCHEMA bad AUTHORIZATION nobody
GO
CREATE TABLE s.x (a int)
CREATE TABLE dbo.t (a int CONSTRAINT pk PRIMARY KEY)
INSERT dbo.t VALUES (1)
CREATE MESSAGE TYPE [//m/a] AUTHORIZATION u1
CREATE CONTRACT [//c/a] AUTHORIZATION u2 ([//m/a] SENT BY ANY)
SELECT name, USER_NAME(principal_id) AS owner FROM sys.schemas WHERE name IN ('s', 'dbo', 'bad')
SELECT name, principal_id FROM sys.objects WHERE name IN ('x', 't') ORDER BY name
SELECT name, USER_NAME(principal_id) AS owner FROM sys.service_message_types
    WHERE name = '//m/a'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.service_contracts WHERE name = '//c/a'
GO
-- the schema's owner: everything on its objects, nothing on dbo's
EXECUTE AS USER = 'u1'
INSERT s.x VALUES (5)
SELECT a FROM s.x
ALTER TABLE s.x ADD b int
GRANT SELECT ON s.x TO u2
SELECT a FROM dbo.t
SELECT name AS u1_sees FROM sys.tables ORDER BY name
REVERT
EXECUTE AS USER = 'u2'
SELECT a, b FROM s.x
REVERT
GO
-- ALTER AUTHORIZATION: refusals
ALTER AUTHORIZATION ON OBJECT::pk TO u1
ALTER AUTHORIZATION ON nosuch TO u1
ALTER AUTHORIZATION ON dbo.t TO nosuch
ALTER AUTHORIZATION ON SCHEMA::dbo TO u1
ALTER AUTHORIZATION ON SCHEMA::s TO SCHEMA OWNER
ALTER AUTHORIZATION ON USER::u1 TO u2
GRANT SELECT ON dbo.t TO u3
EXECUTE AS USER = 'u3'
ALTER AUTHORIZATION ON dbo.t TO u3
REVERT
GRANT TAKE OWNERSHIP ON dbo.t TO u3
EXECUTE AS USER = 'u3'
ALTER AUTHORIZATION ON dbo.t TO u2
REVERT
GO
-- an object of its own owner; the permissions on it go with the old owner
ALTER AUTHORIZATION ON dbo.t TO u2
SELECT name, USER_NAME(principal_id) AS owner FROM sys.objects WHERE name = 't'
SELECT COUNT(*) AS permissions_left FROM sys.database_permissions
    WHERE major_id = OBJECT_ID('dbo.t')
EXECUTE AS USER = 'u2'
SELECT a FROM dbo.t
UPDATE dbo.t SET a = 2
SELECT name AS u2_sees FROM sys.tables ORDER BY name
REVERT
GO
-- a role owns: its members hold CONTROL
ALTER AUTHORIZATION ON dbo.t TO r1
EXECUTE AS USER = 'u3'
SELECT a FROM dbo.t
REVERT
ALTER AUTHORIZATION ON dbo.t TO u2
GO
-- inside a rolled back transaction the owner change goes too
BEGIN TRANSACTION
ALTER AUTHORIZATION ON SCHEMA::s TO u2
ROLLBACK
SELECT name, USER_NAME(principal_id) AS owner FROM sys.schemas WHERE name = 's'
GO
DROP USER u2
DROP USER u1
ALTER AUTHORIZATION ON dbo.t TO SCHEMA OWNER
SELECT name, principal_id FROM sys.objects WHERE name = 't'
DROP USER u2
ALTER AUTHORIZATION ON CONTRACT::[//c/a] TO dbo
DROP USER u2
GO
-- broker securables move too; an owner may drop its own
ALTER AUTHORIZATION ON MESSAGE TYPE::[//m/a] TO u3
ALTER AUTHORIZATION ON CONTRACT::[//c/a] TO u1
ALTER AUTHORIZATION ON ROUTE::nosuch TO u1
SELECT name, USER_NAME(principal_id) AS owner FROM sys.service_message_types
    WHERE name = '//m/a'
-- CREATE SCHEMA needs CREATE SCHEMA; DROP SCHEMA CONTROL on it, which its owner holds
EXECUTE AS USER = 'u3'
DROP SCHEMA s
REVERT
EXECUTE AS USER = 'u1'
GO
CREATE SCHEMA u1_more
GO
DROP CONTRACT [//c/a]
DROP TABLE s.x
DROP SCHEMA s
REVERT
DROP USER u1
SELECT COUNT(*) AS schemas_named_s FROM sys.schemas WHERE name = 's'
GO
-- AUTHORIZATION on CREATE ROUTE / REMOTE SERVICE BINDING
CREATE ROUTE r_owned AUTHORIZATION u3 WITH SERVICE_NAME = '//far', ADDRESS = 'LOCAL'
CREATE REMOTE SERVICE BINDING b_owned AUTHORIZATION r1 TO SERVICE '//far' WITH USER = u3
CREATE ROUTE r_ghost AUTHORIZATION nobody WITH SERVICE_NAME = '//far', ADDRESS = 'LOCAL'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.routes WHERE name LIKE 'r[_]%'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.remote_service_bindings
GO
USE master
DROP DATABASE own1
