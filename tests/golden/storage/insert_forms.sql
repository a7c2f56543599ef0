-- INSERT forms: column lists, DEFAULT VALUES, DEFAULT as a VALUES item, multi-row VALUES,
-- INSERT … SELECT with TOP / ORDER BY, OUTPUT INTO, SET IDENTITY_INSERT, SCOPE_IDENTITY.
CREATE TABLE dbo.t1 (id int IDENTITY(1,1) PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'x',
                     qty int NULL)
INSERT INTO dbo.t1 (name, qty) VALUES ('a', 1)
INSERT dbo.t1 (name) VALUES ('b')
INSERT INTO dbo.t1 DEFAULT VALUES
INSERT INTO dbo.t1 (name, qty) VALUES ('c', 3), ('d', 4), ('e', NULL)
INSERT INTO dbo.t1 VALUES (DEFAULT, 7), ('f', DEFAULT), (DEFAULT, 1 + 1)
SELECT id, name, qty FROM dbo.t1 ORDER BY id
SELECT SCOPE_IDENTITY() AS si, @@IDENTITY AS ii
GO
CREATE TABLE dbo.t2 (id int, name varchar(20))
INSERT INTO dbo.t2 (id, name) SELECT TOP (2) id, name FROM dbo.t1 ORDER BY id DESC
INSERT INTO dbo.t2 SELECT id, name FROM dbo.t1 WHERE qty IS NULL ORDER BY id
SELECT id, name FROM dbo.t2 ORDER BY id
GO
DECLARE @out TABLE (id int, name varchar(20))
INSERT INTO dbo.t1 (name, qty) OUTPUT inserted.id, inserted.name INTO @out
    VALUES ('g', 6), ('h', 7)
INSERT INTO dbo.t1 (name, qty) OUTPUT inserted.id, inserted.name INTO @out (id, name)
    SELECT name, qty FROM dbo.t1 WHERE id = 1
SELECT id, name FROM @out ORDER BY id
GO
SET IDENTITY_INSERT dbo.t1 ON
GO
INSERT INTO dbo.t1 (id, name) VALUES (100, 'i')
INSERT INTO dbo.t1 (id, name) VALUES (50, 'j')
SELECT SCOPE_IDENTITY() AS si
SET IDENTITY_INSERT dbo.t1 OFF
INSERT INTO dbo.t1 (name) VALUES ('l')
SELECT id, name FROM dbo.t1 WHERE id >= 100 ORDER BY id
GO
CREATE TABLE #tmp (a int, b varchar(10) DEFAULT 'dflt')
INSERT #tmp (a) VALUES (1)
INSERT #tmp VALUES (2, DEFAULT)
INSERT #tmp (a, b) SELECT 3, 'z' UNION ALL SELECT 4, 'w'
GO
SELECT a, b FROM #tmp ORDER BY a
GO
-- IDENT_CURRENT: the seed before the first insert, NULL without an identity column.
CREATE TABLE dbo.ic1 (id int IDENTITY(10, 5), n int)
CREATE TABLE dbo.ic2 (n int)
SELECT IDENT_CURRENT('dbo.ic1') AS before, IDENT_CURRENT('ic2') AS noident, IDENT_CURRENT('nope') AS missing
INSERT dbo.ic1 (n) VALUES (1), (2)
SELECT IDENT_CURRENT('dbo.ic1') AS a, SCOPE_IDENTITY() AS b, @@IDENTITY AS c
DECLARE @id numeric(38, 0) = IDENT_CURRENT('dbo.ic1')
PRINT @id
