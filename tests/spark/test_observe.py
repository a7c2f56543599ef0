"""Batch read, "observe": a queue or a broker view exactly as SELECT * shows it, nothing
dequeued, partitions of whole conversation groups, filters pushed into the store."""

from __future__ import annotations

from typing import Any

import pytest
from spark_env import require_spark, trade_store

require_spark()

from pyspark.sql import functions as F
from pyspark.sql.datasource import EqualTo, GreaterThan, In
from tsql_client import Client

from tsqlbroker.spark.observe import ObserveReader, Shape
from tsqlbroker.spark.options import SourceOptions

TRADE_ENTRY = "//www.develop.com/DMBrokerage/TradeEntry"


@pytest.fixture
def store(persistent_url: str) -> str:
    # Trader1's queue retains what it sends: status-3 copies of every trade entry.
    trade_store(persistent_url, dialogs=5, trades=3,
                before_backlog="USE Trader1; ALTER QUEUE tradeAckQueue WITH RETENTION = ON")
    return persistent_url


def read(spark: Any, url: str, database: str = "DMBrokerage", **options: Any) -> Any:
    r = spark.read.format("servicebroker").option("url", url).option("database", database)
    for key, value in options.items():
        r = r.option(key, value)
    return r.load()


def test_a_queue_reads_as_select_star_shows_it_in_whole_groups(spark: Any, store: str,
                                                               client: Client) -> None:
    expected = client.rows("SELECT * FROM tradeEntryQueue")
    df = read(spark, store, queue="tradeEntryQueue", numPartitions=3, bodyAs="xml")
    rows = df.withColumn("part", F.spark_partition_id()).collect()
    assert len(rows) == len(expected) == 15
    by_order = {r.queuing_order: r for r in rows}
    for e in expected:
        r = by_order[e[2]]
        assert (r.conversation_group_id, r.message_type_name, r.message_body) == (
            str(e[3]).upper(), e[10], e[13])
        assert r.message_body_xml.startswith("<tradeEntry")
    assert dict(df.dtypes)["message_body"] == "binary"
    assert dict(df.dtypes)["message_enqueue_time"] == "timestamp_ntz"
    parts: dict[str, set[int]] = {}
    seen: dict[str, list[int]] = {}
    for r in rows:
        parts.setdefault(r.conversation_group_id, set()).add(r.part)
        seen.setdefault(r.conversation_group_id, []).append(r.queuing_order)
    assert all(len(p) == 1 for p in parts.values())            # whole groups
    assert len({p for ps in parts.values() for p in ps}) == 3   # spread over the partitions
    assert all(orders == sorted(orders) for orders in seen.values())
    assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 15   # nothing dequeued


def test_retained_messages_and_text_bodies(spark: Any, store: str) -> None:
    rows = read(spark, store, "Trader1", queue="dbo.tradeAckQueue", bodyAs="text").collect()
    assert len(rows) == 15 and {r.status for r in rows} == {3}
    assert all(r.message_body_text.startswith("<tradeEntry") for r in rows)


def test_filters_on_group_conversation_type_and_order_match_sparks_own(
        spark: Any, store: str) -> None:
    df = read(spark, store, queue="tradeEntryQueue")
    everything = df.collect()
    group = everything[4].conversation_group_id
    handle = everything[4].conversation_handle
    low = sorted(r.queuing_order for r in everything)[6]
    cases = [
        ((df.conversation_group_id == group) & (df.queuing_order > low),
         lambda r: r.conversation_group_id == group and r.queuing_order > low),
        (df.conversation_handle.isin(handle, handle.lower()),
         lambda r: r.conversation_handle == handle),
        # T-SQL's collation would call these equal; Spark's comparison decides.
        (df.message_type_name == TRADE_ENTRY.upper(), lambda r: False),
        ((df.message_type_name == TRADE_ENTRY) & (df.queuing_order <= low),
         lambda r: r.queuing_order <= low),
    ]
    for cond, holds in cases:
        got = sorted(r.queuing_order for r in df.where(cond).collect())
        assert got == sorted(r.queuing_order for r in everything if holds(r)), cond


def test_what_is_pushed_exactly_and_what_spark_checks_again(store: str) -> None:
    opts = SourceOptions.parse({"url": store, "database": "DMBrokerage",
                                "queue": "tradeEntryQueue"})
    reader = ObserveReader(opts, Shape.describe(opts))
    group = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
    filters = [EqualTo(("conversation_group_id",), group),
               GreaterThan(("queuing_order",), 5),
               EqualTo(("message_type_name",), TRADE_ENTRY),
               In(("conversation_handle",), (group, group.lower())),
               EqualTo(("message_body",), b"x")]
    remaining = list(reader.pushFilters(filters))
    assert remaining == filters[2:]             # strings, odd spellings, binary: Spark too
    assert len(reader.conditions) == 4          # but all but the binary one narrow the read


def test_transmission_queue_and_conversation_endpoints(spark: Any, store: str,
                                                       client: Client) -> None:
    client.run("""
        USE Trader1;
        DECLARE @h uniqueidentifier;
        BEGIN DIALOG @h FROM SERVICE enterTrade TO SERVICE 'NoSuchService'
            WITH ENCRYPTION = OFF;
        SEND ON CONVERSATION @h MESSAGE TYPE [DEFAULT] (0x01);
        SEND ON CONVERSATION @h MESSAGE TYPE [DEFAULT] (0x02);""")
    held = read(spark, store, "Trader1", view="sys.transmission_queue").collect()
    assert [(r.to_service_name, r.message_body) for r in held] == [
        ("NoSuchService", b"\x01"), ("NoSuchService", b"\x02")]
    assert held[0].transmission_status != ""
    endpoints = read(spark, store, "Trader1", view="conversation_endpoints")
    assert endpoints.count() == client.scalar(
        "SELECT COUNT(*) FROM Trader1.sys.conversation_endpoints") == 6
