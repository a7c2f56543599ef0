-- CROSS APPLY / OUTER APPLY OPENJSON over a column of the outer table (SQL Server's
-- "Combine relational data and JSON data" and "merge parent and child rows" examples):
-- the function runs once per outer row; CROSS APPLY drops rows with no JSON rows (NULL,
-- an empty array, a lax path that leads nowhere), OUTER APPLY keeps them with NULLs.
CREATE TABLE dbo.SalesOrderHeader (SalesOrderID int, OrderDate date, SalesReasons nvarchar(max));
INSERT dbo.SalesOrderHeader VALUES
  (1, '2024-01-02', N'["Manufacturer","Quality"]'),
  (2, '2024-01-03', N'["Price"]'),
  (3, '2024-01-04', NULL),
  (4, '2024-01-05', N'[]');
SELECT SalesOrderID, OrderDate, value AS Reason
FROM dbo.SalesOrderHeader CROSS APPLY OPENJSON(SalesReasons)
ORDER BY SalesOrderID, Reason;
SELECT h.SalesOrderID, r.[key], r.value, r.type
FROM dbo.SalesOrderHeader AS h OUTER APPLY OPENJSON(h.SalesReasons) AS r
ORDER BY h.SalesOrderID, r.[key];
GO
CREATE TABLE dbo.Product (ProductID int, Name nvarchar(20), Data nvarchar(max));
INSERT dbo.Product VALUES
  (1, N'Bike', N'{"Size":"L","Parts":[{"PartName":"Wheel","Code":"W1","Qty":2,"Price":10.50},{"PartName":"Frame","Code":"F7","Qty":1,"Price":99.99}]}'),
  (2, N'Lamp', N'{"Size":"S","Parts":[{"PartName":"Bulb","Code":"B2","Qty":3}]}'),
  (3, N'Box', N'{"Size":"M"}');
SELECT p.ProductID, p.Name, x.PartName, x.Code, x.Qty, x.Price, x.Qty * 2 AS Twice
FROM dbo.Product AS p
CROSS APPLY OPENJSON(p.Data, '$.Parts') WITH (PartName varchar(20), Code varchar(5),
  Qty int '$.Qty', Price decimal(9,2)) AS x
ORDER BY p.ProductID, x.PartName;
SELECT p.Name, x.Parts, x.Size
FROM dbo.Product AS p
OUTER APPLY OPENJSON(p.Data) WITH (Size char(1) 'strict $.Size', Parts nvarchar(max) AS JSON) AS x
ORDER BY p.ProductID;
SELECT p.Name, COUNT(x.[key]) AS members
FROM dbo.Product AS p CROSS APPLY OPENJSON(p.Data) AS x
WHERE x.type = 1
GROUP BY p.Name ORDER BY p.Name;
GO
-- A variable path, and a strict path that finds nothing: Msg 13608 as SQL Server raises it.
DECLARE @path nvarchar(20) = N'$.Parts';
SELECT p.Name, x.value FROM dbo.Product AS p
CROSS APPLY OPENJSON(p.Data, @path) AS x WHERE x.[key] = '0' ORDER BY p.Name;
SELECT p.Name, x.[key] FROM dbo.Product AS p CROSS APPLY OPENJSON(p.Data, 'strict $.Parts') AS x;
GO
-- A malformed constant path is Msg 13607 before any row is read.
SELECT p.Name FROM dbo.Product AS p CROSS APPLY OPENJSON(p.Data, '$.Parts?') AS x;
GO
