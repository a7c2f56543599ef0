-- Column permissions: GRANT / DENY / REVOKE SELECT, UPDATE, REFERENCES (col, ...) and Msg 230.
CREATE DATABASE sec_cols
GO
USE sec_cols
GO
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int PRIMARY KEY, name varchar(20), salary int)
INSERT dbo.emp VALUES (1, 'ann', 100), (2, 'bob', 200)
CREATE TABLE dbo.dept (dept_id int PRIMARY KEY, boss int, budget int)
INSERT dbo.dept VALUES (10, 1, 5000)
CREATE TABLE dbo.secret (x int)
CREATE USER clerk WITHOUT LOGIN
CREATE ROLE auditors
ALTER ROLE auditors ADD MEMBER clerk
GRANT SELECT ON dbo.emp TO clerk
DENY SELECT (salary) ON dbo.emp TO clerk
GRANT SELECT (dept_id, boss) ON dbo.dept TO clerk
SELECT OBJECT_NAME(major_id) AS object_name, COL_NAME(major_id, minor_id) AS column_name,
       minor_id, permission_name, state_desc
FROM sys.database_permissions WHERE class = 1 ORDER BY object_name, minor_id, permission_name
GO
PRINT '-- a column DENY beats the table GRANT'
EXECUTE AS USER = 'clerk'
SELECT id, name FROM dbo.emp ORDER BY id
SELECT COUNT(*) AS employees FROM dbo.emp
SELECT salary FROM dbo.emp
SELECT * FROM dbo.emp
SELECT name FROM dbo.emp WHERE salary > 150
SELECT e.name, d.dept_id FROM dbo.emp AS e JOIN dbo.dept AS d ON d.boss = e.id
SELECT name, dept_id FROM dbo.emp JOIN dbo.dept ON boss = id
SELECT name FROM dbo.emp AS e WHERE EXISTS (SELECT 1 FROM dbo.dept WHERE boss = e.id)
SELECT budget FROM dbo.dept
SELECT d.* FROM dbo.dept AS d
SELECT name FROM dbo.emp WHERE id IN (SELECT boss FROM dbo.dept WHERE budget > 0)
SELECT x FROM dbo.secret
REVERT
GO
PRINT '-- a DENY on the table does not beat a column GRANT; one on the schema does'
DENY SELECT ON dbo.dept TO clerk
EXECUTE AS USER = 'clerk'
SELECT dept_id, boss FROM dbo.dept
SELECT budget FROM dbo.dept
REVERT
DENY SELECT ON SCHEMA::dbo TO clerk
EXECUTE AS USER = 'clerk'
SELECT dept_id FROM dbo.dept
REVERT
REVOKE SELECT ON SCHEMA::dbo FROM clerk
GO
PRINT '-- a column DENY to a role (REVOKE on the table took the column DENY too)'
REVOKE SELECT ON dbo.emp FROM clerk
GRANT SELECT ON dbo.emp TO clerk
DENY SELECT (name) ON dbo.emp TO auditors
EXECUTE AS USER = 'clerk'
SELECT id FROM dbo.emp ORDER BY id
SELECT id, name FROM dbo.emp
REVERT
GO
PRINT '-- UPDATE (col) and the SELECT an UPDATE reading columns needs'
GRANT UPDATE (name) ON dbo.emp TO clerk
DENY SELECT (salary) ON dbo.emp TO clerk
EXECUTE AS USER = 'clerk'
BEGIN TRAN
UPDATE dbo.emp SET name = 'anna' WHERE id = 1
UPDATE dbo.emp SET salary = 0 WHERE id = 1
UPDATE dbo.emp SET name = 'x' WHERE salary > 0
UPDATE dbo.emp SET name = UPPER(name)
SELECT id FROM dbo.emp WHERE id = 1
ROLLBACK
REVERT
GO
PRINT '-- REFERENCES (col) for a FOREIGN KEY'
GRANT CREATE TABLE TO clerk
GRANT ALTER ON SCHEMA::dbo TO clerk
GRANT REFERENCES (dept_id) ON dbo.dept TO clerk
EXECUTE AS USER = 'clerk'
CREATE TABLE dbo.staff (emp_id int REFERENCES dbo.emp (id))
CREATE TABLE dbo.staff (dept_id int REFERENCES dbo.dept (dept_id))
REVERT
GO
PRINT '-- errors, and REVOKE on the table taking the column rows'
GRANT INSERT (name) ON dbo.emp TO clerk
GO
GRANT SELECT (nope) ON dbo.emp TO clerk
GO
REVOKE SELECT ON dbo.dept FROM clerk
SELECT OBJECT_NAME(major_id) AS object_name, COL_NAME(major_id, minor_id) AS column_name,
       permission_name, state_desc
FROM sys.database_permissions WHERE class = 1 AND grantee_principal_id = USER_ID('clerk')
ORDER BY object_name, minor_id, permission_name
GO
USE master
DROP DATABASE sec_cols
