-- sp_dropapprole drops the schema sp_addapprole made as DROP SCHEMA does: its owner row and
-- the permissions on it go too, so the next schema, which gets its id, starts with dbo as
-- owner and no permissions. The schema is the role's, as CREATE SCHEMA … AUTHORIZATION gives
-- it in SQL Server's procedure.
SET NOCOUNT ON
CREATE DATABASE AppRoleSchemas;
GO
USE AppRoleSchemas;
CREATE USER reader WITHOUT LOGIN;
EXEC sp_addapprole 'legacy_app', 'Str0ng!Passw0rd';
GRANT SELECT ON SCHEMA::legacy_app TO reader;
SELECT s.name, USER_NAME(s.principal_id) AS owner,
       (SELECT COUNT(*) FROM sys.database_permissions p
        WHERE p.class = 3 AND p.major_id = s.schema_id) AS permissions
FROM sys.schemas s WHERE s.name = 'legacy_app';
-- The role owns its schema: DROP APPLICATION ROLE refuses it (Msg 15138).
DROP APPLICATION ROLE legacy_app;
CREATE TABLE #ids (id int);
INSERT #ids SELECT SCHEMA_ID('legacy_app');
EXEC sp_dropapprole 'legacy_app';
GO
CREATE SCHEMA fresh;
GO
SELECT CASE WHEN SCHEMA_ID('fresh') = id THEN 'same id' ELSE 'other id' END AS fresh_id
FROM #ids;
SELECT s.name, USER_NAME(s.principal_id) AS owner,
       (SELECT COUNT(*) FROM sys.database_permissions p
        WHERE p.class = 3 AND p.major_id = s.schema_id) AS permissions
FROM sys.schemas s WHERE s.name = 'fresh';
GO
