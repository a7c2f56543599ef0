DECLARE @i int = 0, @total int = 0
WHILE @i < 10
BEGIN
    SET @i = @i + 1
    IF @i % 2 = 0 CONTINUE
    IF @i > 7 BREAK
    SET @total = @total + @i
END
PRINT @total
PRINT @i
GO
DECLARE @n int = 0
again:
SET @n += 1
IF @n < 3 GOTO again
PRINT 'n = ' + CAST(@n AS varchar(10))
GO
DECLARE @outer int = 0, @inner int, @pairs int = 0
WHILE @outer < 3
BEGIN
    SET @outer += 1
    SET @inner = 0
    WHILE @inner < 5
    BEGIN
        SET @inner += 1
        IF @inner > @outer BREAK
        SET @pairs += 1
    END
END
PRINT @pairs
