"""Batch write, "send": every row a message SENT on a dialog, SEND's checks per row, one
transaction per partition, no double send when Spark runs a committed task again."""

from __future__ import annotations

from typing import Any

import pytest
from spark_env import require_spark, trade_store

require_spark()

from pyspark.errors import PySparkException
from tsql_client import Client

ENTRY = "//www.develop.com/DMBrokerage/TradeEntry"
ACK = "//www.develop.com/DMBrokerage/TradeAck"


@pytest.fixture
def store(persistent_url: str) -> str:
    trade_store(persistent_url, dialogs=0, trades=0)
    return persistent_url


def send(df: Any, url: str, **options: Any) -> None:
    w = (df.write.format("servicebroker").mode("append").option("url", url)
         .option("database", "Trader1").option("fromService", "enterTrade")
         .option("toService", "//www.develop.com/DMBrokerage/TradeEntryService")
         .option("contract", "//www.develop.com/DMBrokerage/EnterTrade"))
    for key, value in options.items():
        w = w.option(key, value)
    w.save()


def trades(spark: Any, n: int, partitions: int) -> Any:
    rows = [(i, f"trader{i % 3}", f"<tradeEntry><OrderID>{i}</OrderID></tradeEntry>")
            for i in range(n)]
    return spark.createDataFrame(rows, "id int, trader string, message_body string"
                                 ).repartition(partitions, "trader").sortWithinPartitions("id")


def test_rows_with_one_key_share_a_dialog_in_row_order(spark: Any, store: str,
                                                       client: Client) -> None:
    send(trades(spark, 12, 2), store, messageType=ENTRY, keyColumn="trader", endDialogs="true")
    rows = client.rows("SELECT conversation_handle, message_type_name, "
                       "CAST(message_body AS xml).value('(/tradeEntry/OrderID)[1]', 'int') "
                       "FROM tradeEntryQueue ORDER BY queuing_order")
    entries = [(str(h), n) for h, t, n in rows if t == ENTRY]
    by_dialog: dict[str, list[int]] = {}
    for handle, order in entries:
        by_dialog.setdefault(handle, []).append(order)
    assert sorted(sorted(v) for v in by_dialog.values()) == [
        [i for i in range(12) if i % 3 == k] for k in range(3)]
    assert all(v == sorted(v) for v in by_dialog.values())
    # endDialogs: each dialog ended once the write was over (EndDialog after its trades).
    assert sum(1 for _h, t, _n in rows if t.endswith("/EndDialog")) == 3
    assert client.scalar("SELECT COUNT(*) FROM Trader1.sys.conversation_endpoints "
                         "WHERE state = 'DO'") == 3


def test_a_bad_row_fails_its_task_with_the_tsql_error_and_sends_nothing_of_it(
        spark: Any, store: str, client: Client) -> None:
    df = spark.createDataFrame([(1, ENTRY), (2, ACK)], "id int, mt string").coalesce(1)
    with pytest.raises(PySparkException) as info:
        send(df.selectExpr("id", "mt", "'<x/>' AS message_body"), store,
             messageTypeColumn="mt")
    assert "Msg 8432, Level 16" in str(info.value)      # TradeAck is the target's to send
    assert "row 1" in str(info.value)
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0


def test_a_task_run_again_after_its_commit_sends_nothing_twice(spark: Any, store: str,
                                                              client: Client) -> None:
    send(trades(spark, 9, 3), store, messageType=ENTRY, testFailAfterCommit="true",
         writeId="retry-test")
    orders = [r[0] for r in client.rows(
        "SELECT CAST(message_body AS xml).value('(/tradeEntry/OrderID)[1]', 'int') "
        "FROM tradeEntryQueue")]
    assert sorted(orders) == list(range(9))
    # The same write again (a rerun of a job that failed late): every partition is done.
    send(trades(spark, 9, 3), store, messageType=ENTRY, writeId="retry-test")
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 9


def test_replies_on_existing_dialogs(spark: Any, store: str, client: Client) -> None:
    send(trades(spark, 2, 1), store, messageType=ENTRY)
    handles = [str(h) for (h,) in client.rows("SELECT conversation_handle FROM tradeEntryQueue")]
    acks = spark.createDataFrame([(h, "<ack/>") for h in handles], "h string, body string")
    (acks.write.format("servicebroker").mode("append").option("url", store)
     .option("database", "DMBrokerage").option("conversationColumn", "h")
     .option("messageType", ACK).option("bodyColumn", "body").save())
    assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue") == 2
