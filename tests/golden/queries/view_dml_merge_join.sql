-- MERGE into a view over a join writes the one base table its actions name (UPDATE's SET
-- and INSERT's columns); a DELETE action removes the row of that table, alone the row of
-- the first table of the view's FROM; actions naming two base tables are Msg 4405 (the
-- batch stops). Only the view's rows match; OUTPUT's inserted.c of the other table is
-- Msg 404.
SET NOCOUNT ON
CREATE TABLE dbo.emp (id int PRIMARY KEY, name varchar(10), dept int, pay int)
CREATE TABLE dbo.dept (did int PRIMARY KEY, dname varchar(10))
INSERT INTO dbo.dept VALUES (1, 'sales'), (2, 'ops'), (3, 'hr')
INSERT INTO dbo.emp VALUES (1, 'ann', 1, 10), (2, 'bob', 2, 20), (3, 'cy', 1, 30), (4, 'dee', 9, 40)
GO
CREATE VIEW dbo.emp_dept AS
    SELECT e.id, e.name, e.pay, e.dept, d.did, d.dname
    FROM dbo.emp AS e JOIN dbo.dept AS d ON e.dept = d.did
    WHERE e.pay < 35
GO
MERGE dbo.emp_dept AS t
USING (VALUES (1, 11), (5, 55)) AS s (id, pay) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET pay = s.pay
WHEN NOT MATCHED THEN INSERT (id, name, dept, pay) VALUES (s.id, 'new', 2, s.pay);
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.emp ORDER BY id
GO
PRINT '-- a row of emp outside the view does not match: the INSERT meets its key'
MERGE dbo.emp_dept AS t
USING (VALUES (4, 44)) AS s (id, pay) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET pay = s.pay
WHEN NOT MATCHED THEN INSERT (id, pay) VALUES (s.id, s.pay);
GO
DECLARE @out TABLE (act nvarchar(10), did int, old varchar(10), new varchar(10))
MERGE dbo.emp_dept AS t
USING (VALUES ('ops', 'OPS')) AS s (old, new) ON t.dname = s.old
WHEN MATCHED THEN UPDATE SET dname = s.new
OUTPUT $action, inserted.did, deleted.dname, inserted.dname INTO @out;
SELECT * FROM @out ORDER BY did
PRINT '-- WHEN NOT MATCHED BY SOURCE acts on the view''s other rows only'
MERGE dbo.emp_dept AS t
USING (VALUES (1)) AS s (id) ON t.id = s.id
WHEN MATCHED AND t.dname = 'sales' THEN UPDATE SET t.name = 'ANN'
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET pay = pay + 1;
SELECT @@ROWCOUNT AS [rowcount]
SELECT * FROM dbo.emp ORDER BY id
SELECT * FROM dbo.dept ORDER BY did
GO
PRINT '-- DELETE alone: the first table''s row; beside an UPDATE: the updated table''s'
MERGE dbo.emp_dept AS t
USING (VALUES (3)) AS s (id) ON t.id = s.id
WHEN MATCHED THEN DELETE;
SELECT @@ROWCOUNT AS [rowcount]
MERGE dbo.emp_dept AS t
USING (VALUES (2, 1), (1, 0)) AS s (id, d) ON t.id = s.id
WHEN MATCHED AND s.d = 1 THEN DELETE
WHEN MATCHED THEN UPDATE SET dname = 'Sales';
SELECT id FROM dbo.emp ORDER BY id
SELECT * FROM dbo.dept ORDER BY did
GO
MERGE dbo.emp_dept AS t
USING (VALUES (1, 'x')) AS s (id, n) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET name = s.n, dname = s.n;
PRINT 'not reached'
GO
MERGE dbo.emp_dept AS t
USING (VALUES (1, 'x')) AS s (id, n) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET dname = s.n
WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.n);
GO
MERGE dbo.emp_dept AS t
USING (VALUES (9, 1, 'x')) AS s (id, d, n) ON 1 = 0
WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.n, 1, s.d, s.d, s.n);
GO
MERGE dbo.emp_dept AS t
USING (VALUES (1, 12)) AS s (id, pay) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET pay = s.pay
OUTPUT inserted.pay, inserted.dname;
GO
SELECT * FROM dbo.emp_dept ORDER BY id
GO
CREATE VIEW dbo.emp_dept_c AS
    SELECT e.id, e.name, e.pay, e.dept, d.dname
    FROM dbo.emp AS e JOIN dbo.dept AS d ON e.dept = d.did
    WHERE e.pay < 100
    WITH CHECK OPTION
GO
PRINT '-- WITH CHECK OPTION: the written row is judged through the join'
MERGE dbo.emp_dept_c AS t
USING (VALUES (1, 500)) AS s (id, pay) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET pay = s.pay;
MERGE dbo.emp_dept_c AS t
USING (VALUES (8, 50, 7)) AS s (id, pay, dept) ON t.id = s.id
WHEN NOT MATCHED THEN INSERT (id, pay, dept) VALUES (s.id, s.pay, s.dept);
MERGE dbo.emp_dept_c AS t
USING (VALUES (1, 50)) AS s (id, pay) ON t.id = s.id
WHEN MATCHED THEN UPDATE SET pay = s.pay;
SELECT id, pay FROM dbo.emp ORDER BY id
