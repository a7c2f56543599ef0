-- Numeric constants and arithmetic as SQL Server types them: negative decimal constants
-- (folded at parse time) keep their sign in every position, integer division and modulo,
-- decimal precision / scale of division, ROUND / CEILING / FLOOR of constants.
SELECT -2.5 AS a, -2 AS b, - 2.5 AS c, 0 - 2.5 AS d, - -2.5 AS e, -2.50 AS f, -2.5 * 2 AS g
DECLARE @x decimal(5, 1) = -2.5
SELECT @x AS x, -@x AS y
PRINT -2.5
SELECT -2.5 AS a, -0.25 AS b FROM (VALUES (1)) v(q)
SELECT 7 / 2 AS a, 7 % 3 AS b, 7.0 / 2 AS c, -7 / 2 AS d, -7 % 3 AS e, 1.0 / 3 AS f,
       CAST(1 AS decimal(10, 2)) / 3 AS g, 10 * 1.5 AS h
SELECT ROUND(2.567, 2) AS a, ROUND(2.5, 0) AS b, ROUND(-2.5, 0) AS c, CEILING(2.1) AS d,
       FLOOR(-2.1) AS e, ROUND(1234.5, -2) AS f, ABS(-3) AS g, POWER(2, 10) AS h
SELECT ROUND(x, 0) AS r, FLOOR(x) AS fl, CEILING(x) AS ce, ROUND(x, 1) AS r1
FROM (VALUES (-2.55), (2.55), (-2.15)) v(x) ORDER BY x
SELECT FLOOR(-2.1) AS a, CEILING(2.1) AS b, ROUND(-2.5, 0) AS c, FLOOR(n) AS d, ROUND(n, -1) AS e
FROM (VALUES (17)) v(n)
