CREATE TABLE dbo.plain (i int)
GO
CREATE PROCEDURE dbo.hello
AS
    PRINT 'hello'
GO
CREATE VIEW dbo.v1 AS SELECT i FROM dbo.plain
GO
CREATE FUNCTION dbo.twice (@x int) RETURNS int AS BEGIN RETURN @x * 2 END
GO
SELECT CASE WHEN OBJECT_DEFINITION(OBJECT_ID('dbo.hello')) LIKE 'CREATE PROCEDURE dbo.hello%PRINT ''hello''%'
            THEN 'procedure text' END AS p,
       CASE WHEN OBJECT_DEFINITION(OBJECT_ID('dbo.v1')) LIKE 'CREATE VIEW dbo.v1 AS SELECT i FROM dbo.plain%'
            THEN 'view text' END AS v,
       CASE WHEN OBJECT_DEFINITION(OBJECT_ID('dbo.twice')) LIKE '%RETURN @x * 2%'
            THEN 'function text' END AS f
SELECT ISNULL(OBJECT_DEFINITION(OBJECT_ID('dbo.plain')), 'no text') AS t, OBJECT_DEFINITION(NULL) AS n,
       OBJECT_DEFINITION(12345) AS u
