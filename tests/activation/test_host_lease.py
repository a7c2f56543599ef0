"""The host lease (engine/broker/hosting.py, interpreter/broker_runtime.py) between two
instances on one store — an SQLite file (flock) or a PostgreSQL schema (advisory locks):
one hosts at a time; ``auto`` hands over to ``on``; ``off`` never hosts; the standby takes
over when the host closes. (tests/cli/test_hosting.py does the same with processes.)"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from tsqlbroker.interpreter.broker_runtime import LEASE_CHECK_S, MODES, BrokerRuntime, runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.repl.config import ACTIVATION_MODES


@pytest.fixture
def two(persistent_url: str) -> Iterator[tuple[Instance, Instance]]:
    a, b = Instance(persistent_url), Instance(persistent_url)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _until(cond: Callable[[], bool], seconds: float = 10 * LEASE_CHECK_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def _runtime(inst: Instance, mode: str) -> BrokerRuntime:
    rt = runtime_for(inst, start=False)
    rt.configure(mode=mode)
    rt.start()
    return rt


def test_one_hosts_and_the_other_takes_over_when_it_closes(
        two: tuple[Instance, Instance]) -> None:
    a, b = two
    ra = _runtime(a, "auto")
    assert ra.hosting
    rb = _runtime(b, "auto")
    assert not rb.hosting
    assert "stands by" in rb.status()
    a.close()
    assert _until(lambda: rb.hosting)
    assert "hosts activation" in rb.status()


def test_auto_hands_over_to_on_and_off_never_hosts(two: tuple[Instance, Instance]) -> None:
    a, b = two
    ra = _runtime(a, "auto")
    assert ra.hosting
    rb = _runtime(b, "on")
    assert _until(lambda: rb.hosting and not ra.hosting)
    # on never yields; auto stands by while on is there.
    ra.check_lease()
    assert rb.hosting and not ra.hosting
    rb.configure(mode="off")
    assert not rb.hosting
    assert _until(lambda: ra.hosting)
    rb.configure(mode="auto")
    assert not rb.hosting and "stands by" in rb.status()


def test_a_standing_by_process_runs_no_activation_and_waits_for_nothing(
        two: tuple[Instance, Instance]) -> None:
    a, b = two
    _runtime(a, "on")
    rb = _runtime(b, "auto")
    started = time.monotonic()
    assert rb.wait_idle(30.0)
    assert time.monotonic() - started < 1.0
    assert rb.manager.activated_tasks() == []


def test_the_command_line_and_the_runtime_know_the_same_modes() -> None:
    assert ACTIVATION_MODES == MODES
    inst = Instance("sqlite://")
    try:
        with pytest.raises(ValueError):
            runtime_for(inst, start=False).configure(mode="sometimes")
    finally:
        inst.close()
