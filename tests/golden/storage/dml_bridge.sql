CREATE TABLE dbo.items (id int IDENTITY(1,1) PRIMARY KEY, name varchar(20) NOT NULL,
                        amount decimal(10,2))
INSERT INTO dbo.items (name, amount) VALUES ('apple', 1.5), ('pear', 2.25)
PRINT @@ROWCOUNT
PRINT @@IDENTITY
PRINT SCOPE_IDENTITY()
SELECT id, name, amount FROM dbo.items ORDER BY id
DECLARE @n int
SET @n = (SELECT COUNT(*) FROM dbo.items)
PRINT @n
IF EXISTS (SELECT 1 FROM dbo.items WHERE name = 'pear') PRINT 'pear exists'
IF NOT EXISTS (SELECT 1 FROM dbo.items WHERE name = 'plum') PRINT 'no plum'
DECLARE @name varchar(20), @amount decimal(10,2)
SELECT @name = name, @amount = amount FROM dbo.items WHERE id = 2
PRINT @name + ' costs ' + CAST(@amount AS varchar(20))
UPDATE dbo.items SET amount = amount * 2 WHERE id = @n
PRINT @@ROWCOUNT
SET NOCOUNT ON
DELETE FROM dbo.items WHERE name = 'apple'
PRINT @@ROWCOUNT
SELECT name, amount FROM dbo.items
