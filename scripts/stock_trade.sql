/*
  The stock-trade application of Chapter 15 ("SQL Server Service Broker"), as one script.

  A broker/trader database (Trader1) enters trades; a brokerage database (DMBrokerage) executes
  them. Trader1's service [enterTrade] begins a dialog with DMBrokerage's service
  [//www.develop.com/DMBrokerage/TradeEntryService] on contract
  [//www.develop.com/DMBrokerage/EnterTrade] and SENDs a TradeEntry message; the activated
  procedure tradeEntryProc (Listing 15-18) receives it, records the trade, SENDs a TradeAck and
  ends its side; the activated procedure tradeAckProc (Listing 15-19) receives the ack, marks
  the trade acknowledged and ends the initiator side.

  Run it with:   tsqlbroker run scripts/stock_trade.sql
  It is safe to run again: it drops and recreates both databases.
*/
SET NOCOUNT ON;
PRINT '== 1. Two databases: Trader1 (the broker/trader) and DMBrokerage (the brokerage)';
IF DB_ID('Trader1') IS NOT NULL DROP DATABASE Trader1;
IF DB_ID('DMBrokerage') IS NOT NULL DROP DATABASE DMBrokerage;
CREATE DATABASE Trader1;
CREATE DATABASE DMBrokerage;
GO

