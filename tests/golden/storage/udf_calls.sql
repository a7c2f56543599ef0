-- Scalar user-defined functions inside storage queries (select list, WHERE, ORDER BY,
-- aggregates, UPDATE SET, INSERT … SELECT, DELETE … WHERE), the same on every backend.
SET NOCOUNT ON
CREATE TABLE dbo.items (id int PRIMARY KEY, qty int, name varchar(20))
CREATE TABLE dbo.prices (name varchar(20) PRIMARY KEY, price decimal(10,2))
INSERT dbo.items VALUES (1, 3, 'apple'), (2, 0, 'pear'), (3, 5, 'plum'), (4, NULL, 'fig')
INSERT dbo.prices VALUES ('apple', 1.50), ('pear', 2.25), ('plum', 0.40)
GO
CREATE FUNCTION dbo.twice(@x int) RETURNS int AS BEGIN RETURN @x * 2 END
GO
CREATE FUNCTION dbo.price_of(@n varchar(20)) RETURNS decimal(10,2)
AS BEGIN
  DECLARE @p decimal(10,2)
  SELECT @p = price FROM dbo.prices WHERE name = @n
  RETURN ISNULL(@p, 0)
END
GO
CREATE FUNCTION dbo.label(@n varchar(20), @q int) RETURNS varchar(40)
AS BEGIN RETURN UPPER(@n) + ':' + ISNULL(CAST(@q AS varchar(10)), 'none') END
GO
SELECT id, dbo.twice(qty) AS dbl, dbo.price_of(name) AS price, dbo.label(name, qty) AS lbl
FROM dbo.items ORDER BY id
SELECT id FROM dbo.items WHERE dbo.twice(qty) > 4 ORDER BY id
SELECT name FROM dbo.items ORDER BY dbo.price_of(name) DESC, id
SELECT dbo.twice(21) AS const_call, dbo.price_of('pear') AS pear
SELECT id, dbo.twice(dbo.twice(qty) + 1) AS nested FROM dbo.items WHERE dbo.twice(id) < 6
ORDER BY id
DECLARE @v int = 7
SELECT id, dbo.twice(@v) + id AS v FROM dbo.items WHERE id < 3 ORDER BY id
SELECT CAST(SUM(dbo.price_of(name) * qty) AS decimal(10,2)) AS total FROM dbo.items
GO
UPDATE dbo.items SET qty = dbo.twice(qty) WHERE id <= 2
SELECT id, qty FROM dbo.items ORDER BY id
CREATE TABLE dbo.copy (id int, lbl varchar(40))
INSERT INTO dbo.copy (id, lbl) SELECT id, dbo.label(name, qty) FROM dbo.items WHERE id > 1
SELECT id, lbl FROM dbo.copy ORDER BY id
DELETE FROM dbo.copy WHERE dbo.twice(id) = 6
SELECT COUNT(*) AS n FROM dbo.copy
GO
BEGIN TRAN
UPDATE dbo.prices SET price = 9.99 WHERE name = 'plum'
SELECT id, dbo.price_of(name) AS p FROM dbo.items WHERE name = 'plum'
ROLLBACK
SELECT id, dbo.price_of(name) AS p FROM dbo.items WHERE name = 'plum'
GO
SELECT id, dbo.nope(id) FROM dbo.items
GO
CREATE FUNCTION dbo.ratio(@a int, @b int) RETURNS int AS BEGIN RETURN @a / @b END
GO
-- An error inside the function ends the calling statement: no rows, no half-done UPDATE.
SELECT id, dbo.ratio(10, qty) AS r FROM dbo.items ORDER BY id
UPDATE dbo.items SET qty = dbo.ratio(100, qty)
SELECT id, qty FROM dbo.items ORDER BY id
BEGIN TRY
  SELECT id, dbo.ratio(1, qty) AS r FROM dbo.items
END TRY
BEGIN CATCH
  SELECT ERROR_NUMBER() AS num, ERROR_PROCEDURE() AS pr
END CATCH
GO
SELECT 'after' AS still_running
