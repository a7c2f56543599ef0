SET NOCOUNT ON
CREATE TABLE cust (id int, name varchar(20), joined date, score decimal(5,2), active bit)
INSERT INTO cust VALUES (1, 'x&y', '2024-01-02', 1.5, 1), (2, 'a<b>', NULL, NULL, 0),
    (3, 'w/z', '2023-05-06', 10, 1)
CREATE TABLE orders (cust int, item varchar(10), at datetime)
INSERT INTO orders VALUES (1, 'pen', '2024-02-03 10:11:12'), (1, 'ink', '2024-02-04'),
    (3, 'cap', '2024-03-01 08:00:00')
GO
-- FOR XML PATH(''): the string-aggregation idiom, also correlated, entitised
SELECT STUFF((SELECT ',' + name FROM cust ORDER BY id FOR XML PATH('')), 1, 1, '') AS names
SELECT c.id, STUFF((SELECT ', ' + o.item FROM orders AS o WHERE o.cust = c.id
                    ORDER BY o.item FOR XML PATH('')), 1, 2, '') AS items
FROM cust AS c ORDER BY c.id
SELECT c.id, STUFF((SELECT ',' + o.item FROM orders AS o WHERE o.cust = c.id ORDER BY o.item
                    FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 1, '') AS items
FROM cust AS c ORDER BY c.id
DECLARE @list nvarchar(max) = (SELECT item AS [data()] FROM orders ORDER BY item FOR XML PATH(''))
PRINT @list
DECLARE @typed xml = (SELECT item AS i FROM orders ORDER BY item FOR XML PATH(''), TYPE)
SELECT @typed.value('(/i)[2]', 'varchar(10)') AS second
GO
-- FOR XML PATH with a row element, ROOT, attributes and a/b paths; RAW; AUTO; ELEMENTS
SELECT id, name FROM cust ORDER BY id FOR XML PATH('cust'), ROOT('custs')
SELECT id AS [@id], name AS [info/name], joined AS [info/joined], score
FROM cust ORDER BY id FOR XML PATH('c')
SELECT id, name FROM cust ORDER BY id FOR XML RAW
SELECT id, name FROM cust ORDER BY id FOR XML RAW('r'), ELEMENTS, ROOT
SELECT id, name FROM cust AS cu WHERE id < 3 ORDER BY id FOR XML AUTO
SELECT o.item, o.at FROM orders AS o WHERE o.cust = 1 ORDER BY o.at FOR XML PATH
SELECT id FROM cust WHERE id > 5 FOR XML PATH
GO
SELECT name, id AS [@id] FROM cust FOR XML PATH
GO
-- Columns sharing a prefix share the element; an empty unnamed column separates them
SELECT ROW_NUMBER() OVER (ORDER BY id) AS [@n], 'ID' AS [f/@name], id AS [f], '',
       'NAME' AS [f/@name], name AS [f]
FROM cust WHERE id < 3 ORDER BY id FOR XML PATH('line'), ROOT('lines')
SELECT 'XPath example' AS [head/title], 'This example demonstrates ' AS [body/p],
       'https://www.w3.org/TR/xpath/' AS [body/p/a/@href], 'XPath expressions' AS [body/p/a]
FOR XML PATH('html')
GO
-- FOR JSON PATH / AUTO: numbers, bit, dates, NULLs, dotted nesting, options
SELECT id, name, joined, score, active FROM cust ORDER BY id FOR JSON PATH
SELECT id, name AS [info.name], score AS [info.score] FROM cust WHERE id = 2
FOR JSON PATH, INCLUDE_NULL_VALUES
SELECT id, name FROM cust WHERE id = 1 FOR JSON PATH, WITHOUT_ARRAY_WRAPPER
SELECT id FROM cust ORDER BY id FOR JSON AUTO, ROOT('ids')
SELECT item, at FROM orders WHERE cust = 1 ORDER BY at FOR JSON PATH
SELECT id FROM cust WHERE id > 5 FOR JSON PATH
SELECT c.id, (SELECT o.item FROM orders AS o WHERE o.cust = c.id ORDER BY o.item FOR JSON PATH)
    AS items
FROM cust AS c ORDER BY c.id
GO
SELECT id, name + '!' FROM cust FOR JSON PATH
GO
SELECT id FROM cust FOR JSON PATH, ROOT('x'), WITHOUT_ARRAY_WRAPPER
GO
-- DISTINCT compares the values (case-insensitively), not their formatted text
INSERT INTO orders VALUES (2, 'PEN', NULL), (3, 'ink', NULL)
SELECT STUFF((SELECT DISTINCT ',' + item FROM orders WHERE item <> 'pen' ORDER BY ',' + item
              FOR XML PATH('')), 1, 1, '') AS items
SELECT DISTINCT item FROM orders WHERE item IN ('ink', 'cap') ORDER BY item DESC FOR JSON PATH
GO
SELECT id FROM cust UNION ALL SELECT cust FROM orders FOR XML PATH('')
GO
-- Correlated to a grouped column; TYPE values read with text() and absolute paths
SELECT o1.cust, STUFF((SELECT ',' + o2.item FROM orders AS o2 WHERE o2.cust = o1.cust
                       ORDER BY o2.item FOR XML PATH(''), TYPE).value('(./text())[1]',
                       'varchar(50)'), 1, 1, '') AS items, COUNT(*) AS n
FROM orders AS o1 GROUP BY o1.cust ORDER BY o1.cust
SELECT o1.cust, (SELECT o2.item AS i FROM orders AS o2 WHERE o2.cust = o1.cust
                 ORDER BY o2.item FOR XML PATH(''), TYPE).value('(/i)[1]', 'varchar(10)') AS first_item
FROM orders AS o1 GROUP BY o1.cust ORDER BY o1.cust
GO
-- money and uniqueidentifier are JSON strings (money with its four decimals)
CREATE TABLE pay (amount money, ref uniqueidentifier, rate float)
INSERT pay VALUES (1.5, 'B5F7E1C2-0000-4000-8000-000000000001', 0.25)
SELECT amount, ref, rate FROM pay FOR JSON PATH
SELECT amount, ref, rate FROM pay FOR XML RAW
GO
-- Names XML does not allow are encoded; FOR JSON AUTO keeps dotted names as they are
SELECT id AS [@1st], name AS [order name], score AS [x/a b] FROM cust WHERE id = 1
FOR XML PATH('my row')
SELECT id AS [a.b], name FROM cust WHERE id = 3 FOR JSON AUTO
GO
-- TOP (n) PERCENT and TOP (n) WITH TIES
CREATE TABLE s (id int, name varchar(10), score int)
INSERT s VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 20), (4, 'd', 30), (5, 'e', NULL)
SELECT TOP (2) WITH TIES name, score FROM s ORDER BY score DESC
SELECT TOP 40 PERCENT * FROM s ORDER BY id
SELECT TOP (50) PERCENT WITH TIES id, score AS sc FROM s ORDER BY sc
SELECT TOP 1 PERCENT id FROM s ORDER BY 1 DESC
DECLARE @n int = 1
SELECT TOP (@n) WITH TIES score, COUNT(*) AS n FROM s GROUP BY score ORDER BY COUNT(*) DESC
SELECT COUNT(*) AS n FROM s WHERE id IN (SELECT TOP 60 PERCENT id FROM s ORDER BY id DESC)
GO
SELECT TOP (1) WITH TIES id FROM s
GO
