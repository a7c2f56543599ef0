"""A T-SQL client for tests: one session with a collecting sink, like an SSMS query window."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.sink import CollectingSink


def wait_for(what: str, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class Client:
    """One session with a sink; ``run`` fails the test on an unexpected error."""

    def __init__(self, instance: Instance, database: str = "master") -> None:
        self.sink = CollectingSink()
        self.session = instance.session(self.sink, database)

    def run(self, text: str, *, expect_errors: bool = False) -> CollectingSink:
        self.sink.events.clear()
        self.session.execute(text)
        if not expect_errors:
            errors = [e.render() for e in self.sink.errors()]
            assert not errors, "\n".join(errors)
        return self.sink

    def rows(self, text: str) -> list[tuple[Any, ...]]:
        sets = self.run(text).resultsets()
        assert sets, f"no result set from {text!r}"
        return sets[-1].rows

    def scalar(self, text: str) -> Any:
        return self.rows(text)[0][0]


def run_tsql(url: str, batches: list[str], *, activation: str | None = None
             ) -> list[tuple[Any, ...]]:
    """Run ``batches`` in one session of an instance of their own, closed afterwards; the
    last result set's rows. ``activation``: the instance's hosting mode (``"off"``: it never
    runs the store's activation, timers or transmission meanwhile). Fails on any error."""
    inst = Instance(url)
    if activation is not None:
        runtime_for(inst, start=False).configure(mode=activation)
    sink = CollectingSink()
    try:
        session = inst.session(sink, "master")
        for batch in batches:
            session.execute(batch)
        session.close()
    finally:
        inst.close()
    assert not sink.errors(), [e.render() for e in sink.errors()]
    sets = sink.resultsets()
    return sets[-1].rows if sets else []


def create_database(url: str, database: str, script: str) -> None:
    """Create ``database`` in the store at ``url`` and run ``script`` in it, on an instance
    of its own that is closed again (the test's own instances or processes open it next)."""
    inst = Instance(url)
    try:
        Client(inst).run(f"CREATE DATABASE {database}")
        Client(inst, database).run(script)
    finally:
        inst.close()


def services_script(prefix: str, *, dialog: bool = True) -> str:
    """T-SQL for a one-way contract ``[//<prefix>/Contract]`` (message type
    ``[//<prefix>/Msg]``) between services ``[//<prefix>/Init]`` on InitQ and
    ``[//<prefix>/Targ]`` on TargQ; with ``dialog``, also a dialog between them whose handle
    is the batch's last result set."""
    script = f"""
CREATE MESSAGE TYPE [//{prefix}/Msg] VALIDATION = NONE;
CREATE CONTRACT [//{prefix}/Contract] ([//{prefix}/Msg] SENT BY INITIATOR);
CREATE QUEUE InitQ;
CREATE QUEUE TargQ;
CREATE SERVICE [//{prefix}/Init] ON QUEUE InitQ;
CREATE SERVICE [//{prefix}/Targ] ON QUEUE TargQ ([//{prefix}/Contract]);
"""
    if dialog:
        script += f"""DECLARE @h uniqueidentifier;
BEGIN DIALOG @h FROM SERVICE [//{prefix}/Init] TO SERVICE '//{prefix}/Targ'
    ON CONTRACT [//{prefix}/Contract] WITH ENCRYPTION = OFF;
SELECT @h;
"""
    return script


def send_batch(count: int | str, handle: str = "@h") -> str:
    """T-SQL sending ``count`` messages (bodies 0, 1, … as varbinary(4)) on ``handle`` in one
    transaction; ``count`` may be a ``str.format`` field such as ``"{n}"``."""
    return f"""DECLARE @i int = 0;
BEGIN TRAN;
WHILE @i < {count}
BEGIN
    SEND ON CONVERSATION {handle} (CAST(@i AS varbinary(4)));
    SET @i += 1;
END;
COMMIT;
"""


@contextmanager
def serving(url: str, log: Path) -> Iterator[subprocess.Popen[str]]:
    """A ``tsqlbroker serve`` process on ``url`` logging to ``log``; killed at the end if it
    is still running."""
    proc = subprocess.Popen([sys.executable, "-m", "tsqlbroker", "serve", "--url", url,
                             "--log", str(log)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
