-- Control characters survive on both stores: ASCII/UNICODE of a SUBSTRING, REPLACE of CHAR(1)
CREATE TABLE t (id int, s varchar(20), n nvarchar(20));
INSERT INTO t VALUES (1, CHAR(1) + 'abc' + CHAR(9) + 'd', NCHAR(1) + N'x' + NCHAR(9));
SELECT ASCII(SUBSTRING(s, 1, 1)) AS a1, ASCII(SUBSTRING(s, 5, 1)) AS a5, ASCII(SUBSTRING(s, 2, 1)) AS a2,
       UNICODE(SUBSTRING(n, 1, 1)) AS u1, UNICODE(SUBSTRING(n, 3, 1)) AS u3, LEN(s) AS ls FROM t;
SELECT REPLACE(s, CHAR(1), 'x') AS r1, REPLACE(REPLACE(s, CHAR(9), '<tab>'), CHAR(1), '^') AS r2,
       REPLACE(n, NCHAR(1), N'y') AS r3 FROM t;
SELECT CHARINDEX(CHAR(9), s) AS ci, CHARINDEX(CHAR(1), s) AS c0, ASCII(CHAR(1)) AS c1, ASCII(CHAR(9) + 'z') AS c9 FROM t;
DECLARE @v varchar(10) = CHAR(1) + 'q';
SELECT ASCII(@v) AS av, REPLACE(@v, CHAR(1), '!') AS rv;
SELECT SQL_VARIANT_PROPERTY(CAST(CHAR(65) + 'b' AS sql_variant), 'BaseType') AS b1,
       SQL_VARIANT_PROPERTY(CAST(CHAR(65) AS sql_variant), 'BaseType') AS b2,
       SQL_VARIANT_PROPERTY(CAST(CHAR(65) AS sql_variant), 'MaxLength') AS m2,
       SQL_VARIANT_PROPERTY(CAST(NCHAR(65) AS sql_variant), 'BaseType') AS b3,
       SQL_VARIANT_PROPERTY(CAST(NCHAR(65) + N'b' AS sql_variant), 'BaseType') AS b4;
CREATE TABLE v (id int, x sql_variant);
INSERT INTO v VALUES (1, CHAR(1) + 'abc');
INSERT INTO v VALUES (2, NCHAR(66) + N'c');
INSERT INTO v SELECT 3, CHAR(66) + 'c';
SELECT id, SQL_VARIANT_PROPERTY(x, 'BaseType') AS bt FROM v ORDER BY id;
