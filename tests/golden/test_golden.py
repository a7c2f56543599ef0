"""Golden tests: each ``tests/golden/<area>/*.sql`` runs in a fresh instance on each backend
and its rendered output must equal the ``.out`` file beside it (SQL Server's output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

from .render import render_events

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted(HERE.glob("*/*.sql"))


def run_script(path: Path, url: str = "sqlite://") -> str:
    """Run one golden script and render what the client would see."""
    inst = Instance(url)
    sink = CollectingSink()
    session = inst.session(sink)
    try:
        session.execute(path.read_text(encoding="utf-8"))
    finally:
        session.close()
        inst.close()
    return render_events(sink.events)


@pytest.mark.parametrize("script", SCRIPTS, ids=[f"{p.parent.name}/{p.stem}" for p in SCRIPTS])
def test_golden(script: Path, backend_url: str) -> None:
    expected = script.with_suffix(".out").read_text(encoding="utf-8")
    assert run_script(script, backend_url) == expected
