SELECT 1.0 / 3 AS one_third
SELECT CAST(10 AS decimal(5,2)) / 3 AS divided
SELECT 2.50 * 1.5 AS product
SELECT CAST(1.005 AS decimal(10,2)) AS rounded
DECLARE @d decimal(10,4) = 1.23456
PRINT @d
SELECT 7 / 2 AS int_div, 7 % 3 AS int_mod, -7 / 2 AS neg_div, -7 % 3 AS neg_mod
DECLARE @price money = 10.25, @qty int = 3
SELECT @price * @qty AS total
DECLARE @big int = 2147483647
SET @big = @big + 1
PRINT 'after overflow'
SELECT CAST(123.456 AS numeric(5,1)) AS one_decimal
