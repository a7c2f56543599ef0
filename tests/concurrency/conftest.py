"""Fixtures for the broker concurrency tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres


@pytest.fixture(params=["file", "memory", "postgresql"])
def instance(request: pytest.FixtureRequest, tmp_path: Path,
             fresh_postgres: FreshPostgres) -> Iterator[Instance]:
    """An instance on an SQLite file in WAL mode (``file``), on ``sqlite://`` or on a fresh
    PostgreSQL schema."""
    if request.param == "postgresql":
        url = fresh_postgres.url()
    else:
        url = f"sqlite:///{tmp_path / 'broker.db'}" if request.param == "file" else "sqlite://"
    inst = Instance(url)
    try:
        yield inst
    finally:
        inst.close()
