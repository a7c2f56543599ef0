"""IDENTITY under concurrent inserters: every session gets its own values, also on
PostgreSQL, where transactions do not serialise on one write lock."""

from __future__ import annotations

import threading

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


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
