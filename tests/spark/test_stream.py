"""Streaming read, "drain": offsets on queuing order, maxMessagesPerTrigger, messages leave
the queue only with the sink's commit of their results, restarts neither lose nor repeat,
failOnDataLoss for messages removed by others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_env import add_backlog, require_spark, trade_store

require_spark()

from pyspark.errors import PySparkException
from pyspark.sql import functions as F
from tsql_client import Client

from tsqlbroker.interpreter.instance import Instance

ACK = "//www.develop.com/DMBrokerage/TradeAck"
SINK_TABLE = """
USE DMBrokerage;
CREATE TABLE drained (queuing_order bigint PRIMARY KEY, conversation_group_id
    uniqueidentifier, orderId int);
"""


@pytest.fixture
def store(persistent_url: str) -> str:
    trade_store(persistent_url, dialogs=4, trades=5, before_backlog=SINK_TABLE)
    return persistent_url


def drain(spark: Any, url: str, checkpoint: Path, *, sink: dict[str, str] | None = None,
          **options: Any) -> Any:
    """Drain tradeEntryQueue into table drained (and TradeAck replies) until nothing is
    left; the finished query."""
    r = (spark.readStream.format("servicebroker").option("url", url)
         .option("database", "DMBrokerage").option("queue", "tradeEntryQueue")
         .option("bodyAs", "text"))
    for key, value in options.items():
        r = r.option(key, value)
    trades = r.load().select(
        "queuing_order", "conversation_group_id", "conversation_handle",
        F.xpath_int("message_body_text", F.lit("/tradeEntry/OrderID")).alias("orderId"))
    trades = trades.withColumn(
        "ack", F.concat(F.lit("<ack><OrderID>"), F.col("orderId"), F.lit("</OrderID></ack>")))
    w = (trades.writeStream.format("servicebroker").option("url", url)
         .option("database", "DMBrokerage").option("queue", "tradeEntryQueue")
         .option("table", "drained").option("replyMessageType", ACK)
         .option("replyBodyColumn", "ack").option("checkpointLocation", str(checkpoint))
         .trigger(availableNow=True))
    for key, value in (sink or {}).items():
        w = w.option(key, value)
    query = w.start()
    query.awaitTermination(300)
    return query


def drained(client: Client) -> list[int]:
    return sorted(r[0] for r in client.rows("SELECT orderId FROM drained"))


def test_messages_leave_the_queue_with_the_sinks_commit_batch_by_batch(
        spark: Any, store: str, client: Client, tmp_path: Path) -> None:
    # Read by a query whose sink is not this source's: every message seen, none consumed.
    looked = (spark.readStream.format("servicebroker").option("url", store)
              .option("database", "DMBrokerage").option("queue", "tradeEntryQueue").load()
              .writeStream.format("noop").option("checkpointLocation", str(tmp_path / "noop"))
              .trigger(availableNow=True).start())
    looked.awaitTermination(300)
    assert sum(p["numInputRows"] for p in looked.recentProgress) == 20
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 20
    query = drain(spark, store, tmp_path / "cp", maxMessagesPerTrigger=7, numPartitions=2)
    batches = [p for p in query.recentProgress if p["numInputRows"]]
    assert [p["numInputRows"] for p in batches] == [7, 7, 6]
    assert drained(client) == list(range(1, 21))
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0
    assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue") == 20
    # Every group's messages reached the table with their group and queuing order.
    rows = client.rows("SELECT conversation_group_id, queuing_order FROM drained")
    assert len({g for g, _q in rows}) == 4 and len({q for _g, q in rows}) == 20
    # Nothing is read twice when the query restarts from its checkpoint: new messages only.
    sender = Instance(store, background=False)
    try:
        add_backlog(Client(sender), dialogs=1, trades=3, first=21)
    finally:
        sender.close()
    drain(spark, store, tmp_path / "cp", maxMessagesPerTrigger=7)
    assert drained(client) == list(range(1, 24))


def test_a_sink_task_run_again_after_its_commit_repeats_nothing(
        spark: Any, store: str, client: Client, tmp_path: Path) -> None:
    drain(spark, store, tmp_path / "cp", sink={"testFailAfterCommit": "true"},
          numPartitions=3)
    assert drained(client) == list(range(1, 21))
    assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue") == 20


def test_a_restart_from_the_checkpoint_repeats_nothing_and_fails_on_data_loss(
        spark: Any, store: str, client: Client, tmp_path: Path) -> None:
    # The first run plans a batch of all 20 messages (in its checkpoint) and fails in the
    # sink: one group's first message collides with a row already in the table, so its task
    # fails every attempt, while the other task committed its two groups (their messages
    # gone from the queue, in the stream's ledger). Spark never commits the batch.
    first = client.scalar("SELECT MIN(queuing_order) FROM tradeEntryQueue")
    client.run(f"INSERT INTO drained (queuing_order) VALUES ({first})")
    with pytest.raises(PySparkException, match="Msg 2627"):
        drain(spark, store, tmp_path / "cp", numPartitions=2)
    client.run("DELETE FROM drained WHERE orderId IS NULL")
    assert len(drained(client)) == 10
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 10
    # Meanwhile someone else RECEIVEs 5 messages. The restarted query runs the batch again:
    # the 10 it consumed itself are no loss, the 5 others are, an error by default …
    client.run("RECEIVE TOP (5) * FROM tradeEntryQueue")
    with pytest.raises(PySparkException, match=r"5 message\(s\) of queue tradeEntryQueue "
                                               "with queuing order in .* were removed by "
                                               "someone else"):
        drain(spark, store, tmp_path / "cp")
    assert len(drained(client)) == 10
    # … or, with failOnDataLoss=false, the rest is drained, nothing twice.
    query = drain(spark, store, tmp_path / "cp", failOnDataLoss="false")
    assert query.exception() is None
    orders = drained(client)
    assert len(orders) == len(set(orders)) == 15
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0
    assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue") == 15
