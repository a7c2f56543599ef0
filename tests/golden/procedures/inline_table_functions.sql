CREATE TABLE dbo.orders (id int, cust int, amount decimal(8,2))
INSERT dbo.orders VALUES (1, 1, 10.50), (2, 1, 4.25), (3, 2, 99.99)
GO
CREATE FUNCTION dbo.orders_of (@cust int) RETURNS TABLE AS RETURN (SELECT id, amount FROM dbo.orders WHERE cust = @cust)
GO
CREATE FUNCTION dbo.pair (@n int, @tag varchar(5) = 'x') RETURNS TABLE
AS
RETURN SELECT @n AS a, @n * 2 AS b, @tag AS tag
GO
SELECT * FROM dbo.orders_of(1) ORDER BY id
SELECT o.id, o.amount FROM dbo.orders_of(2) AS o
DECLARE @c int = 1
SELECT COUNT(*) AS n FROM dbo.orders_of(@c)
SELECT * FROM dbo.pair(3, DEFAULT)
SELECT c.cust, x.id FROM (VALUES (1), (2), (3)) AS c(cust) CROSS APPLY dbo.orders_of(c.cust) AS x ORDER BY c.cust, x.id
SELECT c.cust, x.id FROM (VALUES (1), (3)) AS c(cust) OUTER APPLY dbo.orders_of(c.cust) x ORDER BY c.cust, x.id
SELECT p.a, p.b, p.tag FROM dbo.orders o CROSS APPLY dbo.pair(o.id, 'y') p WHERE o.cust = 1 ORDER BY p.a
GO
SELECT * FROM dbo.pair(1)
GO
SELECT * FROM dbo.pair(1, 'a', 2)
GO
ALTER FUNCTION dbo.pair (@n int, @tag varchar(5) = 'x') RETURNS TABLE AS RETURN (SELECT @n + 100 AS a)
GO
SELECT * FROM dbo.pair(1, DEFAULT)
SELECT type, type_desc FROM sys.objects WHERE name = 'pair'
DROP FUNCTION dbo.pair
SELECT * FROM dbo.pair(1, DEFAULT)
GO
