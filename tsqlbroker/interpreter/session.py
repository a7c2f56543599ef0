"""A session: one connection's state (database, transaction, @@ variables, options) and the
entry points that run T-SQL text, parsed batches and procedures.

Errors follow SQL Server's rules (see ``runtime_errors``): :meth:`Session.statement_error` is
called by every compiled statement that fails and decides whether the batch goes on (the
error is reported to the sink and ``@@ERROR`` set) or the error travels on (TRY…CATCH, batch
or scope abortion). Transactions: :meth:`txn_for_statement` is *the* way a statement handler
gets the engine :class:`~tsqlbroker.engine.txn.Txn` to work in.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.security import Security
from tsqlbroker.errors import CancelledError, ExecutionError, TSqlError, tsql_error
from tsqlbroker.grammar import ast, parser
from tsqlbroker.storage.failures import is_transient
from tsqlbroker.storage.txn import Txn

from . import transactions as tx
from .batchcache import batch_key, split_key
from .compiler import GotoSignal, ReturnSignal, Signal, internal_error
from .frames import Frame
from .runtime_errors import (
    NOT_XACT_ABORTING,
    aborts_batch,
    aborts_scope,
    ends_transaction,
    is_raiserror,
)
from .sink import Sink
from .typenames import bind_alias_types

if TYPE_CHECKING:
    from .instance_protocol import InstanceLike

__all__ = ["CancelledError", "Session"]


class SessionParts:
    """What the modules above the session plug in at import (they import this module):
    ``compile_batch(batch)`` and ``call_procedure_batch(session, name, args)`` from
    ``procedures.py``; ``drop_table_variables(session, frame)`` and
    ``drop_session_objects(session)`` from ``dml_stmts.py``. Both load with the statement
    handlers (:func:`~tsqlbroker.interpreter.compiler.load_handlers`), before an instance
    makes its first session."""

    compile_batch: Callable[[ast.Batch], Any]
    call_procedure_batch: Callable[[Session, str, dict[str, Any]], int]
    drop_table_variables: Callable[[Session, Frame], None]
    drop_session_objects: Callable[[Session], None]


SESSION_PARTS = SessionParts()


class KilledError(CancelledError):
    """The session was ended by ``KILL`` from another session (Msg 596)."""

    def __init__(self) -> None:
        ExecutionError.__init__(self, 596, "Cannot continue the execution because the "
                                           "session is in the kill state.", severity=21)
        self.batch_abort = True


class Session:
    """One T-SQL session of an :class:`Instance` (what a client connection is to SQL Server).

    Not thread-safe except :meth:`cancel`: one batch runs at a time."""

    def __init__(self, instance: InstanceLike, sink: Sink, database: str = "master",
                 *, spid: int | None = None, login: str | None = None,
                 password: str | None = None) -> None:
        self.instance = instance
        self.sink = sink
        self.id: int = spid if spid is not None else instance.next_spid()
        self.conn = instance.store.connect()
        # -- identity: sa (sysadmin) unless a SQL login and its password are given
        self.login_name = "sa"
        self.login_sid: bytes | None = b"\x01"
        self.sysadmin = True
        if login is not None:
            try:
                found = Security.get(instance.store).authenticate(self.conn, login,
                                                                  password or "")
            except TSqlError:
                self.conn.close()
                raise
            self.login_name, self.login_sid = found.name, found.sid
            self.sysadmin = found.principal_id == 1
        db_id = instance.catalog.database_id(self.conn, database)
        if db_id is None:
            self.conn.close()
            raise tsql_error(911, database)
        row = instance.catalog.database(self.conn, db_id)
        self.current_database: str = row.name if row is not None else database
        self.db_id: int = db_id
        # -- transactions
        self.trancount = 0
        self.txn: Txn | None = None          # the explicit transaction, if one is open
        self.stmt_txn: Txn | None = None     # the implicit transaction of the running statement
        self.tran_name: str | None = None
        self.doomed = False
        # -- @@ variables and SET options
        self.rowcount = 0
        self.error = 0
        self.identity: Any = None            # @@IDENTITY
        self.fetch_status = -1
        self.cursor_rows = 0
        self.nocount = False
        self.xact_abort = False
        self.datefirst = 7
        self.options: dict[str, str] = {}
        # -- error handling
        self.try_depth = 0
        # Scalar / table-valued functions running: an error inside one stops the function
        # and the statement that called it (statement-level errors do not go on there).
        self.function_depth = 0
        self.caught: list[TSqlError] = []    # the errors of the CATCH blocks running
        self.errors_reported = 0
        # -- session objects
        self.temp_tables: dict[str, Any] = {}
        # The #temp tables the running scope (batch or procedure) created itself: another
        # scope's of the same name is the caller's, which a CREATE TABLE here hides.
        self.temp_own: set[str] = set()
        # Object ids of the tables with SET IDENTITY_INSERT ON (engine ExecContext.identity_insert).
        self.identity_insert: set[int] = set()
        self.cursors: dict[str, Any] = {}    # GLOBAL cursors by lower-case name
        self.nestlevel = 0
        self.insert_exec_depth = 0
        self.context_info: bytes | None = None
        self._cancel = False
        self._cancelled_batch = False
        # The engine's queries look at this while they run (StoreConnection.interruptible).
        # Through a weak reference: the connection must not keep its session alive (an
        # instance's session registry is weak, and DROP DATABASE asks it who is connected).
        cancelled = weakref.WeakMethod(self.cancelled)
        self.conn.cancel_requested = lambda: (m := cancelled()) is not None and m()
        self._lock = threading.Lock()
        self.closed = False
        # -- activity (sp_who, sys.dm_exec_sessions / requests, KILL)
        self.program_name = "tsqlbroker"
        self.login_time = datetime.now()
        self.last_request_start: datetime | None = None
        self.last_request_end: datetime | None = None
        self.request_start: datetime | None = None   # set while a request runs
        self.request_thread: int | None = None
        self.command = "AWAITING COMMAND"            # of the statement running last
        self.wait_type: str | None = None
        self.wait_started = 0.0
        self.cpu_ms = 0                              # of the requests that ended
        self.killed = False
        self._request_cpu_start = 0.0
        self._request_depth = 0
        self._request_lock = threading.RLock()
        # SET STATISTICS TIME / IO (a StatisticsReport while either is ON).
        self.statistics: Any = None
        # Extension point for other statement families (the broker keeps per-session state).
        self.extensions: dict[str, Any] = {}

    # -- running text -------------------------------------------------------------------------
    def execute(self, text: str, *, start_line: int = 1) -> bool:
        """Split ``text`` into GO batches (``GO n`` repeats) and run each one.

        Errors go to the sink; returns False if any batch reported an error."""
        ok = True
        self._cancel = False  # a cancel from now on (even while parsing) stops this text
        cache = self.instance.batch_cache
        key = split_key(text)
        chunks = cache.get(key) if key is not None else None
        if chunks is None:
            try:
                chunks = parser.split_batches(text)
            except TSqlError as e:
                self.report(e)
                return False
            if key is not None:
                cache.put(key, chunks)
        for chunk in chunks:
            line = start_line + chunk.start_line - 1
            key = batch_key(chunk.text, line)
            compiled = cache.get(key) if key is not None else None
            if compiled is None:
                try:
                    batch = parser.parse_batch(chunk.text, line)
                except TSqlError as e:
                    self.report(e)
                    ok = False
                    continue
                with self.request():
                    ok = self._execute_batch(batch, max(chunk.repeat, 1), key) and ok
            else:
                with self.request():
                    ok = self._run_compiled(compiled, line, max(chunk.repeat, 1), None) and ok
            if self._cancelled_batch:
                return False  # a cancelled script runs no further batches
        return ok

    def execute_batch(self, batch: ast.Batch, *, repeat: int = 1) -> bool:
        """Compile one parsed batch and run it (``repeat`` times, for ``GO n``: compiled once).

        Errors go to the sink; returns False if any occurred."""
        with self.request():
            return self._execute_batch(batch, repeat, None)

    def _execute_batch(self, batch: ast.Batch, repeat: int, key: Any) -> bool:
        """Compile ``batch`` (keeping it in the instance's batch cache under ``key`` unless
        that is None) and run it."""
        if self.killed:
            return self._run_compiled(None, batch.start_line, repeat, None)
        stats = self.statistics
        compile_started = stats.compile_started() if stats is not None else None
        try:
            compiled = SESSION_PARTS.compile_batch(batch)
        except TSqlError as e:
            self.report(e)
            return False
        except Exception as e:  # noqa: BLE001 - a compiler bug must not become a traceback
            self.report(internal_error(e))
            return False
        if key is not None:
            self.instance.batch_cache.put(key, compiled)
        return self._run_compiled(compiled, batch.start_line, repeat, compile_started)

    def _run_compiled(self, compiled: Any, line: int, repeat: int,
                      compile_started: tuple[float, float] | None) -> bool:
        """Run a compiled batch ``repeat`` times; ``compile_started`` is when its compiling
        started (SET STATISTICS TIME), None when it came from the cache (no time spent)."""
        before = self.errors_reported
        self._cancelled_batch = False
        if self.killed:
            self._report_killed()
            return False
        stats = self.statistics
        if stats is not None:
            stats.compiled(self, compile_started or stats.compile_started())
        for _ in range(repeat):
            frame = Frame(self, compiled.nslots, level=0)
            self.run_scope(compiled.run, frame)
            self.end_batch(line)
            if self._cancelled_batch:
                break
        self._cancel = False  # a cancel that came too late to stop anything is forgotten
        return self.errors_reported == before

    def run_scope(self, run: Any, frame: Frame) -> int | None:
        """Run a batch-level body; report what escapes. Returns the RETURN value, if any."""
        try:
            run(frame)
        except ReturnSignal as r:
            return r.value
        except GotoSignal as g:  # checked at compile time; defensive
            self.report(ExecutionError(133, f"A GOTO statement references the label "
                                            f"'{g.label}' but the label has not been "
                                            "declared.", severity=15))
        except CancelledError as e:
            # SQL Server's attention: the statement was rolled back and the batch ends; an
            # open transaction stays open unless XACT_ABORT is ON (or the backend ended
            # it: SQLite rolls back a transaction whose write it interrupted). KILL's
            # cancel rolls the transaction back.
            e = self.cancellation(e)
            if isinstance(e, KilledError) or self.xact_abort or self.conn.backend_txn_lost():
                tx.rollback_all(self)
            self._cancelled_batch = True
            self.report(e)
        except TSqlError as e:
            self.rollback_statement()
            self.report(e)
        except Signal:
            pass
        except Exception as e:  # noqa: BLE001 - never a traceback for the user
            self.rollback_statement()
            self.report(internal_error(e))
        finally:
            self.drop_scope_objects(frame)
        return None

    def end_batch(self, line: int = 1) -> None:
        """Batch-end rules: a doomed transaction is rolled back with Msg 3998 (reported at
        the batch's first line, SQL Server's "Line 1")."""
        self.rollback_statement()
        if self.doomed and self.trancount > 0:
            tx.rollback_all(self)
            err = tsql_error(3998)
            err.line = line
            self.report(err)
        if self.txn is not None:
            # Left open until the next batch: hold no storage lock meanwhile if possible.
            self.txn.pause()
        self.try_depth = 0
        self.caught.clear()
        self.nestlevel = 0

    def call_procedure(self, name: str, args: dict[str, Any] | None = None) -> int:
        """Run stored procedure ``name`` as its own batch (activation uses this).

        ``args`` maps parameter names (with or without ``@``) to values. Errors go to the
        sink; returns the procedure's RETURN status (non-zero after an error)."""
        before = self.errors_reported
        with self.request():
            if self.killed:
                self._report_killed()
                return -6
            status = SESSION_PARTS.call_procedure_batch(self, name, args or {})
            self.end_batch()
        self._cancel = False
        if self.errors_reported != before and not status:
            return -6
        return status

    # -- activity -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def request(self) -> Iterator[None]:
        """Mark a request (a batch, an activated procedure) as running in this session, for
        sp_who and sys.dm_exec_requests; nested requests count as one."""
        with self._request_lock:
            self._request_depth += 1
            outer = self._request_depth > 1
            if not outer:
                now = datetime.now()
                self.request_start = self.last_request_start = now
                self.request_thread = threading.get_ident()
                self._request_cpu_start = time.thread_time()
                self.command = "AWAITING COMMAND"
            try:
                with bind_alias_types(self):
                    yield
            finally:
                self._request_depth -= 1
                if not outer:
                    self.cpu_ms += int((time.thread_time() - self._request_cpu_start) * 1000)
                    self.request_start = None
                    self.request_thread = None
                    self.last_request_end = datetime.now()
                    self.command = "AWAITING COMMAND"

    @contextlib.contextmanager
    def waiting(self, wait_type: str) -> Iterator[None]:
        """Mark the running request as waiting (``WAITFOR``, ``BROKER_RECEIVE_WAITFOR``)."""
        outer = self.wait_type
        self.wait_type, self.wait_started = wait_type, time.monotonic()
        try:
            yield
        finally:
            self.wait_type = outer

    def request_cpu_ms(self) -> int:
        """CPU time of the running request so far (0 when idle); callable from any thread."""
        thread = self.request_thread
        if thread is None:
            return 0
        try:
            clock = time.pthread_getcpuclockid(thread)
            return max(int((time.clock_gettime(clock) - self._request_cpu_start) * 1000), 0)
        except (AttributeError, OSError):  # not on this platform, or the thread just ended
            return 0

    def kill(self) -> None:
        """End this session's work as ``KILL`` does, from another session's thread: a
        running request stops at its next statement or wait with Msg 596 and rolls back;
        an idle session's open transaction is rolled back now. The session takes no more
        requests (each is answered with Msg 596)."""
        self.killed = True
        if self._request_lock.acquire(blocking=False):
            try:
                if self._request_depth == 0:
                    self.rollback_statement()
                    if self.trancount:
                        tx.rollback_all(self)
                    return
            finally:
                self._request_lock.release()
        self.cancel()  # a query running in a server is stopped there too

    def cancellation(self, e: CancelledError) -> CancelledError:
        """What a cancelled request reports: Msg 596 whenever the cancel was KILL's, also
        where it stopped a storage statement (the storage layer raises a plain cancellation
        for an interrupted query, not knowing why it was asked to stop)."""
        if not self.killed or isinstance(e, KilledError):
            return e
        killed = KilledError()
        killed.line, killed.procedure = e.line, e.procedure
        return killed

    def _report_killed(self) -> None:
        self.rollback_statement()
        if self.trancount:
            tx.rollback_all(self)
        self.report(KilledError())

    # -- errors -------------------------------------------------------------------------------
    def report(self, e: TSqlError) -> None:
        """Send an error to the client and set ``@@ERROR``."""
        self.errors_reported += 1
        self.error = e.number
        self.sink.error(e)

    def statement_error(self, e: TSqlError, f: Frame, line: int) -> None:
        """A statement of ``f`` raised ``e`` at ``line``: report it or let it travel on."""
        if not getattr(e, "located", False):
            e.located = True  # type: ignore[attr-defined]
            if not getattr(e, "keep_location", False):
                e.line = line
                e.procedure = f.proc
            e.scope_frame = f  # type: ignore[attr-defined]
        if is_transient(e):
            # Before any rollback below: it is not the work's fault (no poison message).
            for txn in (self.txn, self.stmt_txn):
                if txn is not None:
                    txn.forced_rollback = True
        self.rollback_statement()
        self.error = e.number
        # A failure the storage transaction did not survive (a statement sent with its
        # COMMIT, Txn.commit_returning) ends the session's too, whatever its number.
        ended = self.txn is not None and not self.txn.active
        if isinstance(e, CancelledError):
            if ended and self.trancount > 0:
                tx.rollback_all(self)
            raise e
        if (ends_transaction(e) or ended) and self.trancount > 0:
            if self.try_depth > 0:
                tx.doom_rolled_back(self)
            else:
                tx.rollback_all(self)
        if self.xact_abort and e.severity > 10 and not is_raiserror(e) \
                and e.number not in NOT_XACT_ABORTING:
            if self.try_depth > 0:
                if self.trancount > 0:
                    self.doomed = True
            else:
                tx.rollback_all(self)
                e.batch_abort = True  # type: ignore[attr-defined]
        if self.try_depth > 0 or self.function_depth > 0 or aborts_batch(e) or aborts_scope(e):
            raise e
        self.report(e)
        if getattr(e, "terminated_note", False):
            self.sink.message("The statement has been terminated.")

    # -- transactions -------------------------------------------------------------------------
    def new_txn(self) -> Txn:
        """A fresh engine transaction on this session's connection."""
        return Txn(self.conn, owner=self)

    def txn_for_statement(self) -> Txn:
        """The Txn the running statement must work in: the explicit transaction when one is
        open, else the statement's own (created on first use, committed by the statement
        wrapper when the statement ends, rolled back if it fails)."""
        if self.txn is not None:
            return self.txn
        if self.stmt_txn is None:
            self.stmt_txn = Txn(self.conn, owner=self)
        return self.stmt_txn

    def check_writable(self) -> None:
        """Msg 3930 when the open transaction is doomed (XACT_STATE() = -1)."""
        if self.doomed and self.trancount > 0:
            raise tsql_error(3930)

    def end_statement(self) -> None:
        """Commit the implicit transaction of the statement that just ended."""
        txn = self.stmt_txn
        self.stmt_txn = None
        if txn is not None:
            txn.commit()

    def rollback_statement(self) -> None:
        """Roll back the implicit transaction of a failed statement (if any)."""
        txn = self.stmt_txn
        self.stmt_txn = None
        if txn is not None:
            txn.rollback()

    @property
    def xact_state(self) -> int:
        return tx.xact_state(self)

    # -- cancellation -------------------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the running batch to stop (thread-safe). It stops at the next statement
        boundary, in a wait or inside a running query, rolls back the statement it was in
        (and, with XACT_ABORT ON, the open transaction) and reports the cancellation."""
        self._cancel = True
        self.conn.interrupt()

    def cancelled(self) -> bool:
        """Whether a cancel is pending (waits poll this)."""
        return self._cancel

    def check_cancel(self) -> None:
        """Raise the cancellation error if :meth:`cancel` was called (Msg 596 after KILL)."""
        if self._cancel:
            self._cancel = False
            raise KilledError() if self.killed else CancelledError()

    # -- databases ----------------------------------------------------------------------------
    def use(self, name: str) -> None:
        """``USE name``: Msg 911 if it does not exist."""
        row = self.instance.catalog.database(self.conn, name)
        if row is None:
            raise tsql_error(911, name)
        self.current_database = row.name
        self.db_id = row.database_id

    # -- scope objects ------------------------------------------------------------------------
    def drop_scope_objects(self, frame: Frame) -> None:
        """Drop the table variables and LOCAL cursors of a scope that ended."""
        frame.cursors.clear()
        if frame.table_vars:
            SESSION_PARTS.drop_table_variables(self, frame)

    def close(self) -> None:
        """Roll back anything open, drop temp tables, release the connection."""
        if self.closed:
            return
        self.closed = True
        try:
            self.rollback_statement()
            if self.trancount:
                tx.rollback_all(self)
            SESSION_PARTS.drop_session_objects(self)
        except TSqlError:
            pass
        finally:
            self.conn.close()
            self.instance.forget_session(self)
