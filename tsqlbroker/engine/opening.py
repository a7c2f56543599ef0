"""Why a store cannot be opened, said in one line (for ``--url``, ``:connect``, ``serve``).

SQLAlchemy and the drivers report a bad URL, a missing driver, an unreachable server or a
missing schema with long messages and tracebacks; :func:`opening` turns each into a
:class:`~tsqlbroker.errors.StorageOpenError` whose text names the storage (its password
hidden) and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from tsqlbroker.errors import StorageOpenError

# SQLSTATE 3F000: no schema to create in (the first schema of search_path does not exist).
_INVALID_SCHEMA = "3F000"


@contextmanager
def opening(url: str | None) -> Iterator[None]:
    """Run the opening of the store at ``url``; its failures leave as StorageOpenError."""
    try:
        yield
    except StorageOpenError:
        raise
    except (SQLAlchemyError, ImportError, OSError) as exc:
        raise StorageOpenError(describe_open_failure(url, exc)) from None


def shown_url(url: str | None) -> str:
    """``url`` as it may be shown: its password hidden."""
    if url is None:
        return "the default store"
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def describe_open_failure(url: str | None, exc: BaseException) -> str:
    """One line: which storage could not be opened, and why."""
    return f"Cannot open storage '{shown_url(url)}': {_reason(url, exc)}"


def _reason(url: str | None, exc: BaseException) -> str:
    if isinstance(exc, NoSuchModuleError):
        scheme = (url or "").split("://", 1)[0]
        return f"unknown kind of database '{scheme}' (try sqlite:///FILE or " \
               "postgresql+psycopg://user@host/db)"
    if isinstance(exc, ArgumentError):
        return "not a storage URL (dialect+driver://user@host/database)"
    if isinstance(exc, ImportError):
        return f"its database driver is not installed ({exc})"
    if isinstance(exc, DBAPIError):
        orig = exc.orig
        if getattr(orig, "sqlstate", None) == _INVALID_SCHEMA:
            return ("the schema to keep the store in does not exist (the first schema of "
                    "search_path; create it first)")
        text = _first_line(str(orig))
        if url is not None and "unable to open database file" in text:
            directory = os.path.dirname(make_url(url).database or "")
            if directory and not os.path.isdir(directory):
                return f"the directory '{directory}' does not exist"
        return text
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return _first_line(str(exc))


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "unknown error"
