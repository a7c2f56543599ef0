-- DATEDIFF / DATEADD / DATEPART / DATENAME / YEAR / MONTH / DAY / EOMONTH over a queue's
-- message_enqueue_time and sys.objects' create_date (datetime columns of the engine's own
-- tables): only results that do not depend on the clock are shown.
CREATE DATABASE QueueDateFns;
GO
USE QueueDateFns;
CREATE MESSAGE TYPE [//qf/Msg] VALIDATION = NONE;
CREATE CONTRACT [//qf/Contract] ([//qf/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//qf/Init] ON QUEUE InitQ;
CREATE SERVICE [//qf/Targ] ON QUEUE TargQ ([//qf/Contract]);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//qf/Init] TO SERVICE '//qf/Targ'
    ON CONTRACT [//qf/Contract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE [//qf/Msg] (0x01);
GO
SELECT DATEDIFF(day, message_enqueue_time, message_enqueue_time) AS same_day,
    DATEDIFF(ms, message_enqueue_time, message_enqueue_time) AS same_ms,
    CASE WHEN DATEDIFF(ms, message_enqueue_time, GETDATE()) >= 0 THEN 'yes' ELSE 'no' END
        AS not_future,
    CASE WHEN DATEDIFF(hour, message_enqueue_time, SYSDATETIME()) < 24 THEN 'yes' ELSE 'no' END
        AS recent,
    CASE WHEN DATEADD(day, 1, message_enqueue_time) > message_enqueue_time
        THEN 'yes' ELSE 'no' END AS later,
    DATEDIFF(minute, message_enqueue_time, DATEADD(hour, 2, message_enqueue_time)) AS two_hours,
    CASE WHEN DATEPART(year, message_enqueue_time) >= 2020 THEN 'yes' ELSE 'no' END AS yr,
    CASE WHEN YEAR(message_enqueue_time) = DATEPART(year, message_enqueue_time)
        AND MONTH(message_enqueue_time) = DATEPART(month, message_enqueue_time)
        AND DAY(message_enqueue_time) = DATEPART(day, message_enqueue_time)
        THEN 'yes' ELSE 'no' END AS parts,
    CASE WHEN DATENAME(month, message_enqueue_time) IN ('January', 'February', 'March',
        'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November',
        'December') THEN 'yes' ELSE 'no' END AS month_name,
    CASE WHEN DATEPART(day, EOMONTH(message_enqueue_time)) >= 28
        AND EOMONTH(message_enqueue_time) >= CAST(message_enqueue_time AS date)
        THEN 'yes' ELSE 'no' END AS month_end,
    CASE WHEN DATEPART(millisecond, message_enqueue_time) % 10 IN (0, 3, 7)
        THEN 'yes' ELSE 'no' END AS datetime_steps
FROM TargQ;
SELECT DATEDIFF(second, create_date, modify_date) AS unchanged,
    CASE WHEN DATEPART(year, create_date) >= 2020 THEN 'yes' ELSE 'no' END AS yr,
    CASE WHEN DATEADD(month, 1, create_date) > create_date THEN 'yes' ELSE 'no' END AS later,
    CASE WHEN DATENAME(weekday, create_date) LIKE '%day' THEN 'yes' ELSE 'no' END AS weekday,
    CASE WHEN EOMONTH(create_date, 1) > create_date THEN 'yes' ELSE 'no' END AS next_month_end,
    CASE WHEN YEAR(create_date) = YEAR(modify_date) THEN 'yes' ELSE 'no' END AS same_year
FROM sys.objects WHERE name = 'TargQ';
DECLARE @t datetime;
SELECT TOP (1) @t = message_enqueue_time FROM TargQ;
SELECT DATEDIFF(ms, @t, message_enqueue_time) AS variable_equal FROM TargQ;
GO
-- RECEIVE returns message_enqueue_time as the datetime the queue's SELECT shows (kept as
-- it comes in a datetime2 variable: whole milliseconds on the 1/300 s steps).
DECLARE @seen datetime = (SELECT message_enqueue_time FROM TargQ);
DECLARE @got datetime2(7);
RECEIVE TOP (1) @got = message_enqueue_time FROM TargQ;
SELECT DATEDIFF(ms, @seen, @got) AS same_as_select,
    DATEPART(microsecond, @got) % 1000 AS whole_ms,
    CASE WHEN DATEPART(millisecond, @got) % 10 IN (0, 3, 7) THEN 'yes' ELSE 'no' END
        AS datetime_steps;
GO
