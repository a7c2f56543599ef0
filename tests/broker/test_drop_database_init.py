"""DROP DATABASE while another connection sets up the same database's broker objects: the
set-up waits for the storage write lock (holding its own lock), so the drop must not wait for
that lock in turn — a deadlock until SQLite's busy timeout, found by the fuzz test (a REPL
catalog refresh beside a DROP DATABASE)."""

from __future__ import annotations

import threading
import time

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.storage.store import Store


def test_drop_does_not_wait_for_a_setup_that_waits_for_it() -> None:
    store = Store("sqlite://", busy_timeout_ms=10_000)
    broker = Broker.get(store)
    dropper, other = store.connect(), store.connect()
    try:
        catalog = Catalog.get(store)
        catalog.ensure_schema(dropper)
        broker.ensure_schema(dropper)
        db_id = catalog.create_database(dropper, "Gone")
        dropper.commit()
        dropper.write()  # the DROP DATABASE statement's storage transaction

        failed: list[BaseException] = []

        def set_up() -> None:
            try:
                broker.state.db(other, db_id)
            except BaseException as exc:  # noqa: BLE001 - looked at below
                failed.append(exc)

        setup = threading.Thread(target=set_up, daemon=True)
        setup.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and broker.state.init_lock.acquire(blocking=False):
            broker.state.init_lock.release()  # not taken yet by the set-up
            time.sleep(0.01)
        # The set-up holds its lock and waits for the write lock this transaction holds.
        catalog.drop_database(dropper, db_id)
        assert setup.is_alive()  # the drop went through while the set-up still waited
        dropper.commit()
        setup.join(10)
        assert not setup.is_alive()
        # The set-up saw the database gone: Msg 8442, and nothing was written for it.
        assert [getattr(e, "number", None) for e in failed] == [8442]
    finally:
        dropper.close()
        other.close()
        store.close()
