-- WITH CHECK OPTION: a row written through the view (or through a view over it) must be
-- seen through it afterwards, else Msg 550 and the statement is rolled back (the
-- transaction goes on). A view over a CHECK OPTION view without one of its own is checked
-- against the lower view's condition only.
SET NOCOUNT ON
CREATE TABLE dbo.acct (id int IDENTITY PRIMARY KEY, owner varchar(10), bal int)
INSERT INTO dbo.acct (owner, bal) VALUES ('ann', 50), ('bob', 500)
GO
CREATE VIEW dbo.rich AS SELECT id, owner, bal FROM dbo.acct WHERE bal >= 100
    WITH CHECK OPTION
GO
CREATE VIEW dbo.rich_small AS SELECT id, owner, bal FROM dbo.rich WHERE bal < 1000
GO
CREATE VIEW dbo.plain AS SELECT id, owner, bal FROM dbo.acct WHERE bal >= 100
GO
INSERT INTO dbo.rich (owner, bal) VALUES ('cy', 100)
INSERT INTO dbo.rich (owner, bal) VALUES ('dee', 99)
INSERT INTO dbo.rich (owner, bal) VALUES ('eve', 200), ('fay', 1)
UPDATE dbo.rich SET bal = bal - 450 WHERE owner = 'bob'
UPDATE dbo.rich SET bal = bal + 10
SELECT @@ROWCOUNT AS [rowcount]
PRINT '-- through a view over it'
UPDATE dbo.rich_small SET bal = 5000 WHERE owner = 'cy'
UPDATE dbo.rich_small SET bal = 5 WHERE owner = 'bob'
INSERT INTO dbo.rich_small (owner, bal) VALUES ('gus', 0)
PRINT '-- no CHECK OPTION: rows may leave the view'
UPDATE dbo.plain SET bal = 1 WHERE owner = 'bob'
SELECT * FROM dbo.plain ORDER BY id
PRINT '-- in a transaction'
BEGIN TRANSACTION
INSERT INTO dbo.rich (owner, bal) VALUES ('hal', 300)
INSERT INTO dbo.rich (owner, bal) VALUES ('ida', 3)
SELECT @@TRANCOUNT AS [trancount]
COMMIT
SELECT owner, bal FROM dbo.acct ORDER BY owner
