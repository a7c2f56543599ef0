-- SQL Server writes xml out anew: an empty element is <a /> however it was written
-- (<a></a>, <a/>, <a> </a>), with no XML declaration. So on every store, for xml made in a
-- derived table, CTE or subquery and converted by the enclosing query, and for query('.').
CREATE TABLE dbo.s (id int, t nvarchar(100))
INSERT dbo.s VALUES (1, N'<a></a>'), (2, N'<r><b/><c> </c><d x="1"></d></r>')
CREATE TABLE dbo.x (id int, v xml)
INSERT dbo.x SELECT id, t FROM dbo.s
GO
SELECT CAST(d.x AS nvarchar(max)) AS t FROM (SELECT CAST('<a></a>' AS xml) AS x) d
GO
SELECT d.id, CAST(d.x AS nvarchar(max)) AS t FROM (SELECT id, CAST(t AS xml) AS x FROM dbo.s) d
ORDER BY d.id
GO
WITH c AS (SELECT id, CONVERT(xml, t) AS x FROM dbo.s)
SELECT id, CONVERT(varchar(100), x) + '|' AS t FROM c ORDER BY id
GO
SELECT id, CAST((SELECT CAST(t AS xml)) AS nvarchar(max)) AS t FROM dbo.s ORDER BY id
GO
SELECT id, v, v.query('.') AS q, v.query('/') AS q1, v.query('/r/*') AS q2 FROM dbo.x ORDER BY id
GO
DECLARE @x xml = N'<r><e></e></r>'
SELECT @x AS v, @x.query('.') AS q, CAST(@x AS nvarchar(max)) AS t
SELECT CAST(CAST(N'<a></a>' AS xml) AS nvarchar(max)) AS t
GO
