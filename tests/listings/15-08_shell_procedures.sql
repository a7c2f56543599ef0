--create in the broker/trader database
CREATE PROCEDURE tradeAckProc
AS

RETURN 0
GO

--create in the DMBrokerage database
CREATE PROCEDURE tradeEntryProc
AS

RETURN 0
