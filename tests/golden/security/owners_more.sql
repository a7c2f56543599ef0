-- Owners of roles, certificates, types, XML schema collections and databases: recorded
-- by CREATE … AUTHORIZATION / ALTER AUTHORIZATION, shown in the catalog views, holding
-- CONTROL on what they own, and keeping their owner from DROP USER (Msg 15138).
SET NOCOUNT ON
CREATE USER u1 WITHOUT LOGIN
CREATE USER u2 WITHOUT LOGIN
CREATE TYPE dbo.money10 FROM decimal(10, 2)
CREATE XML SCHEMA COLLECTION dbo.xs AS N'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:element name="a" type="xsd:int"/></xsd:schema>'
CREATE ROLE r1 AUTHORIZATION u1
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'Master#Key#1'
CREATE CERTIFICATE c1 AUTHORIZATION u1 WITH SUBJECT = 'c1'
GO
SELECT name, USER_NAME(owning_principal_id) AS owner FROM sys.database_principals WHERE name = 'r1'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.certificates WHERE name = 'c1'
SELECT name, principal_id FROM sys.types WHERE name = 'money10'
SELECT name, principal_id FROM sys.xml_schema_collections WHERE name = 'xs'
GO
ALTER AUTHORIZATION ON ROLE::r1 TO u2
ALTER AUTHORIZATION ON CERTIFICATE::c1 TO u2
ALTER AUTHORIZATION ON TYPE::dbo.money10 TO u2
ALTER AUTHORIZATION ON XML SCHEMA COLLECTION::dbo.xs TO u2
SELECT name, USER_NAME(owning_principal_id) AS owner FROM sys.database_principals WHERE name = 'r1'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.certificates WHERE name = 'c1'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.types WHERE name = 'money10'
SELECT name, USER_NAME(principal_id) AS owner FROM sys.xml_schema_collections WHERE name = 'xs'
GO
PRINT '-- the owner holds CONTROL: it may grant on what it owns'
EXECUTE AS USER = 'u2'
GRANT REFERENCES ON TYPE::dbo.money10 TO u1
GRANT REFERENCES ON XML SCHEMA COLLECTION::dbo.xs TO u1
GRANT CONTROL ON CERTIFICATE::c1 TO u1
ALTER ROLE r1 ADD MEMBER u1
REVERT
SELECT class_desc, permission_name, USER_NAME(grantor_principal_id) AS grantor
FROM sys.database_permissions WHERE grantee_principal_id = USER_ID('u1') AND class <> 0
ORDER BY class_desc
PRINT '-- u1 owns nothing now: it may not grant on them'
EXECUTE AS USER = 'u1'
GRANT REFERENCES ON TYPE::dbo.money10 TO u2
REVERT
GO
PRINT '-- DROP USER of an owner'
DROP USER u2
GO
ALTER AUTHORIZATION ON ROLE::r1 TO dbo
DROP USER u2
GO
ALTER AUTHORIZATION ON TYPE::dbo.money10 TO SCHEMA OWNER
DROP USER u2
GO
DROP XML SCHEMA COLLECTION dbo.xs
DROP USER u2
GO
ALTER AUTHORIZATION ON CERTIFICATE::c1 TO dbo
DROP USER u2
SELECT name, principal_id FROM sys.types WHERE name = 'money10'
GO
PRINT '-- refused'
ALTER AUTHORIZATION ON ROLE::r1 TO r1
ALTER AUTHORIZATION ON ROLE::db_owner TO u1
ALTER AUTHORIZATION ON CERTIFICATE::c1 TO SCHEMA OWNER
ALTER AUTHORIZATION ON TYPE::dbo.nope TO u1
GO
PRINT '-- the database: its owner login is its dbo'
CREATE LOGIN owner_login WITH PASSWORD = 'Secret#123'
CREATE LOGIN mapped_login WITH PASSWORD = 'Secret#123'
CREATE DATABASE owned_db
GO
USE owned_db
CREATE USER mapped_login FOR LOGIN mapped_login
GO
ALTER AUTHORIZATION ON DATABASE::owned_db TO mapped_login
ALTER AUTHORIZATION ON DATABASE::owned_db TO nobody
ALTER AUTHORIZATION ON DATABASE::master TO owner_login
ALTER AUTHORIZATION ON DATABASE::owned_db TO owner_login
SELECT name, SUSER_SNAME(owner_sid) AS owner FROM sys.databases WHERE name = 'owned_db'
SELECT name, SUSER_SNAME(sid) AS login FROM sys.database_principals WHERE name = 'dbo'
EXECUTE AS LOGIN = 'owner_login'
SELECT USER_NAME() AS user_name, SUSER_SNAME() AS login
CREATE TABLE dbo.mine (id int)
REVERT
GO
USE master
DROP LOGIN owner_login
GO
ALTER AUTHORIZATION ON DATABASE::owned_db TO sa
DROP LOGIN owner_login
SELECT name, SUSER_SNAME(owner_sid) AS owner FROM sys.databases WHERE name = 'owned_db'
GO
PRINT '-- CREATE DATABASE: the creator owns it'
CREATE LOGIN creator WITH PASSWORD = 'Secret#123'
GRANT CREATE ANY DATABASE TO creator
GO
EXECUTE AS LOGIN = 'creator'
CREATE DATABASE created_db
GO
USE created_db
SELECT USER_NAME() AS user_name
USE master
REVERT
SELECT name, SUSER_SNAME(owner_sid) AS owner FROM sys.databases WHERE name = 'created_db'
DROP DATABASE created_db
DROP DATABASE owned_db
