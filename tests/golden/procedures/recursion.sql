CREATE PROCEDURE recurse @n int
AS
BEGIN
    DECLARE @next int = @n + 1
    IF @n = 32 PRINT 'level ' + CAST(@@NESTLEVEL AS varchar(10))
    EXEC recurse @next
END
GO
EXEC recurse 1
PRINT 'not printed'
GO
PRINT 'after'
GO
CREATE PROCEDURE factorial @n int, @result bigint OUTPUT
AS
BEGIN
    IF @n <= 1
    BEGIN
        SET @result = 1
        RETURN
    END
    DECLARE @m int = @n - 1, @sub bigint
    EXEC factorial @m, @sub OUTPUT
    SET @result = @n * @sub
END
GO
DECLARE @f bigint
EXEC factorial 20, @f OUTPUT
PRINT @f
