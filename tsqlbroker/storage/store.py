"""The storage backend: one SQLAlchemy engine and connections with T-SQL-shaped transactions.

Connections run in driver autocommit mode and issue ``BEGIN``/``COMMIT``/``SAVEPOINT``
themselves. That lets a session *read* without holding a storage transaction (SQL Server's
READ COMMITTED: each statement sees what is committed) and take the storage write lock only at
its first write (``BEGIN IMMEDIATE`` on SQLite, so a reader never has to upgrade and fail).
Broker operations that SQL Server applies at commit (delivery of SENDs, removal of RECEIVEd
messages) are flushed by :class:`~tsqlbroker.storage.txn.Txn` at commit, so an idle ``WAITFOR``
or a long RECEIVE loop holds no storage lock.

URLs: ``None`` → the default SQLite file; ``sqlite://`` → a private database that lives in
memory-backed temporary storage for this process (a file under ``/dev/shm`` where it exists, so
that several sessions get real isolation, which a shared in-memory connection cannot give);
any other SQLAlchemy URL as is (``sqlite:///path``, ``postgresql+psycopg://…``). A PostgreSQL
store lives in its connections' home schema (the first of ``search_path``, e.g. set with
``?options=-csearch_path%3Dmystore``) plus one schema per T-SQL database (``catalog.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, MetaData, create_engine, event
from sqlalchemy.engine import CursorResult, make_url
from sqlalchemy.exc import DBAPIError, NoSuchModuleError

from ..errors import CancelledError
from .backends import backend_named
from .backends.base import Backend, PrivateFiles

if TYPE_CHECKING:
    from .backends.postgres import libpq as pgexec
else:
    # psycopg loads with the first PostgreSQL statement: SQLite runs never need it.
    from ..lazy import LazyModule

    pgexec = LazyModule("tsqlbroker.storage.backends.postgres.libpq", globals(), "pgexec")

DEFAULT_DB_ENV = "TSQLBROKER_URL"
T = TypeVar("T")
# SQLite virtual-machine steps between looks at a pending cancel while a statement runs.
_PROGRESS_STEPS = 1000
# What a statement of :meth:`StoreConnection.commit_guarded` raises when its check fails.
GUARD_FAILED = "tsqlb_guard_failed"
_GUARD_SAVEPOINT = "tsqlb_guard"
_INVALID_TEXT_REPRESENTATION = "22P02"


def default_url() -> str:
    """The storage used when no ``--url`` is given: ``$TSQLBROKER_URL`` or an SQLite file."""
    env = os.environ.get(DEFAULT_DB_ENV)
    if env:
        return env
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    path = base / "tsqlbroker" / "tsqlbroker.db"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # The default store holds everything the user's scripts wrote: private to the user even
    # where an older tsqlbroker made the directory and file with the umask's modes.
    for made, mode in ((path.parent, 0o700), (path, 0o600), (Path(f"{path}-wal"), 0o600),
                       (Path(f"{path}-shm"), 0o600)):
        restrict_to_owner(made, mode)
    return f"sqlite:///{path}"


def restrict_to_owner(path: Path, mode: int) -> None:
    """Set ``path`` to ``mode`` if it is this user's and group or others have any access
    (files an older version made with the umask's modes)."""
    try:
        st = path.stat()
        if st.st_mode & 0o077 and (not hasattr(os, "getuid") or st.st_uid == os.getuid()):
            path.chmod(mode)
    except OSError:
        pass


def _backend_of(url: str) -> Backend:
    """The backend of ``url``. An unknown kind of database or a missing driver is reported
    as SQLAlchemy reports it; a kind SQLAlchemy knows but tsqlbroker cannot store on is
    refused the same way (``NoSuchModuleError``)."""
    parsed = make_url(url)
    try:
        return backend_named(parsed.get_backend_name())
    except NoSuchModuleError:
        create_engine(parsed)     # raises for an unknown kind or a driver not installed
        raise


class Store:
    """One storage backend shared by every session of an instance (and its background tasks)."""

    def __init__(self, url: str | None = None, *, busy_timeout_ms: int = 60_000) -> None:
        self.requested_url = url
        self._private: PrivateFiles | None = None
        if url is None:
            url = default_url()
        # What differs between backends: the engine asks it, never the name.
        self.backend: Backend = _backend_of(url)
        self.url, self._private = self.backend.resolve_url(url)
        self.metadata = MetaData()
        self.engine: Engine = self.backend.create_engine(make_url(self.url), busy_timeout_ms,
                                                         self._on_connect)
        # Extension point for the engine modules: state shared per store (catalog caches,
        # lock manager, queue signals, activation monitor …), keyed by module.
        self.extensions: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._close_hooks: list[Any] = []
        self.closed = False
        # A connection still out when the store closes (its owner may still be finishing, or
        # never closed it and is collected later) comes back to the pool dispose() let go of,
        # which would keep it and its file descriptors open for good: close it on its return.
        event.listen(self.engine, "checkin", self._on_checkin)

    def _on_checkin(self, _dbapi_conn: Any, entry: Any) -> None:
        if self.closed:
            with suppress(Exception):
                entry.invalidate()

    def _on_connect(self, dbapi_conn: Any) -> None:
        for hook in list(self.extensions.get("connect_hooks", [])):
            hook(dbapi_conn)

    def add_connect_hook(self, hook: Callable[[Any], None]) -> None:
        """Run ``hook(dbapi_connection)`` on every new connection of an in-process backend
        (e.g. to register Python functions with ``create_function``)."""
        self.extensions.setdefault("connect_hooks", []).append(hook)

    def extension(self, key: str, factory: Any) -> Any:
        """The per-store object registered under ``key``, created by ``factory(store)`` once."""
        found = self.extensions.get(key)      # the usual case, asked per statement: no lock
        if found is not None:
            return found
        with self._lock:
            if key not in self.extensions:
                self.extensions[key] = factory(self)
            return self.extensions[key]

    def on_close(self, fn: Any) -> None:
        """Call ``fn()`` when the store closes, before its connections go (background
        threads of engine modules stop there)."""
        self._close_hooks.append(fn)

    def connect(self) -> StoreConnection:
        """A new connection for one session (or one background task)."""
        return StoreConnection(self, self.engine.connect())

    def close(self) -> None:
        """Release every pooled connection and, for ``sqlite://``, the private files."""
        hooks, self._close_hooks = self._close_hooks, []
        for fn in hooks:
            fn()
        self.closed = True
        self.engine.dispose()
        if self._private is not None:
            self._private.remove()


class StoreConnection:
    """One session's connection, with explicit transaction control.

    Reads may run with no storage transaction open. :meth:`write` opens one (taking SQLite's
    write lock) before the first write; :meth:`commit` / :meth:`rollback` end it.

    Cancellation: the owner sets :attr:`cancel_requested` (its session's pending-cancel
    test). Statements run inside :meth:`interruptible` — the engine's queries, which only
    read — stop when a cancel is pending (SQLite looks at it every few thousand steps of
    the statement; on PostgreSQL :meth:`interrupt`, called by whoever asks for the cancel,
    sends the server a cancel request). Statements that write are never interrupted in
    the middle: an interrupted write makes SQLite roll the whole transaction back, and the
    engine's writes are short row statements that check between rows instead.
    """

    def __init__(self, store: Store, conn: Connection) -> None:
        self.store = store
        self.conn = conn
        self.backend: Backend = store.backend
        self.in_write_txn = False
        # PostgreSQL: the write transaction is open for the engine but its BEGIN is not sent
        # yet: it travels with the transaction's first statement (one round trip saved per
        # transaction), or not at all when the transaction ends having run none.
        self._begin_pending = False
        # Whether :meth:`write` was called since the write transaction began: one opened by
        # :meth:`begin_unwritten` (to hold SQLite's write lock while a RECEIVE picks) and
        # not written to since may be ended early without losing anything of the session's.
        self.written = False
        self._savepoints: list[str] = []
        # Savepoints asked for while no write transaction was open: set when one begins
        # (a rollback to them then keeps the transaction, and with it the write lock).
        self._early_savepoints: list[str] = []
        self.cancel_requested: Callable[[], bool] | None = None
        # SQLite runs in this process: its statements look for a cancel themselves (a
        # progress handler); a server is sent a cancel request instead.
        self._in_process = store.backend.in_process
        # Whether statements can travel with the COMMIT in one round trip (a server's
        # multi-statement query; see :meth:`commit` and :meth:`commit_guarded`).
        self.sends_with_commit = not self._in_process
        self._interruptible = 0
        self._interrupt_lock = threading.Lock()

    # -- cancellation ---------------------------------------------------------------------
    def check_cancelled(self) -> None:
        """Raise :class:`CancelledError` when the owner asked the running work to stop."""
        requested = self.cancel_requested
        if requested is not None and requested():
            raise CancelledError()

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Run read-only backend statements that a cancel may stop midway (they then fail
        with the backend's own interruption error, which the engine reports as
        :class:`CancelledError`)."""
        self.check_cancelled()
        outer = self._interruptible == 0
        if outer and self._in_process:
            dbapi = self.conn.connection.dbapi_connection
            dbapi.set_progress_handler(self._progress, _PROGRESS_STEPS)  # type: ignore[union-attr]
        with self._interrupt_lock:
            self._interruptible += 1
        try:
            yield
        finally:
            with self._interrupt_lock:
                self._interruptible -= 1
            if outer and self._in_process:
                dbapi = self.conn.connection.dbapi_connection
                dbapi.set_progress_handler(None, 0)  # type: ignore[union-attr]

    def _progress(self) -> int:
        requested = self.cancel_requested
        return 1 if requested is not None and requested() else 0

    def interrupt(self) -> None:
        """Stop the interruptible statement running on this connection, if one is
        (thread-safe; for a server — SQLite's statements look for the cancel themselves)."""
        if self._in_process:
            return
        with self._interrupt_lock:
            if not self._interruptible:
                return
            try:
                dbapi = self.conn.connection.dbapi_connection
                dbapi.cancel_safe(timeout=5.0)  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001 - the statement ended or the link is gone
                return

    def backend_txn_lost(self) -> bool:
        """Whether the backend ended the transaction this connection believes open (SQLite
        rolls the whole transaction back when a statement writing in it is interrupted)."""
        if not self.in_write_txn or not self._in_process:
            return False
        return not self.conn.connection.dbapi_connection.in_transaction  # type: ignore[union-attr]

    def execute(self, statement: Any, params: Mapping[str, Any] | list[Any] | None = None
                ) -> CursorResult[Any]:
        """Run a SQLAlchemy Core statement or ``text()`` construct on this connection."""
        if self._begin_pending:
            self._send_begin()
        try:
            if params is None:
                return self.conn.execute(statement)
            return self.conn.execute(statement, params)
        except DBAPIError as e:
            self._after_error(e)
            raise

    def exec_driver_sql(self, sql: str, params: Any = None) -> CursorResult[Any]:
        """Run backend SQL text with DBAPI-style parameters."""
        if self._begin_pending:
            self._send_begin()
        try:
            if params is None:
                return self.conn.exec_driver_sql(sql)
            return self.conn.exec_driver_sql(sql, params)
        except DBAPIError as e:
            self._after_error(e)
            raise

    def execute_fast(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Run hot-path SQL (``?`` placeholders) on the driver connection, in this
        connection's transaction; a cursor-like object (see ``Backend.execute_fast``)."""
        return self.backend.execute_fast(self, sql, params)

    def driver_call(self, fn: Callable[..., T], *args: Any) -> T:
        """PostgreSQL: ``fn(psycopg_connection, *args)``, one of :mod:`.pgexec`'s direct
        libpq calls, failing as statements on SQLAlchemy's path fail (a ``DBAPIError``);
        a lost connection is handed back to the pool as such (see :meth:`_after_error`).
        A transaction's pending BEGIN goes with a hot-path statement or SQL text
        (:func:`.pgexec.execute` / :func:`.pgexec.execute_text`), before anything else."""
        dbapi = self.conn.connection.dbapi_connection
        if self._begin_pending and fn is not pgexec.merged:
            self._begin_pending = False
            if fn is pgexec.execute:
                fn = pgexec.execute_after_begin
            elif fn is pgexec.execute_text:
                args = (f"BEGIN; {args[0]}", *args[1:])
            else:
                self._control("BEGIN")
        try:
            return fn(dbapi, *args)
        except pgexec.DriverError as e:
            sql = args[0] if args and isinstance(args[0], str) else None
            err = pgexec.dbapi_error(dbapi, e, sql)  # type: ignore[arg-type]
            if isinstance(err, DBAPIError):
                self._after_error(err)
            raise err from e

    # The old name, still called by engine/execsql.py (P3's; P5 drops this).
    pg_call = driver_call

    def _after_error(self, e: DBAPIError) -> None:
        """A statement failed (on PostgreSQL the error learns the server process that ran
        it: ``backend_pid``). When the connection is gone, the storage transaction went
        with it: the pool gets the connection back as invalid (it opens a new one, so the
        statements prepared on the old one are never looked for again) and the next
        statement runs on a new connection, outside any transaction."""
        if not e.connection_invalidated:
            self.backend.note_statement_error(self, e)
            return
        if not self.conn.invalidated:
            self.conn.invalidate(e.orig)  # type: ignore[arg-type]
        self.conn.rollback()      # SQLAlchemy's bookkeeping only: the next use reconnects
        self.in_write_txn = False
        self._begin_pending = False
        self._savepoints.clear()

    def _control(self, sql: str) -> None:
        # Transaction control straight on the DBAPI connection: SQLAlchemy's per-statement
        # bookkeeping (events, result set-up) costs several times what the backend takes to
        # run BEGIN / COMMIT, and these run twice per T-SQL transaction. SQLAlchemy does not
        # track them either way (the connection is in AUTOCOMMIT mode).
        self.backend.control(self, sql)

    def write(self) -> None:
        """Make sure a storage transaction is open before writing."""
        self.written = True
        if not self.in_write_txn:
            self._begin()

    def begin_unwritten(self) -> bool:
        """Open the write transaction (SQLite: take the file's write lock) before anything
        is written, so that what is read next cannot change until it ends; True if opened
        here. See :attr:`written` and :meth:`end_unwritten`."""
        if self.in_write_txn:
            return False
        self._begin()
        self.written = False
        return True

    def end_unwritten(self, commit: bool) -> None:
        """End a write transaction the session wrote nothing in (:meth:`begin_unwritten`;
        ``commit``: what other code wrote in it on the session's behalf, e.g. the broker's
        group claims, is kept). Savepoints set in it wait for the next one, as if it had
        never begun."""
        early = self._savepoints
        if self._begin_pending:
            self._begin_pending = False       # nothing was sent: nothing to end
        else:
            self._control("COMMIT" if commit else "ROLLBACK")
        self.in_write_txn = False
        self._savepoints = []
        self._early_savepoints = early

    def flush_begin(self) -> None:
        """Send a pending BEGIN now: for code about to use the DBAPI connection directly."""
        if self._begin_pending:
            self._send_begin()

    def _send_begin(self) -> None:
        """Send the pending BEGIN on its own (the next statement cannot carry it)."""
        self._begin_pending = False
        self._control(self.backend.write_begin_sql)

    def _begin(self) -> None:
        if self.backend.deferred_begin:
            self._begin_pending = True   # sent with the first statement (see driver_call)
        else:
            self._control(self.backend.write_begin_sql)
        self.in_write_txn = True
        for name in self._early_savepoints:
            self.exec_driver_sql(f'SAVEPOINT "{name}"')
            self._savepoints.append(name)
        self._early_savepoints = []

    def savepoint(self, name: str) -> None:
        """Set a storage savepoint; outside a write transaction, at the start of the next
        one (nothing is written before it)."""
        if not self.in_write_txn:
            self._early_savepoints.append(name)
            return
        self.exec_driver_sql(f'SAVEPOINT "{name}"')
        self._savepoints.append(name)

    def rollback_to(self, name: str) -> None:
        """Undo writes back to savepoint ``name`` (which stays set)."""
        if name in self._savepoints:
            self.exec_driver_sql(f'ROLLBACK TO SAVEPOINT "{name}"')
            del self._savepoints[self._savepoints.index(name) + 1:]
        elif name in self._early_savepoints:
            del self._early_savepoints[self._early_savepoints.index(name) + 1:]

    def has_savepoint(self, name: str) -> bool:
        return name in self._savepoints or name in self._early_savepoints

    def commit(self, before: str | None = None) -> None:
        """Commit the storage transaction, if one is open. ``before``: parameterless SQL
        run just before the COMMIT, sent with it in one round trip (PostgreSQL's simple
        query protocol takes several statements; SQLite's ``execute`` does not: unused
        there). Run on its own when no transaction is open."""
        self._early_savepoints.clear()
        if not self.in_write_txn:
            if before:
                self._control(before)
            return
        pending, self._begin_pending = self._begin_pending, False
        try:
            if pending and not before:
                return          # nothing ran in it: there is nothing to commit
            text = f"{before}; COMMIT" if before else "COMMIT"
            self._control(f"BEGIN; {text}" if pending else text)
        except BaseException:
            self._after_failed_commit(before is not None)
            raise
        finally:
            self.in_write_txn = False
            self._savepoints.clear()

    def _after_failed_commit(self, along: bool) -> None:
        """A COMMIT text failed. When statements went with it (``along``), the server
        skipped the rest of the text, COMMIT included, and keeps the transaction open in its
        failed state: end it, or the session's next statement would fail in it."""
        if not along or not self.sends_with_commit or self.conn.invalidated:
            return
        with suppress(Exception):          # the connection may be gone; then so is the txn
            self._control("ROLLBACK")

    def commit_guarded(self, guarded: str, before: str | None = None) -> bool:
        """PostgreSQL: commit with ``guarded`` — parameterless SQL whose check, when it fails,
        raises ``invalid_text_representation`` naming :data:`GUARD_FAILED` (e.g. by casting
        ``'<GUARD_FAILED>:' || n`` to an integer) — run first, in a savepoint, then
        ``before``, then the COMMIT: one round trip. True: committed. False: the check failed
        (the server skipped the rest of the text): the savepoint is rolled back, nothing of
        ``guarded`` stays and the transaction is still open for the caller to finish."""
        return self._commit_with_guard(guarded, before, rows=False) is not None

    def commit_guarded_rows(self, guarded: str, before: str | None = None
                            ) -> list[tuple[Any, ...]] | None:
        """:meth:`commit_guarded` for a ``guarded`` statement whose rows are wanted (one
        round trip still): its rows once committed; None when its check failed (nothing of
        it stays, the transaction is still open)."""
        return self._commit_with_guard(guarded, before, rows=True)

    def _commit_with_guard(self, guarded: str, before: str | None, *, rows: bool
                           ) -> list[tuple[Any, ...]] | None:
        if not self.in_write_txn:
            raise RuntimeError("commit_guarded outside a write transaction")
        pending, self._begin_pending = self._begin_pending, False
        tail = f"{before}; COMMIT" if before else "COMMIT"
        text = (f"SAVEPOINT {_GUARD_SAVEPOINT}; {guarded}; RELEASE SAVEPOINT "
                f"{_GUARD_SAVEPOINT}; {tail}")
        got: list[tuple[Any, ...]] = []
        try:
            if rows:
                # The guarded statement's rows: it follows the savepoint (and the BEGIN).
                got = self.backend.control_rows(self, f"BEGIN; {text}" if pending else text,
                                                2 if pending else 1)
            else:
                self._control(f"BEGIN; {text}" if pending else text)
        except DBAPIError as e:
            orig = e.orig
            if (not e.connection_invalidated
                    and getattr(orig, "sqlstate", None) == _INVALID_TEXT_REPRESENTATION
                    and GUARD_FAILED in str(orig)):
                self._control(f"ROLLBACK TO SAVEPOINT {_GUARD_SAVEPOINT}; "
                              f"RELEASE SAVEPOINT {_GUARD_SAVEPOINT}")
                return None
            self._after_failed_commit(True)
            self.in_write_txn = False
            self._savepoints.clear()
            raise
        except BaseException:
            self._after_failed_commit(True)
            self.in_write_txn = False
            self._savepoints.clear()
            raise
        self.in_write_txn = False
        self._savepoints.clear()
        self._early_savepoints.clear()
        return got

    def rollback(self) -> None:
        """Roll the storage transaction back, if one is open (and the backend has not
        rolled it back already)."""
        self._early_savepoints.clear()
        if self.in_write_txn:
            pending, self._begin_pending = self._begin_pending, False
            try:
                if not pending and not self.backend_txn_lost():
                    self._control("ROLLBACK")
            finally:
                self.in_write_txn = False
                self._savepoints.clear()

    def close(self) -> None:
        """Roll back anything open and return the connection to the pool."""
        try:
            self.rollback()
        finally:
            self.conn.close()
