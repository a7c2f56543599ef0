"""The storage backends: :func:`backend_named` is the one place a backend name becomes an
object (SQLAlchemy's backend name of a URL → its :class:`~.base.Backend`)."""

from __future__ import annotations

import threading

from sqlalchemy.exc import NoSuchModuleError

from ...errors import TSqlError
from .base import Backend

_loaded: dict[str, Backend] = {}
_lock = threading.Lock()


def backend_named(name: str) -> Backend:
    """The backend of SQLAlchemy backend ``name`` ("sqlite", "postgresql"); one object per
    name and process. Raises ``NoSuchModuleError`` (SQLAlchemy's error for an unknown kind of
    database) for any other kind."""
    found = _loaded.get(name)
    if found is not None:
        return found
    with _lock:
        if name not in _loaded:
            # A SQLite run never loads the PostgreSQL backend or psycopg.
            if name == "sqlite":
                # start-up laziness: the backend named, not both
                from .sqlite.backend import SqliteBackend as chosen
            elif name == "postgresql":
                # start-up laziness: the backend named, not both
                from .postgres.backend import PostgresBackend as chosen  # type: ignore[assignment]
            else:
                raise NoSuchModuleError(f"tsqlbroker stores its data on SQLite or "
                                        f"PostgreSQL, not on '{name}'")
            _loaded[name] = chosen()
        return _loaded[name]


def take_pending_error() -> TSqlError | None:
    """The TSqlError a Python function that a statement called raised in this thread, if any
    (asked of every backend in use: the failure being mapped may come with no connection)."""
    for backend in list(_loaded.values()):
        err = backend.take_pending_error()
        if err is not None:
            return err
    return None
