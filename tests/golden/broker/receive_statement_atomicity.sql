-- A RECEIVE whose column list or INTO fails is rolled back as a statement: the messages it
-- read stay on the queue, unchanged and in their order, and a later RECEIVE (of the same
-- transaction too) gets them; the transaction goes on (XACT_ABORT OFF) or is doomed and
-- rolled back (XACT_ABORT ON). @@ROWCOUNT counts no rows of a failed RECEIVE.
CREATE DATABASE RAtom;
GO
USE RAtom;
CREATE QUEUE dbo.SenderQueue;
CREATE QUEUE dbo.NumberQueue;
CREATE SERVICE [//R/Sender] ON QUEUE dbo.SenderQueue;
CREATE SERVICE [//R/Numbers] ON QUEUE dbo.NumberQueue ([DEFAULT]);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//R/Sender] TO SERVICE '//R/Numbers' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (N'abc');
SEND ON CONVERSATION @h (N'42');
SEND ON CONVERSATION @h (N'7');
GO
-- The COMMIT in the CATCH block commits nothing of the failed RECEIVE.
BEGIN TRAN;
BEGIN TRY
    RECEIVE TOP (1) CAST(CAST(message_body AS nvarchar(10)) AS int) AS n FROM dbo.NumberQueue;
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS err, XACT_STATE() AS xact_state, @@TRANCOUNT AS trancount;
    COMMIT;
END CATCH;
SELECT status, CAST(message_body AS nvarchar(10)) AS body, message_sequence_number
FROM dbo.NumberQueue ORDER BY queuing_order;
GO
-- An assignment that fails: the same transaction receives the message afterwards.
DECLARE @n int = -1, @body nvarchar(10);
BEGIN TRAN;
BEGIN TRY
    RECEIVE TOP (2) @n = CONVERT(int, CAST(message_body AS nvarchar(10))) FROM dbo.NumberQueue;
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS err, @n AS n, XACT_STATE() AS xact_state;
END CATCH;
RECEIVE TOP (1) @body = CAST(message_body AS nvarchar(10)) FROM dbo.NumberQueue;
SELECT @body AS received_in_same_transaction, @@ROWCOUNT AS row_count;
ROLLBACK;
SELECT COUNT(*) AS queued FROM dbo.NumberQueue;
GO
-- XACT_ABORT ON: the error dooms the transaction; its rollback keeps the message.
SET XACT_ABORT ON;
BEGIN TRAN;
BEGIN TRY
    WAITFOR (RECEIVE TOP (1) CAST(CAST(message_body AS nvarchar(10)) AS int) AS n
             FROM dbo.NumberQueue), TIMEOUT 1000;
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS err, XACT_STATE() AS xact_state;
    ROLLBACK;
END CATCH;
SET XACT_ABORT OFF;
SELECT @@TRANCOUNT AS trancount, COUNT(*) AS queued FROM dbo.NumberQueue;
GO
-- INTO a table variable whose column is too short (Msg 2628): same rule.
DECLARE @t TABLE (body nvarchar(2));
BEGIN TRAN;
BEGIN TRY
    RECEIVE CAST(message_body AS nvarchar(10)) FROM dbo.NumberQueue INTO @t;
END TRY
BEGIN CATCH
    -- 2628 since SQL Server 2019 (compatibility level 150), 8152 before.
    SELECT CASE WHEN ERROR_NUMBER() IN (2628, 8152) THEN 'truncated' END AS err,
        XACT_STATE() AS xact_state;
    COMMIT;
END CATCH;
SELECT COUNT(*) AS kept_rows FROM @t;
SELECT CAST(message_body AS nvarchar(10)) AS body FROM dbo.NumberQueue ORDER BY queuing_order;
GO
-- A failing RECEIVE directly followed by its COMMIT (divide by zero: an error that ends
-- the statement, not the batch): the COMMIT commits nothing of it.
DECLARE @n int;
BEGIN TRAN;
RECEIVE TOP (1) @n = 10 / (LEN(CAST(message_body AS nvarchar(10))) - 3) FROM dbo.NumberQueue;
COMMIT;
SELECT @@TRANCOUNT AS trancount, COUNT(*) AS queued FROM dbo.NumberQueue;
GO
-- Without a transaction of its own the failing statement's rollback keeps them too.
WAITFOR (RECEIVE 10 / (LEN(CAST(message_body AS nvarchar(10))) - 3) AS n
         FROM dbo.NumberQueue), TIMEOUT 1000;
SELECT @@ROWCOUNT AS row_count;
-- A RECEIVE that works takes them in their order.
RECEIVE CAST(message_body AS nvarchar(10)) AS body, message_sequence_number
FROM dbo.NumberQueue;
SELECT @@ROWCOUNT AS row_count;
SELECT COUNT(*) AS queued FROM dbo.NumberQueue;
GO
-- RETENTION: the failed RECEIVE leaves status 1 (only the one that worked sets 0); an item
-- holding a subquery (run by the store) fails the same way.
CREATE QUEUE dbo.RetainedQueue WITH RETENTION = ON;
CREATE SERVICE [//R/Retained] ON QUEUE dbo.RetainedQueue ([DEFAULT]);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//R/Sender] TO SERVICE '//R/Retained' WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h (N'abc');
SEND ON CONVERSATION @h (N'42');
GO
BEGIN TRAN;
BEGIN TRY
    RECEIVE TOP (1) (SELECT CAST(CAST(message_body AS nvarchar(10)) AS int)) AS n
    FROM dbo.RetainedQueue;
END TRY
BEGIN CATCH
    SELECT ERROR_NUMBER() AS err, XACT_STATE() AS xact_state;
END CATCH;
RECEIVE TOP (1) CAST(message_body AS nvarchar(10)) AS body FROM dbo.RetainedQueue;
COMMIT;
SELECT status, CAST(message_body AS nvarchar(10)) AS body
FROM dbo.RetainedQueue ORDER BY queuing_order;
GO
USE master;
DROP DATABASE RAtom;
