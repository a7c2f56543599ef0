-- OPENJSON with constant / variable JSON: the Examples of SQL Server's documentation page
-- (default schema key / value / type, a path, lax and strict, a WITH schema with AS JSON).
DECLARE @json NVARCHAR(MAX) = N'{"String_value": "John", "DoublePrecisionFloatingPoint_value": 45, "DoublePrecisionFloatingPoint_value": 2.3456, "BooleanTrue_value": true, "BooleanFalse_value": false, "Null_value": null, "Array_value": ["a","r","r","a","y"], "Object_value": {"obj":"ect"}}';
SELECT * FROM OPENJSON(@json);
SELECT [key], value FROM OPENJSON(N'["en-GB", "en-UK","de-AT","es-AR","sr-Cyrl"]');
GO
DECLARE @json NVARCHAR(4000) = N'{"path": {"to":{"sub-object":["en-GB", "en-UK","de-AT","es-AR","sr-Cyrl"]}}}';
SELECT [key], value FROM OPENJSON(@json,'$.path.to."sub-object"');
SELECT * FROM OPENJSON(@json,'$.nothere');
SELECT * FROM OPENJSON(@json,'strict $.nothere');
GO
DECLARE @json NVARCHAR(MAX) = N'[
  {"Order": {"Number":"SO43659", "Date":"2011-05-31T00:00:00"}, "AccountNumber":"AW29825", "Item": {"Price":2024.9940, "Quantity":1}},
  {"Order": {"Number":"SO43661", "Date":"2011-06-01T00:00:00"}, "AccountNumber":"AW73565", "Item": {"Price":2024.9940, "Quantity":3}}
]';
SELECT * FROM OPENJSON(@json) WITH (
  Number VARCHAR(200) '$.Order.Number', Date DATETIME '$.Order.Date',
  Customer VARCHAR(200) '$.AccountNumber', Quantity INT '$.Item.Quantity',
  [Order] NVARCHAR(MAX) AS JSON);
GO
SELECT * FROM OPENJSON(N'{"a":1}', 'strict $.a');
GO
DECLARE @json NVARCHAR(MAX) = N'[{"id":2,"info":{"name":"John","surname":"Smith"},"age":25},{"id":5,"info":{"name":"Jane","surname":"Smith"},"dob":"2005-11-04T12:00:00"}]';
SELECT * FROM OPENJSON(@json) WITH (id INT 'strict $.id', firstName NVARCHAR(50) '$.info.name',
  lastName NVARCHAR(50) '$.info.surname', age INT, dateOfBirth NVARCHAR(30) '$.dob');
SELECT o.id, t.n FROM OPENJSON(@json) WITH (id INT) AS o JOIN (VALUES (2, 'two')) AS t(i, n) ON t.i = o.id;
GO
CREATE TABLE dbo.d (id int);
INSERT dbo.d VALUES (1);
DECLARE @j nvarchar(max) = N'{"a":[10,20]}';
SELECT d.id, o.value FROM dbo.d CROSS APPLY OPENJSON(@j, '$.a') AS o;
SELECT d.id, o.value FROM dbo.d OUTER APPLY OPENJSON(@j, '$.b') AS o;
GO
