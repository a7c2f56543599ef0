"""IDENTITY under concurrent inserters: every session gets its own values, also on
PostgreSQL, where transactions do not serialise on one write lock."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

if TYPE_CHECKING:
    from conftest import FreshPostgres


def _session(inst: Instance) -> tuple[object, CollectingSink]:
    sink = CollectingSink()
    return inst.session(sink), sink


def test_a_second_inserter_waits_for_the_first_and_gets_the_next_value(
        instance: Instance) -> None:
    admin, sink = _session(instance)
    admin.execute("CREATE DATABASE idc; USE idc; "  # type: ignore[attr-defined]
                  "CREATE TABLE t (id int IDENTITY(1,1) PRIMARY KEY, who varchar(5))")
    assert not sink.errors()
    first, first_sink = _session(instance)
    second, second_sink = _session(instance)
    first.execute("USE idc; BEGIN TRAN; INSERT INTO t (who) VALUES ('a')")  # type: ignore
    done = threading.Event()

    def insert_second() -> None:
        second.execute("USE idc; INSERT INTO t (who) VALUES ('b')")  # type: ignore
        done.set()

    thread = threading.Thread(target=insert_second)
    thread.start()
    done.wait(0.5)
    first.execute("COMMIT")  # type: ignore[attr-defined]
    thread.join(30)
    assert not first_sink.errors() and not second_sink.errors(), [
        e.render() for e in first_sink.errors() + second_sink.errors()]
    sink.events.clear()
    admin.execute("SELECT id, who FROM t ORDER BY id")  # type: ignore[attr-defined]
    assert sink.resultsets()[-1].rows == [(1, "a"), (2, "b")]


def test_processes_declaring_table_variables_at_once_get_ids_of_their_own(
        fresh_postgres: FreshPostgres) -> None:
    """Every table variable (and temp table) takes a store-wide object id: two processes
    on one PostgreSQL store must never be handed the same one (Msg 2714 on its name)."""
    url = fresh_postgres.url()
    setup, sink = _session(Instance(url))
    setup.execute("CREATE DATABASE tv")  # type: ignore[attr-defined]
    assert not sink.errors()
    instances = [Instance(url), Instance(url)]          # as two processes: own stores
    errors: list[str] = []

    def declare(inst: Instance) -> None:
        session, out = _session(inst)
        for _ in range(40):
            session.execute("USE tv; DECLARE @t TABLE (x int); "  # type: ignore[attr-defined]
                            "INSERT INTO @t VALUES (1)")
        errors.extend(e.render() for e in out.errors())

    threads = [threading.Thread(target=declare, args=(inst,)) for inst in instances]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for inst in instances:
        inst.close()
    assert errors == []
