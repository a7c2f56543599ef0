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
-- bit is true or false and a decimal keeps its scale, from columns, variables and literals.
CREATE TABLE dbo.flags (id int, b bit, d decimal(6,2), n numeric(10,4));
INSERT dbo.flags VALUES (1, 1, 2.50, 3), (2, 0, -0.5, NULL), (3, NULL, 12, 0.1);
SELECT id, JSON_OBJECT('b':b, 'd':d, 'n':n) AS o, JSON_ARRAY(b, d, n) AS a,
       JSON_ARRAY(b, d NULL ON NULL) AS a2
FROM dbo.flags ORDER BY id;
DECLARE @b bit = 1, @d decimal(6,2) = 2.5;
SELECT JSON_OBJECT('b':@b, 'd':@d, 'c':d) AS o, JSON_ARRAY(@b, @d, CAST(1.5 AS decimal(4,2))) AS a
FROM dbo.flags WHERE id = 1;
SELECT JSON_OBJECT('b':@b, 'd':@d) AS o, JSON_ARRAY(@b, @d, CAST(1.5 AS decimal(4,2))) AS a;
GO
