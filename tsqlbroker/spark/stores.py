"""The store as a Spark task sees it: one :class:`Instance` per URL in each Python worker.

Spark runs a data source's planning and every task in Python worker processes of their own
(on the driver's machine for planning, on the executors for tasks); each opens the store
itself from the URL — an SQLite file in WAL mode on a disk they share, or a PostgreSQL server
they can reach. Workers are reused across tasks, so the instance (engine, catalog caches,
broker metadata) is opened once per worker. Its broker does no background work there
(``background=False``): a worker must not activate readers of its own beside the drain.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import select

from tsqlbroker.engine.broker import Broker, QueueRow
from tsqlbroker.engine.context import ExecContext
from tsqlbroker.engine.dml import execute_sql
from tsqlbroker.engine.dml import insert_rows as dml_insert_rows
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import BindError, TSqlError, tsql_error
from tsqlbroker.interpreter import transactions as tx
from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.interpreter.session import Session

# The stores this worker has open, most recently used last. A worker that outlives many
# stores (a test run, a notebook) closes the least recently used beyond a few.
_instances: OrderedDict[str, Instance] = OrderedDict()
_KEEP = 4
_lock = threading.Lock()
_CHUNK = 400        # values per IN list
_PART = re.compile(r"\[((?:[^\]]|\]\])*)\]|([^.\[\]]+)")


def instance_for(url: str) -> Instance:
    """This process's instance of the store at ``url`` (opened on first use)."""
    with _lock:
        inst = _instances.get(url)
        if inst is None or inst.closed:
            inst = Instance(url, background=False)
            _instances[url] = inst
        _instances.move_to_end(url)
        while len(_instances) > _KEEP:
            _url, old = _instances.popitem(last=False)
            old.close()
        return inst


def close_instances() -> None:
    """Close every instance this process opened (the driver's, at the end of a command)."""
    with _lock:
        for inst in _instances.values():
            inst.close()
        _instances.clear()


def split_name(text: str) -> tuple[str | None, str]:
    """``schema.name``, ``[schema].[name]`` or ``name`` → (schema or None, name)."""
    parts = [m.group(1).replace("]]", "]") if m.group(1) is not None else m.group(2).strip()
             for m in _PART.finditer(text.strip())]
    if not parts or len(parts) > 2 or not all(parts):
        raise ValueError(f"not a one- or two-part name: {text!r}")
    return (None, parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def quote(name: str) -> str:
    """``name`` as a bracketed T-SQL identifier."""
    return "[" + name.replace("]", "]]") + "]"


class TaskSink:
    """A task session's output: PRINT text kept (bounded) for the log, errors raised by the
    caller (:meth:`raise_first`)."""

    def __init__(self, keep: int = 200) -> None:
        self.keep = keep
        self.messages: list[str] = []
        self.errors: list[TSqlError] = []

    def message(self, text: str) -> None:
        """A PRINT or informational message."""
        if len(self.messages) < self.keep:
            self.messages.append(text)

    def resultset(self, rs: ResultSet) -> None:
        """Result sets of handlers and procedures go nowhere (as activation's do)."""

    def error(self, err: TSqlError) -> None:
        """An error that reached the client."""
        self.errors.append(err)

    def rows_affected(self, n: int) -> None:
        """Row counts are not kept."""

    def take_errors(self) -> list[TSqlError]:
        """The errors since the last call."""
        errors, self.errors = self.errors, []
        return errors

    def raise_first(self) -> None:
        """Raise the first error reported since the last call, if any."""
        errors = self.take_errors()
        if errors:
            raise errors[0]


@contextmanager
def task_session(url: str, database: str) -> Iterator[Session]:
    """A session of this worker's instance in ``database`` (Msg 911 if there is none),
    closed — rolling back whatever it left open — at the end."""
    session = instance_for(url).session(TaskSink(), database)
    try:
        yield session
    finally:
        session.close()


def broker_of(session: Session) -> Broker:
    """The broker of the session's store."""
    return Broker.get(session.instance.store)


def begin(session: Session) -> Any:
    """Open the session's transaction (``BEGIN TRAN``) and return the engine transaction."""
    tx.begin(session)
    return session.txn


def commit(session: Session) -> None:
    """``COMMIT`` the session's transaction."""
    tx.commit(session)


def rollback(session: Session) -> None:
    """Roll the session's transaction back, if one is open."""
    if session.trancount:
        tx.rollback_all(session)


def _context(session: Session, txn: Any) -> ExecContext:
    return ExecContext(session.conn, txn, session.db_id, session.id, session.temp_tables, {},
                       identity_insert=session.identity_insert)


def insert_rows(session: Session, table: str, columns: list[str],
                rows: list[tuple[Any, ...]]) -> int:
    """Insert Python rows into ``table`` in the session's open transaction (constraints,
    defaults and conversions as INSERT applies them); the number of rows."""
    assert session.txn is not None
    return dml_insert_rows(_context(session, session.txn), table, columns, rows)


def run_sql(session: Session, sql: str, params: Mapping[str, tuple[Any, str]] | None = None
            ) -> ResultSet | None:
    """One T-SQL data statement through the engine with bound ``params`` (``'@name'`` →
    (value, type spec)), in the session's transaction when one is open, else in its own;
    its first result set, if any."""
    own = session.txn is None
    txn = session.new_txn() if own else session.txn
    ctx = _context(session, txn)
    try:
        result = execute_sql(ctx, sql, dict(params or {}))
    except BaseException:
        if own:
            txn.rollback()
        raise
    if own:
        txn.commit()
    return result.resultsets[0] if result.resultsets else None


def find_queue(session: Session, schema: str | None, name: str) -> QueueRow:
    """The queue ``schema.name`` of the session's database (Msg 208 if there is none)."""
    key = ((schema or "dbo").lower(), name.lower())
    for q in broker_of(session).queues(session.conn, session.db_id):
        if (q.schema_name.lower(), q.name.lower()) == key:
            return q
    raise tsql_error(208, name if schema is None else f"{schema}.{name}", cls=BindError)


class GroupTaken(RuntimeError):
    """Another reader consumed messages this transaction had RECEIVEd."""


def check_not_taken(session: Session, received: Collection[int]) -> None:
    """Raise :class:`GroupTaken` if messages this session's transaction RECEIVEd (by queuing
    order) were committed away by another reader meanwhile. Call it after ``txn.write()``:
    from then on SQLite lets nobody else commit, so the answer holds until the commit. It
    reads on a connection of its own, which sees what others committed and not what this
    transaction did (END CONVERSATION also removes a conversation's messages). On PostgreSQL
    the group's row lock already keeps other readers out; on SQLite group locks are per
    process, and this is what keeps two processes from both committing a message."""
    m = broker_of(session).t.messages
    wanted = sorted(int(o) for o in received)
    ready: set[int] = set()
    conn = session.instance.store.connect()
    try:
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            ready.update(int(o) for o in conn.execute(select(m.c.queuing_order).where(
                m.c.status == 1, m.c.queuing_order.in_(chunk))).scalars())
    finally:
        conn.close()
    taken = len(wanted) - len(ready)
    if taken:
        raise GroupTaken(f"{taken} received message(s) were taken by another reader "
                         "meanwhile; rolled back")
