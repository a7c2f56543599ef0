-- UPDATE / DELETE of a table variable, a temp table and a table written without FROM
-- (DELETE t WHERE …, UPDATE @t SET … WHERE …), with TOP and OUTPUT.
DECLARE @t TABLE (a int, b int)
INSERT @t VALUES (1, 1), (2, 2), (3, 3)
UPDATE @t SET b = 5 WHERE a = 2
DELETE @t WHERE a = 1
SELECT a, b FROM @t ORDER BY a
UPDATE TOP (1) @t SET b = 9 WHERE a = 3
DELETE TOP (1) @t OUTPUT deleted.a WHERE a = 2
SELECT a, b FROM @t ORDER BY a
GO
CREATE TABLE #x (a int)
INSERT #x VALUES (1), (2)
UPDATE #x SET a = 3 WHERE a = 2
DELETE #x WHERE a = 1
SELECT a FROM #x
GO
CREATE TABLE dbo.d (a int)
INSERT dbo.d VALUES (1), (2), (3)
DELETE dbo.d WHERE a = 1
DELETE d OUTPUT deleted.a WHERE a = 2
UPDATE d SET a = a * 10 OUTPUT inserted.a WHERE a = 3
SELECT a FROM dbo.d
GO
-- UPDATE … SET @v = col = expr / SET @v = col: the variables take the last updated row's values.
CREATE TABLE dbo.ev (id int PRIMARY KEY, sal decimal(10, 2), name varchar(10))
INSERT dbo.ev VALUES (1, 100.50, 'ann'), (2, 200, 'bob')
DECLARE @v decimal(10, 2), @n varchar(10), @c int = 0
UPDATE dbo.ev SET @v = sal = sal * 2 WHERE id = 1
SELECT @v AS v
UPDATE dbo.ev SET @n = name, sal = sal + 1 WHERE id = 2
SELECT @n AS n, @@ROWCOUNT AS rc
UPDATE dbo.ev SET @c = 5 WHERE id = 99
SELECT @c AS c
SELECT id, sal FROM dbo.ev ORDER BY id
GO
-- UPDATE … SET col = DEFAULT: the column's default, NULL without one.
CREATE TABLE dbo.dd (id int, a int DEFAULT 7, b varchar(5) DEFAULT 'z', c int, d datetime DEFAULT '2024-01-01')
INSERT dbo.dd (id, a, b, c, d) VALUES (1, 1, 'q', 2, '2020-05-05')
UPDATE dbo.dd SET a = DEFAULT, b = DEFAULT, c = DEFAULT, d = DEFAULT WHERE id = 1
SELECT * FROM dbo.dd
UPDATE dbo.dd SET nope = DEFAULT
GO
-- A running total through a variable (SET @t = col = @t + x) goes from row to row (a heap:
-- in the order the rows were stored; values/update_running_variables.sql has more).
CREATE TABLE dbo.r (id int, amt int, total int)
INSERT dbo.r VALUES (1, 5, 0), (2, 7, 0)
DECLARE @t int = 0
UPDATE dbo.r SET @t = total = @t + amt
SELECT @t AS t
UPDATE dbo.r SET @t = total = @t + amt WHERE id = 1
SELECT @t AS t
SELECT * FROM dbo.r ORDER BY id
