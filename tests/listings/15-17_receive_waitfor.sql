--declare a variable to hold the conversation handle
DECLARE @dh uniqueidentifier;

--declare a variable for the message body
declare @msg varbinary(max)

WAITFOR (
--receive the first message on the queue
receive top(1) @dh=conversation_handle,
            @msg=message_body from tradeEntryQueue),
TIMEOUT 60000

SELECT @dh, @msg
