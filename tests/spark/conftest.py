"""Fixtures of the Spark tests: one SparkSession for the whole run (``local[2,3]``, on
loopback, quiet), started at the first test that needs it. See spark_env.py for when these
tests run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from spark_env import MASTER, brokerage, worker_pythonpath


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The run's SparkSession; Python workers import this tree and the test handlers."""
    os.environ["PYTHONPATH"] = worker_pythonpath()
    # Imported here: pyspark loads only when a Spark test runs (see spark_env.require_spark).
    from tsqlbroker.spark.session import spark_session

    session = spark_session(MASTER, "tsqlbroker-tests")
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(autouse=True)
def _close_store_instances() -> Iterator[None]:
    """The test process's own store instances (planning helpers) go with each test."""
    yield
    from tsqlbroker.spark.stores import close_instances  # see spark(): loaded lazily

    close_instances()


@pytest.fixture
def client(store: str) -> Iterator[Any]:
    """A T-SQL client in DMBrokerage on the test module's ``store``."""
    with brokerage(store) as c:
        yield c
