"""Start-up caches in the user's cache directory, and the dataclass code cache.

The caches hold code (marshalled code objects, a pickled Lark parser), so nothing is read
from a place another local user could write: the directory must be the user's own and
writable by nobody else (it is created 0700), and every file carries an HMAC-SHA256 of its
content under a key kept beside it in a file only the user can read (``cache.key``, 0600).
:func:`read_verified` checks both before a byte is deserialised; a file whose tag does not
match is ignored with a warning on the ``tsqlbroker.cache`` logger and rebuilt.

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
import hmac
import logging
import marshal
import os
import secrets
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CACHE_ENV = "TSQLBROKER_CACHE_DIR"
KEY_FILE = "cache.key"
_TAG = 32  # bytes of HMAC-SHA256 in front of each cache file
_lock = threading.Lock()
_keys: dict[Path, bytes] = {}
log = logging.getLogger("tsqlbroker.cache")


def cache_dir() -> Path:
    """``$TSQLBROKER_CACHE_DIR``, else ``$XDG_CACHE_HOME/tsqlbroker`` (``~/.cache``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tsqlbroker"


def _owned_privately(st: os.stat_result) -> bool:
    """Owned by this user, writable by nobody else (POSIX; elsewhere the ACLs decide)."""
    if not hasattr(os, "getuid"):
        return True
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _private_dir(directory: Path, create: bool) -> bool:
    """Whether ``directory`` may hold code caches (made 0700 when ``create``)."""
    try:
        if create:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode) and _owned_privately(st):
        return True
    log.warning("tsqlbroker: not using the cache directory %s: it is not private to this user "
                "(owner or mode)", directory)
    return False


def _read_key(path: Path) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        key = f.read(_TAG + 1)
    if len(key) != _TAG or not _owned_privately(st) or (
            hasattr(os, "getuid") and st.st_mode & 0o077):
        log.warning("tsqlbroker: ignoring the cache key %s: wrong owner, mode or size", path)
        return None
    return key


def _key(directory: Path, create: bool) -> bytes | None:
    """The directory's HMAC key; made (0600) when ``create`` and missing."""
    key = _keys.get(directory)
    if key is not None:
        return key
    path = directory / KEY_FILE
    try:
        key = _read_key(path)
    except FileNotFoundError:
        if not create:
            return None
        key = secrets.token_bytes(_TAG)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                         0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key)
        except FileExistsError:  # another process made it first: use theirs
            return _key(directory, create=False)
    except OSError:
        return None
    if key is not None:
        _keys[directory] = key
    return key


def _tag(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def read_verified(path: Path) -> bytes | None:
    """The content of the cache file ``path`` if its directory is private and its HMAC
    matches; None when it is missing or must not be trusted (a warning says which)."""
    directory = path.parent
    if not directory.exists() or not _private_dir(directory, create=False):
        return None
    key = _key(directory, create=False)
    if key is None:  # no key yet: nothing this user wrote (or an unsigned older cache)
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    body = data[_TAG:]
    if not hmac.compare_digest(data[:_TAG], _tag(key, body)):
        log.warning("tsqlbroker: ignoring the cache file %s: its signature does not match "
                    "(tampered with, or written without this user's key)", path)
        return None
    return body


def write_signed(path: Path, data: bytes) -> None:
    """Write the cache file ``path`` with its HMAC (nothing if the directory is not
    private or not writable: a cache is never required)."""
    directory = path.parent
    if not _private_dir(directory, create=True):
        return
    key = _key(directory, create=True)
    if key is not None:
        write_atomically(path, _tag(key, data) + data)


# How many caches of one kind (other grammars, other code) a cache directory keeps: a user
# with several checkouts or versions (or processes of each running at once) would otherwise
# delete each other's cache at every write and rebuild it at every start (seconds; minutes on
# a loaded machine).
KEEP_VERSIONS = 8


def prune(current: Path, pattern: str, keep: int = KEEP_VERSIONS) -> None:
    """Delete the files matching ``pattern`` beside ``current`` except ``current`` and the
    most recently written others, ``keep`` in all (caches of other versions)."""
    try:
        others = sorted((p for p in current.parent.glob(pattern) if p != current),
                        key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:  # one vanished meanwhile (another process pruned): next time
        return
    for old in others[max(keep - 1, 0):]:
        old.unlink(missing_ok=True)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; a read-only cache is no error."""
    import tempfile  # start-up laziness: only when a cache is (re)written

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
    return cache_dir() / f"dataclasses-{name}-{tag}.hmac"


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
    data = read_verified(path)
    try:
        known = marshal.loads(data) if data is not None else {}  # verified: written by us
        if not isinstance(known, dict):
            known = {}
    except (ValueError, EOFError, TypeError):
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
        write_signed(path, marshal.dumps(merged))
