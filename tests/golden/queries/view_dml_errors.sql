-- Views SQL Server does not modify: Msg 4405 when the modification affects two base
-- tables of a join (DELETE on a join view too), Msg 4406 for a derived or constant column,
-- Msg 4403 for aggregates, DISTINCT or GROUP BY. They are found when the batch compiles:
-- nothing more of the batch runs.
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int IDENTITY PRIMARY KEY, name varchar(10), dept int, pay int)
CREATE TABLE dbo.dept (did int PRIMARY KEY, dname varchar(10))
INSERT INTO dbo.dept VALUES (1, 'sales')
INSERT INTO dbo.emp (name, dept, pay) VALUES ('ann', 1, 10), ('bob', 1, 20)
GO
CREATE VIEW dbo.emp_dept AS
    SELECT e.id, e.name, d.did, d.dname FROM dbo.emp AS e JOIN dbo.dept AS d ON e.dept = d.did
GO
CREATE VIEW dbo.calc AS SELECT id, pay * 2 AS double_pay, 'k' AS k, name FROM dbo.emp
GO
CREATE VIEW dbo.per_dept AS SELECT dept, COUNT(*) AS n FROM dbo.emp GROUP BY dept
GO
CREATE VIEW dbo.depts AS SELECT DISTINCT dept FROM dbo.emp
GO
CREATE VIEW dbo.calc2 AS SELECT double_pay, name FROM dbo.calc
GO
UPDATE dbo.emp_dept SET name = 'x', dname = 'y'
PRINT 'not reached'
GO
INSERT INTO dbo.emp_dept (name, dname) VALUES ('x', 'y')
GO
INSERT INTO dbo.emp_dept (name, did) VALUES ('x', 2)
GO
DELETE FROM dbo.emp_dept WHERE id = 1
GO
UPDATE dbo.calc SET double_pay = 3
GO
INSERT INTO dbo.calc (name, k) VALUES ('z', 'k')
GO
INSERT INTO dbo.calc VALUES (1, 2, 'k', 'z')
GO
UPDATE dbo.calc2 SET double_pay = 1
GO
UPDATE dbo.per_dept SET dept = 3
GO
DELETE FROM dbo.per_dept
GO
INSERT INTO dbo.depts VALUES (5)
GO
UPDATE dbo.emp_dept SET nope = 1
GO
PRINT '-- what a derived column does not stop'
UPDATE dbo.calc SET name = 'ANN' WHERE double_pay = 20
DELETE FROM dbo.calc WHERE double_pay = 40
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.calc
SELECT * FROM dbo.emp
