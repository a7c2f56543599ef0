"""The broker log: what SQL Server writes to its error log for Service Broker.

Output of activated procedures (Msg 9724 form), activation failures, queues disabled by
poison-message handling, delivery problems. Kept in a bounded ring, with listeners (the REPL
shows it above the prompt; ``serve`` writes it to a file or stderr).
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LogEntry:
    """One line of the broker log."""

    time: _dt.datetime
    source: str
    text: str
    level: str = "info"  # info (what the broker does) | output (of activated procs) | error
    # The entry as a record of the JSON-lines contract ({"type": "message" | "error", …,
    # "source": …}), when it has one: output and errors of activated procedures.
    record: dict[str, Any] | None = None

    def render(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M:%S.%f}"[:-3] + f" {self.source:<10} {self.text}"


class BrokerLog:
    """A thread-safe ring of :class:`LogEntry` with listeners."""

    def __init__(self, capacity: int = 5000) -> None:
        self._entries: deque[LogEntry] = deque(maxlen=capacity)
        self._listeners: list[Callable[[LogEntry], None]] = []
        self._lock = threading.Lock()

    def write(self, source: str, text: str, level: str = "error",
              record: dict[str, Any] | None = None) -> LogEntry:
        """Append a line (``source`` e.g. ``spid57s``, ``Broker``, ``Activation``; ``level``
        info, output or error; ``record``: see :class:`LogEntry`)."""
        entry = LogEntry(_dt.datetime.now(), source, text, level, record)
        with self._lock:
            self._entries.append(entry)
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(entry)
            except Exception:  # noqa: BLE001 - a broken listener must not break the broker
                _log.exception("broker log listener failed")
        return entry

    def add_listener(self, fn: Callable[[LogEntry], None]) -> None:
        with self._lock:
            self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[LogEntry], None]) -> None:
        with self._lock:
            if fn in self._listeners:
                self._listeners.remove(fn)

    def entries(self) -> list[LogEntry]:
        with self._lock:
            return list(self._entries)

    def tail(self, n: int = 20) -> list[LogEntry]:
        with self._lock:
            return list(self._entries)[-n:]

    def __iter__(self) -> Iterator[LogEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
