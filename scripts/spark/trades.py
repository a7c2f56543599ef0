"""Python handlers for ``tsqlbroker spark drain`` on the trade backlog of trades.sql.

    tsqlbroker spark drain --url URL --database DMBrokerage --queue tradeEntryQueue \
        --handler trades:record_trades --py-files scripts/spark/trades.py

:func:`record_trades` does what tradeEntryProc does, for a whole conversation group in one
transaction: each trade entry into tradeLog, a TradeAck back over the broker on its dialog,
and the dialog ended after its last trade (or when the trader ended or errored it).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

TRADE_ENTRY = "//www.develop.com/DMBrokerage/TradeEntry"
TRADE_ACK = "//www.develop.com/DMBrokerage/TradeAck"
END_DIALOG = "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"
ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error"


def trade_row(message: Any) -> dict[str, Any]:
    """The tradeLog row of one TradeEntry message."""
    trade = ET.fromstring(message.text)
    return {"handle": message.conversation_handle, "orderId": int(trade.findtext("OrderID")),
            "ricCode": trade.findtext("RICCODE"), "buySell": trade.findtext("BuySell"),
            "volume": int(trade.findtext("Volume")), "price": trade.findtext("Price"),
            "last": trade.get("last") == "1"}


def record_trades(work: Any) -> None:
    """Record the group's trades, acknowledge each, end each dialog after its last trade."""
    rows = []
    for m in work.messages:
        if m.message_type_name == TRADE_ENTRY:
            row = trade_row(m)
            work.send(m.conversation_handle, TRADE_ACK,
                      f"<ack><OrderID>{row['orderId']}</OrderID></ack>")
            if row.pop("last"):
                work.end_conversation(m.conversation_handle)
            rows.append(row)
        elif m.message_type_name in (END_DIALOG, ERROR):
            work.end_conversation(m.conversation_handle)
    work.insert("tradeLog", rows)
