-- Compound assignments in RECEIVE's column list, as the SELECT list takes them
-- (@v += expression), also when the expression holds a subquery over the queue's columns;
-- and SET / SELECT @v += (subquery).
CREATE DATABASE Compound;
GO
USE Compound;
CREATE MESSAGE TYPE [//C/Item] VALIDATION = NONE;
CREATE CONTRACT [//C/Contract] ([//C/Item] SENT BY INITIATOR);
CREATE QUEUE dbo.SenderQueue;
CREATE QUEUE dbo.ItemQueue;
CREATE SERVICE [//C/Sender] ON QUEUE dbo.SenderQueue;
CREATE SERVICE [//C/Items] ON QUEUE dbo.ItemQueue ([//C/Contract]);
CREATE TABLE dbo.Prices (item nvarchar(10), price int);
INSERT dbo.Prices VALUES (N'apple', 3), (N'pear', 5), (N'plum', 7);
GO
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//C/Sender] TO SERVICE '//C/Items'
    ON CONTRACT [//C/Contract] WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @h MESSAGE TYPE [//C/Item] (N'apple');
SEND ON CONVERSATION @h MESSAGE TYPE [//C/Item] (N'pear');
SEND ON CONVERSATION @h MESSAGE TYPE [//C/Item] (N'plum');
GO
DECLARE @total int = 100, @items nvarchar(100) = N'items:', @count int = 0;
SET @count += (SELECT COUNT(*) FROM dbo.ItemQueue);
SELECT @count AS queued;
RECEIVE TOP (1)
    @total += (SELECT price FROM dbo.Prices
               WHERE item = CAST(message_body AS nvarchar(10))),
    @items += N' ' + CAST(message_body AS nvarchar(10))
FROM dbo.ItemQueue;
SELECT @total AS total, @items AS items, @@ROWCOUNT AS received;
RECEIVE TOP (1)
    @total -= (SELECT price FROM dbo.Prices
               WHERE item = CAST(message_body AS nvarchar(10))) * 10,
    @items += N' ' + CAST(message_body AS nvarchar(10))
FROM dbo.ItemQueue;
SELECT @total AS total, @items AS items;
SELECT @count *= (SELECT COUNT(*) FROM dbo.ItemQueue) + 1;
SELECT @count AS remaining_times_two;
GO
USE master;
DROP DATABASE Compound;
