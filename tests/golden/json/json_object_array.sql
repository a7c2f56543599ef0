-- JSON_OBJECT / JSON_ARRAY: the Examples of SQL Server's documentation pages, then the same
-- calls over table columns and variables (transpiled queries on either store).
SELECT JSON_OBJECT();
SELECT JSON_OBJECT('name':'value', 'type':1);
SELECT JSON_OBJECT('name':'value', 'type':NULL ABSENT ON NULL);
SELECT JSON_OBJECT('name':'value', 'type':JSON_ARRAY(1, 2));
SELECT JSON_OBJECT('name':'value', 'type':JSON_OBJECT('type_id':1, 'name':'a'));
SELECT JSON_ARRAY();
SELECT JSON_ARRAY('a', 1, 'b', 2);
SELECT JSON_ARRAY('a', 1, 'b', NULL);
SELECT JSON_ARRAY('a', 1, NULL, 2 NULL ON NULL);
SELECT JSON_ARRAY('a', JSON_OBJECT('name':'value', 'type':1));
SELECT JSON_ARRAY('a', JSON_OBJECT('name':'value', 'type':1), JSON_ARRAY(1, NULL, 2 NULL ON NULL));
GO
CREATE TABLE dbo.items (id int, name nvarchar(20), tag varchar(10));
INSERT dbo.items VALUES (1, N'a/b', NULL), (2, N'x"y', 'red');
SELECT id, JSON_OBJECT('id':id, 'name':name, 'tag':tag) AS j FROM dbo.items ORDER BY id;
SELECT JSON_OBJECT('id':id, 'tag':tag ABSENT ON NULL) AS j FROM dbo.items ORDER BY id;
SELECT JSON_ARRAY(id, name, tag) AS a, JSON_ARRAY(id, tag NULL ON NULL) AS b
FROM dbo.items ORDER BY id;
SELECT JSON_OBJECT('k':JSON_ARRAY(id, 'v'), 'o':JSON_OBJECT('n':name)) AS j
FROM dbo.items WHERE id = 1;
DECLARE @n int = 5, @s nvarchar(10) = N'hi';
SELECT JSON_OBJECT('n':@n, 's':@s) AS j, JSON_ARRAY(@n, @s) AS a FROM dbo.items WHERE id = 1;
SELECT JSON_OBJECT('n':@n, 's':@s) AS j, JSON_ARRAY(@n, @s, NULL NULL ON NULL) AS a;
GO
