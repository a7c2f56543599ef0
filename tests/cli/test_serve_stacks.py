"""The stack dump ``tsqlbroker serve`` writes on SIGUSR1 (``serve.stacks_text``)."""

from __future__ import annotations

import sys
import threading

from tsqlbroker.repl.serve import stacks_text


def _parked_in_waiter(started: threading.Event, release: threading.Event) -> None:
    started.set()
    release.wait(30)


def test_every_thread_by_name_current_first_most_recent_call_first() -> None:
    started, release = threading.Event(), threading.Event()
    worker = threading.Thread(target=_parked_in_waiter, args=(started, release),
                              name="parked-worker")
    worker.start()
    try:
        assert started.wait(10)
        text = stacks_text(sys._current_frames(), threading.get_ident())
    finally:
        release.set()
        worker.join(10)
    blocks = text.strip().split("\n\n")
    assert blocks[0].startswith(f"Current thread 0x{threading.get_ident():016x} (MainThread)")
    assert "in test_every_thread_by_name_current_first_most_recent_call_first" in blocks[0]
    (parked,) = [b for b in blocks if "(parked-worker)" in b]
    head, *frames = parked.splitlines()
    assert head == (f"Thread 0x{worker.ident:016x} (parked-worker) "
                    "(most recent call first):")
    names = [line.rsplit(" in ", 1)[1] for line in frames]
    # innermost first: Event.wait, then the target, then threading's bootstrap
    assert names.index("wait") < names.index("_parked_in_waiter") < names.index("_bootstrap")
    assert all(line.startswith('  File "') and ", line " in line for line in frames)


def test_the_interrupted_frame_stands_for_the_current_thread() -> None:
    """The handler passes the frame the signal interrupted, so the dump shows where the main
    thread was, not the handler itself."""
    def interrupted() -> object:
        return sys._getframe()

    frame = interrupted()
    text = stacks_text({threading.get_ident(): sys._getframe()}, threading.get_ident(), frame)
    first_call = text.splitlines()[1]
    assert first_call.endswith(" in interrupted")
