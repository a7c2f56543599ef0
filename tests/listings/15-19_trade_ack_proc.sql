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
-- code omitted that deals with the received data

END CONVERSATION @dh

COMMIT TRAN
END
