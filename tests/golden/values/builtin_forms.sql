-- Built-in forms from the SQL Server documentation's examples: TRIM(chars FROM s),
-- DATETIMEOFFSETFROMPARTS, SWITCHOFFSET of a string with an offset, money to int rounding,
-- comparison operators written with a blank inside.
SELECT TRIM('.,! ' FROM '     #     test    .') AS Result
SELECT TRIM( '     test    ') AS Result
CREATE TABLE tt (s varchar(20))
INSERT tt VALUES ('xxhixx'), ('x')
DECLARE @c varchar(5) = 'x'
SELECT '[' + TRIM(@c FROM s) + ']' AS r, LEN(TRIM('x' FROM s)) AS n FROM tt ORDER BY n
GO
SELECT LEFT('x' FROM 'abc')
GO
SELECT CAST(DATETIMEOFFSETFROMPARTS(2010, 12, 31, 14, 23, 23, 0, 12, 0, 7) AS varchar(40)) AS Result
SELECT CAST(DATETIMEOFFSETFROMPARTS(2011, 8, 15, 14, 30, 00, 5, 12, 30, 1) AS varchar(40)) AS r1,
       CAST(DATETIMEOFFSETFROMPARTS(2011, 8, 15, 14, 30, 00, 50, -12, -30, 2) AS varchar(40)) AS r2
SELECT DATETIMEOFFSETFROMPARTS(2011, 8, 15, 14, 30, 00, NULL, 12, 30, 1) AS null_part
SELECT DATETIMEOFFSETFROMPARTS(2011, 8, 15, 14, 30, 00, 0, 12, -30, 1) AS mixed_signs
GO
SELECT CAST(SWITCHOFFSET('2024-01-01 10:00:00 +02:00', '-05:00') AS varchar(40)) AS switched
DECLARE @s varchar(40) = '1998-09-20 7:45:50.71345 -5:00'
SELECT CAST(SWITCHOFFSET(@s, '-08:00') AS varchar(40)) AS from_variable
GO
SELECT CAST($1.56 AS int) AS a, CAST($1.5 AS int) AS b, CAST($-1.56 AS int) AS c,
       CAST(1.56 AS int) AS d, CAST(CAST(2.5 AS smallmoney) AS tinyint) AS e
CREATE TABLE m (v money)
INSERT m VALUES (1.56), (-2.5)
SELECT CAST(v AS int) AS r, CONVERT(bigint, v) AS q FROM m ORDER BY v
GO
SELECT 1 AS ne WHERE 1 < > 2
SELECT 1 AS ne2 WHERE 1 ! = 2
SELECT 1 AS ge WHERE 2 > = 1
SELECT 1 AS le WHERE 1 <  = 1
SELECT 1 AS nlt WHERE 2 ! < 1
SELECT 1 AS ngt WHERE 1 ! > 2
CREATE TABLE t (a int)
INSERT t VALUES (1), (2), (3), (NULL)
SELECT a FROM t WHERE a < > 2 AND a > = 1 ORDER BY a
SELECT COUNT(*) AS n FROM t WHERE a ! = 1 AND a ! > 3 AND a !< 2
IF 1 < > 2 PRINT 'IF with < >'
SELECT a FROM t WHERE a > = ALL (SELECT a FROM t WHERE a IS NOT NULL)
GO
-- money constants inside statements over tables
CREATE TABLE prices (id int, m money)
INSERT prices (id, m) VALUES (1, $1.56), (2, $-2.5), (3, $.5)
SELECT id, m, CAST($1.56 AS int) AS r FROM prices WHERE m > $-10 AND m < $1 ORDER BY id
