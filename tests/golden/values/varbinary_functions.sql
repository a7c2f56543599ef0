-- Functions over varbinary columns keep the bytes in queries as in constants (issue 16):
-- SUBSTRING of binary is varbinary (CONVERT style 1 / 2 prints its hex), binary + binary
-- joins the bytes, CAST to varbinary(n) truncates, DATALENGTH counts bytes, CHARINDEX finds
-- bytes exactly; LEFT and RIGHT convert the bytes to varchar first (LEFT page's note).
CREATE TABLE dbo.blobs (id int, b varbinary(max), f binary(4))
INSERT dbo.blobs VALUES (1, 0x68656C6C6F, 0x0102FF00), (2, NULL, NULL)
GO
SELECT id, SUBSTRING(b, 1, 4) AS sub, CONVERT(varchar(20), SUBSTRING(b, 1, 4), 2) AS hex2,
       CONVERT(varchar(20), SUBSTRING(b, 2, 2), 1) AS hex1, SUBSTRING(f, 3, 9) AS subf,
       DATALENGTH(SUBSTRING(b, 2, 100)) AS len_sub
FROM dbo.blobs ORDER BY id
GO
DECLARE @tail varbinary(2) = 0x2100
SELECT id, b + 0x21 AS plus_const, b + f AS plus_col, f + @tail AS plus_var,
       DATALENGTH(b + b) AS len_plus, CAST(b AS varbinary(2)) AS cut,
       CAST(b + f AS varbinary(6)) AS cut_plus
FROM dbo.blobs ORDER BY id
GO
SELECT id, CHARINDEX(0x6C, b) AS ci, CHARINDEX(0x4C, b) AS ci_case, CHARINDEX(0x6C, b, 4) AS ci_from,
       CHARINDEX(0xFF00, f) AS ci_fixed, LEFT(b, 2) AS l, RIGHT(b, 3) AS r, DATALENGTH(b) AS len_b
FROM dbo.blobs ORDER BY id
GO
-- The same in a WHERE clause and an UPDATE.
SELECT id FROM dbo.blobs WHERE SUBSTRING(b, 1, 2) = 0x6865 AND b + 0x00 = 0x68656C6C6F00
UPDATE dbo.blobs SET b = SUBSTRING(b, 2, 3) + 0xAB WHERE id = 1
SELECT b, DATALENGTH(b) AS n FROM dbo.blobs WHERE id = 1
GO
-- Beside a number the bytes are read as that number (data type precedence): int arithmetic.
SELECT f + 1 AS plus_int, (SUBSTRING(f, 1, 2) + 1) + 0x01 AS chained, 3 * SUBSTRING(f, 1, 2) AS times,
       SUBSTRING(f, 1, 2) - id AS minus
FROM dbo.blobs WHERE id = 1
GO
