-- INSERT and UPDATE convert a value for its column as CAST does: money and smallmoney
-- round to an integer, decimal and float are truncated (CAST and CONVERT's page).
CREATE TABLE dbo.n (id int IDENTITY, i int, s smallint, b bigint, t tinyint)
INSERT dbo.n (i) VALUES (CAST(2.5 AS money))
INSERT dbo.n (i) VALUES ($1.56)
INSERT dbo.n (i) VALUES (CAST(-2.5 AS money))
INSERT dbo.n (i) VALUES (CAST(2.7 AS decimal(5,1)))
INSERT dbo.n (i) VALUES (-2.7)
INSERT dbo.n (i) VALUES (CAST(2.7 AS float))
INSERT dbo.n (i, s, b, t) VALUES (CAST(6.5 AS smallmoney), $7.5, $8.5, $9.5)
INSERT dbo.n (i) SELECT CAST(4.5 AS money)
INSERT dbo.n (i) SELECT CAST(4.5 AS decimal(3,1))
GO
DECLARE @m money = 5.5, @d decimal(4,2) = 5.99
INSERT dbo.n (i, s) VALUES (@m, @d)
INSERT dbo.n (i, s) VALUES (@m, 0)
SELECT id, i, s, b, t FROM dbo.n ORDER BY id
SELECT CAST(CAST(2.5 AS money) AS int) AS money_cast, CAST(CAST(2.7 AS decimal(5,1)) AS int) AS decimal_cast
GO
UPDATE dbo.n SET i = $9.5, b = 9.9 WHERE id = 1
DECLARE @m money = $10.5
UPDATE dbo.n SET i = @m WHERE id = 2
UPDATE dbo.n SET i = @m WHERE id = 2
SELECT id, i, b FROM dbo.n WHERE id IN (1, 2) ORDER BY id
