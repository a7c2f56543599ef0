/*
  The chapter's stock-trade application (scripts/stock_trade.sql) shaped for a Spark drain:
  the brokerage's trade entries wait in tradeEntryQueue (its activation is OFF: the drain
  does the work) and every dialog may carry several trades, the last one marked last="1".

    tradeEntryProc   the activation procedure of tradeEntryQueue (Listing 15-18's loop):
                     records each trade in tradeLog, SENDs a TradeAck on its dialog and ends
                     the dialog after its last trade
    tradeAckProc     Trader1's activation procedure (Listing 15-19): marks the trade
                     acknowledged, ends the dialog when the brokerage ended it

  Run:   tsqlbroker --url URL run scripts/spark/trades.sql
  then   tsqlbroker --url URL run -v dialogs=2000 -v trades=50 -v first=1 scripts/spark/backlog.sql
*/
SET NOCOUNT ON;
IF DB_ID('Trader1') IS NOT NULL DROP DATABASE Trader1;
IF DB_ID('DMBrokerage') IS NOT NULL DROP DATABASE DMBrokerage;
CREATE DATABASE Trader1;
CREATE DATABASE DMBrokerage;
GO
USE DMBrokerage;
GO
CREATE MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeEntry] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//www.develop.com/DMBrokerage/EnterTrade]
  ([//www.develop.com/DMBrokerage/TradeEntry] SENT BY INITIATOR,
   [//www.develop.com/DMBrokerage/TradeAck] SENT BY TARGET);
CREATE TABLE tradeLog (
    logId      int IDENTITY(1,1) PRIMARY KEY,
    handle     uniqueidentifier NOT NULL,
    orderId    int NOT NULL,
    ricCode    nvarchar(20) NOT NULL,
    buySell    char(1) NOT NULL,
    volume     int NOT NULL,
    price      decimal(12, 4) NOT NULL
);
GO
CREATE PROCEDURE tradeEntryProc
AS
DECLARE @dh uniqueidentifier, @msg varbinary(max), @si uniqueidentifier, @mt sysname,
        @trade xml;
WHILE (1 = 1)
BEGIN
    BEGIN TRAN;
    SET @si = NULL;
    WAITFOR (GET CONVERSATION GROUP @si FROM tradeEntryQueue), TIMEOUT 1000;
    IF @si IS NULL
    BEGIN
        ROLLBACK TRAN;
        BREAK;
    END
    RECEIVE TOP (1) @dh = conversation_handle, @msg = message_body,
                    @mt = message_type_name
    FROM tradeEntryQueue WHERE conversation_group_id = @si;
    IF @mt = N'//www.develop.com/DMBrokerage/TradeEntry'
    BEGIN
        SET @trade = CAST(@msg AS xml);
        INSERT INTO tradeLog (handle, orderId, ricCode, buySell, volume, price)
        VALUES (@dh, @trade.value('(/tradeEntry/OrderID)[1]', 'int'),
                @trade.value('(/tradeEntry/RICCODE)[1]', 'nvarchar(20)'),
                @trade.value('(/tradeEntry/BuySell)[1]', 'char(1)'),
                @trade.value('(/tradeEntry/Volume)[1]', 'int'),
                @trade.value('(/tradeEntry/Price)[1]', 'decimal(12, 4)'));
        SEND ON CONVERSATION @dh MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck]
            (CAST(N'<ack><OrderID>' + @trade.value('(/tradeEntry/OrderID)[1]', 'nvarchar(12)')
                  + N'</OrderID></ack>' AS varbinary(max)));
        IF @trade.value('(/tradeEntry/@last)[1]', 'int') = 1
            END CONVERSATION @dh;
    END
    ELSE IF @mt IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                    N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
        END CONVERSATION @dh;
    COMMIT TRAN;
END
GO
CREATE QUEUE tradeEntryQueue WITH STATUS = ON,
    ACTIVATION (STATUS = OFF, PROCEDURE_NAME = tradeEntryProc, MAX_QUEUE_READERS = 2,
                EXECUTE AS SELF);
CREATE SERVICE [//www.develop.com/DMBrokerage/TradeEntryService] ON QUEUE tradeEntryQueue
    ([//www.develop.com/DMBrokerage/EnterTrade]);
GO
USE Trader1;
GO
CREATE MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeEntry] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//www.develop.com/DMBrokerage/EnterTrade]
  ([//www.develop.com/DMBrokerage/TradeEntry] SENT BY INITIATOR,
   [//www.develop.com/DMBrokerage/TradeAck] SENT BY TARGET);
CREATE TABLE trades (
    orderId   int PRIMARY KEY,
    ricCode   nvarchar(20) NOT NULL,
    buySell   char(1) NOT NULL,
    volume    int NOT NULL,
    price     decimal(12, 4) NOT NULL,
    handle    uniqueidentifier NULL,
    status    varchar(20) NOT NULL DEFAULT 'entered'
);
GO
CREATE PROCEDURE tradeAckProc
AS
DECLARE @dh uniqueidentifier, @msg varbinary(max), @mt sysname;
WHILE (1 = 1)
BEGIN
    BEGIN TRAN;
    SET @dh = NULL;
    WAITFOR (RECEIVE TOP (1) @dh = conversation_handle, @msg = message_body,
                             @mt = message_type_name FROM tradeAckQueue), TIMEOUT 1000;
    IF @dh IS NULL
    BEGIN
        ROLLBACK TRAN;
        BREAK;
    END
    IF @mt = N'//www.develop.com/DMBrokerage/TradeAck'
        UPDATE trades SET status = 'acknowledged'
        WHERE orderId = CAST(@msg AS xml).value('(/ack/OrderID)[1]', 'int');
    ELSE IF @mt IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                    N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
        END CONVERSATION @dh;
    COMMIT TRAN;
END
GO
CREATE QUEUE tradeAckQueue WITH STATUS = ON,
    ACTIVATION (STATUS = OFF, PROCEDURE_NAME = tradeAckProc, MAX_QUEUE_READERS = 2,
                EXECUTE AS SELF);
CREATE SERVICE enterTrade ON QUEUE tradeAckQueue ([//www.develop.com/DMBrokerage/EnterTrade]);
GO
