"""Fixtures of the Service Broker engine tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from broker_env import Env

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.store import Store


@pytest.fixture
def env() -> Iterator[Env]:
    store = Store("sqlite://")
    conn = store.connect()
    catalog = Catalog.get(store)
    catalog.ensure_schema(conn)
    broker = Broker.get(store)
    broker.ensure_schema(conn)
    yield Env(store, catalog, broker, conn)
    conn.close()
    store.close()


@pytest.fixture
def db(env: Env) -> int:
    """A database with the initiator/target pair set up."""
    d = env.new_db("BrokerTest")
    env.setup_pair(d)
    return d
