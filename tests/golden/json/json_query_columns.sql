-- JSON_QUERY over table columns: the object or array at the path as the source writes it,
-- NULL for a scalar or a missing property in lax mode, Msg 13608 / 13624 in strict mode.
CREATE TABLE dbo.docs (id int, js nvarchar(200));
INSERT dbo.docs VALUES (1, N'{"a": [1,  2], "b": {"c": {"d" : 1}}, "s": "x", "k y": [3]}'),
                       (2, N'[1, [2, 3]]'), (3, NULL);
SELECT id, JSON_QUERY(js, '$.a') AS a, JSON_QUERY(js, '$.b.c') AS c, JSON_QUERY(js, '$.s') AS s,
       JSON_QUERY(js, '$."k y"') AS ky, JSON_QUERY(js, '$[1]') AS one, JSON_QUERY(js) AS whole,
       JSON_QUERY(js, 'lax $.zz') AS missing
FROM dbo.docs ORDER BY id;
SELECT JSON_OBJECT('q':JSON_QUERY(js, '$.a')) AS nested FROM dbo.docs WHERE id = 1;
DECLARE @p nvarchar(20) = N'$.b';
SELECT JSON_QUERY(js, @p) AS variable_path FROM dbo.docs WHERE id = 1;
GO
SELECT JSON_QUERY(js, 'strict $.zz') FROM dbo.docs WHERE id = 1;
GO
SELECT JSON_QUERY(js, 'strict $.s') FROM dbo.docs WHERE id = 1;
GO
-- A malformed path in a variable (read when the query runs): Msg 13607 places the character
-- from the '$', after a lax / strict prefix, for JSON_QUERY, JSON_VALUE and OPENJSON alike.
DECLARE @bad nvarchar(20) = N'strict $.b?';
SELECT JSON_QUERY(js, @bad) FROM dbo.docs WHERE id = 1;
GO
DECLARE @bad nvarchar(20) = N'  lax $.a!';
SELECT x.[key] FROM dbo.docs AS d CROSS APPLY OPENJSON(d.js, @bad) AS x WHERE d.id = 1;
GO
DECLARE @bad nvarchar(20) = N'$.a b';
SELECT JSON_VALUE(js, @bad) FROM dbo.docs WHERE id = 1;
GO
-- JSON_VALUE of an array with a strict path in a variable: Msg 13623 (lax: NULL).
DECLARE @p nvarchar(20) = N'strict $.a';
SELECT JSON_VALUE(js, N'$.a') AS lax_array, JSON_VALUE(js, N'$."k y"[0]') AS ky0
FROM dbo.docs WHERE id = 1;
SELECT JSON_VALUE(js, @p) FROM dbo.docs WHERE id = 1;
GO
