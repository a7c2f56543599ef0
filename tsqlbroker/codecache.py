"""Start-up caches in the user's cache directory, and the dataclass code cache.

A module with many dataclasses (the grammar's ~140 AST node classes) spends most of its
import time in ``compile()``: :mod:`dataclasses` generates ``__init__``, ``__repr__``,
``__eq__``, ``__hash__`` and the frozen ``__setattr__``/``__delattr__`` of every class as
source text and compiles each. :func:`cached_dataclass_code` keeps those code objects in a
``marshal`` file keyed by the exact source text, so a warm start executes them without
compiling. A text seen for the first time is compiled as usual, so the generated classes are
the same with or without the cache, and a stale or unreadable file only costs the compile.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CACHE_ENV = "TSQLBROKER_CACHE_DIR"
_lock = threading.Lock()


def cache_dir() -> Path:
    """``$TSQLBROKER_CACHE_DIR``, else ``$XDG_CACHE_HOME/tsqlbroker`` (``~/.cache``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tsqlbroker"


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; a read-only cache is no error."""
    import tempfile  # only when a cache is (re)written: not on a warm start

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _cache_path(name: str) -> Path:
    # marshal's code format is specific to the Python version.
    tag = hashlib.sha256(sys.version.encode()).hexdigest()[:12]
    return cache_dir() / f"dataclasses-{name}-{tag}.bin"


class _Cache:
    """One cache file's code objects: those read (``known``) and those used this time."""

    def __init__(self, known: dict[str, Any]) -> None:
        self.known = known
        self.used: dict[str, Any] = {}


# The caches in use, innermost last. No lock is held while a context is active (imports run
# inside it, and holding a lock across an import could deadlock against the import locks).
_active: list[_Cache] = []


def _cached_exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    """``exec`` for :mod:`dataclasses`: the code of a known source text comes from a cache."""
    if isinstance(source, str):
        active = list(_active)
        code = None
        for cache in reversed(active):
            code = cache.known.get(source)
            if code is not None:
                break
        if code is None:
            code = compile(source, "<string>", "exec")
        if active:
            active[-1].used[source] = code
        source = code
    exec(source, globals, locals)  # noqa: S102 — dataclasses' own generated code


@contextmanager
def cached_dataclass_code(name: str) -> Iterator[None]:
    """While active, the methods :mod:`dataclasses` generates are compiled through the
    cache file ``name`` (use it around the import of a module of dataclasses). Contexts
    may nest, also across threads; the innermost records what it sees."""
    path = _cache_path(name)
    try:
        known = marshal.loads(path.read_bytes())  # our own cache file, not user input
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError, EOFError, TypeError):
        known = {}
    cache = _Cache(known)
    with _lock:
        _active.append(cache)
        # dataclasses calls the builtin exec through its module globals: shadow it there.
        dataclasses.exec = _cached_exec  # type: ignore[attr-defined]
    try:
        yield
    finally:
        with _lock:
            _active.remove(cache)
            if not _active:
                del dataclasses.exec  # type: ignore[attr-defined]
    if not cache.used.keys() <= known.keys():
        # Merge: a run that imports less (a second instance in one process) must not shrink
        # the cache for the next cold process; texts of edited classes are dropped once the
        # file has grown well past what one run uses.
        merged = known | cache.used if len(known) < 4 * len(cache.used) + 1000 else cache.used
        write_atomically(path, marshal.dumps(merged))
