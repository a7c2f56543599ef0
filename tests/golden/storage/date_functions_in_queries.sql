-- Date functions inside storage queries (PostgreSQL runs them in PL/pgSQL, SQLite through
-- the values layer): every datepart, SET DATEFIRST, offsets, rounding of the value's type,
-- month ends, boundaries crossed, and the errors 517, 535, 9810, 289.
SET NOCOUNT ON
CREATE TABLE dbo.dates (id int PRIMARY KEY, d date, dt datetime, sdt smalldatetime,
                        dto datetimeoffset, t time)
INSERT INTO dbo.dates VALUES
  (1, '2024-01-07', '2024-12-31 23:59:59.997', '2024-06-15 12:30',
   '2024-02-29 23:30:00.5 +05:30', '13:14:15.123456'),
  (2, '2021-01-01', '1753-01-01 00:00:00', '2079-06-06 23:59',
   '2024-03-01 00:15:00 -08:00', '23:59:59.999999')
GO
SELECT id, DATEPART(weekday, d) AS wd, DATEPART(week, d) AS wk, DATEPART(iso_week, d) AS iso,
       DATEPART(dayofyear, d) AS doy, DATEPART(quarter, dt) AS q,
       DATEPART(tzoffset, dto) AS tz, DATENAME(tzoffset, dto) AS tzname,
       DATEPART(nanosecond, t) AS ns, DATENAME(weekday, d) AS dayname
FROM dbo.dates ORDER BY id
SET DATEFIRST 1
SELECT id, DATEPART(weekday, d) AS wd, DATEPART(week, d) AS wk, DATENAME(weekday, d) AS dn,
       DATEDIFF(week, d, DATEADD(day, 7, d)) AS weeks
FROM dbo.dates ORDER BY id
SET DATEFIRST 7
GO
SELECT id, DATEADD(month, 1, CAST('2024-01-31' AS date)) AS month_end,
       DATEADD(millisecond, 2, dt) AS ticks, DATEADD(second, 40, sdt) AS minute,
       DATEADD(hour, 1, dto) AS same_offset, DATEADD(hour, 12, t) AS wraps,
       EOMONTH(d, 1) AS eom
FROM dbo.dates WHERE id = 1
SELECT id, DATEDIFF(year, dt, CAST('2025-01-01' AS datetime)) AS years,
       DATEDIFF(day, dto, CAST('2024-03-01 00:00 +00:00' AS datetimeoffset)) AS utc_days,
       DATEDIFF_BIG(millisecond, CAST('0001-01-01' AS date), d) AS ms
FROM dbo.dates ORDER BY id
SELECT DATEFROMPARTS(YEAR(d), 2, 29) AS leap FROM dbo.dates WHERE id = 1
GO
SELECT DATEADD(day, -1, dt) FROM dbo.dates WHERE id = 2
GO
SELECT DATEADD(minute, 1, sdt) FROM dbo.dates WHERE id = 2
GO
SELECT DATEDIFF(millisecond, CAST('1900-01-01' AS datetime), dt) FROM dbo.dates WHERE id = 1
GO
SELECT DATEPART(hour, d) FROM dbo.dates
GO
SELECT DATEFROMPARTS(YEAR(d), 2, 29) FROM dbo.dates WHERE id = 2
