-- Variables in FOR XML queries and in IS NULL tests inside storage queries (on PostgreSQL a
-- string parameter tested only by IS NULL has no type unless the backend gives it one).
SET NOCOUNT ON
CREATE TABLE dbo.items (name nvarchar(10))
INSERT INTO dbo.items VALUES (N'pen'), (N'ink'), (N'pad')
GO
DECLARE @v nvarchar(10) = N'a<b&c';
SELECT @v AS x FOR XML PATH('')
SELECT @v FOR XML PATH('')
SELECT @v AS x FOR XML PATH('row'), ROOT('rows')
SELECT @v AS [@v], 3 AS n FOR XML PATH('r'), TYPE
GO
DECLARE @sep nvarchar(5) = N'; ';
SELECT STUFF((SELECT @sep + name FROM dbo.items ORDER BY name FOR XML PATH('')), 1, 2, N'')
    AS names
SELECT name AS [@name], @sep AS sep FROM dbo.items WHERE name = N'pen' FOR XML PATH('item')
GO
DECLARE @none nvarchar(10), @some nvarchar(10) = N'x';
SELECT name FROM dbo.items WHERE @none IS NULL AND name = N'pen'
SELECT name FROM dbo.items WHERE @some IS NOT NULL AND name = N'ink'
SELECT name, CASE WHEN @none IS NULL THEN N'none' ELSE @none END AS v
FROM dbo.items WHERE name = N'pad'
