"""A Spark standalone cluster on loopback — one master, one worker — run from the scripts
and jars the pyspark package ships (``bin/spark-class``), for the tests and the benchmark.

A real cluster is started by its operators; ``tsqlbroker spark drain --master spark://…``
only needs its URL (docs/spark.md). This one lives in a working directory of its own (logs,
the worker's directory) and is stopped, with the executors its worker started, by
:meth:`StandaloneCluster.stop` (its processes' groups, by id). Its processes are in sessions of
their own: a caller that may be stopped by a signal turns it into ``SystemExit``
(:func:`~tsqlbroker.interpreter.exits.exiting_on_signals`) so that its ``with`` block stops
them.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Self

import pyspark

from .session import LOOPBACK

SPARK_HOME = Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """A TCP port free on loopback just now."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


class StandaloneCluster:
    """A master and a worker with ``cores`` cores on 127.0.0.1."""

    def __init__(self, workdir: Path, *, cores: int = 2, memory: str = "1g",
                 env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.cores = cores
        self.memory = memory
        self.env = dict(os.environ, SPARK_HOME=str(SPARK_HOME), SPARK_LOCAL_IP=LOOPBACK,
                        **(env or {}))
        self.port = free_port()
        self.ui_port = free_port()
        self.url = f"spark://{LOOPBACK}:{self.port}"
        self._procs: list[subprocess.Popen[bytes]] = []

    def _spark_class(self, name: str, *args: str) -> None:
        log = open(self.workdir / f"{name.rsplit('.', 1)[-1].lower()}.log", "wb")  # noqa: SIM115
        try:
            proc = subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), name, *args],
                                    env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            log.close()         # the child has its own copy
        self._procs.append(proc)

    def start(self, timeout: float = 120.0) -> str:
        """Start both and wait until the worker has registered; the master URL. Whatever
        stops the start midway (an error, a timeout, ``SystemExit`` from a signal) stops
        what it had started: the processes are in sessions of their own, so nothing else
        would."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            return self._start(timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, timeout: float) -> str:
        self._spark_class("org.apache.spark.deploy.master.Master", "--host", LOOPBACK,
                          "--port", str(self.port), "--webui-port", str(self.ui_port))
        self._spark_class("org.apache.spark.deploy.worker.Worker", self.url,
                          "--host", LOOPBACK, "--cores", str(self.cores),
                          "--memory", self.memory, "--webui-port", str(free_port()),
                          "--work-dir", str(self.workdir / "work"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self._procs):
                raise RuntimeError(f"the Spark standalone cluster did not start: see "
                                   f"{self.workdir}/*.log")
            if self.alive_workers() >= 1:
                return self.url
            time.sleep(0.5)
        raise TimeoutError(f"no Spark worker registered within {timeout:.0f} s "
                           f"(see {self.workdir}/*.log)")

    def alive_workers(self) -> int:
        """Workers the master counts as alive (its status page, on loopback)."""
        try:
            with urllib.request.urlopen(f"http://{LOOPBACK}:{self.ui_port}/json/",
                                        timeout=2) as r:
                status = json.load(r)
        except OSError:
            return 0
        return sum(1 for w in status.get("workers", []) if w.get("state") == "ALIVE")

    def stop(self) -> None:
        """Stop the worker (and its executors), then the master."""
        for proc in reversed(self._procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self._procs):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        self._procs.clear()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
