-- A value made xml and read back as another type in the same query: SQL Server writes the
-- parsed xml out (<a />, attributes with one blank and double quotes, no declaration,
-- blank-only text dropped), from a constant, a variable or a column, on every store; an
-- xml parsing error is raised only for a row the query reads.
SET NOCOUNT ON
CREATE TABLE dbo.s (id int, txt varchar(60))
INSERT dbo.s VALUES (1, '<a></a>'), (2, '<?xml version="1.0"?><b>  </b>'),
    (3, '<r  x=''1''><c></c></r>'), (4, NULL), (5, '<a>')
GO
SELECT CAST(CAST('<a></a>' AS xml) AS nvarchar(max)) AS c
SELECT CONVERT(nvarchar(max), CAST('<a  b="1"></a>' AS xml)) AS c
SELECT id, CAST(CAST('<a></a>' AS xml) AS nvarchar(max)) AS c FROM dbo.s WHERE id = 1
SELECT id, CAST(CAST(txt AS xml) AS nvarchar(max)) AS c,
    LEN(CONVERT(varchar(60), CONVERT(xml, txt))) AS n FROM dbo.s WHERE id < 5 ORDER BY id
SELECT id, CAST(CAST(txt AS xml) AS varbinary(max)) AS b FROM dbo.s WHERE id = 1
SELECT id FROM dbo.s WHERE CAST(CAST(txt AS xml) AS nvarchar(max)) = N'<a />'
GO
DECLARE @v varchar(40) = '<x y=''1''></x>'
SELECT CAST(CAST(@v AS xml) AS nvarchar(max)) AS c FROM dbo.s WHERE id = 1
SELECT CAST(TRY_CAST(txt AS xml) AS nvarchar(max)) AS c FROM dbo.s WHERE id = 5
GO
SELECT id, CAST(CAST(txt AS xml) AS nvarchar(max)) AS c FROM dbo.s ORDER BY id
GO
