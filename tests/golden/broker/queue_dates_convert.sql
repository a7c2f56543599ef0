-- CONVERT / CAST of a queue's message_enqueue_time (datetime) to a string, in a SELECT
-- from the queue and from sys.objects' create_date: styles 121, 120 and 112 and the default
-- style give the datetime's forms (the value itself is the time of the SEND: only its shape
-- is compared here).
CREATE DATABASE QueueDates;
GO
USE QueueDates;
CREATE MESSAGE TYPE [//qd/Msg] VALIDATION = NONE;
CREATE CONTRACT [//qd/Contract] ([//qd/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//qd/Init] ON QUEUE InitQ;
CREATE SERVICE [//qd/Targ] ON QUEUE TargQ ([//qd/Contract]);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//qd/Init] TO SERVICE '//qd/Targ'
    ON CONTRACT [//qd/Contract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE [//qd/Msg] (0x01);
GO
SELECT LEN(CONVERT(varchar(30), message_enqueue_time, 121)) AS len121,
    CASE WHEN CONVERT(varchar(30), message_enqueue_time, 121) LIKE
        '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]'
        THEN 'yes' ELSE 'no' END AS shape121,
    CASE WHEN CONVERT(varchar(30), message_enqueue_time, 120) LIKE
        '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]'
        THEN 'yes' ELSE 'no' END AS shape120,
    CASE WHEN CONVERT(char(8), message_enqueue_time, 112)
        = CONVERT(char(8), CAST(message_enqueue_time AS date), 112) THEN 'yes' ELSE 'no' END
        AS same_day,
    CASE WHEN CAST(message_enqueue_time AS varchar(30)) LIKE '[A-Z][a-z][a-z] %M'
        THEN 'yes' ELSE 'no' END AS default_style,
    CASE WHEN CAST(CONVERT(varchar(10), message_enqueue_time, 120) AS date)
        = CAST(message_enqueue_time AS date) THEN 'yes' ELSE 'no' END AS round_trip
FROM TargQ;
SELECT LEN(CONVERT(varchar(30), create_date, 121)) AS len121,
    CASE WHEN CONVERT(varchar(19), create_date, 120) = CONVERT(varchar(19), modify_date, 120)
        THEN 'yes' ELSE 'no' END AS created_is_modified
FROM sys.objects WHERE name = 'TargQ';
