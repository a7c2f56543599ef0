-- PARSE / TRY_PARSE inside CROSS / OUTER APPLY, over derived tables and table variables,
-- and select-list aliases, on every store alike: an alias is visible to ORDER BY only as
-- a whole item (Msg 207 inside an expression, PARSE's included).
SET NOCOUNT ON
CREATE TABLE dbo.t (id int, a varchar(20))
INSERT dbo.t VALUES (1, '12'), (2, 'x'), (3, '25/12/2020')
CREATE TABLE dbo.u (id int, b varchar(20))
INSERT dbo.u VALUES (1, '7'), (1, '8'), (3, '9')
GO
SELECT TRY_PARSE(x.s AS int) AS v FROM dbo.t CROSS APPLY (SELECT t.a AS s) x ORDER BY v
SELECT p FROM (SELECT TRY_PARSE(a AS date USING 'en-GB') AS p FROM dbo.t) q ORDER BY p
SELECT TRY_PARSE(a AS int) AS p FROM dbo.t ORDER BY p DESC
SELECT t.id, x.v FROM dbo.t OUTER APPLY (SELECT TRY_PARSE(u.b AS int) AS v FROM dbo.u
    WHERE u.id = t.id) x ORDER BY t.id, x.v
SELECT t.id, x.v FROM dbo.t CROSS APPLY (SELECT TOP (1) TRY_PARSE(u.b + t.a AS int) AS v
    FROM dbo.u WHERE u.id = t.id ORDER BY u.b) x ORDER BY t.id
SELECT t.id, y.w FROM dbo.t CROSS APPLY (SELECT t.a AS s) x
    CROSS APPLY (SELECT TRY_PARSE(x.s AS int) AS w) y ORDER BY t.id
GO
-- A derived table inside the APPLY that reads the outer row.
SELECT t.id, x.v FROM dbo.t CROSS APPLY (SELECT TRY_PARSE(d.s AS int) AS v
    FROM (SELECT t.a AS s) d) x ORDER BY t.id
SELECT t.id, x.v FROM dbo.t OUTER APPLY (SELECT TRY_PARSE(d.s AS date USING 'en-GB') AS v
    FROM (SELECT t.a AS s WHERE t.id > 1) d) x ORDER BY t.id
GO
-- A table variable without an alias.
DECLARE @t TABLE (a varchar(20))
INSERT @t VALUES ('12'), ('x'), ('1.234,5')
SELECT TRY_PARSE(a AS int) AS n FROM @t ORDER BY n
SELECT p FROM (SELECT TRY_PARSE(a AS decimal(10,2) USING 'de-DE') AS p FROM @t) q ORDER BY p
SELECT TRY_PARSE(x.s AS int) AS v FROM @t CROSS APPLY (SELECT a AS s) x ORDER BY v
GO
-- A select-list alias inside an ORDER BY expression.
SELECT a AS s FROM dbo.t ORDER BY TRY_PARSE(s AS int)
GO
SELECT a AS s FROM dbo.t ORDER BY s + 'z'
GO
SELECT a AS s FROM dbo.t ORDER BY s
SELECT a AS s FROM dbo.t ORDER BY TRY_PARSE(a AS int), s
GO
