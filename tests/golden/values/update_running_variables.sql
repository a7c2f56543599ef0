-- UPDATE … SET @variable = … over several rows: the variable is assigned for every row and the
-- next row sees its new value (UPDATE (Transact-SQL): "SET @variable = column = expression sets
-- the variable to the same value as the column. This differs from SET @variable = column,
-- column = expression, which sets the variable to the pre-update value of the column").
-- Rows go in primary key order (docs/decisions.md), whatever order they were inserted in.
CREATE TABLE dbo.t (id int PRIMARY KEY, c int, run int)
INSERT dbo.t (id, c) VALUES (3, 30), (1, 10), (2, 20)
DECLARE @v int = 0
UPDATE dbo.t SET @v += c
SELECT @v AS v
SET @v = 0
UPDATE dbo.t SET @v = @v + c
SELECT @v AS v
SET @v = 0
UPDATE dbo.t SET @v = run = @v + c
SELECT @v AS v
SELECT id, c, run FROM dbo.t ORDER BY id
SET @v = 0
UPDATE dbo.t SET run = @v, @v = @v + c
SELECT id, c, run FROM dbo.t ORDER BY id
SET @v = 100
UPDATE dbo.t SET @v = @v + 1, run = @v WHERE id >= 2
SELECT @v AS v
SELECT id, c, run FROM dbo.t ORDER BY id
GO
-- The variable keeps its type: a running string, and an int that truncates each row's sum.
CREATE TABLE dbo.h (k varchar(5), amount decimal(5,2), seq int)
INSERT dbo.h (k, amount) VALUES ('b', 1.50), ('a', 1.50), ('c', 1.50)
DECLARE @s varchar(20) = '', @n int = 0, @i int = 0
UPDATE dbo.h SET @s = @s + k + ',', @n = @n + amount, @i = seq = @i + 1
SELECT @s AS s, @n AS n, @i AS i
SELECT k, seq FROM dbo.h ORDER BY seq
GO
-- SET @v = c, c = expr: the variable gets the value before the update (of the last row).
CREATE TABLE dbo.p (id int PRIMARY KEY, c int)
INSERT dbo.p VALUES (2, 20), (1, 10)
DECLARE @old int, @null int
UPDATE dbo.p SET @old = c, c = c * 2
SELECT @old AS old
SELECT id, c FROM dbo.p ORDER BY id
UPDATE dbo.p SET @null = @null + c
SELECT @null AS still_null
UPDATE dbo.p SET @old = @old + c WHERE id > 5
SELECT @old AS unchanged
GO
