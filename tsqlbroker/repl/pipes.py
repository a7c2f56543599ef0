"""Output streams whose reader may go away: ``tsqlbroker -Q … | head`` ends quietly.

When the reader of stdout (or stderr) closes the pipe, a write raises BrokenPipeError. That
must neither become a T-SQL error nor print a traceback: :class:`PipeGuard` swallows it,
points the descriptor at ``/dev/null`` (so the interpreter's final flush cannot fail again)
and tells its owner once, who stops running batches (``EXIT_BROKEN_PIPE``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any, TextIO

# The exit status of a run whose output was closed early: as for a process killed by
# SIGPIPE (128 + 13), which is what `cat big | head` leaves under `set -o pipefail`.
EXIT_BROKEN_PIPE = 141


def silence(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at ``/dev/null``: what it still buffers can never reach
    the closed pipe, and the interpreter's final flush must not fail on it."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


class PipeGuard:
    """A text stream that turns a broken pipe into ``on_broken()`` (called once) and makes
    every later write a no-op. Other attributes are the wrapped stream's."""

    def __init__(self, stream: TextIO, on_broken: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self.on_broken = on_broken  # may be set once its owner exists
        self.broken = False

    def write(self, text: str) -> int:
        if self.broken:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._break()
            return len(text)

    def flush(self) -> None:
        if self.broken:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._break()

    def _break(self) -> None:
        self.broken = True
        silence(self._stream)
        if self.on_broken is not None:
            self.on_broken()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
