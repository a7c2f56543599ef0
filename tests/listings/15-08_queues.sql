--create the queue in the broker/trader database
--this queue handles the acknowledgements from
--the brokerage
use Trader1
create queue tradeAckQueue
with status = on,
ACTIVATION (
    PROCEDURE_NAME = tradeAckProc,
    MAX_QUEUE_READERS = 5,
    EXECUTE AS SELF)

--creation of the queue in DMBrokerage
--this queue handles the new orders coming from
--the broker
use DMBrokerage
create queue tradeEntryQueue
with status = on,
ACTIVATION (
    PROCEDURE_NAME = tradeEntryProc,
    MAX_QUEUE_READERS = 5,
    EXECUTE AS SELF)
