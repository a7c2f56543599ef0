DECLARE @v int = 15, @s varchar(20)
IF @v > 10 AND @v < 20
    PRINT 'between'
ELSE
    PRINT 'outside'
IF NOT (@v = 15) PRINT 'not fifteen' ELSE PRINT 'fifteen'
IF @s IS NULL PRINT 'null string'
IF @s = 'x' PRINT 'unknown is true' ELSE PRINT 'unknown is not true'
SET @s = CASE WHEN @v < 10 THEN 'small' WHEN @v < 20 THEN 'medium' ELSE 'large' END
PRINT @s
PRINT CASE @v WHEN 1 THEN 'one' WHEN 15 THEN 'fifteen' END
PRINT IIF(@v % 2 = 1, 'odd', 'even')
PRINT COALESCE(NULL, NULL, 'third')
PRINT ISNULL(@s, 'none')
IF @v IN (1, 2, 15) PRINT 'in list'
IF @v BETWEEN 10 AND 20 PRINT 'between ten and twenty'
IF 'abcdef' LIKE 'abc%' PRINT 'like'
IF 'abc' = 'ABC' PRINT 'case-insensitive'
IF 'abc' = 'abc   ' PRINT 'trailing spaces ignored'
PRINT CASE WHEN 1 = 1 THEN 1 ELSE 1 / 0 END
PRINT IIF(@v > 0, 10, 1 / 0)
PRINT COALESCE(@v, 1 / 0)
IF @v > 0 OR 1 / 0 = 1 PRINT 'OR short-circuits'
IF @v < 0 AND 1 / 0 = 1 PRINT 'never' ELSE PRINT 'AND short-circuits'
