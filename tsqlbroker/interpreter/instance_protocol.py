"""The instance as its parts see it: :class:`InstanceLike`.

:class:`~tsqlbroker.interpreter.instance.Instance` builds its sessions, its broker runtime,
its UDF bridge and its session DMVs, and each of those holds the instance back. They are typed
by this protocol rather than by the class, so that instance.py imports them at its top and
none of them imports instance.py.
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.storage.store import Store

from .batchcache import CompiledCache
from .sink import Sink


class InstanceLike(Protocol):
    """What a session, the broker runtime, the UDF bridge and the DMVs use of their
    instance (attributes documented on :class:`~tsqlbroker.interpreter.instance.Instance`)."""

    background: bool
    store: Store
    catalog: Catalog
    procedure_cache: dict[tuple[int, int], tuple[Any, Any]]
    batch_cache: CompiledCache
    extensions: dict[str, Any]
    sessions: weakref.WeakValueDictionary[int, Any]
    closed: bool

    def next_spid(self) -> int:
        """The next session id (``@@SPID``)."""

    def session(self, sink: Sink, database: str = "master", *, login: str | None = None,
                password: str | None = None) -> Any:
        """A new session writing to ``sink``, starting in ``database``."""

    def forget_session(self, session: Any) -> None:
        """Called by the session's ``close``."""

    def close(self) -> None:
        """Close every session and release the storage."""
