-- first the message for the trade entry
create message type
[//www.develop.com/DMBrokerage/TradeEntry]
ENCODING XML

-- then the acknowledgement message
create message type
[//www.develop.com/DMBrokerage/TradeAck]
ENCODING XML
