-- Unary minus keeps an integer's type, except that a tinyint becomes a smallint; integer
-- division is in the operands' higher type, so MIN / -1 overflows; tinyint with tinyint
-- is tinyint (0 … 255): past the range, Msg 8115 on every store.
CREATE TABLE dbo.t (i int, b bigint, s smallint, y tinyint, z tinyint)
INSERT dbo.t VALUES (-2147483648, -9223372036854775808, -32768, 255, 0)
GO
SELECT -i FROM dbo.t
GO
SELECT -b FROM dbo.t
GO
SELECT -s FROM dbo.t
GO
SELECT i / -1 FROM dbo.t
GO
SELECT b / -1 FROM dbo.t
GO
SELECT s / -1 AS sd, i / 2 AS half, (i + 1) / -1 AS q, -y AS ny, y / 2 + 1 AS yy,
       -(i + 1) AS n1 FROM dbo.t
GO
SELECT i / z FROM dbo.t
GO
SELECT y + y FROM dbo.t
GO
SELECT y * y FROM dbo.t
GO
SELECT z - y FROM dbo.t
GO
SELECT y * 2 AS y2, y - z AS d, z * y AS zy, y + z AS s, y - y - 1 AS m FROM dbo.t
GO
DECLARE @y tinyint = 200, @m int = -2147483648
SELECT -@y AS n, -y AS ny FROM dbo.t
SELECT -@y AS v
SELECT @y + @y
SELECT @m / -1
GO
DECLARE @y tinyint = 200
SELECT y FROM dbo.t WHERE @y + y > 0
GO