/* ---------------------------------------------------------------- the brokerage (target) */
USE DMBrokerage;
GO
PRINT '== 2. DMBrokerage: message types (15-2), contract (15-6), queue (15-8), service (15-10)';
-- first the message for the trade entry
create message type
[//www.develop.com/DMBrokerage/TradeEntry]
ENCODING XML

-- then the acknowledgement message
create message type
[//www.develop.com/DMBrokerage/TradeAck]
ENCODING XML

CREATE CONTRACT
  [//www.develop.com/DMBrokerage/EnterTrade]
  ( [//www.develop.com/DMBrokerage/TradeEntry]
    SENT BY INITIATOR,
  [//www.develop.com/DMBrokerage/TradeAck]
    SENT BY TARGET
  )

CREATE TABLE tradeLog (
    logId      int IDENTITY(1,1) PRIMARY KEY,
    handle     uniqueidentifier NOT NULL,
    orderXml   nvarchar(max) NOT NULL,
    receivedAt datetime2 NOT NULL DEFAULT SYSDATETIME()
);
GO

-- Listing 15-18, with step 5 filled in: the trade is recorded in tradeLog.
create procedure tradeEntryProc
as

--declare variables
DECLARE @dh                uniqueidentifier
DECLARE @msg               varbinary(MAX)
DECLARE @ack               XML
DECLARE @ackString        nvarchar(MAX)
DECLARE @si                uniqueidentifier

WHILE (1=1)
BEGIN

-- 1. start a transaction
BEGIN TRAN;
SET @si = null;

-- 2. Lock the service instance if
-- dealing with state data
WAITFOR (
GET SERVICE INSTANCE @si
FROM tradeEntryQueue
),
TIMEOUT 10000

--check that we have a message
if @si is null
    BEGIN
        ROLLBACK TRANSACTION
        BREAK
    END

-- 4. RECEIVE
;RECEIVE TOP(1) @dh=conversation_handle,
               @msg=message_body
FROM tradeEntryQueue
WHERE service_instance_id = @si

-- 5. process received data: record the trade
INSERT INTO tradeLog (handle, orderXml)
VALUES (@dh, CAST(CAST(@msg AS xml) AS nvarchar(max)))
PRINT 'DMBrokerage: trade received: ' + CAST(CAST(@msg AS xml) AS nvarchar(max))

set @ack='<id>1</id><ackid>1</ackid>'
set @ackString = NCHAR(0xFEFF) + convert(nvarchar(MAX), @ack);

-- 6. send the message
SEND ON CONVERSATION @dh
    MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck]
    (CONVERT(varbinary(MAX), @ackString))

-- 7. end the conversation
END CONVERSATION @dh

-- 9. Commit or rollback
COMMIT TRAN
END
GO

--creation of the queue in DMBrokerage (15-8)
create queue tradeEntryQueue
with status = on,
ACTIVATION (
    PROCEDURE_NAME = tradeEntryProc,
    MAX_QUEUE_READERS = 5,
    EXECUTE AS SELF)

CREATE SERVICE
    [//www.develop.com/DMBrokerage/TradeEntryService]
    ON QUEUE tradeEntryQueue
([//www.develop.com/DMBrokerage/EnterTrade])
GO

/* ------------------------------------------------------------ the broker/trader (initiator) */
USE Trader1;
GO
PRINT '== 3. Trader1: the same message types and contract, the ack queue and the enterTrade service';
create message type [//www.develop.com/DMBrokerage/TradeEntry] ENCODING XML
create message type [//www.develop.com/DMBrokerage/TradeAck] ENCODING XML
CREATE CONTRACT [//www.develop.com/DMBrokerage/EnterTrade]
  ( [//www.develop.com/DMBrokerage/TradeEntry] SENT BY INITIATOR,
    [//www.develop.com/DMBrokerage/TradeAck] SENT BY TARGET )

CREATE TABLE trades (
    orderId   int PRIMARY KEY,
    ricCode   nvarchar(20) NOT NULL,
    buySell   char(1) NOT NULL CHECK (buySell IN ('B', 'S')),
    volume    int NOT NULL,
    price     decimal(12, 4) NOT NULL,
    handle    uniqueidentifier NULL,
    status    varchar(20) NOT NULL DEFAULT 'entered'
);
GO

-- Listing 15-19, with the processing filled in: the acknowledged trade is marked.
create procedure tradeAckProc
as

--declare variables
DECLARE @dh          uniqueidentifier
DECLARE @msg         varbinary(MAX)
DECLARE @si          uniqueidentifier
DECLARE @mt          nvarchar(MAX)

WHILE (1=1)
BEGIN

BEGIN TRAN;
SET @si = null;

WAITFOR (
GET SERVICE INSTANCE @si
FROM tradeAckQueue
),
TIMEOUT 10000

if @si is null
BEGIN
    ROLLBACK TRANSACTION
    BREAK
END

;RECEIVE TOP(1) @dh=conversation_handle,
               @msg=message_body,
               @mt = message_type_name
FROM tradeAckQueue
WHERE service_instance_id = @si

-- process received data
IF @mt = N'//www.develop.com/DMBrokerage/TradeAck'
BEGIN
    UPDATE trades SET status = 'acknowledged' WHERE handle = @dh
    PRINT 'Trader1: acknowledgement received: ' + CAST(CAST(@msg AS xml) AS nvarchar(max))
END

END CONVERSATION @dh

COMMIT TRAN
END
GO

--create the queue in the broker/trader database (15-8)
create queue tradeAckQueue
with status = on,
ACTIVATION (
    PROCEDURE_NAME = tradeAckProc,
    MAX_QUEUE_READERS = 5,
    EXECUTE AS SELF)

create SERVICE enterTrade
ON QUEUE tradeAckQueue
([//www.develop.com/DMBrokerage/EnterTrade])
GO

-- The initiating service program: Listing 15-14 inside a procedure, building the message
-- from the trade instead of a hard-coded '<id>Order1</id>'.
CREATE PROCEDURE enterTradeOrder
    @orderId int, @ricCode nvarchar(20), @buySell char(1), @volume int, @price decimal(12, 4)
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @dh uniqueidentifier;
    DECLARE @msgXml XML;
    DECLARE @msgBody varbinary(MAX);

    SET @msgXml = N'<tradeEntry><RICCODE>' + @ricCode + N'</RICCODE>'
        + N'<OrderID>' + CAST(@orderId AS nvarchar(10)) + N'</OrderID>'
        + N'<BuySell>' + @buySell + N'</BuySell>'
        + N'<Volume>' + CAST(@volume AS nvarchar(10)) + N'</Volume>'
        + N'<Price>' + CAST(@price AS nvarchar(20)) + N'</Price></tradeEntry>';

    BEGIN TRAN;
    INSERT INTO trades (orderId, ricCode, buySell, volume, price)
    VALUES (@orderId, @ricCode, @buySell, @volume, @price);

    --convert xml to varbinary(MAX): UTF-16 with a byte-order mark, as in the chapter
    SET @msgBody = cast (NCHAR(0xFEFF) + cast (@msgXml as NVARCHAR(MAX)) AS VARBINARY(MAX));

    BEGIN DIALOG @dh
      FROM SERVICE enterTrade
      TO SERVICE '//www.develop.com/DMBrokerage/TradeEntryService'
      ON CONTRACT [//www.develop.com/DMBrokerage/EnterTrade];

    UPDATE trades SET handle = @dh WHERE orderId = @orderId;

    SEND ON CONVERSATION @dh
      MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeEntry]
      (@msgBody);
    COMMIT TRAN;
    PRINT 'Trader1: trade ' + CAST(@orderId AS varchar(10)) + ' entered and sent';
END
GO

PRINT '== 4. Entering three trades';
EXEC enterTradeOrder 1, N'MSFT.O', 'B', 100, 27.5100;
EXEC enterTradeOrder 2, N'IBM.N', 'S', 250, 92.1250;
EXEC enterTradeOrder 3, N'ORCL.O', 'B', 1000, 12.0800;
GO

PRINT '== 5. Waiting for the activated service programs to process and acknowledge';
DECLARE @waited int = 0;
WHILE EXISTS (SELECT 1 FROM Trader1.dbo.trades WHERE status <> 'acknowledged') AND @waited < 300
BEGIN
    WAITFOR DELAY '00:00:00.100';
    SET @waited += 1;
END
GO

PRINT '== 6. Results';
SELECT orderId, ricCode, buySell, volume, price, status FROM Trader1.dbo.trades ORDER BY orderId;
SELECT COUNT(*) AS trades_logged FROM DMBrokerage.dbo.tradeLog;
SELECT
    (SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue) AS ack_queue_depth,
    (SELECT COUNT(*) FROM DMBrokerage.dbo.tradeEntryQueue) AS entry_queue_depth,
    (SELECT COUNT(*) FROM Trader1.sys.conversation_endpoints WHERE state <> 'CD')
        AS open_endpoints_trader1,
    (SELECT COUNT(*) FROM DMBrokerage.sys.conversation_endpoints WHERE state <> 'CD')
        AS open_endpoints_brokerage,
    (SELECT COUNT(*) FROM Trader1.sys.transmission_queue) AS undelivered;
GO
