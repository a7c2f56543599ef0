-- JSON_VALUE with strict and lax paths over table columns (as over constants).
SET NOCOUNT ON
CREATE TABLE j (id int, js nvarchar(max))
INSERT j VALUES (1, N'{"info":{"address":[{"town":"Belgrade"},{"town":"Paris"}]},"name":"x"}')
SELECT JSON_VALUE(js, 'strict $.info.address[1].town') AS strict_town,
       JSON_VALUE(js, 'lax $.info.address[0].town') AS lax_town,
       JSON_VALUE(js, '$.name') AS name, JSON_VALUE(js, 'lax $.missing') AS lax_missing
FROM j
DECLARE @path nvarchar(100) = N'strict $.name'
SELECT JSON_VALUE(js, @path) AS by_variable FROM j
SELECT JSON_VALUE(js, 'strict $.missing') AS strict_missing FROM j
PRINT 'the batch goes on'
SELECT JSON_VALUE(N'{"a":1}', 'strict $.b') AS strict_missing_constant
