"""The start-up phase of a command-line run: what ``tsqlbroker -Q``/``run`` do before the
first statement, made cheap.

Start-up imports the engine and builds the instance: hundreds of thousands of long-lived
objects (modules, classes, SQLAlchemy tables, grammar tables) and almost no garbage. The
cyclic garbage collector would run dozens of times over that growing heap and free nothing,
so it is off for the phase, and what the phase built is then frozen out of later
collections (:func:`gc.freeze`) rather than traversed by the first one (which would cost
more than the phase saved). :func:`thaw` hands those objects back to the collector when
the run ends, so that a process running many (tests calling ``main``) leaks nothing. The
engine's dataclasses take their generated methods from the code cache meanwhile.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from tsqlbroker.codecache import cached_dataclass_code

_frozen = 0  # start-up phases whose objects are frozen and not yet thawed


@contextmanager
def startup_phase(freeze: bool = True) -> Iterator[None]:
    """Run the block with the garbage collector paused (and the dataclass code cache on);
    with ``freeze``, objects alive at its end are left out of later collections."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with cached_dataclass_code("startup"):
            yield
    finally:
        if was_enabled:
            if freeze:
                global _frozen
                gc.freeze()
                _frozen += 1
            gc.enable()


def thaw() -> None:
    """Return what :func:`startup_phase` froze to the collector (the run is over)."""
    global _frozen
    if _frozen:
        _frozen -= 1
        if not _frozen:
            gc.unfreeze()
