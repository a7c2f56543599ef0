-- Column permissions on views: GRANT / DENY SELECT (col, …) ON a view names the view's
-- result columns (numbered in order); queries on the view are checked per column (Msg 230).
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int, name varchar(20), salary int)
INSERT INTO dbo.emp VALUES (1, 'a', 100)
GO
CREATE VIEW dbo.v_emp AS SELECT id, name, salary FROM dbo.emp
GO
CREATE USER u WITHOUT LOGIN
GRANT SELECT (id, name) ON dbo.v_emp TO u
SELECT OBJECT_NAME(major_id) AS o, minor_id, permission_name FROM sys.database_permissions WHERE grantee_principal_id = USER_ID('u') AND class = 1 ORDER BY minor_id
GO
GRANT SELECT (nope) ON dbo.v_emp TO u
GO
EXECUTE AS USER = 'u'
SELECT id, name FROM dbo.v_emp
SELECT salary FROM dbo.v_emp
SELECT * FROM dbo.v_emp
SELECT COUNT(*) AS n FROM dbo.v_emp
SELECT name FROM dbo.emp
REVERT
GRANT SELECT ON dbo.v_emp TO u
DENY SELECT (salary) ON dbo.v_emp TO u
EXECUTE AS USER = 'u'
SELECT id, name FROM dbo.v_emp WHERE salary > 0
SELECT id FROM dbo.v_emp
REVERT
