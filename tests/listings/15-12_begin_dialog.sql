--declare a variable for the conversation handle
DECLARE @dh uniqueidentifier;
--this starts the dialog from the
--trader/broker database
--and we get a dialog/conversation handle automatically
BEGIN DIALOG @dh
    FROM SERVICE enterTrade
    TO SERVICE
        '://www.develop.com/DMBrokerage/TradeEntryService'
    ON CONTRACT
        [://www.develop.com/DMBrokerage/EnterTrade];
