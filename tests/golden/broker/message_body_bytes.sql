-- message_body is varbinary(max): SUBSTRING of it stays bytes and CONVERT style 2 prints
-- their hex, in a SELECT on the queue and in RECEIVE's column list (issue 16).
CREATE DATABASE bodies;
GO
USE bodies;
CREATE MESSAGE TYPE m VALIDATION = NONE;
CREATE CONTRACT c (m SENT BY INITIATOR);
CREATE QUEUE q;
CREATE SERVICE s ON QUEUE q (c);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE s TO SERVICE 's' ON CONTRACT c WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE m (CAST('hello world' AS varbinary(max)));
GO
SELECT SUBSTRING(message_body, 1, 4) AS head, CONVERT(varchar(20), SUBSTRING(message_body, 1, 4), 2) AS hex,
       CAST(message_body AS varchar(20)) AS text, DATALENGTH(message_body) AS bytes,
       message_body + 0x21 AS bang, CHARINDEX(0x776F, message_body) AS wo, LEFT(message_body, 5) AS l
FROM q;
RECEIVE TOP (1) SUBSTRING(message_body, 7, 5) AS tail,
       CONVERT(varchar(20), SUBSTRING(message_body, 1, 4), 1) AS hex1,
       CAST(message_body AS varbinary(3)) AS cut FROM q;
GO
