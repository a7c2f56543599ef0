-- CONVERT styles and date/time conversions inside storage queries (PostgreSQL runs them in
-- PL/pgSQL, SQLite through the values layer): money and float styles, hexadecimal text,
-- day-first dates, offsets, rounding to datetime's ticks, time on 1900-01-01.
SET NOCOUNT ON
CREATE TABLE dbo.cv (id int PRIMARY KEY, m money, f float, s varchar(40), d2 datetime2,
                     t time, g uniqueidentifier)
INSERT INTO dbo.cv VALUES
  (1, 1234567.125, 1.23456789, '29/02/2024', '2024-02-29 13:14:15.123456', '13:14:15.123456',
   '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
  (2, -0.5, 1e20, '2024-02-29 10:11:12 +05:30', '2024-02-29 23:59:59.998', '00:00:00.5', NULL)
GO
SELECT id, CONVERT(varchar(20), m, 1) AS m1, CONVERT(varchar(20), m, 2) AS m2,
       CONVERT(varchar(30), f) AS f0, CONVERT(varchar(30), f, 1) AS f1,
       CONVERT(varchar(30), f, 2) AS f2
FROM dbo.cv ORDER BY id
SELECT id, TRY_CONVERT(date, s, 103) AS dmy, TRY_CONVERT(datetimeoffset, s) AS dto,
       CONVERT(datetime, d2) AS dt, CONVERT(smalldatetime, d2) AS sdt,
       CONVERT(datetime, t) AS tdt, CONVERT(float, CONVERT(datetime, d2)) AS days
FROM dbo.cv ORDER BY id
SELECT CONVERT(varbinary(10), s, 1) AS hex FROM (SELECT '0x1A2B' AS s) AS x
GO
SELECT CONVERT(char(10), g) AS short_guid FROM dbo.cv WHERE id = 1
GO
SELECT CONVERT(varchar(5), f) AS too_long FROM dbo.cv WHERE id = 2
