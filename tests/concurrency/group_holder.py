"""The holder of ``test_sqlite_group_waits.py`` (run as a script).

    python group_holder.py URL DATABASE STOP_FILE SECONDS

Receives from ``TargQ`` over and over, one message per transaction, holding the group a
moment between batches (its claim published), and commits and picks again *in one batch*
— its next pick follows its commit at once, as an activated procedure's loop does. Prints
``held <group>`` for every transaction that received, ``idle`` for one that did not. Stops
(committing) once ``STOP_FILE`` exists or after ``SECONDS``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink

RECEIVE = "BEGIN TRAN; RECEIVE TOP (1) conversation_group_id FROM TargQ"


def main() -> int:
    url, database, stop, seconds = sys.argv[1:5]
    instance = Instance(url)
    sink = CollectingSink()
    session = instance.session(sink, database)
    deadline = time.monotonic() + float(seconds)
    text = RECEIVE
    try:
        while not Path(stop).exists() and time.monotonic() < deadline:
            sink.events.clear()
            session.execute(text)
            errors = [e.render() for e in sink.errors()]
            if errors:
                print(" | ".join(errors), file=sys.stderr)
                return 1
            rows = sink.resultsets()[-1].rows
            print(f"held {str(rows[0][0]).upper()}" if rows else "idle", flush=True)
            time.sleep(0.05 if rows else 0.005)     # holds the group, its claim published
            text = "COMMIT; " + RECEIVE
        session.execute("COMMIT")
        return 0
    finally:
        session.close()
        instance.close()


if __name__ == "__main__":
    raise SystemExit(main())
