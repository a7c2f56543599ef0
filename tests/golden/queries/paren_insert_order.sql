-- A query in parentheses after INSERT's OUTPUT clause (the "(" ends the last OUTPUT column,
-- as SQL Server reads it, instead of calling it), and a parenthesised query with its own
-- TOP … ORDER BY ordered again by the statement: the inner TOP picks the rows, the outer
-- ORDER BY orders them.
CREATE TABLE dbo.t (a int, b varchar(5));
INSERT dbo.t OUTPUT inserted.a (SELECT 1, 'one');
INSERT INTO dbo.t (a, b) OUTPUT inserted.a, inserted.b (SELECT 2, 'two') UNION ALL (SELECT 3, 'three');
DECLARE @log TABLE (a int);
INSERT dbo.t OUTPUT inserted.a INTO @log (SELECT 4, 'four');
INSERT dbo.t OUTPUT inserted.a INTO @log (a) ((SELECT 5, 'five'));
INSERT dbo.t OUTPUT inserted.* (SELECT TOP (1) a * 10, b FROM dbo.t ORDER BY a DESC);
SELECT a FROM @log ORDER BY a;
GO
(SELECT TOP 3 a, b FROM dbo.t ORDER BY a) ORDER BY a DESC;
(SELECT TOP (2) a AS n FROM dbo.t ORDER BY a DESC) ORDER BY n OFFSET 1 ROWS;
(SELECT TOP 50 PERCENT b FROM dbo.t ORDER BY b) ORDER BY b DESC;
GO
-- A column of the inner query that it does not return cannot order the outer rows.
(SELECT TOP 2 a FROM dbo.t ORDER BY a) ORDER BY b;
GO
DROP TABLE dbo.t;
