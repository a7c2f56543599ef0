--create the service in the trader db
use Trader1
create SERVICE enterTrade
ON QUEUE tradeAckQueue
([//www.develop.com/DMBrokerage/EnterTrade])

--create a service in the brokerage db
use DMBrokerage
CREATE SERVICE
    [//www.develop.com/DMBrokerage/TradeEntryService]
    ON QUEUE tradeEntryQueue
([//www.develop.com/DMBrokerage/EnterTrade])
