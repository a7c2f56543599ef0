-- Application roles: CREATE / ALTER / DROP APPLICATION ROLE, sp_setapprole (its permissions
-- replace the session's, USER_NAME() is the role; REVERT leaves it), sp_unsetapprole with the
-- cookie; sys.database_principals type A.
SET NOCOUNT ON
CREATE DATABASE apr
GO
USE apr
CREATE TABLE dbo.orders (id int, amount int)
CREATE TABLE dbo.secret (x int)
INSERT INTO dbo.orders VALUES (1, 10)
INSERT INTO dbo.secret VALUES (42)
CREATE LOGIN clerk WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE USER clerk FOR LOGIN clerk
GRANT SELECT ON dbo.secret TO clerk
CREATE APPLICATION ROLE till WITH PASSWORD = 'T1ll!Passw0rd', DEFAULT_SCHEMA = dbo
CREATE APPLICATION ROLE till WITH PASSWORD = 'x'
GRANT SELECT, INSERT ON dbo.orders TO till
SELECT name, type, type_desc, default_schema_name, DATALENGTH(sid) AS sid_bytes
    FROM sys.database_principals WHERE name = 'till'
GO
EXECUTE AS LOGIN = 'clerk'
CREATE APPLICATION ROLE nope WITH PASSWORD = 'N0pe!Passw0rd'
DROP APPLICATION ROLE till
SELECT x FROM dbo.secret
SELECT id FROM dbo.orders
DECLARE @cookie varbinary(8000)
EXEC sp_setapprole 'till', 'wrong'
EXEC sp_setapprole 'ghost', 'T1ll!Passw0rd'
EXEC sp_setapprole 'till', 'T1ll!Passw0rd', @fCreateCookie = true, @cookie = @cookie OUTPUT
SELECT USER_NAME() AS usr, SUSER_SNAME() AS login, DATALENGTH(@cookie) AS cookie_bytes
INSERT INTO dbo.orders VALUES (2, 20)
SELECT id, amount FROM dbo.orders ORDER BY id
SELECT x FROM dbo.secret
REVERT
SELECT USER_NAME() AS after_revert
EXEC sp_unsetapprole 0x01
EXEC sys.sp_unsetapprole @cookie
SELECT USER_NAME() AS after_unset
SELECT x FROM dbo.secret
REVERT
GO
-- without a cookie the role lasts the session; inside a procedure it is refused
CREATE PROCEDURE dbo.activate AS EXEC sp_setapprole 'till', 'T1ll!Passw0rd'
GO
EXEC dbo.activate
EXEC ('EXEC sp_setapprole ''till'', ''T1ll!Passw0rd''')
ALTER APPLICATION ROLE till WITH NAME = register, PASSWORD = 'R3gister!Passw0rd'
SELECT name FROM sys.database_principals WHERE type = 'A'
EXEC sp_setapprole 'register', 'T1ll!Passw0rd'
EXEC sp_setapprole @rolename = 'register', @password = 'R3gister!Passw0rd'
SELECT USER_NAME() AS usr
SELECT COUNT(*) AS n FROM dbo.orders
SELECT x FROM dbo.secret
EXEC sp_unsetapprole 0x00
GO
-- elsewhere the session is guest (which may connect to master only)
USE master
SELECT USER_NAME() AS in_master
CREATE DATABASE apr2
USE apr
SELECT USER_NAME() AS back_in_apr
