-- Database roles: CREATE / ALTER / DROP ROLE, ADD / DROP MEMBER, sp_addrolemember.
SET NOCOUNT ON
CREATE USER ru WITHOUT LOGIN
CREATE USER rv WITHOUT LOGIN
CREATE ROLE broker_readers AUTHORIZATION dbo
CREATE ROLE broker_readers
ALTER ROLE broker_readers ADD MEMBER ru
ALTER ROLE broker_readers ADD MEMBER ru
ALTER ROLE broker_readers ADD MEMBER nobody
ALTER ROLE nope ADD MEMBER ru
ALTER ROLE db_owner ADD MEMBER dbo
EXEC sp_addrolemember 'db_datareader', 'rv'
EXEC sp_addrolemember @rolename = N'nope', @membername = N'rv'
EXEC sp_addrolemember 'broker_readers', 'nobody'
GRANT RECEIVE ON SCHEMA::dbo TO broker_readers
SELECT r.name AS role_name, m.name AS member_name
FROM sys.database_role_members AS rm
JOIN sys.database_principals AS r ON r.principal_id = rm.role_principal_id
JOIN sys.database_principals AS m ON m.principal_id = rm.member_principal_id
ORDER BY r.name, m.name
SELECT name, type_desc, owning_principal_id, is_fixed_role FROM sys.database_principals WHERE name IN ('broker_readers', 'db_owner')
DROP ROLE broker_readers
ALTER ROLE broker_readers DROP MEMBER ru
ALTER ROLE broker_readers WITH NAME = queue_readers
DROP USER broker_readers
DROP ROLE queue_readers
DROP ROLE db_owner
DROP ROLE IF EXISTS queue_readers
DROP ROLE queue_readers
EXEC sp_droprolemember 'db_datareader', 'rv'
SELECT COUNT(*) AS memberships FROM sys.database_role_members
