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

-- 3. Do what is necessary to deal with state

-- 4. RECEIVE
-- we need the conversation handle for the send
;RECEIVE TOP(1) @dh=conversation_handle,
               @msg=message_body
FROM tradeEntryQueue
WHERE service_instance_id = @si

-- 5. process received data
-- code omitted that deals with the received data
-- here we probably create the message to send
-- back as well

-- in our case we just hardcode something
set @ack='<id>1</id><ackid>1</ackid>'
set @ackString = NCHAR(0xFEFF) + convert(nvarchar(MAX), @ack);

-- 6. send the message
SEND ON CONVERSATION @dh
    MESSAGE TYPE [//www.develop.com/DMBrokerage/TradeAck]
    (CONVERT(varbinary(MAX), @ackString))

-- 7. end the conversation
END CONVERSATION @dh

-- 8. Update eventual state data
-- do some stuff to deal with state

-- 9. Commit or rollback
COMMIT TRAN
END
