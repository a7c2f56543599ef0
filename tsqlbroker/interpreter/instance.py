"""The instance: one storage URL per process, shared by its sessions.

It owns the :class:`~tsqlbroker.storage.store.Store`, the catalog, the compiled-procedure
cache and the T-SQL functions registered into the backend (so that queries the engine runs
can call ``LEN``, ``DATEADD`` …).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from typing import Any

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.opening import opening
from tsqlbroker.storage.store import Store

from .activity import install as install_activity
from .batchcache import CompiledCache
from .broker_runtime import runtime_for
from .compiler import load_handlers
from .instance_bridge import install as install_bridge
from .session import Session
from .sink import Sink
from .sysparams import install as install_parameters


class Instance:
    """What a SQL Server instance is: storage plus sessions (``@@SPID`` from 51)."""

    def __init__(self, url: str | None = None, *, background: bool = True) -> None:
        # Whether the broker's background work (activation, the clock, transmission) may start
        # in this process: False for the workers of a Spark drain, which must not activate
        # readers of their own beside the drain.
        self.background = background
        with opening(url):
            self.store = Store(url)
            try:
                self.catalog = Catalog.get(self.store)
                conn = self.store.connect()
                try:
                    self.catalog.ensure_schema(conn)
                finally:
                    conn.close()
            except BaseException:
                self.store.close()
                raise
        self._register_functions()
        load_handlers()  # now, on the creating thread, before sessions compile anywhere
        # Compiled procedures / functions: (db_id, object_id) -> (modify_date, compiled).
        self.procedure_cache: dict[tuple[int, int], tuple[Any, Any]] = {}
        # Compiled batches by (text, first line): a batch sent again is not compiled again.
        self.batch_cache = CompiledCache()
        # The broker wiring (and other families) hang per-instance state here.
        self.extensions: dict[str, Any] = {}
        self._spids = itertools.count(51)
        self._lock = threading.Lock()
        self.sessions: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self.closed = False
        # The broker's tables and catalog views exist from the start (a SELECT from
        # sys.services works before any broker statement ran); its background threads start
        # on the first broker statement, or when run / the REPL / serve start them.
        runtime_for(self, start=False)

    def _register_functions(self) -> None:
        """Make scalar UDFs and session functions (``USER_NAME()`` …) callable from SQL the
        engine runs (the built-ins, ``LEN(name)`` …, are the storage backend's own)."""
        install_bridge(self)
        # sys.dm_exec_sessions / requests and sys.dm_tran_locks read this instance's sessions.
        install_activity(self)
        install_parameters(self.store)  # sys.parameters parses the modules' definitions

    def next_spid(self) -> int:
        """The next session id (``@@SPID``)."""
        with self._lock:
            return next(self._spids)

    def session(self, sink: Sink, database: str = "master", *, login: str | None = None,
                password: str | None = None) -> Session:
        """A new session writing to ``sink``, starting in ``database``, as the SQL login
        ``login`` (its password checked: Msg 18456) or, by default, as ``sa``."""
        s = Session(self, sink, database, login=login, password=password)
        self.sessions[s.id] = s
        return s

    def forget_session(self, session: Any) -> None:
        """Called by :meth:`Session.close`."""
        self.sessions.pop(session.id, None)

    def close(self) -> None:
        """Close every session and release the storage."""
        if self.closed:
            return
        self.closed = True
        # Background work (activation, the broker clock) stops first: it uses sessions.
        for fn in list(self.extensions.get("on_close", [])):
            fn()
        for s in list(self.sessions.values()):
            with contextlib.suppress(Exception):  # closing must go on for the others
                s.close()
        self.store.close()
