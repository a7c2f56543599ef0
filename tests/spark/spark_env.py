"""Whether and how the Spark tests run, and what they share.

The Spark tests run in every full test run (``.ci/run`` installs the ``spark`` extra; Java 17
is on the image). A user may leave them out with ``TSQLBROKER_SKIP_SPARK=1`` (reported as
skips); without that, a machine lacking pyspark or Java stops the run rather than testing
less.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SKIP_ENV = "TSQLBROKER_SKIP_SPARK"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPTS = ROOT / "scripts" / "spark"
# 2 worker threads; a task may fail 3 times (the retry tests make first attempts fail).
MASTER = "local[2,3]"


def require_spark() -> None:
    """Skip the calling module when the user opted out; stop the run when Spark cannot
    run here."""
    if os.environ.get(SKIP_ENV, "") not in ("", "0"):
        pytest.skip(f"{SKIP_ENV}=1: Spark not tested", allow_module_level=True)
    if importlib.util.find_spec("pyspark") is None:
        pytest.exit("the Spark tests need pyspark: python -m pip install -e '.[spark]' (or "
                    f"leave them out with {SKIP_ENV}=1)", returncode=4)
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.exit(f"the Spark tests need Java 17 (java on PATH or JAVA_HOME), or {SKIP_ENV}=1",
                    returncode=4)


def worker_pythonpath() -> str:
    """PYTHONPATH for Spark's Python workers: this tree, the trade handlers, test handlers."""
    parts = [str(ROOT), str(SCRIPTS), str(HERE)]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)


def trade_store(url: str, dialogs: int, trades: int, first: int = 1,
                before_backlog: str | None = None) -> None:
    """The trade application of scripts/spark/trades.sql in the store at ``url``, with a
    backlog of ``dialogs`` dialogs of ``trades`` trade entries each (``before_backlog``:
    T-SQL run in between)."""
    # Imported here: the module is imported before the opt-out is known.
    from tsql_client import Client

    from tsqlbroker.interpreter.instance import Instance

    inst = Instance(url, background=False)
    try:
        client = Client(inst)
        client.run((SCRIPTS / "trades.sql").read_text(encoding="utf-8"))
        if before_backlog:
            client.run(before_backlog)
        add_backlog(client, dialogs, trades, first)
    finally:
        inst.close()


def add_backlog(client: object, dialogs: int, trades: int, first: int) -> None:
    """Send a backlog (scripts/spark/backlog.sql) through a test client."""
    text = (SCRIPTS / "backlog.sql").read_text(encoding="utf-8")
    for name, value in (("dialogs", dialogs), ("trades", trades), ("first", first)):
        text = text.replace(f"$({name})", str(value))
    client.run(text)  # type: ignore[attr-defined]


@contextmanager
def brokerage(url: str, database: str = "DMBrokerage") -> Iterator[Any]:
    """A T-SQL client (tests/tsql_client.py) in ``database`` on an instance of its own,
    closed after."""
    # Imported here: the module is imported before the opt-out is known.
    from tsql_client import Client

    from tsqlbroker.interpreter.instance import Instance

    inst = Instance(url, background=False)
    try:
        yield Client(inst, database)
    finally:
        inst.close()
