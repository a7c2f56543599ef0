-- SQL Server keeps xml parsed, not as written: an element with no content comes back as
-- <a /> (with a blank before the slash), blank-only text is dropped, the declaration is
-- gone — from a constant, a variable or a column, however the column got the value.
SET NOCOUNT ON
SELECT CAST('<a></a>' AS xml) AS empty, CAST('<a/>' AS xml) AS closed,
    CAST('<?xml version="1.0"?><r><a x="1"></a><b>t</b>  <c/></r>' AS xml) AS nested
DECLARE @x xml = '<a>  </a>'
SELECT @x AS variable
CREATE TABLE dbo.x (id int, d xml)
INSERT dbo.x VALUES (1, '<a></a>'), (2, '<r><a x="1"></a><c/></r>')
INSERT dbo.x SELECT 3, '<b></b>'
INSERT dbo.x VALUES (4, NULL)
UPDATE dbo.x SET d = '<u><v></v></u>' WHERE id = 3
SELECT id, d, CAST(d AS nvarchar(max)) AS as_text FROM dbo.x ORDER BY id
SELECT id, CAST('<q></q>' AS xml) AS constant FROM dbo.x WHERE id = 1
SELECT d.query('/r/a') AS query_result FROM dbo.x WHERE id = 2
GO
