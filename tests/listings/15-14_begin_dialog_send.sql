--code to process the incoming trade omitted

--declare variable for the conversation handle
DECLARE @dh uniqueidentifier;
--variable to hold the message in XML format
DECLARE @msgXml XML
--variable for the message that will be eventually
--converted to varbinary
DECLARE @msgString nvarchar(MAX)
--the message body that will be sent
DECLARE @msgBody varbinary(MAX)

--set the message, in real world you'd create
--it from the in params in the proc
--here we just set it to something
SET @msgXml = '<id>Order1</id>'

--convert xml to varbinary(MAX)
SET @msgBody =
cast (NCHAR(0xFEFF) + cast (@msgXml as NVARCHAR) AS VARBINARY(MAX))

--begin the dialog
BEGIN DIALOG @dh
  FROM SERVICE enterTrade
  TO SERVICE '//www.develop.com/DMBrokerage/TradeEntryService'
  ON CONTRACT [//www.develop.com/DMBrokerage/EnterTrade];

--send the message we use the conversation handle from
--BEGIN DIALOG
SEND ON CONVERSATION @dh
  MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeEntry]
  (@msgBody)
