-- A function call whose argument is in parentheses in an OUTPUT list is a call, not the start
-- of INSERT's query in parentheses; a subquery anywhere in an OUTPUT list (a UDF's argument
-- included) is Msg 10706, a compile error: the batch does not run.
CREATE FUNCTION dbo.f (@x int) RETURNS int AS BEGIN RETURN @x * 2 END
GO
CREATE TABLE dbo.t (a int)
INSERT dbo.t OUTPUT dbo.f((1)) AS o, inserted.a VALUES (5)
INSERT dbo.t OUTPUT dbo.f((inserted.a)) + 1 AS o SELECT 7
INSERT INTO dbo.t OUTPUT dbo.f((inserted.a)) o VALUES (3)
INSERT dbo.t OUTPUT inserted.a ((SELECT 8))
INSERT dbo.t OUTPUT inserted.a (SELECT 9) UNION ALL (SELECT 10)
UPDATE dbo.t SET a = a + 1 OUTPUT dbo.f((deleted.a)) AS o, inserted.a WHERE a IN (9, 10)
UPDATE dbo.t SET a = a - 1 OUTPUT dbo.f(inserted.a) AS o WHERE a IN (10, 11)
GO
PRINT 'not printed: the batch does not compile'
INSERT dbo.t OUTPUT dbo.f((SELECT 1)) AS o, inserted.a VALUES (5)
GO
UPDATE dbo.t SET a = a + 1 OUTPUT (SELECT 1) AS o WHERE a = 5
GO
DELETE dbo.t OUTPUT CASE WHEN EXISTS (SELECT 1) THEN deleted.a END AS o WHERE a = 5
GO
DELETE dbo.t OUTPUT deleted.a WHERE a IN (SELECT 5)
SELECT a FROM dbo.t ORDER BY a
GO
