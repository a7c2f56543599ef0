-- SELECT column_alias = expression with a subquery as the expression: the item is named,
-- also when the subquery is correlated or builds a list with FOR XML PATH('')
CREATE TABLE dbo.heads (head_id int)
CREATE TABLE dbo.details (head_id int, detail_id int)
INSERT INTO dbo.heads VALUES (1), (2), (3)
INSERT INTO dbo.details VALUES (1, 10), (1, 11), (2, 20)
SELECT h.head_id, Biggest = (SELECT MAX(d.detail_id) FROM dbo.details AS d WHERE d.head_id = h.head_id)
FROM dbo.heads AS h ORDER BY h.head_id
SELECT h.head_id,
       Details = (SELECT CONVERT(varchar(10), d.detail_id) + ', ' FROM dbo.details AS d
                  WHERE d.head_id = h.head_id ORDER BY d.detail_id FOR XML PATH(''))
FROM dbo.heads AS h ORDER BY h.head_id
SELECT Total = (SELECT COUNT(*) FROM dbo.details), Plain = 1
