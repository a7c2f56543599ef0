"""One receiving process of ``test_processes_exactly_once.py`` (run as a script).

    python receive_worker.py URL PROCESS MODE SEED SECONDS

Receives from ``cc.dbo.InitQ`` (the queue ``cc_env`` builds; the procedures of
:data:`PROCEDURES` created beside it) until the queue is empty, in one of four ways (MODE):

* ``statement``: ``BEGIN TRAN; RECEIVE TOP (n) … INTO #got;`` record; ``COMMIT`` in one
  batch (the transaction never pauses: on SQLite its groups are owned under the write lock
  all along);
* ``explicit``: ``BEGIN TRAN; RECEIVE TOP (n)`` in one batch (its end publishes the claim on
  SQLite), the recording in a procedure call of its own, then (sometimes after a ``WAITFOR
  DELAY``) COMMIT or — one time in five — ROLLBACK;
* ``group``: ``BEGIN TRAN; GET CONVERSATION GROUP`` in one batch, ``RECEIVE … WHERE
  conversation_group_id`` in the next, then as ``explicit``;
* ``handle``: ``WAITFOR (RECEIVE … WHERE conversation_handle = <a handle seen in the
  queue>)`` (it may wait for a group another process holds), then as ``explicit``.

Every received message is recorded in ``Got`` (``dbo.RecAll``, ``dbo.RecList``) in the
receiving transaction,
so a rollback takes it back. For every transaction that received, one JSON line on stdout:
``{"proc": …, "group": …, "start": …, "end": …, "committed": …}`` — ``start`` read
(SYSDATETIME) after the RECEIVE returned, ``end`` just before COMMIT / ROLLBACK: a part of
the time the transaction held the group. Errors: on stderr, exit status 1.

What is received goes through a temp table made once, outside any transaction: on
PostgreSQL a transaction that creates an object (a table variable …) holds the catalog's
object-id counter to its end, and two such transactions waiting for each other's groups
would deadlock (Msg 1205) — not what the test is about.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

# Bodies are 'group:conversation:sequence' (cc_env.SEND_BLOCK).
PROCEDURES = ["""
CREATE PROCEDURE dbo.RecAll @who int AS
BEGIN
    -- Records the messages the caller received into #got; returns their group.
    SET NOCOUNT ON;
    INSERT INTO Got (g, c, s, who)
    SELECT CAST(LEFT(b, CHARINDEX(':', b) - 1) AS int),
           CAST(LEFT(r, CHARINDEX(':', r) - 1) AS int),
           CAST(SUBSTRING(r, CHARINDEX(':', r) + 1, 20) AS int), @who
    FROM (SELECT b, SUBSTRING(b, CHARINDEX(':', b) + 1, 100) AS r
          FROM (SELECT CAST(message_body AS varchar(100)) AS b FROM #got) AS x) AS y;
    SELECT TOP (1) conversation_group_id FROM #got;
END
""", """
CREATE PROCEDURE dbo.RecList @list varchar(max), @who int AS
BEGIN
    -- Records the bodies of @list ('g:c:s;g:c:s;…'), called with the values themselves
    -- (Session.call_procedure: nothing to parse, the INSERT's plan is cached).
    SET NOCOUNT ON;
    DECLARE @i int, @x varchar(100), @r varchar(100);
    WHILE LEN(@list) > 0
    BEGIN
        SET @i = CHARINDEX(';', @list);
        SET @x = LEFT(@list, @i - 1);
        SET @list = SUBSTRING(@list, @i + 1, 100000);
        SET @r = SUBSTRING(@x, CHARINDEX(':', @x) + 1, 100);
        INSERT INTO Got (g, c, s, who)
        VALUES (CAST(LEFT(@x, CHARINDEX(':', @x) - 1) AS int),
                CAST(LEFT(@r, CHARINDEX(':', @r) - 1) AS int),
                CAST(SUBSTRING(@r, CHARINDEX(':', @r) + 1, 20) AS int), @who);
    END
END
"""]


# Seconds between one transaction and the next (see main).
PAUSE_S = 0.005


class Worker:
    def __init__(self, url: str, proc: int, mode: str, seed: int) -> None:
        self.instance = Instance(url)
        self.sink = CollectingSink()
        self.session = self.instance.session(self.sink, "cc")
        self.proc = proc
        self.mode = mode
        self.rng = random.Random(seed)
        # Outside any transaction (see the module docstring).
        self.run("CREATE TABLE #got (conversation_group_id uniqueidentifier, "
                 "message_body varbinary(100))")

    def check(self) -> None:
        errors = [e.render() for e in self.sink.errors()]
        if errors:
            raise RuntimeError(f"{self.mode}: " + " | ".join(errors))

    def run(self, text: str) -> list[list[tuple[Any, ...]]]:
        self.sink.events.clear()
        self.session.execute(text)
        self.check()
        return [rs.rows for rs in self.sink.resultsets()]

    def hold(self, group: Any, start: Any, end: Any, committed: bool) -> None:
        print(json.dumps({"proc": self.proc, "group": str(group).upper(),
                          "start": str(start), "end": str(end), "committed": committed}),
              flush=True)

    def finish(self, group: Any, start: Any, rows: list[tuple[Any, ...]]) -> None:
        """Record ``rows`` (group, body) in the open transaction, maybe sleep a little,
        then COMMIT or — one time in five — ROLLBACK."""
        self.sink.events.clear()
        self.session.call_procedure("dbo.RecList", {
            "list": "".join(bytes(body).decode() + ";" for _g, body in rows),
            "who": self.proc})
        self.check()
        delay = "WAITFOR DELAY '00:00:00.010';" if self.rng.random() < 0.1 else ""
        commit = self.rng.random() >= 0.2
        ((end,),) = self.run(f"{delay} SELECT SYSDATETIME(); "
                             f"{'COMMIT' if commit else 'ROLLBACK'};")[-1]
        self.hold(group, start, end, commit)

    def step(self) -> bool:
        """One transaction; False when the queue looked empty."""
        top = self.rng.randint(1, 6)
        columns = "conversation_group_id, message_body"
        if self.mode == "statement":
            sets = self.run(f"SET NOCOUNT ON; BEGIN TRAN; RECEIVE TOP ({top}) {columns} "
                            "FROM InitQ INTO #got; SELECT SYSDATETIME(); "
                            f"EXEC dbo.RecAll {self.proc}; SELECT SYSDATETIME(); COMMIT; "
                            "DELETE FROM #got;")
            # (SYSDATETIME() in a query the store runs has milliseconds only: the
            # interpreter's own, in a SELECT without FROM, is exact.)
            ((start,),), got, ((end,),) = sets[-3], sets[-2], sets[-1]
            if got:
                self.hold(got[0][0], start, end, True)
            return bool(got)
        if self.mode == "explicit":
            # Nothing written in this batch: on SQLite its end publishes the group's claim.
            sets = self.run(f"SET NOCOUNT ON; BEGIN TRAN; RECEIVE TOP ({top}) {columns} "
                            "FROM InitQ; SELECT SYSDATETIME();")
            rows, ((start,),) = sets[-2], sets[-1]
        elif self.mode == "group":
            sets = self.run("SET NOCOUNT ON; BEGIN TRAN; DECLARE @g uniqueidentifier; "
                            "GET CONVERSATION GROUP @g FROM InitQ; SELECT @g, SYSDATETIME();")
            ((group, start),) = sets[-1]
            rows = [] if group is None else self.run(
                f"RECEIVE TOP ({top}) {columns} FROM InitQ "
                f"WHERE conversation_group_id = '{group}'")[-1]
        else:
            # A conversation seen in the queue, waited for if another process holds it.
            seen = self.run("SELECT TOP (1) conversation_handle FROM InitQ "
                            "ORDER BY NEWID()")[-1]
            if not seen:
                return False
            sets = self.run(f"SET NOCOUNT ON; BEGIN TRAN; WAITFOR (RECEIVE TOP ({top}) "
                            f"{columns} FROM InitQ WHERE conversation_handle = "
                            f"'{seen[0][0]}'), TIMEOUT 2000; SELECT SYSDATETIME();")
            rows, ((start,),) = sets[-2], sets[-1]
        if not rows:
            # (On PostgreSQL a group GET CONVERSATION GROUP returned may be empty by now.)
            self.run("COMMIT")
            return self.mode == "handle"
        self.finish(rows[0][0], start, rows)
        return True

    def left(self) -> int:
        return int(self.run("SELECT COUNT(*) FROM InitQ")[-1][0][0])


def main() -> int:
    url, proc, mode, seed, seconds = sys.argv[1:6]
    worker = Worker(url, int(proc), mode, int(seed))
    deadline = time.monotonic() + float(seconds)
    try:
        while time.monotonic() < deadline:
            if not worker.step() and worker.left() == 0:
                return 0
            # A pause between transactions, as an application's work between them: SQLite's
            # busy handler polls with growing sleeps, so a process that begins its next
            # write transaction at once keeps the file's write lock for long runs, and on a
            # 2 000-message queue one mode could end with no transaction at all (the test
            # wants every mode to take turns; docs/decisions.md).
            time.sleep(PAUSE_S)
        print(f"{mode}: the queue was not empty after {seconds} s", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - reported to the test
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        worker.session.close()
        worker.instance.close()


if __name__ == "__main__":
    raise SystemExit(main())
