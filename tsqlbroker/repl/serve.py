"""``tsqlbroker serve``: a long-lived broker on a store.

It runs what SQL Server's broker runs in the background — queue monitors and activated
procedures, conversation timers, dialog lifetimes, delivery retries from transmission queues —
as the store's host (one process hosts a store at a time: a second ``serve`` stands by and
takes over when the first ends or dies) until SIGTERM or SIGINT, then stops cleanly: no new activations, running procedures cancelled
(their transactions roll back, so their messages return to the queues), sessions closed.
What it does goes to the broker log (``--log FILE`` or stderr). SIGUSR1 writes the stack of
every thread to the log and serving goes on: for a broker that seems stuck.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from types import FrameType
from typing import TextIO

from sqlalchemy.engine import make_url

from tsqlbroker import __version__
from tsqlbroker.errors import TSqlError
from tsqlbroker.interpreter.broker_runtime import runtime_for
from tsqlbroker.interpreter.instance import Instance


def _redact(url: str) -> str:
    """The URL without its password, for the log."""
    try:
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
    # Reentrant: the SIGUSR1 handler runs in the main thread, maybe inside a write.
    lock = threading.RLock()

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
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
        if hasattr(signal, "SIGUSR1"):
            previous[signal.SIGUSR1] = signal.signal(signal.SIGUSR1, _stack_dumper(write))
    try:
        runtime = runtime_for(instance, start=False)
        runtime.log.add_listener(lambda entry: write(entry.render()))
        runtime.log.write("Broker", f"tsqlbroker {__version__} serving "
                          f"{_redact(instance.store.url)}", "info")
        # serve insists on hosting: it stands by while another serve hosts and takes over
        # when that one ends; a REPL or run hosting for want of a serve hands over to it.
        runtime.configure(mode="on", role="serve")
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
            # None: the handler was not Python's; the default is the closest to it.
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def _stack_dumper(write: Callable[[str], None]) -> Callable[[int, FrameType | None], None]:
    """The SIGUSR1 handler: every thread's stack through ``write``.

    A Python-level handler, not faulthandler: faulthandler reads the other threads' frames
    from inside the signal handler without the GIL, while those threads run on, and that
    crashed the broker with SIGSEGV (a CI run; about one process in five under repeated
    signals). Python runs this handler in the main thread holding the GIL, so every frame it
    reads is stable; the main thread waits in ``_serve`` in short slices, so it comes soon."""

    def dump(_signum: int, frame: FrameType | None) -> None:
        write(stacks_text(sys._current_frames(), threading.get_ident(), frame))

    return dump


def stacks_text(frames: dict[int, FrameType], current: int,
                current_frame: FrameType | None = None) -> str:
    """Every thread's stack, most recent call first, in faulthandler's layout (so the dump
    reads as the one a crash would write): ``Current thread 0x…`` for ``current``, ``Thread
    0x… (name)`` for the others."""
    names = {t.ident: t.name for t in threading.enumerate()}
    blocks = []
    for ident, frame in sorted(frames.items(), key=lambda item: item[0] != current):
        if ident == current and current_frame is not None:
            frame = current_frame  # not the handler's own frame
        head = "Current thread" if ident == current else "Thread"
        name = names.get(ident)
        label = f" ({name})" if name else ""
        lines = [f"{head} 0x{ident:016x}{label} (most recent call first):"]
        for summary in reversed(traceback.extract_stack(frame)):
            lines.append(f'  File "{summary.filename}", line {summary.lineno} in '
                         f"{summary.name}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
