CREATE TABLE dbo.t (id int IDENTITY(10, 5) NOT NULL, name varchar(20) NULL, wide nvarchar(max),
    amount decimal(9, 2) NOT NULL, f float, made datetime, c char(3) NOT NULL)
GO
CREATE TABLE dbo.plain (i int)
GO
CREATE PROCEDURE dbo.hello
AS
    PRINT 'hello'
    SELECT 1 AS one
GO
EXEC sp_helptext 'dbo.hello'
EXEC sp_helptext @objname = N'hello'
EXEC sp_helptext 'dbo.t'
EXEC sp_helptext 'dbo.nothere'
-- sp_help's result sets hold creation times: tests/interpreter/test_sysprocs.py
EXEC sp_help 'nothere'
