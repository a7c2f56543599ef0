-- A statement may begin with a query in parentheses, alone or as the first operand of a set
-- operation, with ORDER BY / OPTION after the parentheses; where "(" continues the statement
-- before it (RETURN (SELECT …), EXEC p (…)), it does.
(SELECT 1 AS a)
GO
(SELECT 1 AS a) UNION (SELECT 2) ORDER BY a DESC
GO
CREATE TABLE dbo.t (a int, s varchar(9))
INSERT dbo.t VALUES (3, '(x'), (4, ')')
(SELECT a FROM dbo.t WHERE a > 3)
((SELECT a FROM dbo.t)) EXCEPT (SELECT 3) OPTION (MAXDOP 1)
(SELECT a, s FROM dbo.t WHERE s <> ')') OPTION (MAXDOP 1);
(SELECT a FROM dbo.t) UNION ALL (SELECT 7) ORDER BY a DESC
((SELECT a FROM dbo.t)) ORDER BY a DESC OFFSET 1 ROWS
IF 1 = 1 (SELECT 'then' AS branch) ELSE (SELECT 'else' AS branch)
GO
WITH c AS (SELECT a FROM dbo.t) (SELECT MAX(a) AS m FROM c)
GO
CREATE FUNCTION dbo.two () RETURNS int AS BEGIN RETURN (SELECT 2) END
GO
SELECT dbo.two() AS two
GO
