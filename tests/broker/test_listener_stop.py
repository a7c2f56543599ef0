"""Stopping the PostgreSQL listener wakes its wait: a process's exit does not wait out the
poll (which is set here far beyond the join's bound, so a missed wake-up would show)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tsqlbroker.storage.backends.postgres import notices
from tsqlbroker.storage.store import Store

if TYPE_CHECKING:
    from conftest import FreshPostgres


def test_stop_wakes_the_listener(fresh_postgres: FreshPostgres, monkeypatch: Any) -> None:
    monkeypatch.setattr(notices.Listener, "POLL_SECONDS", 3600.0)
    store = Store(fresh_postgres.url())
    seen: list[tuple[str, int, int]] = []
    listener = notices.Listener(store, lambda *event: seen.append(event))
    try:
        listener.start()
        listener.stop()
        assert not listener._thread.is_alive()
        assert seen == []  # the wake-up is no event
    finally:
        store.close()
