-- sp_addapprole (with a schema of the role's name, its default schema), sp_approlepassword,
-- sp_dropapprole (the empty schema goes with it); these and sp_setapprole are refused inside
-- a user transaction (Msg 15002); APPLICATION ROLE::name as a securable of GRANT / DENY /
-- REVOKE (USER:: and ROLE:: do not name one).
SET NOCOUNT ON
CREATE DATABASE apl
GO
USE apl
DECLARE @rc int
EXEC @rc = sp_addapprole 'ledger', 'L3dger!Passw0rd'
SELECT @rc AS rc
SELECT name, type, default_schema_name FROM sys.database_principals WHERE name = 'ledger'
SELECT name FROM sys.schemas WHERE name = 'ledger'
EXEC sp_addapprole 'ledger', 'x'
EXEC sp_addapprole 'nopw', NULL
GO
EXEC sp_addapprole @rolename = 'nopw'
GO
CREATE SCHEMA clash
GO
EXEC sp_addapprole 'clash', 'Cl4sh!Passw0rd'
SELECT COUNT(*) AS clash_roles FROM sys.database_principals WHERE name = 'clash'
BEGIN TRANSACTION
EXEC sp_addapprole 'intx', 'Int4x!Passw0rd'
EXEC sp_approlepassword 'ledger', 'N3w!Passw0rd'
EXEC sp_dropapprole 'ledger'
EXEC sp_setapprole 'ledger', 'L3dger!Passw0rd'
SELECT @@TRANCOUNT AS trancount, USER_NAME() AS usr
ROLLBACK
GO
EXEC sp_approlepassword 'ledger', 'N3w!Passw0rd'
EXEC sp_approlepassword 'ghost', 'N3w!Passw0rd'
CREATE USER keeper WITHOUT LOGIN
CREATE TABLE ledger.entries (id int)
GRANT ALTER ON APPLICATION ROLE::ledger TO keeper
GRANT VIEW DEFINITION ON APPLICATION ROLE::ledger TO keeper
GRANT ALTER ON USER::ledger TO keeper
GRANT ALTER ON APPLICATION ROLE::keeper TO keeper
GRANT SELECT ON APPLICATION ROLE::ledger TO keeper
SELECT class_desc, permission_name, state_desc FROM sys.database_permissions
    WHERE class = 4 AND major_id = DATABASE_PRINCIPAL_ID('ledger') ORDER BY permission_name
EXECUTE AS USER = 'keeper'
EXEC sp_approlepassword 'ledger', 'K33per!Passw0rd'
SELECT name FROM sys.database_principals WHERE type = 'A'
REVERT
DENY ALTER ON APPLICATION ROLE::ledger TO keeper
EXECUTE AS USER = 'keeper'
EXEC sp_approlepassword 'ledger', 'K33per!Passw0rd2'
REVERT
REVOKE ALTER ON APPLICATION ROLE::ledger FROM keeper
SELECT permission_name, state_desc FROM sys.database_permissions
    WHERE class = 4 AND major_id = DATABASE_PRINCIPAL_ID('ledger') ORDER BY permission_name
DECLARE @c varbinary(8000)
EXEC sp_setapprole 'ledger', 'N3w!Passw0rd'
EXEC sp_setapprole 'ledger', 'K33per!Passw0rd', @fCreateCookie = true, @cookie = @c OUTPUT
SELECT USER_NAME() AS usr
EXEC sp_unsetapprole @c
SELECT USER_NAME() AS usr
GO
EXEC sp_dropapprole 'ledger'
DROP TABLE ledger.entries
EXEC sp_dropapprole 'ledger'
EXEC sp_dropapprole 'ledger'
SELECT COUNT(*) AS schemas_left FROM sys.schemas WHERE name = 'ledger'
SELECT COUNT(*) AS permissions_left FROM sys.database_permissions WHERE class = 4
GO
USE master
DROP DATABASE apl
