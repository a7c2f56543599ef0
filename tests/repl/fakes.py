"""A small stand-in for ``tsqlbroker.interpreter.instance.Instance`` for REPL mechanics tests.

It understands just enough statements (PRINT, SELECT of literals, catalog SELECTs, CREATE QUEUE
and SERVICE, USE, BEGIN/COMMIT TRAN, WAITFOR DELAY, a failing division) to exercise the REPL's
loop, cancellation and catalog refresh independently of the real interpreter.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from tsqlbroker.engine.brokerlog import BrokerLog
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import CancelledError, TSqlError, tsql_error


class FakeInstance:
    def __init__(self, url: str | None = None) -> None:
        if url and not url.startswith("sqlite"):
            raise ValueError(f"Could not parse SQLAlchemy URL from string '{url}'")
        self.url = url
        self.objects: dict[str, list[str]] = {"queues": [], "services": [], "databases":
                                              ["master", "tempdb"]}
        self.broker_log = BrokerLog()
        self.sessions: list[FakeSession] = []
        self.closed = False

    def session(self, sink: Any, database: str = "master") -> FakeSession:
        if self.url == "sqlite://broken":
            raise tsql_error(911, database)
        s = FakeSession(self, sink, database)
        self.sessions.append(s)
        return s

    def close(self) -> None:
        self.closed = True


_CATALOG = re.compile(r"^\s*SELECT name FROM sys\.(service_queues|services|databases)\s*$", re.IGNORECASE)


class FakeSession:
    def __init__(self, inst: FakeInstance, sink: Any, database: str) -> None:
        self.inst, self.sink, self.current_database = inst, sink, database
        self.trancount = 0
        self.batches: list[str] = []
        self._cancel = threading.Event()
        self.closed = False

    def cancel(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        self.closed = True

    def execute(self, text: str, start_line: int = 1) -> bool:
        self._cancel.clear()
        self.batches.append(text)
        for line_no, stmt in enumerate(text.splitlines(), start=start_line):
            stmt = stmt.strip()
            try:
                # As the interpreter does: a cancel stops the batch at the next statement
                # (or in a wait) with Msg 3621; an open transaction stays open.
                if self._cancel.is_set():
                    raise CancelledError()
                self._statement(stmt)
            except TSqlError as err:
                err.line = line_no
                self.sink.error(err)
                return False
        return True

    def _statement(self, stmt: str) -> None:
        if m := re.match(r"PRINT '(.*)'$", stmt, re.IGNORECASE):
            self.sink.message(m.group(1))
        elif m := _CATALOG.match(stmt):
            key = {"service_queues": "queues"}.get(m.group(1).lower(), m.group(1).lower())
            self.sink.resultset(ResultSet(["name"], ["sysname"],
                                          [(n,) for n in self.inst.objects[key]]))
        elif m := re.match(r"SELECT (\d+)/0$", stmt, re.IGNORECASE):
            raise tsql_error(8134)
        elif m := re.match(r"SELECT (\d+) AS (\w+)$", stmt, re.IGNORECASE):
            self.sink.resultset(ResultSet([m.group(2)], ["int"], [(int(m.group(1)),)]))
            self.sink.rows_affected(1)
        elif m := re.match(r"CREATE (QUEUE|SERVICE) (\S+)", stmt, re.IGNORECASE):
            name = m.group(2).strip("[]")
            self.inst.objects["queues" if m.group(1).upper() == "QUEUE" else "services"].append(
                name)
        elif m := re.match(r"USE \[?(\w+)\]?$", stmt, re.IGNORECASE):
            self.current_database = m.group(1)
        elif re.match(r"BEGIN TRAN", stmt, re.IGNORECASE):
            self.trancount += 1
        elif m := re.match(r"WAITFOR DELAY '00:00:(\d+)'", stmt, re.IGNORECASE):
            if self._cancel.wait(int(m.group(1))):
                raise CancelledError()
        elif m := re.match(r"SLOW (\d+)$", stmt):
            time.sleep(int(m.group(1)) / 10)  # work no cancel can stop
        elif re.match(r"BOOM$", stmt):
            raise RuntimeError("the interpreter broke")
        elif stmt and not stmt.startswith("--"):
            raise tsql_error(102, stmt.split()[0], cls=TSqlError)
