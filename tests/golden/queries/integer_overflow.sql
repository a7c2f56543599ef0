-- + - * of integers in a query are computed in the higher of the operands' types (an
-- integer constant is an int): past that type's range, Msg 8115, on every store.
CREATE TABLE dbo.t (i int, b bigint, s smallint)
INSERT dbo.t VALUES (5, 9223372036854775807, 20000)
GO
SELECT i * 2147483647 * 3 FROM dbo.t
GO
SELECT i * 2 + 1 AS a, i - 3 AS d, -i * 429496729 AS m, i * 3 + i - 1 * i AS c,
       (i + 1) * (i - 7) AS p FROM dbo.t
GO
SELECT 2147483647 + i FROM dbo.t
GO
SELECT b + 1 FROM dbo.t
GO
SELECT b * -1 - 1 AS lowest FROM dbo.t
GO
SELECT b * -1 - 2 FROM dbo.t
GO
SELECT i + b FROM dbo.t
GO
SELECT s + 1 AS s1, s - s + s AS s2 FROM dbo.t
GO
SELECT s + s FROM dbo.t
GO
SELECT i FROM dbo.t WHERE i * 1000000000 > 0
GO
SELECT i * 2.5 AS dec, i * 3000000000 AS big FROM dbo.t
GO
