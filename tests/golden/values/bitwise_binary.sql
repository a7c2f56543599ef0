-- Bitwise operators with one binary operand read it as the other operand's integer type
-- (COLUMNS_UPDATED() & 14, as SQL Server's documentation writes it); ^ in queries too.
SELECT 0x14 & 20 AS a, 20 | 0x0100 AS b, CAST(0xFF AS varbinary(1)) ^ CAST(1 AS tinyint) AS c,
       0xFFFFFFFF & 7 AS d, -5 ^ 3 AS e
GO
CREATE TABLE dbo.bits (b varbinary(4), i int, s smallint)
INSERT dbo.bits VALUES (0x14, 4, 3)
SELECT b & i AS x, i | b AS y, 0x14 & i AS w, i ^ s AS z, b ^ s AS z2, -5 ^ s AS z3
FROM dbo.bits
GO
CREATE TABLE dbo.five (c1 int, c2 int, c3 int, c4 int, c5 int)
GO
CREATE TRIGGER five_check ON dbo.five AFTER UPDATE AS
IF (COLUMNS_UPDATED() & 14) = 14 PRINT 'c2, c3 and c4 all updated'
ELSE IF (COLUMNS_UPDATED() & 14) > 0 PRINT 'some of c2, c3, c4 updated'
GO
INSERT dbo.five VALUES (1, 2, 3, 4, 5)
UPDATE dbo.five SET c2 = 0, c3 = 0, c4 = 0
UPDATE dbo.five SET c3 = 1
UPDATE dbo.five SET c5 = 1
GO
-- Only one operand may be binary: two binary strings are Msg 402, in expressions and queries.
SELECT 0x01 & 0x01
GO
DECLARE @b varbinary(4) = 0x0F
SELECT @b ^ CAST(0x01 AS binary(2))
GO
SELECT b | 0x01 FROM dbo.bits
GO
