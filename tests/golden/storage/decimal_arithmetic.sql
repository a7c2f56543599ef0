-- Decimal arithmetic in queries takes SQL Server's result precision / scale on both
-- backends (SQLite stores a whole decimal as an integer: 7 / 3.00 and 2.50 % 2 must not be
-- integer arithmetic), and a zero divisor is Msg 8134, not NULL.
CREATE TABLE dbo.m (id int PRIMARY KEY, n decimal(6, 2), q int, f float)
INSERT dbo.m VALUES (1, 3, 7, 1.5), (2, 2.5, 2, NULL)
SELECT id + 1 AS a, n * 2 AS b, n + 1 AS c, n / 3 AS d, 7 / n AS e, q * n AS g, n - q AS h,
       q / 2 AS i, n * 1.5 AS j, n % 2 AS k, 1.0 * q / 4 AS l, f * n AS m
FROM dbo.m ORDER BY id
SELECT SUM(n * q) AS s, AVG(n) AS a FROM dbo.m
SELECT n * q AS t INTO #x FROM dbo.m
SELECT t FROM #x ORDER BY t
UPDATE dbo.m SET n = n + 1 OUTPUT deleted.n * 2 AS x, inserted.n AS y WHERE id = 1
SELECT n % 0 AS z FROM dbo.m
SELECT q / 0 AS z FROM dbo.m
SELECT q % (id - 1) AS z FROM dbo.m
SELECT id FROM dbo.m WHERE q / 2.0 > 1 ORDER BY id
GO
-- Through a derived table the column keeps its type (the SUM's decimal scale).
CREATE TABLE dbo.o (cust varchar(10), amt decimal(8, 2))
INSERT dbo.o VALUES ('ann', 10), ('bob', 20.5), ('ann', 5.25)
SELECT x.cust, x.t, x.t * 2 AS t2 FROM (SELECT cust, SUM(amt) AS t FROM dbo.o GROUP BY cust) AS x
ORDER BY x.cust
SELECT y.c, y.a FROM (SELECT cust, amt + 1 FROM dbo.o) AS y (c, a) ORDER BY y.a
