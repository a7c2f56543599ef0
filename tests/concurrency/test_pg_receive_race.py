"""Readers of two processes (two instances on one PostgreSQL store) taking turns at the one
conversation group of a queue, one message per transaction: each message is received exactly
once. A reader's RECEIVE picks and locks the group and reads its rows in one statement; the
group's previous holder often commits between that statement's snapshot and its lock, and
what it received must not be read again."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import TYPE_CHECKING

from tsql_client import Client, create_database, send_batch

from tsqlbroker.interpreter.instance import Instance

if TYPE_CHECKING:
    from conftest import FreshPostgres

MESSAGES = 400
SETUP = """
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//race/Init] ON QUEUE InitQ;
CREATE SERVICE [//race/Targ] ON QUEUE TargQ ([DEFAULT]);
DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//race/Init] TO SERVICE '//race/Targ' WITH ENCRYPTION = OFF;
""" + send_batch(MESSAGES)
READ = """
SET NOCOUNT ON;
DECLARE @b varbinary(max);
BEGIN TRAN;
RECEIVE TOP (1) @b = message_body FROM TargQ;
COMMIT;
SELECT CAST(@b AS int);
"""


def test_every_message_is_received_once_by_readers_of_two_processes(
        fresh_postgres: FreshPostgres) -> None:
    url = fresh_postgres.url()
    create_database(url, "race", SETUP)
    instances = [Instance(url), Instance(url)]
    got: Counter[int] = Counter()
    lock = threading.Lock()
    errors: list[str] = []
    deadline = time.monotonic() + 120

    def reader(inst: Instance) -> None:
        client = Client(inst, "race")
        try:
            while time.monotonic() < deadline:
                with lock:
                    if sum(got.values()) >= MESSAGES:
                        return
                value = client.scalar(READ)
                if value is not None:
                    with lock:
                        got[value] += 1
        except Exception as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(repr(exc))

    threads = [threading.Thread(target=reader, args=(inst,)) for inst in instances
               for _ in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(150)
    finally:
        for inst in instances:
            inst.close()
    assert not errors
    assert [v for v, n in got.items() if n > 1] == []        # nothing received twice
    assert sorted(got) == list(range(MESSAGES))               # nothing lost
