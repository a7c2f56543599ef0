DECLARE @s varchar(50) = 'Hello, World'
PRINT LEN(@s)
PRINT LEN('trailing   ')
PRINT DATALENGTH('trailing   ')
PRINT UPPER(@s) + ' ' + LOWER(@s)
PRINT SUBSTRING(@s, 8, 5)
PRINT LEFT(@s, 5) + '|' + RIGHT(@s, 5)
PRINT REPLACE(@s, 'World', 'T-SQL')
PRINT CHARINDEX('o', @s)
PRINT CHARINDEX('o', @s, 6)
PRINT LTRIM('   x') + RTRIM('y   ') + '|'
PRINT REVERSE('abc')
PRINT REPLICATE('ab', 3)
PRINT STUFF('abcdef', 2, 3, 'XYZ')
PRINT COALESCE(NULL + 'x', 'null concatenation is NULL')
PRINT CONCAT('a', NULL, 'b', 1)
DECLARE @v varchar(5) = 'abcdefgh'
PRINT @v
PRINT CAST('abcdef' AS char(3)) + '|'
PRINT CAST(N'ünïcode' AS nvarchar(10))
