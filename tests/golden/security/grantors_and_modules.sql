-- Who may GRANT / REVOKE / DENY (Msg 4613); EXECUTE on scalar functions and SELECT on
-- table-valued functions; statement permissions and REFERENCES of broker DDL.
CREATE DATABASE sec_mod
GO
USE sec_mod
SET NOCOUNT ON
CREATE TABLE dbo.t (a int)
INSERT dbo.t VALUES (1)
CREATE USER boss WITHOUT LOGIN
CREATE USER peon WITHOUT LOGIN
CREATE USER other WITHOUT LOGIN
GRANT SELECT ON dbo.t TO boss WITH GRANT OPTION
GRANT INSERT ON dbo.t TO peon
GO
PRINT '-- grantors'
EXECUTE AS USER = 'peon'
GRANT INSERT ON dbo.t TO other
DENY SELECT ON dbo.t TO other
GRANT CREATE TABLE TO other
REVERT
EXECUTE AS USER = 'boss'
GRANT SELECT ON dbo.t TO other
GRANT SELECT (a) ON dbo.t TO peon
REVOKE SELECT ON dbo.t FROM other
DENY SELECT ON dbo.t TO other
GRANT INSERT ON dbo.t TO other
REVERT
ALTER ROLE db_owner ADD MEMBER peon
EXECUTE AS USER = 'peon'
DENY SELECT ON dbo.t TO other
GRANT CREATE TABLE TO other
REVERT
ALTER ROLE db_owner DROP MEMBER peon
SELECT USER_NAME(grantee_principal_id) AS grantee, COL_NAME(major_id, minor_id) AS column_name,
       permission_name, state_desc, USER_NAME(grantor_principal_id) AS grantor
FROM sys.database_permissions
WHERE class IN (0, 1) AND grantee_principal_id > 4 AND permission_name <> 'CONNECT'
ORDER BY grantee, permission_name, column_name
GO
CREATE FUNCTION dbo.twice (@x int) RETURNS int AS BEGIN RETURN @x * 2 END
GO
CREATE FUNCTION dbo.rows_of (@n int) RETURNS TABLE AS RETURN SELECT a FROM dbo.t WHERE a <= @n
GO
CREATE PROCEDURE dbo.doubled AS SELECT dbo.twice(a) AS v FROM dbo.t
GO
GRANT SELECT ON dbo.t TO peon
GRANT EXECUTE ON dbo.doubled TO peon
GO
PRINT '-- functions'
EXECUTE AS USER = 'peon'
SELECT dbo.twice(a) AS v FROM dbo.t
SELECT dbo.twice(3) AS v
DECLARE @v int = dbo.twice(4)
SELECT a FROM dbo.rows_of(5)
EXEC dbo.doubled
REVERT
GRANT EXECUTE ON dbo.twice TO peon
GRANT SELECT ON dbo.rows_of TO peon
EXECUTE AS USER = 'peon'
SELECT dbo.twice(a) AS v FROM dbo.t
SELECT dbo.twice(3) AS v
SELECT a FROM dbo.rows_of(5)
REVERT
GO
PRINT '-- broker DDL'
CREATE MESSAGE TYPE [//m/Request] VALIDATION = NONE
GO
EXECUTE AS USER = 'peon'
CREATE MESSAGE TYPE [//m/Other] VALIDATION = NONE
CREATE CONTRACT [//m/Contract] ([//m/Request] SENT BY INITIATOR)
CREATE ROUTE peon_route WITH ADDRESS = 'LOCAL'
REVERT
GRANT CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE ROUTE TO peon
EXECUTE AS USER = 'peon'
CREATE MESSAGE TYPE [//m/Other] VALIDATION = NONE
CREATE CONTRACT [//m/Contract] ([//m/Request] SENT BY INITIATOR)
CREATE ROUTE peon_route WITH ADDRESS = 'LOCAL'
REVERT
GRANT REFERENCES ON MESSAGE TYPE::[//m/Request] TO peon
EXECUTE AS USER = 'peon'
CREATE CONTRACT [//m/Contract] ([//m/Request] SENT BY INITIATOR)
REVERT
SELECT name FROM sys.service_contracts WHERE name LIKE '//m/%'
SELECT name FROM sys.routes WHERE name = 'peon_route'
GO
USE master
DROP DATABASE sec_mod
