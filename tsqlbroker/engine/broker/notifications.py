"""Event notifications on queues: ``CREATE / DROP EVENT NOTIFICATION … ON QUEUE q FOR
QUEUE_ACTIVATION TO SERVICE 's', 'broker_instance' | 'current database'`` and what they do —
external activation.

A queue with a QUEUE_ACTIVATION notification gets a queue monitor like a queue with an
activation procedure (the two exclude each other: Msg 9717 / 9718). Where the monitor would
start the procedure, it sends the notification's service an EventNotification message
(``http://schemas.microsoft.com/SQL/Notifications/EventNotification`` on the
``PostEventNotification`` contract) whose body is the ``EVENT_INSTANCE`` document SQL Server
sends: EventType, PostTime, SPID, ServerName, LoginName, UserName, DatabaseName, SchemaName,
ObjectName, ObjectType. The messages of one notification go on one dialog from the database's
``EventNotificationService`` (made, with its ``EventNotificationErrorsQueue``, by the first
event notification of the database) while the target keeps it open.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from sqlalchemy import delete, insert, select, update

from ...errors import tsql_error
from ...storage.txn import Txn
from .conversations import Conversations
from .delivery import Delivery
from .event_types import (
    DATABASE_LEVEL,
    QUEUE_EVENTS,
    SERVER_LEVEL,
    TRACE_EVENTS,
    event_groups,
    invalid_event,
    is_database_level,
)
from .model import (
    EVENT_NOTIFICATION,
    EVENT_NOTIFICATION_SERVICE,
    POST_EVENT_NOTIFICATION,
    SENDABLE_STATES,
    utcnow,
)
from .objects import Objects
from .state import BrokerState

# What a notification ON SERVER may name: any DDL event type or group, and the trace events.
_ON_SERVER = DATABASE_LEVEL | SERVER_LEVEL | TRACE_EVENTS
# The parent_id of a notification ON SERVER (0: ON DATABASE; a queue's object_id: ON QUEUE).
SERVER_PARENT = -1
# The system queue the database's EventNotificationService is on (SQL Server's name).
ERRORS_QUEUE = "EventNotificationErrorsQueue"
# SPID shown in EVENT_INSTANCE for events the broker's own tasks raise (a system session).
BROKER_SPID = 21


class Notifications:
    """Event notifications on queues (a part of :class:`~tsqlbroker.engine.broker.Broker`)."""

    def __init__(self, state: BrokerState, objects: Objects, conversations: Conversations,
                 delivery: Delivery) -> None:
        self.state = state
        self.objects = objects
        self.conversations = conversations
        self.delivery = delivery
        self.server_name = "TSQLBROKER"   # @@SERVERNAME, set by the interpreter hosting it

    def create_event_notification(self, txn: Txn, db_id: int, name: str, schema: str | None,
                                  queue: str, events: list[str], service: str,
                                  broker_instance: str) -> int:
        """``CREATE EVENT NOTIFICATION name ON QUEUE q FOR events TO SERVICE 's', 'b'``:
        QUEUE_ACTIVATION, BROKER_QUEUE_DISABLED (Msg 1098 for another event type, Msg 1084
        for a name that is none)."""
        meta = self.objects.ddl(txn, db_id)
        conn = txn.conn
        q = self.state.queue(conn, db_id, schema, queue)
        upper = [e.upper() for e in events]
        _check_events(upper, QUEUE_EVENTS)
        n = self.state.t.notifications
        taken = conn.execute(select(n.c.object_id).where(
            n.c.database_id == db_id, n.c.parent_id == q.object_id, n.c.name == name)).first()
        if taken is not None:
            raise tsql_error(2714, name)
        if "QUEUE_ACTIVATION" in upper and q.is_activation_enabled:
            raise tsql_error(9718, queue)
        self._ensure_service(txn, db_id, meta)
        object_id = self.state.catalog.next_object_id(conn)
        conn.execute(insert(n).values(
            object_id=object_id, database_id=db_id, name=name, parent_id=q.object_id,
            events=",".join(dict.fromkeys(upper)), service_name=service,
            broker_instance=broker_instance, conversation_handle=None, create_date=utcnow()))
        txn.after_commit(lambda: self.state.notify("altered", db_id, q.object_id))
        return object_id

    def _ensure_service(self, txn: Txn, db_id: int, meta: Any) -> None:
        """The database's EventNotificationService (and its queue), made by its first event
        notification, as SQL Server has them."""
        if EVENT_NOTIFICATION_SERVICE not in meta.services_by_name:
            if (("dbo", ERRORS_QUEUE.lower())) not in meta.queues_by_name:
                self.objects.create_queue(txn, db_id, "dbo", ERRORS_QUEUE)
            self.objects.create_service(txn, db_id, EVENT_NOTIFICATION_SERVICE, "dbo",
                                        ERRORS_QUEUE, [POST_EVENT_NOTIFICATION])

    def create_database_event_notification(self, txn: Txn, db_id: int, name: str,
                                           events: list[str], service: str,
                                           broker_instance: str) -> int:
        """``CREATE EVENT NOTIFICATION name ON DATABASE FOR events TO SERVICE 's', 'b'``:
        DDL events of the database (any of SQL Server's database-level event types or
        groups, ``event_types.py``; those of statements the engine does not have are kept
        and never sent); Msg 1098 for a server-level one, Msg 1084 for a name that is no event type,
        Msg 2714 for a name the database's notifications have (they are kept with
        ``parent_id`` 0: the database is their parent)."""
        meta = self.objects.ddl(txn, db_id)
        conn = txn.conn
        upper = [e.upper() for e in events]
        _check_events(upper, DATABASE_LEVEL)
        n = self.state.t.notifications
        taken = conn.execute(select(n.c.object_id).where(
            n.c.database_id == db_id, n.c.parent_id == 0, n.c.name == name)).first()
        if taken is not None:
            raise tsql_error(2714, name)
        self._ensure_service(txn, db_id, meta)
        object_id = self.state.catalog.next_object_id(conn)
        conn.execute(insert(n).values(
            object_id=object_id, database_id=db_id, name=name, parent_id=0,
            events=",".join(dict.fromkeys(upper)), service_name=service,
            broker_instance=broker_instance, conversation_handle=None, create_date=utcnow()))
        return object_id

    def drop_database_event_notification(self, txn: Txn, db_id: int,
                                         names: list[str]) -> None:
        """``DROP EVENT NOTIFICATION n [, …] ON DATABASE`` (Msg 15151 for a name not
        there)."""
        self.objects.ddl(txn, db_id)
        n = self.state.t.notifications
        for name in names:
            row = txn.conn.execute(select(n.c.object_id).where(
                n.c.database_id == db_id, n.c.parent_id == 0, n.c.name == name)).first()
            if row is None:
                raise tsql_error(15151, "event notification", name)
            txn.conn.execute(delete(n).where(n.c.object_id == row[0]))

    def create_server_event_notification(self, txn: Txn, db_id: int, name: str,
                                         events: list[str], service: str,
                                         broker_instance: str) -> int:
        """``CREATE EVENT NOTIFICATION name ON SERVER FOR events TO SERVICE 's', 'b'``: any
        DDL event type or group (server or database level, ``event_types.py``); a trace
        event (``TRACE_EVENTS``) is Msg 40000 (the engine raises none), a queue's event Msg
        1098, another name Msg 1084; kept in the current database (whose service 'current
        database' names) with ``parent_id`` -1; Msg 2714 for a name a server notification
        has."""
        meta = self.objects.ddl(txn, db_id)
        conn = txn.conn
        upper = [e.upper() for e in events]
        _check_events(upper, _ON_SERVER)
        trace = next((e for e in upper if e in TRACE_EVENTS), None)
        if trace is not None:
            raise tsql_error(40000, f"CREATE EVENT NOTIFICATION ON SERVER for the "
                                    f"trace event '{trace}'")
        n = self.state.t.notifications
        taken = conn.execute(select(n.c.object_id).where(
            n.c.parent_id == SERVER_PARENT, n.c.name == name)).first()
        if taken is not None:
            raise tsql_error(2714, name)
        self._ensure_service(txn, db_id, meta)
        object_id = self.state.catalog.next_object_id(conn)
        conn.execute(insert(n).values(
            object_id=object_id, database_id=db_id, name=name, parent_id=SERVER_PARENT,
            events=",".join(dict.fromkeys(upper)), service_name=service,
            broker_instance=broker_instance, conversation_handle=None, create_date=utcnow()))
        return object_id

    def drop_server_event_notification(self, txn: Txn, names: list[str]) -> None:
        """``DROP EVENT NOTIFICATION n [, …] ON SERVER`` (Msg 15151 for a name not there)."""
        txn.write()
        n = self.state.t.notifications
        for name in names:
            row = txn.conn.execute(select(n.c.object_id).where(
                n.c.parent_id == SERVER_PARENT, n.c.name == name)).first()
            if row is None:
                raise tsql_error(15151, "event notification", name)
            txn.conn.execute(delete(n).where(n.c.object_id == row[0]))

    def server_notified(self, conn: Any, event: str) -> bool:
        """Whether a notification on the server asks for DDL event ``event``."""
        n = self.state.t.notifications
        return any(_asks_for(r[0], event) for r in conn.execute(select(n.c.events).where(
            n.c.parent_id == SERVER_PARENT)))

    def post_server_event(self, database: str, event: DdlEvent) -> int:
        """Send ``event`` (of database ``database``) to every notification on the server
        asking for it, from the database each was made in; the number of messages."""
        conn = self.state.store.connect()
        try:
            n = self.state.t.notifications
            dbs = sorted(db for db in {r[0] for r in conn.execute(
                select(n.c.database_id).where(n.c.parent_id == SERVER_PARENT))}
                if self.state.catalog.database(conn, db) is not None)  # not dropped since
        finally:
            conn.close()
        body = event_instance(event.event_type, self.server_name, database, event.schema,
                              event.name, event.object_type, event=event)
        return sum(self._post(db, SERVER_PARENT,
                              lambda events: _asks_for(events, event.event_type),
                              lambda _meta: body) for db in dbs)

    def database_notified(self, conn: Any, db_id: int, event: str) -> bool:
        """Whether a notification on the database asks for DDL event ``event``."""
        n = self.state.t.notifications
        return any(_asks_for(r[0], event) for r in conn.execute(select(n.c.events).where(
            n.c.database_id == db_id, n.c.parent_id == 0)))

    def post_database_event(self, db_id: int, event: DdlEvent) -> int:
        """Send DDL ``event`` to every notification on the database asking for it, in a
        transaction of its own (after the statement's commit); the number of messages."""
        return self._post(db_id, 0, lambda events: _asks_for(events, event.event_type),
                          lambda meta: event_instance(
                              event.event_type, self.server_name, meta.name, event.schema,
                              event.name, event.object_type, event=event))

    def _post(self, db_id: int, parent_id: int, asks: Callable[[str], bool],
              body_of: Callable[[Any], str | None]) -> int:
        """Send the EVENT_INSTANCE ``body_of(database metadata)`` (None: nothing to send)
        to every notification on ``parent_id`` (0: the database, else a queue) whose events
        ``asks`` for it, in a transaction of its own; the number of messages sent."""
        conn = self.state.store.connect()
        txn = Txn(conn, owner="event-notification")
        try:
            meta = self.state.db(conn, db_id)
            n = self.state.t.notifications
            rows = [r for r in conn.execute(select(n).where(
                n.c.database_id == db_id, n.c.parent_id == parent_id)).mappings()
                if asks(r["events"])]
            body = body_of(meta) if rows else None
            if body is None:
                txn.rollback()
                return 0
            self._send(txn, db_id, rows, body.encode("utf-16-le"))
            txn.commit()
            return len(rows)
        except BaseException:
            txn.rollback()
            raise
        finally:
            conn.close()

    def _send(self, txn: Txn, db_id: int, rows: list[Any], body: bytes) -> None:
        """One EventNotification message to each notification of ``rows``, on its dialog
        (begun anew when it has none or it can no longer send)."""
        conn = txn.conn
        n = self.state.t.notifications
        txn.write()
        for r in rows:
            handle = r["conversation_handle"]
            ep = self.state.endpoint(conn, db_id, handle) if handle else None
            if ep is None or ep.state not in SENDABLE_STATES:
                handle = str(self.conversations.begin_dialog(
                    txn, db_id, EVENT_NOTIFICATION_SERVICE, r["service_name"],
                    r["broker_instance"], POST_EVENT_NOTIFICATION,
                    encryption=False)).upper()
                conn.execute(update(n).where(n.c.object_id == r["object_id"])
                             .values(conversation_handle=handle))
            self.delivery.send(txn, db_id, [handle], EVENT_NOTIFICATION, body, True)

    def drop_event_notification(self, txn: Txn, db_id: int, names: list[str],
                                schema: str | None, queue: str) -> None:
        """``DROP EVENT NOTIFICATION n [, …] ON QUEUE q``: Msg 15151 for a name not there."""
        self.objects.ddl(txn, db_id)
        conn = txn.conn
        q = self.state.queue(conn, db_id, schema, queue)
        n = self.state.t.notifications
        for name in names:
            row = conn.execute(select(n.c.object_id).where(
                n.c.database_id == db_id, n.c.parent_id == q.object_id, n.c.name == name)
            ).first()
            if row is None:
                raise tsql_error(15151, "event notification", name)
            conn.execute(delete(n).where(n.c.object_id == row[0]))
        txn.after_commit(lambda: self.state.notify("altered", db_id, q.object_id))

    def alter_queue(self, txn: Txn, db_id: int, schema: str | None, name: str,
                    **changes: Any) -> None:
        """``ALTER QUEUE``, refused (Msg 9717) when it would turn on activation of a queue
        with a QUEUE_ACTIVATION notification."""
        act = changes.get("activation")
        if act is not None and act.status is not False:
            q = self.state.queue(txn.conn, db_id, schema, name)
            turning_on = act.status is True or (not q.activation_procedure
                                                and bool(act.procedure_name))
            if turning_on and self.queue_notified(txn.conn, db_id, q.object_id,
                                                  "QUEUE_ACTIVATION"):
                raise tsql_error(9717, name)
        self.objects.alter_queue(txn, db_id, schema, name, **changes)

    def drop_queue(self, txn: Txn, db_id: int, schema: str | None, name: str) -> None:
        """``DROP QUEUE`` takes the queue's event notifications along."""
        q = self.state.queue(txn.conn, db_id, schema, name)
        self.objects.drop_queue(txn, db_id, schema, name)
        n = self.state.t.notifications
        txn.conn.execute(delete(n).where(n.c.database_id == db_id, n.c.parent_id == q.object_id))

    def queue_notified(self, conn: Any, db_id: int, queue_id: int, event: str) -> bool:
        """Whether some event notification on the queue is for ``event`` (from the broker
        metadata cache: the activation monitor asks on every look at the queue)."""
        meta = self.state.meta.get(conn, db_id)
        return meta is not None and event in meta.queue_events.get(queue_id, ())

    def notified_queues(self, conn: Any) -> list[tuple[int, int]]:
        """(db_id, queue_id) of every queue with a QUEUE_ACTIVATION notification."""
        n = self.state.t.notifications
        rows = conn.execute(select(n.c.database_id, n.c.parent_id, n.c.events)).all()
        return [(d, q) for d, q, ev in rows if "QUEUE_ACTIVATION" in ev.split(",")]

    def post_queue_event(self, db_id: int, queue_id: int, event: str) -> int:
        """Send ``event`` (QUEUE_ACTIVATION …) to every notification on the queue asking
        for it, in a transaction of its own; the number of messages sent."""
        def body_of(meta: Any) -> str | None:
            q = meta.queues_by_id.get(queue_id)
            return None if q is None else event_instance(event, self.server_name, meta.name,
                                                         q.schema_name, q.name)
        return self._post(db_id, queue_id, lambda events: event in events.split(","), body_of)


# A password written in a statement: ``PASSWORD = N'…'`` (logins, application roles, master
# keys, certificates; OLD_PASSWORD; ``@password = …`` of sp_addapprole / sp_approlepassword),
# and the second argument of those procedures written by position.
_PASSWORD = re.compile(r"(\b(?:OLD_)?PASSWORD\s*=\s*N?')(?:''|[^'])*(')", re.IGNORECASE)
# … and a hashed one (``PASSWORD = 0x… HASHED`` of CREATE / ALTER LOGIN): a hash admits
# an offline guess at the password.
_HASHED = re.compile(r"(\bPASSWORD\s*=\s*)0x[0-9a-f]*", re.IGNORECASE)
_POSITIONAL = re.compile(
    r"(\b(?:sp_addapprole|sp_approlepassword)\s+(?:N?'(?:''|[^'])*'|[^\s,']+)\s*,\s*N?')"
    r"(?:''|[^'])*(')", re.IGNORECASE)


def _check_events(events: list[str], valid: frozenset[str] | tuple[str, ...]) -> None:
    """Msg 1084 for a name that is no event type (or group), Msg 1098 for one the
    notification's target does not take (``event_types.invalid_event``)."""
    for event in events:
        number = invalid_event(event, valid)
        if number is not None:
            raise tsql_error(1084, event) if number == 1084 else tsql_error(1098)


def hide_passwords(command: str) -> str:
    """``command`` with the text of every password it writes replaced by ``******``: SQL
    Server does not show passwords in EVENTDATA's CommandText ("To protect the security of
    logins, when CREATE LOGIN or ALTER LOGIN statements are executed, passwords are not
    displayed"), and an event notification's message is readable by whoever may RECEIVE."""
    command = _HASHED.sub(r"\1******", _PASSWORD.sub(r"\1******\2", command))
    return _POSITIONAL.sub(r"\1******\2", command)


def event_instance(event_type: str, server: str, database: str, schema: str | None,
                   name: str, object_type: str = "QUEUE", now: _dt.datetime | None = None,
                   event: DdlEvent | None = None) -> str:
    """The ``EVENT_INSTANCE`` document of a queue event or (``event``) a DDL event, as SQL
    Server writes it (PostTime in the server's local time, milliseconds; a DDL event's
    session, login, user, its own elements and statement text in TSQLCommand). A
    server-level event (logins, endpoints, GRANT … server permissions) has no UserName,
    DatabaseName or SchemaName; an event of no schema-scoped object has no SchemaName; one
    of no named object (GRANT on the database) no ObjectName / ObjectType."""
    at = (now or _dt.datetime.now()).isoformat(timespec="milliseconds")
    spid, login, user = (BROKER_SPID, "sa", "dbo") if event is None else (
        event.spid, event.login, event.user)
    parts: list[tuple[str, Any]] = [
        ("EventType", event_type), ("PostTime", at), ("SPID", str(spid)),
        ("ServerName", server), ("LoginName", login), ("UserName", user),
        ("DatabaseName", database), ("SchemaName", schema), ("ObjectName", name),
        ("ObjectType", object_type)]
    if object_type == "DATABASE" and not is_database_level(event_type):
        # CREATE / ALTER / DROP_DATABASE: a server event, of a database, not an object.
        parts = [p for p in parts if p[0] not in ("UserName", "SchemaName", "ObjectName",
                                                   "ObjectType")]
    elif event is not None and not is_database_level(event_type):
        parts = [p for p in parts if p[0] not in ("UserName", "DatabaseName", "SchemaName")]
    parts = [p for p in parts if p[1] is not None and (p[1] or p[0] not in (
        "ObjectName", "ObjectType"))]
    if event is not None:
        parts += list(event.fields)
    command = "" if event is None else (
        '<TSQLCommand><SetOptions ANSI_NULLS="ON" ANSI_NULL_DEFAULT="ON" ANSI_PADDING="ON" '
        'QUOTED_IDENTIFIER="ON" ENCRYPTED="FALSE"/>'
        f"<CommandText>{escape(hide_passwords(event.command))}</CommandText></TSQLCommand>")
    return "<EVENT_INSTANCE>" + "".join(_element(k, v) for k, v in parts) + command \
        + "</EVENT_INSTANCE>"


def _element(key: str, value: str | tuple[str, ...]) -> str:
    """``<key>value</key>``; a tuple is a list of elements named for one of them
    (``Permissions`` → ``<Permission>``, ``Grantees`` → ``<Grantee>``)."""
    if isinstance(value, tuple):
        inner = "".join(f"<{key[:-1]}>{escape(v)}</{key[:-1]}>" for v in value)
        return f"<{key}>{inner}</{key}>"
    return f"<{key}>{escape(value)}</{key}>"


@dataclass(frozen=True)
class DdlEvent:
    """One DDL event a statement raised: what EVENT_INSTANCE says of it."""

    event_type: str  # CREATE_TABLE …
    schema: str | None  # None: not a schema-scoped object (no SchemaName)
    name: str  # "": no named object
    object_type: str  # TABLE, VIEW, PROCEDURE, SQL USER, LOGIN …
    command: str  # the statement's text
    spid: int
    login: str
    user: str
    # The event's own elements after ObjectType (DefaultSchema, RoleName, Grantor,
    # Permissions …): a tuple value is a list (Permissions → Permission …).
    fields: tuple[tuple[str, str | tuple[str, ...]], ...] = ()


def _asks_for(events: str, event_type: str) -> bool:
    """Whether a notification's events (comma-separated types and groups) take
    ``event_type``."""
    wanted = set(events.split(","))
    return event_type in wanted or bool(wanted.intersection(event_groups(event_type)))
