"""Fixtures of the Service Broker engine tests."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from broker_env import Env
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.store import Store

# With TSQLBROKER_PG_URL set (a PostgreSQL server URL), every test also runs on PostgreSQL,
# each in a database of its own.
BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TSQLBROKER_PG_URL") else [])


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "sqlite":
        yield "sqlite://"
        return
    server = make_url(os.environ["TSQLBROKER_PG_URL"])
    name = f"tsqlb_broker_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


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
