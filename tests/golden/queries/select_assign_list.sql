-- The list idiom SELECT @s = ISNULL(@s + sep, start) + col FROM t: each row sees the value the
-- previous row assigned (as @s = @s + col does)
CREATE TABLE dbo.names (name varchar(20), grp int)
INSERT INTO dbo.names VALUES ('John', 1), ('Rob', 1), (NULL, 2), ('Ruben', 2)
DECLARE @s varchar(100)
SELECT @s = ISNULL(@s + ', ', '') + name FROM dbo.names WHERE name IS NOT NULL ORDER BY name
SELECT @s AS isnull_list
DECLARE @t nvarchar(100) = N'pre'
SELECT @t = COALESCE(@t + N'|', N'') + name FROM dbo.names WHERE grp = 1 ORDER BY name
SELECT @t AS coalesce_list_with_start
-- a NULL value makes the running value NULL; the next row starts again
DECLARE @u varchar(100)
SELECT @u = ISNULL(@u + ',', '') + name FROM dbo.names ORDER BY grp, name
SELECT @u AS after_null, @@ROWCOUNT AS rows_read
-- no row: the variable keeps its value
DECLARE @v varchar(100) = 'kept'
SELECT @v = ISNULL(@v + ',', '') + name FROM dbo.names WHERE 1 = 0
SELECT @v AS no_rows
