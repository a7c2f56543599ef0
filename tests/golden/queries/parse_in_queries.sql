-- PARSE / TRY_PARSE of columns and variables inside queries, on every store alike: each
-- row's text read in its own culture, variables read anew on every run, NULL text or
-- culture giving NULL; PARSE fails (Msg 9819) only for a row the query evaluates.
SET NOCOUNT ON
CREATE TABLE dbo.raw (id int, txt nvarchar(40), culture varchar(10), n decimal(10,2))
INSERT dbo.raw VALUES (1, N'1.234,5', 'de-DE', NULL), (2, N'1,234.5', 'en-US', NULL),
    (3, N'abc', 'en-US', NULL), (4, NULL, 'fr-FR', NULL), (5, N'12,5', NULL, NULL)
CREATE TABLE dbo.c (culture varchar(10), label varchar(10))
INSERT dbo.c VALUES ('de-DE', 'german'), ('en-US', 'english')
GO
SELECT id, TRY_PARSE(txt AS decimal(10,2) USING culture) AS by_row,
    TRY_PARSE(txt AS decimal(10,2) USING 'de-DE') AS german, TRY_PARSE(txt AS int) AS plain
FROM dbo.raw ORDER BY id
SELECT r.id, c.label, TRY_PARSE(r.txt AS money USING c.culture) AS m
FROM dbo.raw AS r JOIN dbo.c AS c ON c.culture = r.culture ORDER BY r.id
SELECT id FROM dbo.raw WHERE TRY_PARSE(txt AS decimal(10,2) USING culture) > 1000 ORDER BY id
SELECT TOP (2) id, PARSE(txt AS decimal(10,2) USING culture) AS first_two FROM dbo.raw
ORDER BY id
GO
SELECT id, PARSE(txt AS decimal(10,2) USING culture) AS d FROM dbo.raw ORDER BY id
GO
UPDATE dbo.raw SET n = TRY_PARSE(txt AS decimal(10,2) USING culture) WHERE id < 4
SELECT id, n FROM dbo.raw ORDER BY id
GO
DECLARE @v nvarchar(20) = N'12,5', @c nvarchar(10) = 'fr-FR', @none nvarchar(5) = NULL
SELECT id, PARSE(@v AS decimal(5,2) USING @c) AS fr, TRY_PARSE(@v AS int) AS en,
    TRY_PARSE(@none AS int) AS null_text, PARSE(@v AS int USING @none) AS null_culture
FROM dbo.raw WHERE id = 1
SET @v = N'7,25'
SELECT id, PARSE(@v AS decimal(5,2) USING @c) AS fr FROM dbo.raw WHERE id = 1
SET @v = N'x'
SELECT id, PARSE(@v AS decimal(5,2) USING @c) AS fr FROM dbo.raw WHERE id = 1
SELECT id, TRY_PARSE(@v AS decimal(5,2) USING @c) AS fr FROM dbo.raw WHERE id = 1
GO
-- Over a CTE (its select list names the columns the reading needs) and a derived table.
WITH c AS (SELECT id, txt, culture FROM dbo.raw)
SELECT id, TRY_PARSE(txt AS decimal(10,2) USING culture) AS from_cte FROM c WHERE id < 3
ORDER BY id
SELECT id, TRY_PARSE(t2 AS int) AS from_derived
FROM (SELECT id, txt + N'0' AS t2 FROM dbo.raw) AS s WHERE id > 3 ORDER BY id
GO
