-- A minus written before a number is part of the constant: -2147483648 is an int, so
-- arithmetic with it overflows as an int's would. A CAST or CONVERT to an integer type is
-- computed in that type (smallint - smallint is a smallint). Msg 8115 on every store.
CREATE TABLE dbo.t (i int, b bigint, s smallint, y tinyint)
INSERT dbo.t VALUES (-2147483648, -9223372036854775808, -32768, 200)
GO
SELECT -2147483648 / -1 FROM dbo.t
GO
SELECT -2147483648 - 1 FROM dbo.t
GO
SELECT -2147483648 * -1 FROM dbo.t
GO
SELECT -2147483648 / -1
GO
SELECT -2147483648 + 0 AS lowest, -2147483648 / 2 AS half, -2147483648 % -1 AS r FROM dbo.t
GO
SELECT s - CAST(1 AS smallint) FROM dbo.t
GO
SELECT CAST(s AS smallint) * CAST(2 AS smallint) FROM dbo.t
GO
SELECT CAST(i AS int) * 2 FROM dbo.t
GO
SELECT -CAST(i AS int) FROM dbo.t
GO
SELECT CAST(i AS int) / -1 FROM dbo.t
GO
SELECT CONVERT(bigint, b) - 1 FROM dbo.t
GO
SELECT -CONVERT(bigint, b) FROM dbo.t
GO
SELECT CAST(y AS tinyint) + CAST(y AS tinyint) FROM dbo.t
GO
SELECT CAST(y AS int) + CAST(y AS tinyint) AS ok, CAST(s AS smallint) / CAST(-2 AS smallint) AS q,
       CAST(s AS smallint) + CAST(1 AS smallint) AS s1, -7 / 2 AS nh, CONVERT(bigint, i) * 2 AS w
FROM dbo.t
GO
