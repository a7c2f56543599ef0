-- DROP USER, DROP ROLE and DROP XML SCHEMA COLLECTION take the permissions on what they drop
-- with them (USER::, ROLE::, XML SCHEMA COLLECTION::), as DROP APPLICATION ROLE and DROP
-- CERTIFICATE do: one created later with the same name (and, here, the same id) starts
-- without them, as in SQL Server.
SET NOCOUNT ON
CREATE DATABASE dpp
GO
USE dpp
CREATE USER u WITHOUT LOGIN
CREATE USER u2 WITHOUT LOGIN
CREATE ROLE rr
CREATE XML SCHEMA COLLECTION dbo.xc AS
    N'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:element name="a"/></xsd:schema>'
GRANT IMPERSONATE ON USER::u2 TO u
GRANT ALTER ON ROLE::rr TO u
GRANT REFERENCES ON XML SCHEMA COLLECTION::dbo.xc TO u
SELECT class_desc, permission_name FROM sys.database_permissions
    WHERE grantee_principal_id = USER_ID('u') AND class <> 0 ORDER BY class, permission_name
DROP USER u2
DROP ROLE rr
DROP XML SCHEMA COLLECTION dbo.xc
SELECT COUNT(*) AS left_after_drop FROM sys.database_permissions
    WHERE grantee_principal_id = USER_ID('u') AND class <> 0
CREATE USER u2 WITHOUT LOGIN
CREATE ROLE rr
CREATE XML SCHEMA COLLECTION dbo.xc AS
    N'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:element name="a"/></xsd:schema>'
SELECT COUNT(*) AS on_the_new_ones FROM sys.database_permissions
    WHERE grantee_principal_id = USER_ID('u') AND class <> 0
GO
