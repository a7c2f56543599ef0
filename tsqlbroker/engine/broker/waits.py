"""Wake-ups for ``WAITFOR (RECEIVE …)``: a generation counter per queue, bumped (and the
condition notified) whenever something may have become receivable — a commit that enqueued
messages, a transaction that released group locks, an ALTER/DROP of the queue.

A waiter reads the generation *before* checking the queue, then sleeps until it changes, so a
commit between its check and its sleep is never missed. Sleeps are bounded (a quarter second)
only so that cancellation is noticed; wake-ups themselves are immediate.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime

QueueKey = tuple[int, int]          # (database_id, queue_id)
_POLL_CANCEL_S = 0.25


class QueueSignals:
    """Per-queue generation counters, waiter counts and receive timestamps of one store."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._sleepers = 0          # threads inside wait_change's wait
        self._generation: dict[QueueKey, int] = {}
        self.waiting: dict[QueueKey, int] = {}
        self.last_empty_rowset_time: dict[QueueKey, datetime] = {}

    def generation(self, key: QueueKey) -> int:
        """The current generation of queue ``key``."""
        with self._cond:
            return self._generation.get(key, 0)

    def bump(self, key: QueueKey) -> None:
        """Something about queue ``key`` changed: wake its waiters."""
        with self._cond:
            self._generation[key] = self._generation.get(key, 0) + 1
            if self._sleepers:      # every commit bumps; most find nobody asleep
                self._cond.notify_all()

    def wait_change(self, key: QueueKey, seen: int, deadline: float | None,
                    cancelled: Callable[[], bool]) -> bool:
        """Sleep until the generation of ``key`` differs from ``seen`` (True), or the deadline
        passes / ``cancelled()`` turns true (False)."""
        with self._cond:
            while self._generation.get(key, 0) == seen:
                if cancelled():
                    return False
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                step = _POLL_CANCEL_S if remaining is None else min(remaining, _POLL_CANCEL_S)
                self._sleepers += 1
                try:
                    self._cond.wait(step)
                finally:
                    self._sleepers -= 1
            return True

    def enter(self, key: QueueKey) -> None:
        """A session starts waiting in RECEIVE / GET CONVERSATION GROUP on ``key``."""
        with self._cond:
            self.waiting[key] = self.waiting.get(key, 0) + 1

    def leave(self, key: QueueKey) -> None:
        """A session stops waiting on ``key``."""
        with self._cond:
            n = self.waiting.get(key, 0) - 1
            if n > 0:
                self.waiting[key] = n
            else:
                self.waiting.pop(key, None)

    def tasks_waiting(self, key: QueueKey) -> int:
        """How many sessions wait on ``key`` right now."""
        with self._cond:
            return self.waiting.get(key, 0)
