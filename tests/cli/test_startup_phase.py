"""The start-up phase: no garbage collection while the engine loads, what it built frozen
afterwards, and thawed again when an in-process run (``main([...])``) ends.

Only the in-process run opens a store: it runs on both backends (``backend_url``)."""

from __future__ import annotations

import gc
import io
from collections.abc import Iterator
from contextlib import redirect_stdout

import pytest

from tsqlbroker.repl.cli import main
from tsqlbroker.startup import startup_phase, thaw


@pytest.fixture(autouse=True)
def _gc_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_phase_pauses_collection_then_freezes_and_thaws() -> None:
    gc.enable()
    before = gc.get_freeze_count()
    with startup_phase():
        assert not gc.isenabled()
        built = [[i] for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(built)
    thaw()
    assert gc.get_freeze_count() == 0


def test_phase_leaves_a_disabled_collector_alone() -> None:
    gc.disable()
    with startup_phase():
        assert not gc.isenabled()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_in_process_main_leaves_nothing_frozen(backend_url: str) -> None:
    gc.enable()
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(["--url", backend_url, "-Q", "PRINT 'hello'"])
    assert rc == 0
    assert out.getvalue().strip() == "hello"
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
