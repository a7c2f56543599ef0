-- Text that looks like a driver placeholder (%s, %(x)s, :x, ?, %%, $1) inside literals and
-- quoted names reaches the store as written, also in statements that bind variables.
SET NOCOUNT ON;
CREATE TABLE [p%s] (
    id int IDENTITY PRIMARY KEY,
    a nvarchar(60),
    [c%s] int,
    [d:x] int,
    [e?] int,
    [f%(y)s] int DEFAULT 7,
    [g%%] varchar(10) CONSTRAINT [ck_%s] CHECK ([g%%] <> '%(bad)s'),
    [h$1] int,
    CONSTRAINT [uq_%(u)s] UNIQUE ([c%s])
);
CREATE INDEX [ix:%s] ON [p%s] ([d:x]);
DECLARE @v nvarchar(20) = N'%(v_v)s', @n int = 2;
INSERT INTO [p%s] (a, [c%s], [d:x], [e?], [g%%], [h$1])
VALUES (N'%(name)s', 1, 10, 100, '%%', 1),
       ('%s', 2, 20, 200, ':x', 2),
       (':v_v', 3, 30, 300, '?', 3),
       ('?', 4, 40, 400, '$1', 4);
INSERT INTO [p%s] (a, [c%s], [g%%]) VALUES (@v, 5, @v);
INSERT INTO [p%s] (a, [c%s], [g%%])
SELECT a + ':v_v' + '%(v_v)s' + @v + '?$1', [c%s] + 10, '%' FROM [p%s] WHERE [c%s] <= @n;
SELECT id, a, [c%s], [d:x], [e?], [f%(y)s], [g%%], [h$1] FROM [p%s] ORDER BY id;
SELECT a AS [x%(a)s], [c%s] % 3 AS [m:od], '%s' + @v AS [?] FROM [p%s]
WHERE a LIKE '%(%' OR a = ':v_v' OR [g%%] = @v ORDER BY [c%s];
UPDATE [p%s] SET a = a + '%s', [e?] = [e?] + @n WHERE a = '?' OR [g%%] = '%%';
SELECT a, [e?] FROM [p%s] WHERE [e?] IN (102, 402) ORDER BY [e?];
DELETE FROM [p%s] WHERE a LIKE '%:v_v%' AND [c%s] > @n + 9;
SELECT COUNT(*) AS [n%s] FROM [p%s];
-- constraint errors name the columns and constraints as written
INSERT INTO [p%s] (a, [c%s], [g%%]) VALUES ('dup', 1, 'x');
INSERT INTO [p%s] (a, [c%s], [g%%]) VALUES ('bad', 99, '%(bad)s');
GO
-- a view and a temp table
CREATE VIEW [v%s] AS SELECT a + '%(w)s' AS [w:1], [c%s] FROM [p%s] WHERE a <> '%s';
GO
DECLARE @k int = 3;
SELECT [w:1] FROM [v%s] WHERE [c%s] < @k ORDER BY [c%s];
CREATE TABLE [#t%s] ([k?] nvarchar(20));
INSERT INTO [#t%s] VALUES ('%(k)s'), (':k');
SELECT [k?], @k AS k FROM [#t%s] WHERE [k?] <> '?' ORDER BY LEN([k?]);
DECLARE @tv TABLE ([z%s] varchar(10));
INSERT INTO @tv VALUES ('%s');
UPDATE @tv SET [z%s] = [z%s] + ':z' WHERE [z%s] LIKE '[%]s';
SELECT [z%s] FROM @tv;
GO
-- dynamic SQL with parameters beside the same text in literals
EXEC sp_executesql N'SELECT @p + N''%(p)s:p?'' AS [r%s], COUNT(*) AS n FROM [p%s] WHERE a <> @p',
     N'@p nvarchar(20)', @p = N'%s';
EXEC (N'SELECT ''%(e)s'' AS [e%s], '':e'' AS e2');
GO
-- ALTER TABLE and MERGE on such names
ALTER TABLE [p%s] ADD [n%(n)s] varchar(10) NOT NULL DEFAULT '%(d)s';
DECLARE @src TABLE (k int, t varchar(10));
INSERT INTO @src VALUES (1, '%m'), (77, ':m');
MERGE [p%s] AS tgt USING @src AS s ON tgt.[c%s] = s.k
WHEN MATCHED THEN UPDATE SET [n%(n)s] = s.t + '%s'
WHEN NOT MATCHED THEN INSERT (a, [c%s], [g%%], [n%(n)s]) VALUES (s.t, s.k, '?', '$1');
SELECT a, [c%s], [n%(n)s] FROM [p%s] WHERE [c%s] IN (1, 2, 77) ORDER BY [c%s];
DROP VIEW [v%s];
DROP TABLE [p%s];
