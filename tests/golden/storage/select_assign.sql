SET NOCOUNT ON
CREATE TABLE letters (id int, ch char(1), amount decimal(6,2))
INSERT INTO letters VALUES (1, 'a', 1.10), (2, 'b', 2.20), (3, 'c', 3.30)
DECLARE @s varchar(20) = '', @total decimal(8,2) = 0, @last int, @count int
SELECT @s = @s + ch FROM letters ORDER BY id
PRINT @s
SELECT @total += amount FROM letters
PRINT @total
SELECT @last = id FROM letters ORDER BY id
PRINT @last
PRINT @@ROWCOUNT
SELECT @last = id FROM letters WHERE id > 10
PRINT @last
PRINT @@ROWCOUNT
SELECT @count = COUNT(*), @s = MAX(ch) FROM letters
PRINT CAST(@count AS varchar(5)) + ' ' + @s
GO
DECLARE @s varchar(20)
SELECT @s = ch, id FROM letters
