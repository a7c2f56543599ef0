-- Fixed server roles other than sysadmin: ALTER SERVER ROLE, dbcreator, securityadmin,
-- IS_SRVROLEMEMBER; logins' CREATE / ALTER / DROP LOGIN and CREATE / DROP DATABASE rights.
SET NOCOUNT ON
CREATE LOGIN creator WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN guard WITH PASSWORD = 'Str0ng!Passw0rd'
CREATE LOGIN plain WITH PASSWORD = 'Str0ng!Passw0rd'
GO
EXECUTE AS LOGIN = 'plain'
CREATE DATABASE nope_db
CREATE LOGIN x WITH PASSWORD = 'Str0ng!Passw0rd'
ALTER LOGIN guard DISABLE
ALTER LOGIN plain WITH PASSWORD = 'An0ther!Passw0rd'
ALTER SERVER ROLE dbcreator ADD MEMBER plain
GRANT VIEW SERVER STATE TO plain
SELECT SUSER_SNAME() AS login, USER_NAME() AS usr
REVERT
ALTER SERVER ROLE dbcreator ADD MEMBER creator
ALTER SERVER ROLE securityadmin ADD MEMBER guard
ALTER SERVER ROLE nope ADD MEMBER guard
ALTER SERVER ROLE sysadmin DROP MEMBER sa
GO
EXECUTE AS LOGIN = 'creator'
CREATE DATABASE made_by_creator
ALTER SERVER ROLE dbcreator ADD MEMBER plain
CREATE LOGIN y WITH PASSWORD = 'Str0ng!Passw0rd'
REVERT
EXECUTE AS LOGIN = 'plain'
DROP DATABASE made_by_creator
REVERT
EXECUTE AS LOGIN = 'guard'
CREATE LOGIN made_by_guard WITH PASSWORD = 'Str0ng!Passw0rd'
GRANT VIEW SERVER STATE TO plain
ALTER SERVER ROLE sysadmin ADD MEMBER guard
CREATE DATABASE nope2
REVERT
ALTER SERVER ROLE sysadmin ADD MEMBER guard
EXECUTE AS LOGIN = 'guard'
SELECT USER_NAME() AS usr
CREATE DATABASE by_guard_sysadmin
REVERT
EXECUTE AS LOGIN = 'creator'
DROP DATABASE made_by_creator
REVERT
SELECT name FROM sys.databases WHERE name LIKE '%creator%' OR name LIKE '%guard%' ORDER BY name
SELECT name FROM sys.server_principals WHERE name LIKE 'made%'
SELECT IS_SRVROLEMEMBER('sysadmin') AS me_sa, IS_SRVROLEMEMBER('dbcreator', 'creator') AS c_dbc,
       IS_SRVROLEMEMBER('sysadmin', 'guard') AS g_sa, IS_SRVROLEMEMBER('serveradmin', 'plain') AS p_sv,
       IS_SRVROLEMEMBER('nope') AS bad_role, IS_SRVROLEMEMBER('public', 'plain') AS pub
EXECUTE AS LOGIN = 'plain'
SELECT IS_SRVROLEMEMBER('sysadmin') AS me_sa, IS_SRVROLEMEMBER('dbcreator') AS me_dbc
REVERT
SELECT SUSER_NAME(role_principal_id) AS role_name, SUSER_NAME(member_principal_id) AS member
    FROM sys.server_role_members ORDER BY role_name, member
GO
-- guard owns the database it created: dropped first (Msg 15174 otherwise)
DROP DATABASE by_guard_sysadmin
DROP LOGIN guard
CREATE LOGIN guard WITH PASSWORD = 'Str0ng!Passw0rd'
SELECT IS_SRVROLEMEMBER('sysadmin', 'guard') AS guard_again_sa
DROP LOGIN guard
DROP LOGIN creator
DROP LOGIN plain
DROP LOGIN made_by_guard
