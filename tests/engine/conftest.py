"""Fixtures for the storage-layer tests: a private store and connections on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.store import Store, StoreConnection


@pytest.fixture
def store() -> Iterator[Store]:
    s = Store("sqlite://")
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def conn(store: Store) -> Iterator[StoreConnection]:
    c = store.connect()
    Catalog.get(store).ensure_schema(c)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def catalog(store: Store) -> Catalog:
    return Catalog.get(store)
