-- CROSS / OUTER APPLY of nodes() over a column or an expression of the outer row, after the
-- examples of SQL Server's "nodes() Method (xml Data Type)" page: a manufacturing
-- instructions document per product model, three Locations with steps.
CREATE TABLE T (ProductModelID int, Instructions xml)
INSERT INTO T VALUES (1, '<root>
  <Location LocationID="10" LaborHours="1.5"><step>Insert <tool>T-85A</tool></step><step>Attach the frame</step></Location>
  <Location LocationID="20" LaborHours="2"><step>Assemble</step></Location>
  <Location LocationID="30" LaborHours="0.5" />
</root>')
INSERT INTO T VALUES (2, '<root><Location LocationID="40"><step>Paint</step></Location></root>')
INSERT INTO T VALUES (3, '<root />')
INSERT INTO T VALUES (4, NULL)
-- one row per selected node, in document order; the context node's subtree
SELECT T2.Loc.query('.') AS Loc
FROM T CROSS APPLY Instructions.nodes('/root/Location') AS T2(Loc)
WHERE ProductModelID = 1
-- value() / exist() over the context node, relative paths and attributes
SELECT ProductModelID, T2.Loc.value('@LocationID', 'int') AS LocID,
       T2.Loc.value('@LaborHours', 'decimal(4,1)') AS Hours,
       T2.Loc.value('(step)[1]', 'varchar(30)') AS FirstStep,
       T2.Loc.exist('step') AS HasSteps
FROM T CROSS APPLY T.Instructions.nodes('/root/Location') AS T2(Loc)
ORDER BY ProductModelID, LocID
-- CROSS APPLY drops an outer row with no node (or a NULL document); OUTER APPLY keeps it
SELECT ProductModelID, COUNT(*) AS Locations
FROM T CROSS APPLY Instructions.nodes('/root/Location') AS T2(Loc)
GROUP BY ProductModelID
SELECT ProductModelID, T2.Loc.value('@LocationID', 'int') AS LocID,
       CASE WHEN T2.Loc IS NULL THEN 'no location' ELSE 'location' END AS Kind
FROM T OUTER APPLY Instructions.nodes('/root/Location') AS T2(Loc)
ORDER BY ProductModelID, LocID
-- the context node keeps its document: the parent and absolute paths read the whole of it
SELECT T2.Loc.value('local-name(..)', 'varchar(10)') AS Parent,
       T2.Loc.value('count(../Location)', 'int') AS Siblings,
       T2.Loc.value('(/root/Location/@LocationID)[1]', 'int') AS FirstInDocument
FROM T CROSS APPLY Instructions.nodes('/root/Location[@LocationID = 20]') AS T2(Loc)
-- nodes() applied to the rowset of another nodes(): OUTER keeps a Location without steps
SELECT T1.Locations.value('@LocationID', 'int') AS LocID,
       T2.steps.value('(text())[1]', 'varchar(30)') AS Step
FROM T CROSS APPLY Instructions.nodes('/root/Location') AS T1(Locations)
OUTER APPLY T1.Locations.nodes('./step') AS T2(steps)
WHERE ProductModelID = 1
-- nodes() of the result of query() on a context node
SELECT T2.t.value('.', 'varchar(10)') AS Tool
FROM T CROSS APPLY Instructions.nodes('/root/Location') AS T1(Loc)
CROSS APPLY T1.Loc.query('step/tool').nodes('tool') AS T2(t)
-- WITH XMLNAMESPACES reaches nodes() and the methods on its rows
CREATE TABLE #ns (id int, doc xml)
INSERT INTO #ns VALUES (1, '<m:list xmlns:m="urn:m"><m:i v="5" /><m:i v="6" /></m:list>')
;WITH XMLNAMESPACES ('urn:m' AS m)
SELECT n.c.value('@v', 'int') AS v FROM #ns AS d CROSS APPLY d.doc.nodes('/m:list/m:i') AS n(c)
GO
-- Service Broker message bodies are varbinary: CAST to xml, then shred each message
DECLARE @msgs TABLE (message_type sysname, message_body varbinary(max))
INSERT INTO @msgs VALUES (N'//Orders/New', CAST(N'<order><line qty="2">widget</line><line qty="5">bolt</line></order>' AS varbinary(max)))
INSERT INTO @msgs VALUES (N'//Orders/Empty', CAST(N'<order />' AS varbinary(max)))
SELECT t.message_type, n.c.value('@qty', 'int') AS qty, n.c.value('.', 'nvarchar(20)') AS item
FROM @msgs AS t CROSS APPLY CAST(t.message_body AS xml).nodes('/order/line') AS n(c)
SELECT t.message_type, n.c.value('@qty', 'int') AS qty
FROM @msgs AS t OUTER APPLY CAST(t.message_body AS xml).nodes('/order/line') AS n(c)
ORDER BY t.message_type, qty
GO
-- the column nodes() returns is usable only with the xml methods or IS [NOT] NULL
SELECT T2.Loc FROM T CROSS APPLY Instructions.nodes('/root/Location') AS T2(Loc)
GO
DROP TABLE T
