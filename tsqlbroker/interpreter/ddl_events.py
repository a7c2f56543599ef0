"""DDL events for event notifications ``ON DATABASE`` and ``ON SERVER``.

A CREATE / ALTER / DROP of a table, view, procedure, function or queue raises its DDL event
(CREATE_TABLE …, in the groups DDL_TABLE_EVENTS … DDL_DATABASE_LEVEL_EVENTS); when an event
notification on the database asks for it, the notification's service gets the EventNotification
message whose body is the event's EVENT_INSTANCE document (EVENTDATA()), sent once the
statement's transaction has committed (``engine/broker/notifications.py``). A DROP raises one
event per object it dropped; CREATE OR ALTER raises CREATE_… or ALTER_… as the object was
there before or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.notifications import DdlEvent
from tsqlbroker.grammar import ast

from .compiler import STATEMENT_EVENTS, StmtFn
from .impersonation import current

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session

# Statement → (object type, verb; None: CREATE, ALTER or CREATE OR ALTER by its flags).
_STATEMENTS: dict[type, tuple[str, str | None]] = {
    ast.CreateTable: ("TABLE", "CREATE"), ast.AlterTable: ("TABLE", "ALTER"),
    ast.DropTable: ("TABLE", "DROP"), ast.CreateView: ("VIEW", None),
    ast.DropView: ("VIEW", "DROP"), ast.CreateProcedure: ("PROCEDURE", None),
    ast.DropProcedure: ("PROCEDURE", "DROP"), ast.CreateFunction: ("FUNCTION", None),
    ast.DropFunction: ("FUNCTION", "DROP"), ast.CreateQueue: ("QUEUE", "CREATE"),
    ast.AlterQueue: ("QUEUE", "ALTER"), ast.DropQueue: ("QUEUE", "DROP"),
}
# The catalog's object types of each object type.
_CATALOG_TYPES = {"TABLE": {"U"}, "VIEW": {"V"}, "PROCEDURE": {"P"},
                  "FUNCTION": {"FN", "IF", "TF"}, "QUEUE": {"SQ"}}


def _names(node: Any) -> tuple[ast.ObjectName, ...]:
    return tuple(node.names) if hasattr(node, "names") else (node.name,)


def _exists(s: Session, name: ast.ObjectName, object_type: str) -> bool:
    if name.database:
        return True  # another database's objects raise no event here
    found = s.instance.catalog.find_object(s.conn, s.db_id, name.schema, name.name,
                                           _CATALOG_TYPES[object_type])
    return found is not None


def _raising(node: Any, fn: StmtFn, text: str) -> StmtFn:
    object_type, verb = _STATEMENTS[type(node)]
    # Temporary tables raise no DDL events (as DDL triggers do not fire for them).
    names = [n for n in _names(node) if not n.database and not n.name.startswith("#")]

    def run(f: Frame) -> None:
        s = f.session
        if not names:
            fn(f)
            return
        broker = Broker.get(s.instance.store)
        # What was there decides a DROP's events and CREATE OR ALTER's verb.
        before = [_exists(s, n, object_type) for n in names] \
            if verb in ("DROP", None) else []
        fn(f)
        events = []
        for i, name in enumerate(names):
            if verb == "DROP" and not before[i]:
                continue
            kind = verb or ("ALTER" if node.alter or (node.or_alter and before[i])
                            else "CREATE")
            event_type = f"{kind}_{object_type}"
            # Notifications on the database, and on the server (every database's events).
            on_db = broker.database_notified(s.conn, s.db_id, event_type)
            on_server = broker.server_notified(s.conn, event_type)
            if not (on_db or on_server):
                continue
            who = current(s, f)
            events.append((DdlEvent(event_type, name.schema or "dbo", name.name, object_type,
                                    text, s.id, who.login, who.user), on_db, on_server))
        if not events:
            return
        db_id = s.db_id
        row = s.instance.catalog.database(s.conn, db_id)
        db_name = row.name if row is not None else ""

        def post() -> None:
            for event, on_db, on_server in events:
                if on_db:
                    broker.post_database_event(db_id, event)
                if on_server:
                    broker.post_server_event(db_name, event)
        _after_commit(s, post)
    return run


def _raising_server(node: Any, fn: StmtFn, text: str) -> StmtFn:
    """CREATE / ALTER / DROP DATABASE: their server-level events, for notifications ON
    SERVER, once the statement has committed."""
    verb = _DATABASE_STATEMENTS[type(node)]
    names = list(getattr(node, "names", None) or [getattr(node, "name", None)
                                                   or getattr(node, "database", None)])

    def run(f: Frame) -> None:
        s = f.session
        broker = Broker.get(s.instance.store)
        event_type = f"{verb}_DATABASE"
        if not broker.server_notified(s.conn, event_type):
            fn(f)
            return
        catalog = s.instance.catalog
        before = {n: catalog.database(s.conn, n) is not None for n in names if n}
        row = catalog.database(s.conn, s.db_id) if None in names else None
        this_db = row.name if row is not None else None  # ALTER DATABASE CURRENT
        fn(f)
        who = current(s, f)
        events = [(n, DdlEvent(event_type, "", n, "DATABASE", text, s.id, who.login,
                               who.user))
                  for n in ([this_db] if this_db else [n for n in names if n])
                  if verb != "DROP" or before.get(n)]
        _after_commit(s, lambda: [broker.post_server_event(n, e) for n, e in events])
    return run


def _after_commit(s: Session, post: Callable[[], Any]) -> None:
    txn = s.txn if s.txn is not None else s.stmt_txn
    if txn is None:
        post()
    else:
        txn.after_commit(post)


_DATABASE_STATEMENTS: dict[type, str] = {
    ast.CreateDatabase: "CREATE", ast.AlterDatabase: "ALTER", ast.DropDatabase: "DROP"}


def _register() -> None:
    raising: Callable[[Any, StmtFn, str], StmtFn] = _raising
    for statement in _STATEMENTS:
        STATEMENT_EVENTS[statement] = raising
    for statement in _DATABASE_STATEMENTS:
        STATEMENT_EVENTS[statement] = _raising_server


_register()
