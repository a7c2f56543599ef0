"""Schema stamps (``storage/schema_stamp.py``): a store set up by this code starts with one
query instead of checking every engine table and re-creating the PostgreSQL functions; a
stamp that differs (another version's) or is missing makes the start check and create
again, under the schema lock, and write the stamp anew; processes starting together on a
new store all succeed."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, text

from tests.tsql_client import Client
from tsqlbroker.engine.broker.schema import broker_tables
from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.storage.schema_stamp import STAMP_PREFIX
from tsqlbroker.storage.store import Store

CATALOG = STAMP_PREFIX + "catalog"
BROKER = STAMP_PREFIX + "tsqlb_sb_message_types"


@contextmanager
def counted(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[str]]]:
    """Every statement ``store`` sends while the block runs: SQL through SQLAlchemy, the
    transaction control and the backend objects' installation (which go to the driver)."""
    seen: dict[str, list[str]] = {"sql": [], "control": [], "install": []}

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen["sql"].append(statement)

    def spy(name: str, key: str) -> None:
        real: Callable[..., Any] = getattr(store.backend, name)

        def called(conn: Any, *args: Any) -> Any:
            seen[key].append(str(args[0]) if args else name)
            return real(conn, *args)
        monkeypatch.setattr(store.backend, name, called)

    spy("control", "control")
    spy("install_schema_objects", "install")
    event.listen(store.engine, "before_cursor_execute", on_execute)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", on_execute)
        monkeypatch.undo()


def set_up(url: str) -> None:
    """Open the store as a client does (catalog, broker and security set up), then close."""
    inst = Instance(url)
    try:
        db = Client(inst)
        assert db.scalar("SELECT COUNT(*) FROM sys.databases") == 4
        assert db.scalar("SELECT COUNT(*) FROM sys.service_queues") == 0
    finally:
        inst.close()


def stamps(url: str) -> dict[str, int]:
    store = Store(url)
    try:
        conn = store.connect()
        try:
            rows = conn.execute(text("SELECT name, value FROM tsqlb_counters WHERE name LIKE :p"),
                                {"p": STAMP_PREFIX + "%"})
            return {str(name): int(value) for name, value in rows}
        finally:
            conn.close()
    finally:
        store.close()


def run_sql(url: str, *statements: str) -> None:
    """Run ``statements`` (``:a``, ``:b``: the catalog's and the broker's stamp names)."""
    store = Store(url)
    try:
        conn = store.connect()
        try:
            for sql in statements:
                conn.execute(text(sql), {"a": CATALOG, "b": BROKER, "p": STAMP_PREFIX + "%"})
        finally:
            conn.close()
    finally:
        store.close()


def start(url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, list[str]],
                                                             dict[str, list[str]]]:
    """A new process's start on ``url``: the statements of the catalog's set-up and of the
    broker tables' (another part of the store), counted separately."""
    store = Store(url)
    try:
        catalog = Catalog.get(store)
        conn = store.connect()
        try:
            with counted(store, monkeypatch) as setup:
                catalog.ensure_schema(conn)
            with counted(store, monkeypatch) as broker:
                assert catalog.create_tables(conn, broker_tables(store.metadata).all())
            # The catalog works as after a full set-up (the layout of PostgreSQL stores).
            master = catalog.database(conn, 1)
            assert master is not None and master.name == "master"
            schema = catalog.database_schema(conn, 1)
            assert (schema is not None) == store.backend.schemas_per_database
            return setup, broker
        finally:
            conn.close()
    finally:
        store.close()


def test_a_stamped_store_starts_with_one_query(persistent_url: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    first, _ = start(persistent_url, monkeypatch)      # a new store: checked and created
    assert first["install"] == ["install_schema_objects"]
    assert len(first["sql"]) > 5
    set_up(persistent_url)
    setup, broker = start(persistent_url, monkeypatch)
    assert len(setup["sql"]) == 1 and "tsqlb_counters" in setup["sql"][0]
    assert setup["control"] == [] and setup["install"] == []   # no transaction, no DDL
    assert broker == {"sql": [], "control": [], "install": []}


def test_a_different_or_missing_stamp_checks_again(persistent_url: str, backend: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    set_up(persistent_url)
    stamped = stamps(persistent_url)
    assert {CATALOG, BROKER} <= stamped.keys()
    # Another version's stamps; what this version needs is missing meanwhile.
    tamper = ["UPDATE tsqlb_counters SET value = value + 1 WHERE name IN (:a, :b)",
              "DROP TABLE tsqlb_sb_group_waits"]
    if backend == "postgresql":
        tamper.append("DROP FUNCTION tsqlb_newid()")
    run_sql(persistent_url, *tamper)
    setup, broker = start(persistent_url, monkeypatch)
    assert setup["install"] == ["install_schema_objects"] and len(setup["sql"]) > 3
    assert broker["sql"] and broker["control"]
    assert stamps(persistent_url) == stamped
    # What went missing is back.
    inst = Instance(persistent_url)
    try:
        db = Client(inst)
        db.run("CREATE QUEUE q")
        assert db.scalar("SELECT COUNT(*) FROM sys.service_queues") == 1
        if backend == "postgresql":
            assert len(str(db.scalar("SELECT NEWID()"))) == 36
    finally:
        inst.close()
    run_sql(persistent_url, "SELECT COUNT(*) FROM tsqlb_sb_group_waits")
    # No stamp at all (a store made before stamps): the same.
    run_sql(persistent_url, "DELETE FROM tsqlb_counters WHERE name LIKE :p")
    setup, broker = start(persistent_url, monkeypatch)
    assert setup["install"] == ["install_schema_objects"] and broker["control"]
    assert {k: v for k, v in stamps(persistent_url).items() if k in (CATALOG, BROKER)} == {
        k: v for k, v in stamped.items() if k in (CATALOG, BROKER)}
    setup, _ = start(persistent_url, monkeypatch)
    assert len(setup["sql"]) == 1


def test_processes_starting_together_on_a_new_store(persistent_url: str) -> None:
    # Each process imports first, then all open the store at the same moment.
    at = time.time() + 6
    code = ("import sys, time; from tsqlbroker.repl.cli import main; "
            f"time.sleep(max(0.0, {at!r} - time.time())); "
            f"sys.exit(main(['--url', {persistent_url!r}, '-Q', "
            "'SELECT COUNT(*) FROM sys.databases']))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, out + err
        assert "4" in out.split(), out
    assert {CATALOG, BROKER} <= stamps(persistent_url).keys()
