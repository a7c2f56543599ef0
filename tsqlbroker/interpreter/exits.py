"""Leaving the process on a signal through ``SystemExit``, so that what is open is closed on
the way out: transactions roll back, a ``sqlite://`` store's files are removed, and processes
started in sessions of their own (a Spark standalone cluster: a signal to the caller's group
does not reach them) are stopped by the ``with`` blocks that started them."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any


def exit_on_signals(*signums: int) -> dict[int, Any]:
    """Make each of ``signums`` raise ``SystemExit(128 + signal)`` in the main thread; the
    handlers it replaced. Only the first signal does: once one came they are all ignored, so
    that one during the clean-up does not interrupt it. Off the main thread (where Python
    cannot set handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def leave(signum: int, _frame: FrameType | None) -> None:
        for s in signums:
            signal.signal(s, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    return {s: signal.signal(s, leave) for s in signums}


@contextmanager
def exiting_on_signals(*signums: int) -> Iterator[None]:
    """:func:`exit_on_signals` while the block runs; the handlers before it afterwards."""
    previous = exit_on_signals(*signums)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
