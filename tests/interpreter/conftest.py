"""Fixtures: a fresh private instance and a session writing to a CollectingSink."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


@pytest.fixture
def sink() -> CollectingSink:
    return CollectingSink()


@pytest.fixture
def session(instance: Instance, sink: CollectingSink) -> Iterator[Any]:
    s = instance.session(sink)
    yield s
    s.close()
