"""Fixtures of the Service Broker engine tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from broker_env import Env

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.storage.store import Store


@pytest.fixture
def store_url(backend_url: str) -> str:
    """A fresh store on each backend (see the root conftest)."""
    return backend_url


@pytest.fixture
def env(store_url: str) -> Iterator[Env]:
    store = Store(store_url)
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
