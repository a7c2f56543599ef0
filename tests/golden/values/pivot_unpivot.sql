-- PIVOT and UNPIVOT, from SQL Server's "Using PIVOT and UNPIVOT" (its tables reduced to the
-- columns the examples read, with a few rows of data).
CREATE TABLE Product (ProductID int, DaysToManufacture int, StandardCost money);
INSERT INTO Product VALUES (1, 0, 5.00), (2, 0, 6.00), (3, 1, 223.88), (4, 2, 359.1082),
    (5, 4, 949.4105), (6, 1, NULL);
GO
-- Basic PIVOT: one row, the aggregate per listed value, NULL for a value with no rows.
SELECT 'AverageCost' AS Cost_Sorted_By_Production_Days,
  [0], [1], [2], [3], [4]
FROM
(
  SELECT DaysToManufacture, StandardCost
  FROM Product
) AS SourceTable
PIVOT
(
  AVG(StandardCost)
  FOR DaysToManufacture IN ([0], [1], [2], [3], [4])
) AS PivotTable;
GO
-- Complex PIVOT: grouped implicitly by the remaining column (VendorID).
CREATE TABLE PurchaseOrderHeader (PurchaseOrderID int, EmployeeID int, VendorID int);
INSERT INTO PurchaseOrderHeader VALUES (1, 250, 1492), (2, 251, 1492), (3, 250, 1492),
    (4, 256, 1494), (5, 257, 1494), (6, 260, 1496), (7, 999, 1496);
GO
SELECT VendorID, [250] AS Emp1, [251] AS Emp2, [256] AS Emp3, [257] AS Emp4, [260] AS Emp5
FROM
(SELECT PurchaseOrderID, EmployeeID, VendorID
FROM PurchaseOrderHeader) p
PIVOT
(
COUNT (PurchaseOrderID)
FOR EmployeeID IN
( [250], [251], [256], [257], [260] )
) AS pvt
ORDER BY pvt.VendorID;
GO
-- UNPIVOT.
CREATE TABLE pvt (VendorID INT, Emp1 INT, Emp2 INT, Emp3 INT, Emp4 INT, Emp5 INT);
GO
INSERT INTO pvt VALUES (1,4,3,5,4,4);
INSERT INTO pvt VALUES (2,4,1,5,5,5);
INSERT INTO pvt VALUES (3,4,3,5,4,4);
INSERT INTO pvt VALUES (4,4,2,5,5,4);
INSERT INTO pvt VALUES (5,5,1,5,5,5);
GO
SELECT VendorID, Employee, Orders
FROM
   (SELECT VendorID, Emp1, Emp2, Emp3, Emp4, Emp5
   FROM pvt) p
UNPIVOT
   (Orders FOR Employee IN
      (Emp1, Emp2, Emp3, Emp4, Emp5)
)AS unpvt
ORDER BY VendorID, Employee;
GO
-- UNPIVOT drops NULL values; a table read directly, its other columns kept.
UPDATE pvt SET Emp2 = NULL WHERE VendorID = 2;
SELECT VendorID, Emp3, Employee, Orders
FROM pvt UNPIVOT (Orders FOR Employee IN (Emp1, Emp2)) AS u
WHERE VendorID <= 2
ORDER BY VendorID, Employee;
GO
-- PIVOT over a table read directly (string values), grouped by the remaining columns.
CREATE TABLE sales (region varchar(10), yr int, quarter char(2), amount decimal(9,2));
INSERT INTO sales VALUES ('east', 2024, 'Q1', 10.50), ('east', 2024, 'Q1', 4.50),
    ('east', 2024, 'Q2', 7), ('west', 2024, 'Q2', 3), ('west', 2025, 'Q1', 1.25);
SELECT * FROM sales PIVOT (SUM(amount) FOR quarter IN ([Q1], [Q2], [Q3])) AS s
ORDER BY region, yr;
GO
-- The listed columns of UNPIVOT must share one type; names must exist.
CREATE TABLE mixed (id int, a int, b varchar(5));
SELECT * FROM mixed UNPIVOT (v FOR n IN (a, b)) AS u;
GO
SELECT * FROM sales PIVOT (SUM(nothing) FOR quarter IN ([Q1])) AS s;
GO
-- Operators in a chain: UNPIVOT reads the PIVOT's result.
CREATE TABLE t (k int, a int, b int);
INSERT t VALUES (1, 1, 2), (2, 1, 3), (3, 2, 2), (3, 3, 9);
SELECT k, n, v FROM t PIVOT (MAX(b) FOR a IN ([1], [2])) p UNPIVOT (v FOR n IN ([1], [2])) q
ORDER BY k, n;
GO
-- Sources: a CTE, a view with a date pivot column, a join after the operator, a variable.
CREATE TABLE s (g int, d date, who nvarchar(10), amt int);
INSERT s VALUES (1, '2024-01-01', N'ann', 5), (1, '2024-01-02', N'bob', 7), (2, '2024-01-01', N'ann', 1);
GO
WITH c AS (SELECT g, who, amt FROM s)
SELECT g, ann, bob FROM c PIVOT (SUM(amt) FOR who IN (ann, bob)) AS p ORDER BY g;
GO
CREATE VIEW v AS SELECT g, d, amt FROM s;
GO
SELECT g, [2024-01-01], [2024-01-02] FROM v PIVOT (MAX(amt) FOR d IN ([2024-01-01], [2024-01-02])) AS p ORDER BY g;
SELECT p.g, x.n FROM (SELECT g, who, amt FROM s) q PIVOT (MIN(amt) FOR who IN ([ann])) AS p JOIN (SELECT 1 AS n) x ON x.n = p.g;
DECLARE @k int = 1;
SELECT * FROM (SELECT g, who, amt FROM s WHERE g = @k) q PIVOT (MIN(amt) FOR who IN ([ann])) AS p;
GO
