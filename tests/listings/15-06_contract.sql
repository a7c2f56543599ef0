--create the contract against the message types
CREATE CONTRACT
  [//www.develop.com/DMBrokerage/EnterTrade]
  ( [//www.develop.com/DMBrokerage/TradeEntry]
    SENT BY INITIATOR,
  [//www.develop.com/DMBrokerage/TradeAck]
    SENT BY TARGET
  )
