-- Who may manage users and roles: ALTER ANY USER (db_accessadmin), CREATE ROLE / ALTER ANY ROLE
-- (db_securityadmin), role owners, fixed roles only by db_owner (Msg 15151 / 15247).
CREATE DATABASE urx
GO
USE urx
SET NOCOUNT ON
CREATE USER low WITHOUT LOGIN
CREATE USER sec WITHOUT LOGIN
CREATE USER acc WITHOUT LOGIN
CREATE ROLE team
ALTER ROLE db_securityadmin ADD MEMBER sec
ALTER ROLE db_accessadmin ADD MEMBER acc
GO
EXECUTE AS USER = 'low'
ALTER ROLE db_owner ADD MEMBER low
EXEC sp_addrolemember 'db_owner', 'low'
ALTER ROLE team ADD MEMBER low
CREATE ROLE mine
DROP ROLE team
CREATE USER sneaky WITHOUT LOGIN
DROP USER sec
ALTER USER low WITH DEFAULT_SCHEMA = dbo
REVERT
EXECUTE AS USER = 'sec'
ALTER ROLE team ADD MEMBER low
CREATE ROLE secrole
ALTER ROLE db_owner ADD MEMBER sec
CREATE USER sneaky WITHOUT LOGIN
REVERT
EXECUTE AS USER = 'acc'
CREATE USER made_by_acc WITHOUT LOGIN
DROP USER made_by_acc
ALTER ROLE team DROP MEMBER low
REVERT
SELECT r.name AS role_name, m.name AS member_name FROM sys.database_role_members rm
JOIN sys.database_principals r ON r.principal_id = rm.role_principal_id
JOIN sys.database_principals m ON m.principal_id = rm.member_principal_id ORDER BY 1, 2
GO
USE master
DROP DATABASE urx
