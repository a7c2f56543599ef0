-- HASHBYTES hashes varchar, nvarchar or varbinary input; another type is converted to
-- varbinary as implicit conversion does (an int is its 4 bytes, high first, so
-- HASHBYTES('MD5', 1) is the MD5 of 0x00000001), the same in a query, a variable and a
-- function; a type with no implicit conversion to varbinary is Msg 257.
SELECT HASHBYTES('MD5', 1) AS i, HASHBYTES('MD5', 0x00000001) AS b
SELECT HASHBYTES('MD5', '1') AS s, HASHBYTES('MD5', N'1') AS n
GO
CREATE TABLE dbo.h (i int, b bigint, t tinyint, s varchar(5), n nvarchar(5), v varbinary(8))
INSERT dbo.h VALUES (1, 1, 1, '1', N'1', 0x00000001)
SELECT HASHBYTES('MD5', i) AS i, HASHBYTES('MD5', b) AS b, HASHBYTES('MD5', t) AS t FROM dbo.h
SELECT HASHBYTES('MD5', s) AS s, HASHBYTES('MD5', n) AS n, HASHBYTES('MD5', v) AS v FROM dbo.h
SELECT HASHBYTES('SHA2_256', i + 1) AS sha, HASHBYTES('SHA2_512', s + 'x') AS sha512 FROM dbo.h
DECLARE @i int = 1, @b bigint = 1
SELECT HASHBYTES('MD5', @i) AS vi, HASHBYTES('MD5', @b) AS vb
GO
CREATE FUNCTION dbo.hf (@x int) RETURNS varbinary(16) AS BEGIN RETURN HASHBYTES('MD5', @x) END
GO
SELECT dbo.hf(1) AS udf, dbo.hf(i) AS udf_col, HASHBYTES('MD5', i) AS query FROM dbo.h
GO
SELECT HASHBYTES('MD5', 1e0) AS f
GO
SELECT HASHBYTES('MD5', CAST(i AS float)) AS f FROM dbo.h
GO
-- A digest into an integer column keeps the bytes the type holds (the rightmost), as CAST
-- reads binary; never a number past the type's range.
DECLARE @tv TABLE (i int, t tinyint, b bigint)
INSERT @tv VALUES (HASHBYTES('SHA2_256', 2), 0x0102, 0x01020304050607080910)
SELECT i, t, b, CAST(HASHBYTES('SHA2_256', 2) AS int) AS cast_i FROM @tv
GO
