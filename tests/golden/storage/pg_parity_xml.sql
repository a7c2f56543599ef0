-- xml methods inside storage queries: value(), exist(), query() on a table's xml column and
-- on a message body converted to xml (SQLite: the interpreter's XQuery; PostgreSQL: xpath()).
SET NOCOUNT ON
CREATE TABLE dbo.orders (id int PRIMARY KEY, doc xml, body varbinary(max))
INSERT INTO dbo.orders VALUES
  (1, '<order id="7"><item qty="2">pen</item><item qty="5">ink</item></order>',
   CAST(N'<note><to>Ann</to></note>' AS varbinary(max))),
  (2, '<order id="8"><item qty="1">pad</item><empty/></order>',
   CAST('<note><to>Bob</to></note>' AS varbinary(max))),
  (3, NULL, CAST('<?xml version="1.0" encoding="utf-8"?><note><to>Cy</to></note>'
                 AS varbinary(max)))
GO
SELECT id, doc.value('(/order/@id)[1]', 'int') AS order_id,
       doc.value('(/order/item)[2]', 'varchar(10)') AS second,
       doc.value('count(/order/item)', 'int') AS items,
       doc.value('sum(/order/item/@qty)', 'decimal(5,1)') AS qty
FROM dbo.orders ORDER BY id
GO
SELECT id, doc.exist('/order/item[@qty > 4]') AS big, doc.exist('/order/empty') AS has_empty
FROM dbo.orders ORDER BY id
SELECT id FROM dbo.orders WHERE doc.exist('/order/item[. = "pad"]') = 1
GO
SELECT id, doc.query('/order/item[1]') AS first_item, doc.query('/order/empty') AS e
FROM dbo.orders ORDER BY id
GO
SELECT o.id, CAST(o.body AS xml).value('(/note/to)[1]', 'nvarchar(20)') AS recipient
FROM dbo.orders AS o ORDER BY o.id
GO
SELECT id, doc.value('declare namespace m="urn:m"; (/m:x)[1]', 'int') AS none
FROM dbo.orders WHERE id = 1
GO
-- value() needs a singleton; unknown functions are XQuery errors
SELECT doc.value('/order/item', 'varchar(10)') AS v FROM dbo.orders
GO
SELECT doc.value('(/order/nosuch(1))[1]', 'int') AS v FROM dbo.orders
GO
-- value() returns characters, not entities (PostgreSQL's xpath() escapes its string results)
SELECT x.value('(/a)[1]', 'nvarchar(30)') AS v
FROM (SELECT CAST(N'<a>b&amp;c &lt;d&gt; &amp;lt;</a>' AS xml) AS x) AS t
GO
PRINT 'done'
