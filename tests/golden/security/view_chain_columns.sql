-- A broken ownership chain through a view is checked per column of the base table: the
-- columns the view's query uses (Msg 230 for one the caller may not read).
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int, name varchar(20), salary int)
INSERT INTO dbo.emp VALUES (1, 'a', 100)
CREATE USER vowner WITHOUT LOGIN
CREATE USER reader WITHOUT LOGIN
GO
CREATE SCHEMA other AUTHORIZATION vowner
GO
CREATE VIEW other.v_public AS SELECT id, name FROM dbo.emp
GO
CREATE VIEW other.v_all AS SELECT id, name, salary FROM dbo.emp
GO
CREATE VIEW other.v_filtered AS SELECT id FROM dbo.emp WHERE salary > 10
GO
GRANT SELECT ON SCHEMA::other TO reader
GRANT SELECT (id, name) ON dbo.emp TO reader
EXECUTE AS USER = 'reader'
SELECT id, name FROM other.v_public
SELECT id FROM other.v_all
SELECT id FROM other.v_filtered
REVERT
PRINT '-- a DENY on one column beats the table-wide GRANT'
GRANT SELECT ON dbo.emp TO reader
DENY SELECT (salary) ON dbo.emp TO reader
EXECUTE AS USER = 'reader'
SELECT id, name FROM other.v_public
SELECT name FROM other.v_all
REVERT
REVOKE SELECT (salary) ON dbo.emp TO reader
EXECUTE AS USER = 'reader'
SELECT salary FROM other.v_all
REVERT
PRINT '-- no permission on the table at all: Msg 229'
REVOKE SELECT ON dbo.emp TO reader
REVOKE SELECT (id, name) ON dbo.emp TO reader
EXECUTE AS USER = 'reader'
SELECT id FROM other.v_public
REVERT
