-- ALTER TABLE … ADD name AS expression [PERSISTED]: the example of SQL Server's "Specify
-- computed columns in a table" page (add a computed column to an existing table). Rows
-- already there get their values; later writes keep them; sys.columns / sys.computed_columns.
CREATE TABLE dbo.Products (
    ProductID int IDENTITY (1, 1) NOT NULL,
    QtyAvailable smallint,
    UnitPrice money
);
INSERT INTO dbo.Products (QtyAvailable, UnitPrice) VALUES (25, 2.00), (10, 1.5);
ALTER TABLE dbo.Products ADD RetailValue AS (QtyAvailable * UnitPrice * 1.5);
SELECT ProductID, QtyAvailable, UnitPrice, RetailValue FROM dbo.Products;
GO
ALTER TABLE dbo.Products ADD Label AS CAST(ProductID AS varchar(10)) + '#' PERSISTED,
    Doubled AS QtyAvailable * 2;
INSERT dbo.Products (QtyAvailable, UnitPrice) VALUES (4, 4.25);
UPDATE dbo.Products SET QtyAvailable = 30 WHERE ProductID = 1;
SELECT * FROM dbo.Products ORDER BY ProductID;
SELECT c.name, c.column_id, c.is_computed, TYPE_NAME(c.system_type_id) AS type, c.precision, c.scale
    FROM sys.columns AS c WHERE c.object_id = OBJECT_ID('dbo.Products') ORDER BY c.column_id;
SELECT name, is_persisted FROM sys.computed_columns
    WHERE object_id = OBJECT_ID('dbo.Products') ORDER BY column_id;
GO
-- Errors: a name the table has (Msg 2705), an unknown column (Msg 207), a computed column
-- over another computed column (Msg 1759), writing a computed column (Msg 271).
ALTER TABLE dbo.Products ADD Doubled AS QtyAvailable * 3;
GO
ALTER TABLE dbo.Products ADD Bad AS Nope + 1;
GO
ALTER TABLE dbo.Products ADD Bad AS Doubled + 1;
GO
UPDATE dbo.Products SET Doubled = 1;
GO
SELECT COUNT(*) AS columns FROM sys.columns WHERE object_id = OBJECT_ID('dbo.Products');
DROP TABLE dbo.Products;
