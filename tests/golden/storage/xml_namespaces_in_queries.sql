-- WITH XMLNAMESPACES with xml methods inside storage queries: in a FROM subquery, in the
-- outer query, with a CTE after it, with DEFAULT, on a column and on a body converted to
-- xml (SQLite: the interpreter's XQuery; PostgreSQL: xpath() with the declared prefixes).
SET NOCOUNT ON
CREATE TABLE dbo.errors (id int PRIMARY KEY, doc xml, body varbinary(max))
INSERT INTO dbo.errors VALUES
  (1, N'<e:Error xmlns:e="urn:err"><e:Code>-8489</e:Code><e:Description>a &amp; b</e:Description></e:Error>',
   CAST(N'<Error xmlns="urn:err"><Code>7</Code></Error>' AS varbinary(max))),
  (2, N'<e:Error xmlns:e="urn:other"><e:Code>5</e:Code></e:Error>',
   CAST(N'<Error><Code>9</Code></Error>' AS varbinary(max)))
GO
WITH XMLNAMESPACES ('urn:err' AS e)
SELECT s.id, s.code, s.description
FROM (SELECT id, doc.value('(/e:Error/e:Code)[1]', 'int') AS code,
             doc.value('(/e:Error/e:Description)[1]', 'nvarchar(20)') AS description
      FROM dbo.errors) AS s
ORDER BY s.id
GO
WITH XMLNAMESPACES (DEFAULT 'urn:err')
SELECT s.id, s.code FROM (
    SELECT id, CAST(body AS xml).value('(/Error/Code)[1]', 'int') AS code FROM dbo.errors
) AS s ORDER BY s.id
GO
WITH XMLNAMESPACES ('urn:err' AS e, 'urn:other' AS o), codes AS (
    SELECT id, doc FROM dbo.errors)
SELECT id, doc.exist('/e:Error') AS ours, doc.value('(/o:Error/o:Code)[1]', 'int') AS other,
       doc.query('/e:Error/e:Code') AS code
FROM codes ORDER BY id
GO
WITH XMLNAMESPACES ('urn:err' AS e)
SELECT id FROM dbo.errors WHERE doc.exist('/e:Error/e:Code[. < 0]') = 1
GO
-- A declaration in the query itself still works beside them.
WITH XMLNAMESPACES ('urn:other' AS e)
SELECT id, doc.value('declare namespace x="urn:err"; (/x:Error/x:Code)[1]', 'int') AS code
FROM dbo.errors ORDER BY id
GO
-- The methods keep their own argument counts.
WITH XMLNAMESPACES ('urn:err' AS e)
SELECT id, doc.value('(/e:Error/e:Code)[1]') AS code FROM dbo.errors
