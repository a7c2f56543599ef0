-- The forms SSMS writes in schema scripts: DEFAULT … FOR, WITH CHECK | NOCHECK ADD,
-- CHECK | NOCHECK CONSTRAINT, several constraints in one ADD, DROP COLUMN a, b, index and
-- constraint options, ON [PRIMARY], inline INDEX, PRIMARY KEY (a, b) after a column, and
-- table hints after an alias without WITH.
SET NOCOUNT ON
CREATE TABLE [dbo].[Orders] (
    [OrderID] [int] NOT NULL,
    [Qty] [int] NOT NULL,
    [Note] [varchar](20) NULL,
    [Extra1] [int] NULL,
    [Extra2] [int] NULL,
 CONSTRAINT [PK_Orders] PRIMARY KEY CLUSTERED ([OrderID] ASC)
 WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, IGNORE_DUP_KEY = OFF, ALLOW_ROW_LOCKS = ON,
       ALLOW_PAGE_LOCKS = ON, FILLFACTOR = 90, DATA_COMPRESSION = PAGE) ON [PRIMARY]
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[Customers] ([CustomerID] int NOT NULL PRIMARY KEY, [Name] varchar(20))
CREATE TABLE dbo.Lines (OrderID int NOT NULL, LineNo int NOT NULL PRIMARY KEY (OrderID, LineNo),
    CustomerID int NULL, INDEX IX_Lines_Customer NONCLUSTERED (CustomerID))
GO
ALTER TABLE [dbo].[Orders] ADD CONSTRAINT [DF_Orders_Qty] DEFAULT ((1)) FOR [Qty]
ALTER TABLE [dbo].[Orders] ADD DEFAULT ('none') FOR [Note]
GO
ALTER TABLE [dbo].[Orders] ADD CONSTRAINT [DF_again] DEFAULT (2) FOR [Qty]
GO
ALTER TABLE [dbo].[Orders] ADD CONSTRAINT CK_Qty_Positive CHECK (Qty > 0),
    CONSTRAINT CK_Qty_Small CHECK (Qty < 100)
ALTER TABLE [dbo].[Lines] WITH CHECK ADD CONSTRAINT [FK_Lines_Customers] FOREIGN KEY([CustomerID])
REFERENCES [dbo].[Customers] ([CustomerID])
ALTER TABLE [dbo].[Lines] CHECK CONSTRAINT [FK_Lines_Customers]
ALTER TABLE [dbo].[Orders] DROP COLUMN Extra1, Extra2
CREATE NONCLUSTERED INDEX [IX_Orders_Qty] ON [dbo].[Orders] ([Qty] ASC)
WITH (PAD_INDEX = OFF, SORT_IN_TEMPDB = OFF, DROP_EXISTING = OFF, ONLINE = OFF, FILLFACTOR = 80) ON [PRIMARY]
GO
SET NOCOUNT ON
INSERT dbo.Orders (OrderID) VALUES (1)
SELECT OrderID, Qty, Note FROM dbo.Orders
SELECT name FROM sys.default_constraints ORDER BY name
SELECT name FROM sys.check_constraints ORDER BY name
SELECT COUNT(*) AS columns_left FROM sys.columns WHERE object_id = OBJECT_ID('dbo.Orders')
INSERT dbo.Orders (OrderID, Qty) VALUES (2, 500)
INSERT dbo.Lines (OrderID, LineNo, CustomerID) VALUES (1, 1, 7)
INSERT dbo.Lines (OrderID, LineNo) VALUES (1, 1)
GO
SET NOCOUNT ON
ALTER TABLE dbo.Lines NOCHECK CONSTRAINT FK_Lines_Customers
ALTER TABLE dbo.Orders NOCHECK CONSTRAINT ALL
INSERT dbo.Lines (OrderID, LineNo, CustomerID) VALUES (1, 2, 7)
INSERT dbo.Orders (OrderID, Qty) VALUES (3, 500)
SELECT name, is_disabled FROM sys.foreign_keys
ALTER TABLE dbo.Orders CHECK CONSTRAINT CK_Qty_Small
INSERT dbo.Orders (OrderID, Qty) VALUES (4, 500)
ALTER TABLE dbo.Orders NOCHECK CONSTRAINT no_such_constraint
ALTER TABLE dbo.Orders WITH NOCHECK ADD CONSTRAINT CK_Qty_Even CHECK (Qty % 2 = 0)
SELECT OrderID, Qty FROM dbo.Orders o (NOLOCK) ORDER BY OrderID
SELECT o.OrderID, l.LineNo FROM dbo.Orders AS o (NOLOCK, READUNCOMMITTED)
    JOIN dbo.Lines l (NOLOCK) ON l.OrderID = o.OrderID ORDER BY l.LineNo
GO
CREATE TABLE dbo.Codes (Code int NOT NULL)
CREATE UNIQUE NONCLUSTERED INDEX [UX_Codes] ON [dbo].[Codes] ([Code] ASC) WITH (IGNORE_DUP_KEY = OFF) ON [PRIMARY]
INSERT dbo.Codes VALUES (1)
INSERT dbo.Codes VALUES (1)
