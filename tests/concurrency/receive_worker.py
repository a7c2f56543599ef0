"""One receiving process of ``test_processes_exactly_once.py`` (run as a script).

    python receive_worker.py URL PROCESS MODE SEED SECONDS

Receives from ``cc.dbo.InitQ`` (the queue ``cc_env`` builds) until the queue is empty, in
one of four ways (MODE):

* ``statement``: ``BEGIN TRAN; RECEIVE TOP (n) … INTO @t; INSERT … FROM @t; COMMIT`` in
  one batch (the transaction never pauses: its groups are owned under the write lock);
* ``explicit``: ``BEGIN TRAN; RECEIVE TOP (n)`` in one batch, the INSERTs (and sometimes a
  ``WAITFOR DELAY``) in the next, then COMMIT or — one time in five — ROLLBACK;
* ``group``: ``GET CONVERSATION GROUP``, then ``RECEIVE … WHERE conversation_group_id``
  in later batches, COMMIT or ROLLBACK;
* ``handle``: ``WAITFOR (RECEIVE … WHERE conversation_handle = <a handle seen in the
  queue>)`` (it may wait for a group another process holds), COMMIT or ROLLBACK.

Every received message is inserted into ``Got`` in the receiving transaction (so a rollback
takes it back). For every transaction that received, one JSON line on stdout:
``{"group": …, "start": …, "end": …, "committed": …}`` — ``start`` read (SYSDATETIME) after
the RECEIVE returned, ``end`` just before COMMIT / ROLLBACK: a sub-interval of the time the
group was held. Errors: on stderr, exit status 1.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

COLUMNS = "conversation_group_id, conversation_handle, message_body"
# Bodies are 'group:conversation:sequence' (cc_env.SEND_BLOCK).
RECORD = """INSERT INTO Got (g, c, s, who)
SELECT CAST(LEFT(b, CHARINDEX(':', b) - 1) AS int),
       CAST(LEFT(r, CHARINDEX(':', r) - 1) AS int),
       CAST(SUBSTRING(r, CHARINDEX(':', r) + 1, 20) AS int), {proc}
FROM (SELECT b, SUBSTRING(b, CHARINDEX(':', b) + 1, 100) AS r
      FROM (SELECT CAST(message_body AS varchar(100)) AS b FROM @t) AS x) AS y;"""
DECLARE = ("DECLARE @t TABLE (conversation_group_id uniqueidentifier, "
           "conversation_handle uniqueidentifier, message_body varbinary(max));")


class Worker:
    def __init__(self, url: str, proc: int, mode: str, seed: int) -> None:
        self.instance = Instance(url)
        self.sink = CollectingSink()
        self.session = self.instance.session(self.sink, "cc")
        self.proc = proc
        self.mode = mode
        self.rng = random.Random(seed)

    def run(self, text: str) -> list[list[tuple[Any, ...]]]:
        self.sink.events.clear()
        self.session.execute(text)
        errors = [e.render() for e in self.sink.errors()]
        if errors:
            raise RuntimeError(f"{self.mode}: " + " | ".join(errors))
        return [rs.rows for rs in self.sink.resultsets()]

    def hold(self, group: Any, start: Any, end: Any, committed: bool) -> None:
        print(json.dumps({"proc": self.proc, "group": str(group).upper(),
                          "start": str(start), "end": str(end), "committed": committed}),
              flush=True)

    def end(self, group: Any, start: Any, record: str = "") -> None:
        """``record`` (T-SQL), maybe sleep, then COMMIT or ROLLBACK (one in five)."""
        delay = ("WAITFOR DELAY '00:00:00.020';" if self.rng.random() < 0.3 else "")
        (end,), = self.run(f"SET NOCOUNT ON; {record} {delay} SELECT SYSDATETIME();")[-1]
        commit = self.rng.random() >= 0.2
        self.run("COMMIT" if commit else "ROLLBACK")
        self.hold(group, start, end, commit)

    def step(self) -> bool:
        """One transaction; False when the queue looked empty."""
        top = self.rng.randint(1, 4)
        if self.mode == "statement":
            sets = self.run(f"SET NOCOUNT ON; {DECLARE} BEGIN TRAN; "
                            f"RECEIVE TOP ({top}) {COLUMNS} FROM InitQ INTO @t; "
                            "DECLARE @s datetime2(7) = SYSDATETIME(); "
                            f"{RECORD.format(proc=self.proc)} "
                            "SELECT conversation_group_id FROM @t; "
                            "SELECT @s, SYSDATETIME(); COMMIT;")
            groups, ((start, end),) = sets[-2], sets[-1]
            if groups:
                self.hold(groups[0][0], start, end, True)
            return bool(groups)
        if self.mode == "explicit":
            # Nothing written in the first batch: its end publishes the group's claim.
            sets = self.run(f"SET NOCOUNT ON; BEGIN TRAN; "
                            f"RECEIVE TOP ({top}) {COLUMNS} FROM InitQ; SELECT SYSDATETIME();")
            rows, ((start,),) = sets[-2], sets[-1]
            if not rows:
                self.run("COMMIT")
                return False
            values = ", ".join(f"({body.decode()}, {self.proc})".replace(":", ", ")
                               for _g, _h, body in rows)
            self.end(rows[0][0], start, f"INSERT INTO Got (g, c, s, who) VALUES {values};")
            return True
        if self.mode == "group":
            sets = self.run("SET NOCOUNT ON; BEGIN TRAN; DECLARE @g uniqueidentifier; "
                            "GET CONVERSATION GROUP @g FROM InitQ; "
                            "SELECT @g, SYSDATETIME();")
            ((group, start),) = sets[-1]
            if group is None:
                self.run("COMMIT")
                return False
            self.run(f"SET NOCOUNT ON; {DECLARE} RECEIVE TOP ({top}) {COLUMNS} FROM InitQ "
                     f"INTO @t WHERE conversation_group_id = '{group}'; "
                     f"{RECORD.format(proc=self.proc)}")
            self.end(group, start)
            return True
        # handle: a conversation seen in the queue, waited for if another holds its group
        seen = self.run("SELECT TOP (1) conversation_handle FROM InitQ "
                        "ORDER BY NEWID()")[-1]
        if not seen:
            return False
        sets = self.run(f"SET NOCOUNT ON; BEGIN TRAN; {DECLARE} "
                        f"WAITFOR (RECEIVE TOP ({top}) {COLUMNS} FROM InitQ INTO @t "
                        f"WHERE conversation_handle = '{seen[0][0]}'), TIMEOUT 2000; "
                        f"{RECORD.format(proc=self.proc)} "
                        "SELECT conversation_group_id FROM @t; SELECT SYSDATETIME();")
        groups, ((start,),) = sets[-2], sets[-1]
        if not groups:
            self.run("COMMIT")
            return True
        self.end(groups[0][0], start)
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
