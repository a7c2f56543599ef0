"""Fixtures for the REPL tests: a temporary XDG home and a REPL on piped input."""

from __future__ import annotations

import os
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest

from tsqlbroker import codecache

FD_SETSIZE = 1024   # select()'s limit on Linux


@pytest.fixture(autouse=True)
def xdg_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Config and data under a temporary directory, never the user's. The start-up caches
    stay the user's (a fresh HOME would rebuild the grammar in every REPL started: seconds
    of CPU, and timing tests would measure that)."""
    monkeypatch.setenv(codecache.CACHE_ENV, str(codecache.cache_dir()))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("TSQLBROKER_URL", raising=False)
    return tmp_path


@pytest.fixture
def console() -> Any:
    from rich.console import Console

    return Console(file=StringIO(), width=100, color_system=None, highlight=False)


def output_of(console: Any) -> str:
    return console.file.getvalue()


@pytest.fixture
def pipe() -> Iterator[Any]:
    from prompt_toolkit.input import create_pipe_input

    with create_pipe_input() as inp:
        # prompt-toolkit waits on this descriptor with select(), which cannot take one past
        # FD_SETSIZE: it then loops on its own error, growing until the process is killed.
        # Fail at once instead, naming the cause (earlier tests left descriptors open).
        if inp.fileno() >= FD_SETSIZE:
            open_fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1
            pytest.fail(f"the REPL's pipe got descriptor {inp.fileno()} (>= {FD_SETSIZE}; "
                        f"{open_fds} open): earlier tests leak file descriptors")
        yield inp
