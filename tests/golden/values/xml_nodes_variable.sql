-- nodes() of an xml variable as the only table source: one row per node, T.c the context
DECLARE @x xml = '<Root><row id="1"><name>Ann</name></row><row id="2"><name>Bo</name></row><row id="3" /></Root>'
SELECT T.c.query('.') AS result FROM @x.nodes('/Root/row') T(c)
SELECT T.c.value('@id', 'int') AS id, T.c.value('(name)[1]', 'varchar(10)') AS name
FROM @x.nodes('/Root/row') AS T(c)
WHERE T.c.exist('name') = 1
-- the context node keeps its document: a parent step reads the element above it
SELECT c.value('local-name(..)', 'varchar(10)') AS parent FROM @x.nodes('/Root/row[1]') T(c)
-- SELECT @v = … assigns once per row: the last row's value stays; @@ROWCOUNT counts rows
DECLARE @last int = -1
SELECT @last = R.r.value('@id', 'int') FROM @x.nodes('/Root/row') AS R(r)
SELECT @last AS last_id, @@ROWCOUNT AS rows_read
SELECT TOP (1) T.c.value('@id', 'int') AS first_id FROM @x.nodes('/Root/row') T(c)
-- no node, or a NULL xml: no rows, the variable keeps its value
SELECT @last = R.r.value('@id', 'int') FROM @x.nodes('/Root/none') AS R(r)
SELECT @last AS unchanged, @@ROWCOUNT AS rows_read
DECLARE @null xml
SELECT T.c.value('@id', 'int') AS id FROM @null.nodes('/Root/row') T(c)
-- namespaces from WITH XMLNAMESPACES
DECLARE @m xml = '<m:list xmlns:m="urn:m"><m:i v="5" /><m:i v="6" /></m:list>'
;WITH XMLNAMESPACES ('urn:m' AS m)
SELECT T.c.value('@v', 'int') AS v FROM @m.nodes('/m:list/m:i') T(c)
GO
-- nodes() of a variable that is not xml: the batch does not compile
DECLARE @s varchar(20) = '<a/>'
SELECT T.c.value('.', 'int') FROM @s.nodes('/a') T(c)
GO
-- TOP … PERCENT: of the nodes WHERE keeps, rounded up (30 % of 3 rows is 1)
DECLARE @p xml = '<r><a>1</a><a>2</a><a>3</a><a>4</a></r>'
SELECT TOP 50 PERCENT T.c.value('.', 'int') AS v FROM @p.nodes('/r/a') AS T(c)
SELECT TOP (30) PERCENT T.c.value('.', 'int') AS v FROM @p.nodes('/r/a') AS T(c)
WHERE T.c.value('.', 'int') > 1
GO
-- WITH TIES needs an ORDER BY: the batch does not compile
DECLARE @p xml = '<r><a>1</a></r>'
SELECT TOP 1 WITH TIES T.c.value('.', 'int') AS v FROM @p.nodes('/r/a') AS T(c)
