"""Data-dependent routing across three brokers (seed 004 over TCP): a router instance in
front of two partition instances, each a ``tsqlbroker serve`` process on its own SQLite
store, on loopback, with certificate-authenticated endpoints.

    python scripts/routing/three_brokers.py [--dir DIR] [--queries N]

sets the three stores up with this folder's scripts (``router.sql`` / ``partition.sql``,
``endpoint.sql``, ``trust.sql``), starts the three ``serve`` processes, runs ``client.sql`` on
the router's store (each query forwarded to East or West by its ``/message/toServiceName``,
replies and EndDialogs back through the router), prints what it showed and stops the
processes. The same steps by hand are in the README (*Data-dependent routing*).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# The partitions: (instance name, region its service answers for).
PARTITIONS = (("east", "East"), ("west", "West"))
START_TIMEOUT = 60.0


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports for LISTENER_PORT (1024–32767, a range the kernel's
    port-0 choice lies above): tried at random, each bound to check it is free."""
    ports: list[int] = []
    while len(ports) < count:
        candidate = random.randint(20000, 32767)
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", candidate))
            ports += [] if candidate in ports else [candidate]
    return ports


def child_env() -> dict[str, str]:
    """The environment of a tsqlbroker child process: this checkout's code first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def tsqlbroker(url: str, *args: str, timeout: float = 120.0) -> str:
    """Run ``tsqlbroker --url URL ARGS…`` (exit status 1 on a batch error raises); its output."""
    done = subprocess.run([sys.executable, "-m", "tsqlbroker", "--url", url, *args],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env=child_env())
    if done.returncode != 0:
        raise RuntimeError(f"tsqlbroker {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def run_script(url: str, script: str, variables: dict[str, Any], *fmt: str) -> str:
    """Run ``script`` of this folder on ``url`` with sqlcmd variables ``variables``."""
    flags = [f for name, value in variables.items() for f in ("-v", f"{name}={value}")]
    return tsqlbroker(url, "run", "-b", *fmt, *flags, str(HERE / script))


@dataclass
class Instance:
    """One broker instance of the demo: its store, endpoint port and serve process."""

    name: str
    url: str
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def serve(self) -> None:
        """Start ``tsqlbroker serve`` on the store; return once its endpoint listens."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tsqlbroker", "serve", "--url", self.url, "--log",
             str(self.log)], env=child_env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while f"listening on 127.0.0.1:{self.port}" not in (
                self.log.read_text() if self.log.exists() else ""):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve {self.name} did not start listening")
            time.sleep(0.05)

    def kill(self) -> None:
        """Stop the serve process (if it runs) for good."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def set_up(folder: Path) -> dict[str, Instance]:
    """Create the three stores in ``folder`` — router, east, west — with their databases,
    routes, endpoints on free ports, and the certificates each must trust."""
    names = ["router", *(name for name, _ in PARTITIONS)]
    insts = {name: Instance(name, f"sqlite:///{folder / name}.db", port, folder / f"{name}.log")
             for name, port in zip(names, free_ports(len(names)), strict=True)}
    router = insts["router"]
    run_script(router.url, "router.sql", {f"{name}_port": insts[name].port
                                          for name, _ in PARTITIONS})
    for name, region in PARTITIONS:
        run_script(insts[name].url, "partition.sql",
                   {"region": region, "router_port": router.port})
    for inst in insts.values():
        run_script(inst.url, "endpoint.sql",
                   {"name": inst.name, "port": inst.port, "cert_dir": folder})
    # The router and each partition connect to each other; the partitions never meet.
    for name, _ in PARTITIONS:
        run_script(router.url, "trust.sql", {"peer": name, "cert_dir": folder})
        run_script(insts[name].url, "trust.sql", {"peer": "router", "cert_dir": folder})
    return insts


def run_demo(folder: Path, queries: int = 4, *fmt: str) -> str:
    """Set up the three instances in ``folder``, serve them, run ``client.sql`` on the
    router's store and stop the serve processes (always); the client's output."""
    insts = set_up(folder)
    try:
        for inst in insts.values():
            inst.serve()
        return run_script(insts["router"].url, "client.sql", {"queries": queries}, *fmt)
    finally:
        for inst in insts.values():
            inst.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, help="folder for the stores and logs "
                        "(default: a temporary one, removed afterwards)")
    parser.add_argument("--queries", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="the client's output as JSON")
    args = parser.parse_args()
    fmt = ("--format", "json") if args.json else ()
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        print(run_demo(args.dir.resolve(), args.queries, *fmt), end="")
        return
    with tempfile.TemporaryDirectory() as tmp:
        print(run_demo(Path(tmp), args.queries, *fmt), end="")


if __name__ == "__main__":
    main()
