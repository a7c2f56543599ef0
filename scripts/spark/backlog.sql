/*
  A backlog for the drain: "dialogs" dialogs from Trader1's enterTrade service to the
  brokerage, "trades" trade entries on each (order numbers from "first" on); the
  last trade of a dialog is marked last="1". Nothing is activated: the trades wait in
  DMBrokerage's tradeEntryQueue.

    tsqlbroker --url URL run -v dialogs=2000 -v trades=50 -v first=1 scripts/spark/backlog.sql
*/
SET NOCOUNT ON;
USE Trader1;
DECLARE @d int = 0, @t int, @order int = $(first), @h uniqueidentifier, @trade nvarchar(400);
WHILE @d < $(dialogs)
BEGIN
    BEGIN TRAN;
    BEGIN DIALOG @h FROM SERVICE enterTrade
        TO SERVICE '//www.develop.com/DMBrokerage/TradeEntryService'
        ON CONTRACT [//www.develop.com/DMBrokerage/EnterTrade] WITH ENCRYPTION = OFF;
    SET @t = 0;
    WHILE @t < $(trades)
    BEGIN
        INSERT INTO trades (orderId, ricCode, buySell, volume, price, handle)
        VALUES (@order, N'MSFT.O', 'B', 100 + @t, 27.51, @h);
        SET @trade = N'<tradeEntry' + CASE WHEN @t = $(trades) - 1 THEN N' last="1"' ELSE N''
                   END + N'><RICCODE>MSFT.O</RICCODE><OrderID>' + CAST(@order AS nvarchar(12))
                   + N'</OrderID><BuySell>B</BuySell><Volume>' + CAST(100 + @t AS nvarchar(12))
                   + N'</Volume><Price>27.5100</Price></tradeEntry>';
        SEND ON CONVERSATION @h MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeEntry]
            (CAST(@trade AS varbinary(max)));
        SET @order += 1;
        SET @t += 1;
    END
    COMMIT;
    SET @d += 1;
END
GO
