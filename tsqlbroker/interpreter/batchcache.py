"""Compiled T-SQL kept for reuse: batches by text and dynamic SQL by text and parameters
(and a text's split into GO batches, by text).

A client that sends the same batch again (one batch per message, a REPL line repeated, a
script run twice in one session) runs the closures compiled the first time instead of parsing
and compiling it again. That is safe because compiling reads nothing but the text: the
compiler has no session, so everything that may differ between two runs of one text is
looked up while it runs — SET options (``session.options``, ``nocount``, ``datefirst`` …),
the database context, temporary tables and table variables (the engine binds names per run,
its query plans keyed by database, temp-table binding and catalog version), procedures and
functions (resolved by name at every call, recompiled when ALTERed). The key holds the
batch's first line as well, since compiled statements carry their lines for error messages.
See docs/decisions.md ("Compiled batches are cached by text").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

# Batches this long are not kept: a script of that size is rarely sent twice, and a cache of
# big texts would hold their ASTs and closures for nothing.
MAX_TEXT = 64 * 1024


class CompiledCache:
    """A bounded least-recently-used map of compiled code, shared by the sessions of an
    instance (which run on several threads)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The entry under ``key`` (None if there is none), now the most recently used."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: Hashable, compiled: Any) -> None:
        """Keep ``compiled`` under ``key``, dropping the least recently used beyond the size."""
        with self._lock:
            self._items[key] = compiled
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Forget everything (tests)."""
        with self._lock:
            self._items.clear()


def batch_key(text: str, start_line: int) -> tuple[str, int] | None:
    """The cache key of a batch, or None for a batch too big to keep."""
    if len(text) > MAX_TEXT:
        return None
    return (text, start_line)


def split_key(text: str) -> tuple[str, str] | None:
    """The cache key of a text's split into GO batches, or None for a text too big to keep."""
    if len(text) > MAX_TEXT:
        return None
    return ("split", text)
