-- CREATE SERVER ROLE [AUTHORIZATION], ALTER SERVER ROLE … ADD / DROP MEMBER, WITH NAME, and
-- DROP SERVER ROLE: server principals of type R in sys.server_principals, their members in
-- sys.server_role_members and IS_SRVROLEMEMBER (through nested roles too); the server
-- permissions granted to a role are its members'. CREATE SERVER ROLE needs CREATE SERVER
-- ROLE (securityadmin); members of a created role change by ALTER ANY SERVER ROLE, its owner
-- or ALTER on it (GRANT … ON SERVER ROLE::), its name by ALTER ANY SERVER ROLE.
SET NOCOUNT ON
CREATE LOGIN sr_admin WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN sr_member WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE LOGIN sr_plain WITH PASSWORD = 'Str0ng!Passw0rd1'
CREATE SERVER ROLE Creators
CREATE SERVER ROLE Auditors AUTHORIZATION sr_admin
CREATE SERVER ROLE Reviewers
CREATE SERVER ROLE Creators
CREATE SERVER ROLE Bad AUTHORIZATION nosuch
GRANT CREATE ANY DATABASE TO Creators
ALTER SERVER ROLE Creators ADD MEMBER sr_member
ALTER SERVER ROLE Auditors ADD MEMBER Creators
ALTER SERVER ROLE Creators ADD MEMBER Auditors
ALTER SERVER ROLE Creators ADD MEMBER Creators
ALTER SERVER ROLE Creators ADD MEMBER sysadmin
ALTER SERVER ROLE Creators ADD MEMBER nosuch
ALTER SERVER ROLE nosuch ADD MEMBER sr_plain
CREATE USER Creators FOR LOGIN Creators
EXECUTE AS LOGIN = 'Creators'
SELECT name, type, type_desc, is_fixed_role, SUSER_NAME(owning_principal_id) AS owner,
       default_database_name, default_language_name
FROM sys.server_principals WHERE type = 'R' AND is_fixed_role = 0 AND principal_id > 2
ORDER BY name
SELECT SUSER_NAME(role_principal_id) AS role_name, SUSER_NAME(member_principal_id) AS member
FROM sys.server_role_members WHERE role_principal_id > 10 ORDER BY role_name, member
SELECT IS_SRVROLEMEMBER('Creators', 'sr_member') AS m_creators,
       IS_SRVROLEMEMBER('Auditors', 'sr_member') AS m_auditors,
       IS_SRVROLEMEMBER('Creators', 'sr_plain') AS p_creators,
       IS_SRVROLEMEMBER('Creators') AS me, IS_SRVROLEMEMBER('NoSuchRole', 'sr_member') AS bad
GO
GRANT ALTER ON SERVER ROLE::Reviewers TO sr_plain
GRANT ALTER ON SERVER ROLE::sr_plain TO sr_admin
GRANT ALTER ON LOGIN::Reviewers TO sr_admin
EXECUTE AS LOGIN = 'sr_plain'
CREATE SERVER ROLE NotAllowed
ALTER SERVER ROLE Creators ADD MEMBER sr_plain
ALTER SERVER ROLE Reviewers ADD MEMBER sr_plain
DROP SERVER ROLE Creators
CREATE DATABASE sr_plain_db
REVERT
EXECUTE AS LOGIN = 'sr_member'
SELECT IS_SRVROLEMEMBER('Creators') AS me_creators, IS_SRVROLEMEMBER('Auditors') AS me_auditors
CREATE DATABASE sr_member_db
ALTER SERVER ROLE Creators ADD MEMBER sr_plain
REVERT
EXECUTE AS LOGIN = 'sr_admin'
ALTER SERVER ROLE Auditors ADD MEMBER sr_plain
ALTER SERVER ROLE Auditors WITH NAME = Auditors2
REVERT
GO
ALTER SERVER ROLE securityadmin ADD MEMBER sr_plain
EXECUTE AS LOGIN = 'sr_plain'
CREATE SERVER ROLE ByPlain
SELECT SUSER_NAME(owning_principal_id) AS owner FROM sys.server_principals
WHERE name = 'ByPlain'
REVERT
ALTER SERVER ROLE Auditors WITH NAME = Reviewers
ALTER SERVER ROLE Auditors WITH NAME = Inspectors
ALTER SERVER ROLE sysadmin WITH NAME = Gods
DROP SERVER ROLE Creators
DROP SERVER ROLE sysadmin
DROP SERVER ROLE nosuch
DROP LOGIN sr_admin
DROP LOGIN Reviewers
GO
ALTER SERVER ROLE Inspectors DROP MEMBER Creators
ALTER SERVER ROLE Inspectors DROP MEMBER sr_plain
ALTER SERVER ROLE Reviewers DROP MEMBER sr_plain
ALTER SERVER ROLE Creators DROP MEMBER sr_member
ALTER SERVER ROLE Creators DROP MEMBER sr_member
DROP SERVER ROLE Creators
DROP SERVER ROLE Inspectors
DROP SERVER ROLE Reviewers
DROP SERVER ROLE ByPlain
ALTER SERVER ROLE securityadmin DROP MEMBER sr_plain
SELECT COUNT(*) AS on_dropped FROM sys.server_permissions
WHERE class = 101 AND SUSER_NAME(major_id) IS NULL
SELECT COUNT(*) AS created_roles FROM sys.server_principals WHERE principal_id > 10 AND type = 'R'
SELECT COUNT(*) AS role_permissions FROM sys.server_permissions WHERE grantee_principal_id > 10
    AND grantee_principal_id NOT IN (SUSER_ID('sr_admin'), SUSER_ID('sr_member'),
                                     SUSER_ID('sr_plain'))
DROP DATABASE sr_member_db
DROP LOGIN sr_admin
DROP LOGIN sr_member
DROP LOGIN sr_plain
