-- FORMAT over columns inside queries (the examples of its page over a table's values):
-- .NET standard and custom format strings, the cultures en-US, en-GB, de-DE, fr-FR and
-- the invariant one, on both stores as the interpreter formats a variable.
CREATE TABLE dbo.fmt (id int, d date, dt datetime, d2 datetime2, so datetimeoffset,
                      n numeric(12,4), i int, f float, m money, cul nvarchar(10),
                      pat nvarchar(20), s varchar(10))
INSERT dbo.fmt VALUES
  (1, '2016-07-31', '2016-07-31 14:05:09.123', '2018-01-01 14:00:00.1234567',
   '2016-07-31 14:05:09 +02:00', 1234.5678, 123456789, 0.125, 45.50, 'en-US', 'N2', 'x'),
  (2, '2024-02-29', '2024-02-29 00:00:00', '2024-12-25 09:30:15', NULL,
   -0.5, -42, 1e10, -3.0, 'de-DE', '#,##0.0', 'y'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'fr-FR', NULL, NULL)
GO
-- Example A: standard date formats per culture.
SELECT id, FORMAT(d, 'd', 'en-US') AS us, FORMAT(d, 'd', 'en-gb') AS gb,
       FORMAT(d, 'd', 'de-de') AS de, FORMAT(d, 'D', 'en-US') AS us_long,
       FORMAT(d, 'D', 'en-gb') AS gb_long, FORMAT(d, 'D', 'de-de') AS de_long
FROM dbo.fmt ORDER BY id
GO
-- Example B: custom date and number formats.
SELECT id, FORMAT(d, 'dd/MM/yyyy', 'en-US') AS custom_date,
       FORMAT(i, '###-##-####') AS custom_number,
       FORMAT(dt, 'dddd, MMMM dd, yyyy hh:mm:ss tt', 'en-US') AS us_long,
       FORMAT(dt, 'dddd, MMMM dd, yyyy HH:mm:ss', 'de-DE') AS de_long,
       FORMAT(d2, N'h:mm tt') AS am_pm, FORMAT(d2, 'yyyy-MM-dd HH:mm:ss.fff') AS millis,
       FORMAT(n, 'G') AS g_keeps_scale, FORMAT(i, '(###) ###-####') AS phone
FROM dbo.fmt ORDER BY id
GO
-- Example C: numbers (N, G, C, P, D, X, E, F and custom sections).
SELECT id, FORMAT(n, 'N', 'en-us') AS n_format, FORMAT(n, 'G', 'en-us') AS g_format,
       FORMAT(n, 'C', 'en-us') AS c_format, FORMAT(n, 'C', 'de-de') AS c_de,
       FORMAT(f, 'P1') AS pct, FORMAT(i, 'D12') AS d12, FORMAT(i, 'X') AS hex,
       FORMAT(f, 'E3') AS sci, FORMAT(m, 'F1', 'fr-FR') AS fr_fixed,
       FORMAT(n, '#,##0.00;(#,##0.00);zero') AS sections
FROM dbo.fmt ORDER BY id
GO
-- The format and the culture from columns; datetimeoffset's zzz; the invariant culture.
SELECT id, FORMAT(n, pat, cul) AS per_row, FORMAT(d, 'D', cul) AS long_date,
       FORMAT(so, 'yyyy-MM-dd HH:mm zzz') AS offset, FORMAT(dt, 'g', '') AS invariant
FROM dbo.fmt ORDER BY id
GO
-- Variables beside columns; FORMAT in WHERE, GROUP BY and ORDER BY.
DECLARE @fmt nvarchar(20) = N'MMMM yyyy', @c nvarchar(10) = N'fr-FR'
SELECT id, FORMAT(d, @fmt, @c) AS month_year FROM dbo.fmt WHERE FORMAT(d, 'yyyy') >= '2016' ORDER BY id
SELECT FORMAT(d2, 'yyyy') AS yr, COUNT(*) AS n FROM dbo.fmt
GROUP BY FORMAT(d2, 'yyyy') ORDER BY FORMAT(d2, 'yyyy')
GO
-- An invalid format gives NULL.
SELECT id, FORMAT(i, 'Q9') AS bad_number, FORMAT(d, 'x') AS bad_date FROM dbo.fmt ORDER BY id
GO
-- The engine's own date columns (a catalog view's) format as a table's.
SELECT COUNT(*) AS same FROM sys.objects
WHERE name = 'fmt' AND FORMAT(create_date, 'yyyy-MM-dd HH:mm') = CONVERT(char(16), create_date, 120)
GO
-- A value that is neither a number nor a date/time: Msg 8116; an unknown culture: Msg 9818.
SELECT FORMAT(s, 'N') FROM dbo.fmt
GO
SELECT FORMAT(n, 'N', 'xx-YY') FROM dbo.fmt WHERE id = 1
GO
SELECT FORMAT(n) FROM dbo.fmt
GO
-- Example D: a time is formatted as .NET's TimeSpan (hh is the hour of the day; other text
-- escaped or quoted, so 'hh:mm' and 'hh.mm' are NULL).
CREATE TABLE dbo.tm (id int, t time)
INSERT dbo.tm VALUES (1, '07:35'), (2, '14:07:09.1234')
SELECT id, FORMAT(t, N'hh\.mm') AS dotted, FORMAT(t, N'hh\:mm') AS colon,
       FORMAT(t, N'hh.mm') AS bad_dot, FORMAT(t, N'hh:mm') AS bad_colon,
       FORMAT(t, 'c') AS c, FORMAT(t, 'g', 'de-DE') AS g_de, FORMAT(t, 'G') AS g_long
FROM dbo.tm ORDER BY id
GO
-- In INSERT … SELECT, UPDATE, a derived table, a correlated subquery and a view.
CREATE TABLE dbo.a (id int, d date, s nvarchar(40))
INSERT dbo.a VALUES (1, '2024-03-05', NULL), (2, '2023-01-09', NULL)
INSERT dbo.a (id, s) SELECT id + 10, FORMAT(d, 'dd MMM yyyy') FROM dbo.a
UPDATE dbo.a SET s = FORMAT(d, 'yyyy/MM') WHERE id = 1
SELECT id, s FROM dbo.a ORDER BY id
SELECT * FROM (SELECT id, FORMAT(d, 'MMMM', 'de-DE') AS m FROM dbo.a) AS x WHERE m IS NOT NULL ORDER BY id
SELECT id, (SELECT FORMAT(b.d, 'yy') FROM dbo.a AS b WHERE b.id = a.id) AS yy FROM dbo.a ORDER BY id
GO
CREATE VIEW dbo.va AS SELECT id, FORMAT(d, 'd', 'en-GB') AS gb FROM dbo.a
GO
SELECT * FROM dbo.va ORDER BY id
GO
-- A value that names no column (GETDATE()) is read once for the query.
SELECT COUNT(*) AS this_year FROM dbo.a
WHERE FORMAT(GETDATE(), 'yyyy') = CAST(YEAR(GETDATE()) AS varchar(4))
GO
GO
-- A minus written before a number is part of the constant: -2147483648 is an int ('X' is
-- for integer types only), in a query as in the interpreter.
SELECT id, FORMAT(-2147483648, 'X') AS int_min_hex, FORMAT(-5, 'D3') AS d3
FROM dbo.fmt WHERE id = 1
SELECT FORMAT(-2147483648, 'X') AS int_min_hex
