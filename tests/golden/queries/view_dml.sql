-- INSERT / UPDATE / DELETE through updatable views: the statement modifies the view's base
-- table (its columns mapped, the view's WHERE added), nested views down to the table,
-- a join view where the modification touches one table; identity, defaults, OUTPUT,
-- @@ROWCOUNT and the base table's triggers work as on the table.
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int IDENTITY PRIMARY KEY, name varchar(10) NOT NULL,
                      dept int NULL, pay int NOT NULL DEFAULT 100)
CREATE TABLE dbo.dept (did int PRIMARY KEY, dname varchar(10))
CREATE TABLE dbo.audit (what varchar(20), n int)
INSERT INTO dbo.dept VALUES (1, 'sales'), (2, 'ops')
GO
CREATE TRIGGER emp_ins ON dbo.emp AFTER INSERT, UPDATE, DELETE AS
    INSERT INTO dbo.audit SELECT 'ins', COUNT(*) FROM inserted
    UNION ALL SELECT 'del', COUNT(*) FROM deleted
GO
CREATE VIEW dbo.staff AS SELECT id, name AS who, dept, pay FROM dbo.emp WHERE pay > 0
GO
CREATE VIEW dbo.sales_staff (num, person, salary) AS
    SELECT s.id, s.who, s.pay FROM dbo.staff AS s WHERE s.dept = 1
GO
CREATE VIEW dbo.emp_dept AS
    SELECT e.id, e.name, e.pay, d.did, d.dname FROM dbo.emp AS e JOIN dbo.dept AS d ON e.dept = d.did
GO
PRINT '-- INSERT: mapped columns, identity, default'
INSERT INTO dbo.staff (who, dept) VALUES ('ann', 1)
SELECT @@ROWCOUNT AS [rowcount], SCOPE_IDENTITY() AS [identity]
INSERT INTO dbo.staff (who, dept, pay) OUTPUT inserted.id, inserted.who, inserted.pay
    VALUES ('bob', 1, 200), ('cy', 2, 300)
INSERT INTO dbo.sales_staff (person) VALUES ('dee')
INSERT INTO dbo.staff (who, dept, pay) SELECT 'eve', 2, 50
SELECT id, name, dept, pay FROM dbo.emp ORDER BY id
PRINT '-- UPDATE: the view''s WHERE and the statement''s'
UPDATE dbo.staff SET pay = pay + 1 WHERE dept = 1
SELECT @@ROWCOUNT AS [rowcount]
UPDATE dbo.sales_staff SET salary = salary * 2 OUTPUT deleted.salary, inserted.salary
    WHERE person = 'bob'
UPDATE dbo.emp SET pay = -5 WHERE name = 'eve'
UPDATE dbo.staff SET who = 'nobody' WHERE who = 'eve'
SELECT @@ROWCOUNT AS [rowcount]
UPDATE s SET s.pay = 7 FROM dbo.staff AS s JOIN dbo.dept AS d ON s.dept = d.did
    WHERE d.dname = 'ops'
SELECT id, name, dept, pay FROM dbo.emp ORDER BY id
PRINT '-- a join view: one table at a time'
UPDATE dbo.emp_dept SET name = 'ANN' WHERE dname = 'sales' AND name = 'ann'
UPDATE dbo.emp_dept SET dname = 'SALES' WHERE id = 1
INSERT INTO dbo.emp_dept (name, pay) VALUES ('fay', 9)
SELECT * FROM dbo.emp_dept ORDER BY id
PRINT '-- DELETE'
DELETE FROM dbo.sales_staff WHERE person = 'dee'
SELECT @@ROWCOUNT AS [rowcount]
DELETE FROM dbo.sales_staff WHERE person = 'bob'
SELECT @@ROWCOUNT AS [rowcount]
DELETE s FROM dbo.staff AS s JOIN dbo.dept AS d ON s.dept = d.did WHERE d.dname = 'ops'
DELETE dbo.staff OUTPUT deleted.who WHERE pay < 100
SELECT id, name, dept, pay FROM dbo.emp ORDER BY id
SELECT what, SUM(n) AS n FROM dbo.audit GROUP BY what ORDER BY what
PRINT '-- INSERT without a column list: the identity column is left out'
INSERT INTO dbo.staff VALUES ('gil', 2, 70)
SELECT id, name, dept, pay FROM dbo.emp WHERE name = 'gil'
