"""Python handlers the drain tests run in Spark's workers (on their PYTHONPATH, or shipped
with --py-files)."""

from __future__ import annotations

import time
from typing import Any

from trades import record_trades, trade_row

import tsqlbroker
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def fail_on_first_trade(work: Any) -> None:
    """Record the group's trades, except that the group holding order 1 always fails."""
    for m in work.messages:
        if m.text and trade_row(m)["orderId"] == 1:
            raise ValueError("bad trade 1")
    record_trades(work)


def slow_record(work: Any) -> None:
    """record_trades, a quarter of a second per group (time to kill the drain midway)."""
    time.sleep(0.25)
    record_trades(work)


def stolen_meanwhile(work: Any) -> None:
    """Another process (another store instance: its own group locks) RECEIVEs and commits the
    group's messages while this handler runs; then record the trades as usual."""
    other = Instance(work.session.instance.store.url, background=False)
    try:
        s = other.session(CollectingSink(), work.database)
        s.execute(f"RECEIVE * FROM tradeEntryQueue WHERE conversation_group_id = "
                  f"'{work.group_id}'")
        s.close()
    finally:
        other.close()
    record_trades(work)


def shipped_record(work: Any) -> None:
    """slow_record, refusing to run on a tsqlbroker the drain did not ship (--ship)."""
    if "tsqlbroker.zip" not in (tsqlbroker.__file__ or ""):
        raise RuntimeError(f"tsqlbroker imported from {tsqlbroker.__file__}, not shipped")
    slow_record(work)
