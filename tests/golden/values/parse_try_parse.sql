-- PARSE and TRY_PARSE (the examples of their pages, and the cultures en-US, en-GB, de-DE,
-- fr-FR, ja-JP and the invariant one).
SELECT PARSE('Monday, 13 December 2010' AS datetime2 USING 'en-US') AS Result
SELECT PARSE('€345,98' AS money USING 'de-DE') AS Result
SELECT PARSE('12/16/2010' AS datetime2) AS Result
SELECT TRY_PARSE('Jabberwokkie' AS datetime2 USING 'en-US') AS Result
SELECT CASE WHEN TRY_PARSE('Aragorn' AS decimal USING 'de-DE') IS NULL
            THEN 'True' ELSE 'False' END AS Result
SELECT IIF(TRY_PARSE('01/01/2011' AS datetime2) IS NULL, 'True', 'False') AS Result
GO
SELECT PARSE('1,000' AS int) AS en_int, PARSE('1.234,5' AS decimal(10,2) USING 'de-DE') AS de_dec,
       PARSE('1 234,5' AS decimal(10,2) USING 'fr-FR') AS fr_dec,
       PARSE('1,234.5' AS decimal(10,2) USING '') AS invariant_dec,
       PARSE('-1.5e3' AS float USING 'en-GB') AS en_float, PARSE('(12.50)' AS money) AS en_money,
       PARSE('¥1,200' AS money USING 'ja-JP') AS ja_money, PARSE('12.5-' AS decimal(5,2)) AS trailing
SELECT PARSE('16/12/2010' AS date USING 'en-GB') AS gb, PARSE('16.12.2010 14:30' AS datetime USING 'de-DE') AS de,
       PARSE('25 mai 2018' AS date USING 'fr-FR') AS fr, PARSE('2010年12月16日' AS date USING 'ja-JP') AS ja,
       PARSE('2010/12/16 15:05' AS smalldatetime USING 'ja-JP') AS ja_time,
       PARSE('Fri 25 May 2018' AS date) AS en_day_name
SELECT PARSE('2010-12-13T10:15:30+02:00' AS datetimeoffset) AS dto, PARSE('10:15 PM' AS time(0)) AS t
GO
-- NULL: a variable holding NULL gives NULL; an integer's fraction must be zeros.
DECLARE @s nvarchar(40) = NULL, @c nvarchar(10) = 'fr-FR'
SELECT PARSE(@s AS int) AS null_value, PARSE('25 mai 2018' AS date USING @c) AS culture_variable,
       TRY_PARSE('1.5' AS int) AS fraction, PARSE('1.0' AS int) AS zeros,
       TRY_PARSE('300' AS tinyint) AS too_big, TRY_PARSE('Tuesday, 13 December 2010' AS date) AS wrong_day
GO
SELECT PARSE('abc' AS int)
GO
SELECT PARSE('12/13/2010' AS date USING 'en-GB')
GO
SELECT PARSE('1' AS int USING 'xx-YY')
GO
SELECT TRY_PARSE('1' AS int USING 'xx-YY')
GO
SELECT PARSE('1' AS varchar(10))
GO
SELECT PARSE(1 AS int)
GO
SELECT PARSE(NULL AS int)
GO
-- In a query: constant arguments on both stores, the argument rules as above.
CREATE TABLE dbo.raw (id int, txt nvarchar(40))
INSERT dbo.raw VALUES (1, N'1.234,5'), (2, N'abc')
SELECT id, PARSE('€345,98' AS money USING 'de-DE') AS m,
       TRY_PARSE(N'13/12/2010' AS date USING 'en-GB') AS gb, TRY_PARSE('x' AS int) AS bad
FROM dbo.raw ORDER BY id
GO
SELECT PARSE(id AS int) FROM dbo.raw
GO
SELECT TRY_PARSE(txt AS sql_variant) FROM dbo.raw
GO
-- PARSE is no reserved word: a column may carry the name.
CREATE TABLE dbo.words (parse int, try_parse int)
INSERT dbo.words VALUES (1, 2)
SELECT parse, try_parse, PARSE('3' AS int) AS p FROM dbo.words
GO
SELECT LEN('a' AS int)
GO
-- The culture is nvarchar: a number converts to its text ('0': Msg 9818), not a failure.
SELECT PARSE('25 mai 2018' AS date USING 0)
GO
