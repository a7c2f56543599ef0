-- Computed columns: the example of SQL Server's "Specify computed columns in a table" page,
-- PERSISTED, sys.columns / sys.computed_columns, and the errors.
CREATE TABLE dbo.Products (
    ProductID int IDENTITY (1, 1) NOT NULL,
    QtyAvailable smallint,
    UnitPrice money,
    InventoryValue AS QtyAvailable * UnitPrice
);
-- Insert values into the table.
INSERT INTO dbo.Products (QtyAvailable, UnitPrice) VALUES (25, 2.00), (10, 1.5);
-- Display the rows in the table.
SELECT ProductID, QtyAvailable, UnitPrice, InventoryValue FROM dbo.Products;
GO
-- The value follows its columns; it can be read everywhere a column can.
UPDATE dbo.Products SET QtyAvailable = 30 WHERE ProductID = 1
INSERT dbo.Products VALUES (4, 4.25)
SELECT * FROM dbo.Products WHERE InventoryValue > 16 ORDER BY InventoryValue DESC
SELECT SUM(InventoryValue) AS total FROM dbo.Products
GO
CREATE TABLE dbo.Labels (Id int, Code varchar(10),
    Label AS (Code + '-' + CAST(Id AS varchar(10))) PERSISTED, Twice AS Id * 2)
INSERT dbo.Labels (Id, Code) VALUES (1, 'A'), (2, NULL)
SELECT * FROM dbo.Labels
SELECT c.name, c.is_computed FROM sys.columns AS c
    WHERE c.object_id = OBJECT_ID('dbo.Labels') ORDER BY c.column_id
SELECT OBJECT_NAME(object_id) AS [table], name, column_id, TYPE_NAME(system_type_id) AS type,
    is_persisted FROM sys.computed_columns ORDER BY [table], column_id
GO
-- Errors: a computed column cannot be written; unknown columns; computed on computed.
INSERT dbo.Products (QtyAvailable, UnitPrice, InventoryValue) VALUES (1, 1, 1)
GO
UPDATE dbo.Products SET InventoryValue = 0
GO
CREATE TABLE dbo.Bad (a int, b AS nope + 1)
GO
CREATE TABLE dbo.Bad (a int, b AS a + 1, c AS b + 1)
GO
SELECT COUNT(*) AS bad_tables FROM sys.tables WHERE name = 'Bad'
DROP TABLE dbo.Products, dbo.Labels
