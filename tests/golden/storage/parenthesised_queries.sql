-- A whole query in parentheses where a statement takes one: CREATE VIEW … AS (SELECT …),
-- an inline table-valued function whose body ends with ';', INSERT t [(cols)] (SELECT …),
-- a CTE's ((SELECT …)), derived tables and EXISTS ((SELECT …)).
SET NOCOUNT ON
CREATE TABLE t (a int, b varchar(10))
INSERT t VALUES (1, 'x'), (2, 'y')
GO
CREATE VIEW v AS (SELECT 1 AS a)
GO
CREATE VIEW v2 AS (SELECT a, b FROM t WHERE a > 1)
GO
CREATE VIEW v3 AS ((SELECT a FROM t WHERE a = 1) UNION ALL SELECT 3)
GO
CREATE VIEW v4 AS (WITH c AS (SELECT a FROM t) SELECT MAX(a) AS m FROM c)
GO
SELECT a FROM v
SELECT a, b FROM v2
SELECT a FROM v3 ORDER BY a
SELECT m FROM v4
GO
CREATE FUNCTION dbo.at_least(@x int) RETURNS TABLE AS RETURN (SELECT a FROM t WHERE a >= @x);
GO
CREATE FUNCTION dbo.at_most(@x int)
RETURNS TABLE
AS
RETURN SELECT a FROM t WHERE a <= @x;
GO
SELECT a FROM dbo.at_least(2)
SELECT a FROM dbo.at_most(1)
GO
SET NOCOUNT ON
INSERT t (a, b) (SELECT 5, 'z')
INSERT INTO t (SELECT 6, 'w')
INSERT t VALUES ((SELECT 7), 'v')
WITH c AS ((SELECT a FROM t WHERE a > 4)) SELECT COUNT(*) AS n FROM c
SELECT d.a FROM ((SELECT a FROM t WHERE a < 2)) d
SELECT COUNT(*) AS n FROM ((SELECT a FROM t) UNION SELECT 100) d
IF EXISTS ((SELECT 1 FROM t WHERE a = 6)) PRINT 'EXISTS ((SELECT …))'
DECLARE @n int = ((SELECT COUNT(*) FROM t))
PRINT @n
SELECT 1 AS one WHERE 1 IN ((SELECT 1))
