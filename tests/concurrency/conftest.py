"""Fixtures for the broker concurrency tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tsqlbroker.interpreter.instance import Instance


@pytest.fixture(params=["file", "memory"])
def instance(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Instance]:
    """An instance on an SQLite file in WAL mode (``file``) or on ``sqlite://``."""
    url = f"sqlite:///{tmp_path / 'broker.db'}" if request.param == "file" else "sqlite://"
    inst = Instance(url)
    try:
        yield inst
    finally:
        inst.close()
