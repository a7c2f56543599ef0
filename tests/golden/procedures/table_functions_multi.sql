CREATE FUNCTION dbo.squares (@n int, @label varchar(10) = 'sq') RETURNS @r TABLE (k int PRIMARY KEY, sq bigint, label varchar(10), at date)
AS
BEGIN
    DECLARE @i int = 1
    WHILE @i <= @n
    BEGIN
        INSERT @r VALUES (@i, @i * @i, @label, DATEADD(day, @i, '2024-01-01'))
        SET @i += 1
    END
    RETURN
END
GO
SELECT * FROM dbo.squares(3, DEFAULT) ORDER BY k
DECLARE @n int = 2
SELECT s.k, s.sq, s.label FROM dbo.squares(@n, 'x') AS s WHERE s.k > 1
SELECT COUNT(*) AS none FROM dbo.squares(0, 'e')
SELECT t.v, s.sq FROM (VALUES (1), (3)) AS t(v) JOIN dbo.squares(4, 'j') s ON s.k = t.v ORDER BY t.v
SET @n = 1
WHILE @n <= 2
BEGIN
    SELECT MAX(sq) AS top_sq FROM dbo.squares(@n, DEFAULT)
    SET @n += 1
END
GO
SELECT * FROM dbo.squares(1)
GO
