"""Closing a store lets go of its files: a connection its owner never closed (a session
dropped without close(), collected later) is ended by Store.close, not left open in the pool
that close's dispose() lets go of. A long-lived process (a test run, a host opening and
closing instances) otherwise gathers file descriptors until select() and the like fail."""

from __future__ import annotations

import gc
import os
from pathlib import Path

from tests.tsql_client import Client
from tsqlbroker.interpreter.instance import Instance


def open_files_under(folder: Path) -> list[str]:
    """This process's open file descriptors on files in ``folder``."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue            # gone while listing (the listing's own descriptor)
        if target.startswith(str(folder)):
            found.append(target)
    return found


def test_closing_an_instance_closes_the_connections_of_sessions_never_closed(
        tmp_path: Path) -> None:
    inst = Instance(f"sqlite:///{tmp_path}/a.db")
    kept = Client(inst)
    kept.run("CREATE TABLE t (a int); INSERT t VALUES (1);")
    Client(inst).run("SELECT a FROM t")          # dropped at once, never closed
    gc.collect()
    assert open_files_under(tmp_path)            # the store is open
    inst.close()
    gc.collect()
    assert open_files_under(tmp_path) == []
    del kept
    gc.collect()
    assert open_files_under(tmp_path) == []


def test_many_instances_opened_and_closed_leave_no_descriptor(tmp_path: Path) -> None:
    before = len(open_files_under(tmp_path))
    for n in range(5):
        inst = Instance(f"sqlite:///{tmp_path}/s{n}.db")
        Client(inst).run("CREATE DATABASE d; USE d; CREATE QUEUE q; "
                         "CREATE SERVICE s ON QUEUE q ([DEFAULT]);")
        inst.close()
    gc.collect()
    assert len(open_files_under(tmp_path)) == before == 0
