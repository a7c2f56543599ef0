-- Aggregates over the single row of a SELECT without FROM; keywords as implicit aliases.
SET NOCOUNT ON
SELECT COUNT(*)
SELECT COUNT(*) AS n, MAX(5) AS biggest, MIN('b') AS least, SUM(3) AS total
SELECT COUNT(*) AS none WHERE 1 = 0
DECLARE @x int = 40, @n int
SELECT MAX(@x) + 2 AS answer, COUNT(@x) AS counted, COUNT_BIG(*) AS big
SELECT @n = COUNT(*)
PRINT @n
SELECT (SELECT COUNT(*)) AS nested
IF (SELECT COUNT(*)) = 1 PRINT 'one row'
SELECT 1 status, 2 output, 3 active, 4 receive_count, 'x' encryption, 5 [lifetime]
SELECT 1 AS a, 2 rows, 3 persisted, 4 readonly
