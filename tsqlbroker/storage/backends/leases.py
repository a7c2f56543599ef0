"""Host leases and reader slots: what a backend gives the broker to share a store's
background work among processes (see ``engine/broker/hosting.py``), and the forms for a
store only this process opens."""

from __future__ import annotations

from typing import Protocol


class HostLease(Protocol):
    """The lease on hosting one store's background broker work."""

    def try_acquire(self, note: str) -> bool:
        """Take the lease if it is free (``note``: who takes it, for other processes'
        messages); True if this process holds it now."""

    def still_held(self) -> bool:
        """Whether this process still holds the lease."""

    def release(self) -> None:
        """Give the lease back."""

    def insist(self, on: bool) -> None:
        """Declare (or withdraw) that this process insists on hosting."""

    def others_insist(self) -> bool:
        """Whether another process insists on hosting (meaningless while this one does)."""

    def holder(self) -> str:
        """Who holds the lease, as its holder described itself ('' if unknown)."""

    def close(self) -> None:
        """Give everything back (the store closes)."""


class ReaderSlotLike(Protocol):
    """One of a queue's MAX_QUEUE_READERS slots."""

    def acquire(self, max_readers: int) -> bool: ...

    def release(self) -> None: ...


class LocalLease:
    """A store no other process can open: this process always hosts."""

    def try_acquire(self, note: str) -> bool:
        return True

    def still_held(self) -> bool:
        return True

    def release(self) -> None:
        """Nothing to give back."""

    def insist(self, on: bool) -> None:
        """Nobody to tell."""

    def others_insist(self) -> bool:
        return False

    def holder(self) -> str:
        return ""

    def close(self) -> None:
        """Nothing to close."""


class NoSlot:
    """The reader slot of a store only this process opens: the queue monitor's count is the
    cap."""

    def acquire(self, max_readers: int) -> bool:
        return True

    def release(self) -> None:
        """Nothing to give back."""
