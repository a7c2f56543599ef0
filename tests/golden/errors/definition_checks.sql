-- Definitions SQL Server refuses when they are created, and the assignment / aggregate
-- errors of everyday batches.
DECLARE @a int
SELECT @a = 1 UNION ALL SELECT 1
GO
DECLARE @a int
SELECT 1 AS x UNION SELECT @a = 2
GO
CREATE FUNCTION dbo.returns_rows() RETURNS int
AS
BEGIN
    DECLARE @x int
    SELECT @x = 1
    SELECT 1 AS a
    RETURN @x
END
GO
CREATE FUNCTION dbo.tf_returns_rows() RETURNS @r TABLE (a int)
AS
BEGIN
    INSERT @r SELECT 1
    SELECT a FROM @r
    RETURN
END
GO
CREATE FUNCTION dbo.fine() RETURNS int
AS
BEGIN
    DECLARE @x int
    SELECT @x = 1
    IF EXISTS (SELECT 1) SET @x = 2
    RETURN (SELECT @x + 1)
END
GO
SELECT dbo.fine() AS fine, OBJECT_ID('dbo.returns_rows') AS returns_rows,
       OBJECT_ID('dbo.tf_returns_rows') AS tf_returns_rows
GO
CREATE TABLE two_identities (a int IDENTITY, b int IDENTITY(1, 1))
GO
DECLARE @t TABLE (a int IDENTITY, b bigint IDENTITY)
GO
CREATE TABLE dbo.Books (
    BookID int,
    BookTitle varchar(200),
    BookSummary varchar(10000))
GO
DECLARE @t TABLE (a nvarchar(4001))
GO
DECLARE @ProductDescription varchar(10000)
GO
CREATE TABLE fits (a nvarchar(4000), b varchar(max), c binary(8000))
SELECT OBJECT_ID('two_identities') AS two_identities, OBJECT_ID('dbo.Books') AS books,
       CASE WHEN OBJECT_ID('fits') IS NULL THEN 0 ELSE 1 END AS fits
GO
SET NOCOUNT ON
CREATE TABLE av (a int, s smallint, b bigint)
INSERT av VALUES (2147483647, 32767, 1), (2147483647, 32767, 1)
SELECT AVG(a) AS avg_int FROM av
PRINT 'the batch goes on'
SELECT SUM(a) AS sum_int FROM av
SELECT AVG(s) AS avg_smallint, SUM(s) AS sum_smallint, AVG(b) AS avg_bigint FROM av
SELECT AVG(CAST(a AS bigint)) AS avg_as_bigint FROM av
SELECT AVG(a) AS avg_values FROM (VALUES (2147483647), (1)) v(a)
SELECT AVG(a) AS avg_truncated, SUM(a) AS total FROM (VALUES (-3), (-4)) v(a)
SELECT AVG(a) AS avg_empty FROM av WHERE a < 0
