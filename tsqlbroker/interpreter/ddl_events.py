"""DDL events for event notifications ``ON DATABASE``.

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
            if not broker.database_notified(s.conn, s.db_id, event_type):
                continue
            who = current(s, f)
            events.append(DdlEvent(event_type, name.schema or "dbo", name.name, object_type,
                                   text, s.id, who.login, who.user))
        if not events:
            return
        db_id = s.db_id

        def post() -> None:
            for event in events:
                broker.post_database_event(db_id, event)
        txn = s.txn if s.txn is not None else s.stmt_txn
        if txn is None:
            post()
        else:
            txn.after_commit(post)
    return run


def _register() -> None:
    raising: Callable[[Any, StmtFn, str], StmtFn] = _raising
    for statement in _STATEMENTS:
        STATEMENT_EVENTS[statement] = raising


_register()
