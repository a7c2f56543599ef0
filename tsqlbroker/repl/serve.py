"""``tsqlbroker serve``: a long-lived broker on a store.

It runs what SQL Server's broker runs in the background — queue monitors and activated
procedures, conversation timers, dialog lifetimes, delivery retries from transmission queues —
until SIGTERM or SIGINT, then stops cleanly: no new activations, running procedures cancelled
(their transactions roll back, so their messages return to the queues), sessions closed.
What it does goes to the broker log (``--log FILE`` or stderr). SIGUSR1 writes the stack of
every thread to the log and serving goes on: for a broker that seems stuck.
"""

from __future__ import annotations

import contextlib
import faulthandler
import signal
import sys
import threading
from typing import TextIO

from tsqlbroker import __version__


def _redact(url: str) -> str:
    """The URL without its password, for the log."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a URL the log cannot parse is still worth naming
        return "(url)"


def serve(url: str | None, database: str = "master", log_path: str | None = None,
          *, stop: threading.Event | None = None) -> int:
    """Run the broker until a signal (or ``stop``) arrives; returns the exit status."""
    with contextlib.ExitStack() as stack:
        out: TextIO = (stack.enter_context(open(log_path, "a", encoding="utf-8"))
                       if log_path else sys.stderr)
        return _serve(url, out, stop)


def _serve(url: str | None, out: TextIO, stop: threading.Event | None) -> int:
    from tsqlbroker.errors import TSqlError
    from tsqlbroker.interpreter.broker_runtime import runtime_for
    from tsqlbroker.interpreter.instance import Instance

    lock = threading.Lock()

    def write(line: str) -> None:
        with lock:
            try:
                out.write(line + "\n")
                out.flush()
            except ValueError:  # closed at exit
                pass

    try:
        instance = Instance(url)
    except TSqlError as exc:
        write(exc.render())
        return 1
    stop = stop or threading.Event()
    previous = {}
    dumps = False
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
        dumps = _dump_stacks_on_sigusr1(out)
    try:
        runtime = runtime_for(instance, start=False)
        runtime.log.add_listener(lambda entry: write(entry.render()))
        runtime.log.write("Broker", f"tsqlbroker {__version__} serving "
                          f"{_redact(instance.store.url)}", "info")
        runtime.start()
        while not stop.wait(0.5):
            pass
        runtime.log.write("Broker", "shutting down: no new activations; running "
                          "procedures are cancelled and roll back", "info")
        instance.close()
        write(f"{'':23} Broker     stopped")
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if dumps:
            faulthandler.unregister(signal.SIGUSR1)


def _dump_stacks_on_sigusr1(out: TextIO) -> bool:
    """Have SIGUSR1 write every thread's stack to ``out``. faulthandler writes from the
    signal handler itself, so the dump comes even when no thread gives up the GIL. False
    where there is no SIGUSR1 or ``out`` is no real file."""
    if not hasattr(signal, "SIGUSR1"):
        return False
    try:
        faulthandler.register(signal.SIGUSR1, file=out, all_threads=True)
    except (AttributeError, OSError, RuntimeError, ValueError):
        return False
    return True
