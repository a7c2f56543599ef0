"""Service Broker statements: one compile handler per AST node, calling the engine's Broker.

Expressions are compiled like any other (exact T-SQL types); the engine gets plain Python
values (uniqueidentifiers as ``uuid.UUID``, bodies as ``bytes``). Every call joins the
statement's transaction (``Session.txn_for_statement``). RECEIVE's column expressions
(``CAST(message_body AS xml)``, ``@h = conversation_handle``) are compiled against hidden
per-statement variables that hold the current queue row, so they use the ordinary expression
compiler.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import time
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.broker import QUEUE_COLUMNS, ActivationSettings, Broker
from tsqlbroker.engine.permissions import broker_securable_id
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.engine.securables import CLASSES
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.lazy import LazyModule
from tsqlbroker.values.dates import DATEPART_FIRST

from ..values import types as T
from ..values.convert import converter
from .authorize import (
    login_id,
    owner_named,
    permitted,
    require_broker_ddl,
    require_database,
    require_endpoint_ddl,
    require_object,
    require_queue_ddl,
    require_securable,
    require_send,
)
from .broker_runtime import runtime_for
from .compiler import CExpr, Compiler, StmtFn, handler, walk
from .dml_stmts import compile_params, run_sql
from .expressions import DYNAMIC
from .function_calls import special
from .impersonation import current, privileged, unchecked
from .statement_context import exec_context

if TYPE_CHECKING:
    from .frames import Frame

# The DML engine loads sqlglot, which a session without DML never needs: on first use.
engine_dml = LazyModule("tsqlbroker.engine.dml", globals(), "engine_dml")

EvalFn = Callable[["Frame"], Any]
_hidden_ids = itertools.count(1)

# Columns RECEIVE * returns (the queue's columns without message_id, which only SELECT shows).
RECEIVE_STAR = [(n, t) for n, t in QUEUE_COLUMNS if n != "message_id"]
_COLUMN_TYPES = {n: T.parse_type_spec(t) for n, t in QUEUE_COLUMNS}
_COLUMN_INDEX = {n: i for i, (n, _t) in enumerate(QUEUE_COLUMNS)}
_ALIASES = {"service_instance_id": "conversation_group_id"}


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _broker(f: Frame, *, work: bool = True) -> Broker:
    """The store's broker. ``work``: the statement gives the broker background work (a
    message to deliver or activate on, a timer, a queue or endpoint change), so this
    process becomes a candidate to host it (broker_runtime; RECEIVE, GET CONVERSATION
    GROUP, MOVE CONVERSATION and GET_TRANSMISSION_STATUS only take or look)."""
    runtime_for(f.session.instance, start=work)
    return Broker.get(f.session.instance.store)


def _db_id(f: Frame, database: str | None) -> int:
    s = f.session
    if database is None:
        return s.db_id
    db = s.instance.catalog.database_id(s.conn, database)
    if db is None:
        raise tsql_error(911, database)
    return db


def _typed(c: Compiler, node: ast.Expr | None, t: T.SqlType) -> EvalFn | None:
    """``fn(frame)`` giving ``node`` converted (explicitly, as the broker does) to ``t``."""
    if node is None:
        return None
    e = c.expr(node)
    if e.predicate:
        raise c.bind_error(4145, node, "expression")
    if e.type == t:
        return e.fn
    conv = converter(e.type, t)
    ef = e.fn
    return lambda f: conv(ef(f))


def _guid(c: Compiler, node: ast.Expr | None) -> EvalFn | None:
    return _typed(c, node, T.UNIQUEIDENTIFIER)


def _text(c: Compiler, node: ast.Expr | None) -> EvalFn | None:
    return _typed(c, node, T.NVARCHAR_MAX)


def _int(c: Compiler, node: ast.Expr | None) -> EvalFn | None:
    return _typed(c, node, T.BIGINT)


def _named(c: Compiler, name: str | ast.Variable | None, missing: int,
           *args: Any) -> Callable[[Frame], str | None]:
    """``fn(frame)`` giving a service, contract or message type name written as a name or as
    a variable (None when omitted). A variable that is NULL raises Msg ``missing``."""
    if name is None or isinstance(name, str):
        return lambda _f: name
    fn = _text(c, name)
    assert fn is not None

    def value(f: Frame) -> str:
        v = fn(f)
        if v is None:
            raise tsql_error(missing, *args)
        return v
    return value


def _name_parts(name: ast.ObjectName) -> tuple[str | None, str | None, str]:
    return name.database, name.schema, name.name


def _object_text(name: ast.ObjectName) -> str:
    parts = [p for p in (name.database, name.schema, name.name) if p is not None]
    if name.database is not None and name.schema is None:
        parts = [name.database, "dbo", name.name]
    return ".".join("[" + p.replace("]", "]]") + "]" for p in parts)


def _ddl(fn: Callable[[Frame, Broker, Any], None]) -> StmtFn:
    """A DDL statement: run ``fn(frame, broker, txn)`` in the statement's transaction."""

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        fn(f, _broker(f), s.txn_for_statement())
    return run


@dataclasses.dataclass(frozen=True)
class ReceiveScope:
    """Confines a session's RECEIVE and GET CONVERSATION GROUP without WHERE on one queue to
    one conversation group, and makes their WAITFOR return at once when that group has nothing
    ready: how a Spark drain runs a queue's activation procedure on the group its task owns
    (:func:`confine_receives`). An explicit WHERE is left as written."""

    db_id: int
    schema: str     # lower-case; dbo when the queue is named without one
    queue: str      # lower-case
    group: uuid.UUID

    def covers(self, db_id: int, schema: str | None, name: str) -> bool:
        """Whether a statement naming the queue (``schema``.``name`` in ``db_id``) is
        confined."""
        return (db_id == self.db_id and name.lower() == self.queue
                and (schema or "dbo").lower() == self.schema)


def confine_receives(session: Any, scope: ReceiveScope | None) -> None:
    """Set (or, with None, lift) the session's :class:`ReceiveScope`."""
    session.extensions["receive_scope"] = scope


def _scope(f: Frame, db_id: int, schema: str | None, name: str) -> ReceiveScope | None:
    scope = f.session.extensions.get("receive_scope")
    return scope if scope is not None and scope.covers(db_id, schema, name) else None


def _task(f: Frame) -> Any:
    return f.session.extensions.get("activation_task")


_BrokerDdl = Callable[["Frame", Broker, Any], None]


def _altering(kind: str, name: str, fn: _BrokerDdl) -> _BrokerDdl:
    """ALTER of the broker securable ``kind`` ``name``, after its permission check."""
    def run(f: Frame, b: Broker, txn: Any) -> None:
        require_broker_ddl(f, kind, name)
        fn(f, b, txn)
    return run


def _dropping(kind: str, names: Iterable[str], fn: _BrokerDdl) -> _BrokerDdl:
    """DROP of the broker securables ``kind`` ``names``, after each one's permission check.
    Their permissions go with them: an object made later may get the same id again, and a
    GRANT on the old one must not carry over (SQL Server drops them too)."""
    class_ = CLASSES[kind][0]

    def run(f: Frame, b: Broker, txn: Any) -> None:
        for name in names:
            require_broker_ddl(f, kind, name, drop=True)
        db_id = f.session.db_id
        sec = Security.get(f.session.instance.store)
        ids = [broker_securable_id(sec, txn.conn, db_id, kind, name) for name in names]
        fn(f, b, txn)
        for major in ids:
            if major is not None:
                sec.forget_securable(txn.conn, db_id, class_, major)
    return run


# --------------------------------------------------------------------------------------------
# message types, schema collections, contracts
# --------------------------------------------------------------------------------------------
def _validation(node: ast.CreateMessageType | ast.AlterMessageType) -> str | None:
    # The pre-release ENCODING XML WITH 'ns' names a namespace, not a collection: the broker
    # validates against the schema registered for that namespace (schema_namespace).
    if node.schema_namespace and node.schema_collection is None:
        return "WELL_FORMED_XML"
    return node.validation


@handler(ast.CreateMessageType)
def compile_create_message_type(c: Compiler, node: ast.CreateMessageType) -> StmtFn:
    coll = _object_text(node.schema_collection) if node.schema_collection else None
    validation = _validation(node) or "NONE"
    return _ddl(permitted("CREATE MESSAGE TYPE", lambda f, b, txn: b.create_message_type(
        txn, f.session.db_id, node.name, validation, coll, node.schema_namespace,
        owner_named(f, node.owner))))


@handler(ast.AlterMessageType)
def compile_alter_message_type(c: Compiler, node: ast.AlterMessageType) -> StmtFn:
    coll = _object_text(node.schema_collection) if node.schema_collection else None
    validation = _validation(node)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        require_broker_ddl(f, "MESSAGE TYPE", node.name)
        b.alter_message_type(txn, f.session.db_id, node.name, validation, coll,
                             node.schema_namespace)
    return _ddl(run)


@handler(ast.DropMessageType)
def compile_drop_message_type(c: Compiler, node: ast.DropMessageType) -> StmtFn:
    return _ddl(_dropping("MESSAGE TYPE", node.names, lambda f, b, txn: b.drop_message_type(
        txn, f.session.db_id, list(node.names))))


def _xsd_text(c: Compiler, node: ast.Expr) -> EvalFn:
    e = c.expr(node)
    if e.type.is_xml:
        ef = e.fn
        return lambda f: None if (v := ef(f)) is None else v.to_string()
    fn = _text(c, node)
    assert fn is not None
    return fn


@handler(ast.CreateXmlSchemaCollection)
def compile_create_xml_schema_collection(c: Compiler,
                                         node: ast.CreateXmlSchemaCollection) -> StmtFn:
    text = _xsd_text(c, node.schema)
    db, schema, name = _name_parts(node.name) if node.name else (None, None, None)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        b.create_xml_schema_collection(txn, _db_id(f, db), schema, name, text(f) or "")
    return _ddl(run)


@handler(ast.AlterXmlSchemaCollection)
def compile_alter_xml_schema_collection(c: Compiler,
                                        node: ast.AlterXmlSchemaCollection) -> StmtFn:
    text = _xsd_text(c, node.schema)
    db, schema, name = _name_parts(node.name)
    return _ddl(lambda f, b, txn: b.alter_xml_schema_collection(
        txn, _db_id(f, db), schema, name, text(f) or ""))


@handler(ast.DropXmlSchemaCollection)
def compile_drop_xml_schema_collection(c: Compiler,
                                       node: ast.DropXmlSchemaCollection) -> StmtFn:
    db, schema, name = _name_parts(node.name)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        db_id = _db_id(f, db)
        cid = b.drop_xml_schema_collection(txn, db_id, schema, name)
        # Its permissions go with it (a collection made later may get its id again).
        Security.get(f.session.instance.store).forget_securable(
            txn.conn, db_id, CLASSES["XML SCHEMA COLLECTION"][0], cid)
    return _ddl(run)


@handler(ast.CreateContract)
def compile_create_contract(c: Compiler, node: ast.CreateContract) -> StmtFn:
    usages = [(u.message_type, u.sent_by) for u in node.usages]
    return _ddl(permitted("CREATE CONTRACT", lambda f, b, txn: b.create_contract(
        txn, f.session.db_id, node.name, usages, owner_named(f, node.owner)),
        [u[0] for u in usages]))


@handler(ast.DropContract)
def compile_drop_contract(c: Compiler, node: ast.DropContract) -> StmtFn:
    return _ddl(_dropping("CONTRACT", node.names, lambda f, b, txn: b.drop_contract(
        txn, f.session.db_id, list(node.names))))


# --------------------------------------------------------------------------------------------
# queues and services
# --------------------------------------------------------------------------------------------
def _activation(a: ast.QueueActivation | None) -> ActivationSettings | None:
    if a is None or a.drop:
        return None
    return ActivationSettings(
        status=a.status,
        procedure_name=_object_text(a.procedure) if a.procedure is not None else None,
        max_queue_readers=a.max_readers, execute_as=a.execute_as)


def _run_as(f: Frame, db_id: int, act: ActivationSettings | None
            ) -> ActivationSettings | None:
    """ACTIVATION (EXECUTE AS …) as the queue keeps it: OWNER, or the principal id of SELF
    (the user running the statement) or of the named user of the queue's database (Msg
    15151 when there is none), which sys.service_queues shows as execute_as_principal_id."""
    if act is None or act.execute_as is None or act.execute_as.upper() == "OWNER":
        return act
    s = f.session
    if act.execute_as.upper() == "SELF":
        principal_id = current(s, f).user_id
    else:
        user = Security.get(s.instance.store).find_user(s.conn, db_id, act.execute_as)
        if user is None or user.type in ("R", "A") or user.principal_id in (0, 3, 4):
            raise tsql_error(15151, "user", act.execute_as, cls=BindError)
        principal_id = user.principal_id
    return dataclasses.replace(act, execute_as=str(principal_id))


@handler(ast.CreateQueue)
def compile_create_queue(c: Compiler, node: ast.CreateQueue) -> StmtFn:
    db, schema, name = _name_parts(node.name)
    act = _activation(node.activation)
    kwargs: dict[str, Any] = {}
    if node.status is not None:
        kwargs["status"] = node.status
    if node.retention is not None:
        kwargs["retention"] = node.retention
    if node.poison_message_handling is not None:
        kwargs["poison_message_handling"] = node.poison_message_handling

    def run(f: Frame, b: Broker, txn: Any) -> None:
        require_database(f, "CREATE QUEUE")
        db_id = _db_id(f, db)
        b.create_queue(txn, db_id, schema, name, activation=_run_as(f, db_id, act), **kwargs)
    return _ddl(run)


@handler(ast.AlterQueue)
def compile_alter_queue(c: Compiler, node: ast.AlterQueue) -> StmtFn:
    db, schema, name = _name_parts(node.name)
    if node.action is not None:
        # REBUILD / REORGANIZE / MOVE TO: storage maintenance with nothing to do here, but
        # the queue must exist, as in SQL Server.
        def check(f: Frame, b: Broker, txn: Any) -> None:
            require_queue_ddl(f, _db_id(f, db), schema, name)
            b.alter_queue(txn, _db_id(f, db), schema, name)
        return _ddl(check)
    act = _activation(node.activation)
    drop = bool(node.activation is not None and node.activation.drop)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        db_id = _db_id(f, db)
        require_queue_ddl(f, db_id, schema, name)
        b.alter_queue(txn, db_id, schema, name, status=node.status, retention=node.retention,
                      activation=_run_as(f, db_id, act), activation_drop=drop,
                      poison_message_handling=node.poison_message_handling)
    return _ddl(run)


@handler(ast.DropQueue)
def compile_drop_queue(c: Compiler, node: ast.DropQueue) -> StmtFn:
    db, schema, name = _name_parts(node.name)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        db_id = _db_id(f, db)
        require_queue_ddl(f, db_id, schema, name, drop=True)
        b.drop_queue(txn, db_id, schema, name)
    return _ddl(run)


@handler(ast.CreateService)
def compile_create_service(c: Compiler, node: ast.CreateService) -> StmtFn:
    _db, qschema, qname = _name_parts(node.queue)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        require_database(f, "CREATE SERVICE")
        b.create_service(txn, f.session.db_id, node.name, qschema, qname,
                         list(node.contracts), owner_named(f, node.owner), node.retention)
    return _ddl(run)


@handler(ast.AlterService)
def compile_alter_service(c: Compiler, node: ast.AlterService) -> StmtFn:
    qschema, qname = (node.queue.schema, node.queue.name) if node.queue else (None, None)
    return _ddl(_altering("SERVICE", node.name, lambda f, b, txn: b.alter_service(
        txn, f.session.db_id, node.name, qschema, qname, list(node.add_contracts),
        list(node.drop_contracts))))


@handler(ast.DropService)
def compile_drop_service(c: Compiler, node: ast.DropService) -> StmtFn:
    return _ddl(_dropping("SERVICE", (node.name,), lambda f, b, txn: b.drop_service(
        txn, f.session.db_id, node.name)))


@handler(ast.CreateEventNotification)
def compile_create_event_notification(c: Compiler,
                                      node: ast.CreateEventNotification) -> StmtFn:
    def run(f: Frame, b: Broker, txn: Any) -> None:
        queue = node.queue
        if queue is None:
            create = b.create_server_event_notification \
                if node.target.lower() == "server" else b.create_database_event_notification
            create(txn, f.session.db_id, node.name, list(node.events), node.service,
                   node.broker_instance)
            return
        db, schema, name = _name_parts(queue)
        b.create_event_notification(txn, _db_id(f, db), node.name, schema, name,
                                    list(node.events), node.service, node.broker_instance)
    return _ddl(run)


@handler(ast.DropEventNotification)
def compile_drop_event_notification(c: Compiler, node: ast.DropEventNotification) -> StmtFn:
    def run(f: Frame, b: Broker, txn: Any) -> None:
        queue = node.queue
        if queue is None and node.target.lower() == "server":
            b.drop_server_event_notification(txn, list(node.names))
            return
        if queue is None:
            b.drop_database_event_notification(txn, f.session.db_id, list(node.names))
            return
        db, schema, name = _name_parts(queue)
        b.drop_event_notification(txn, _db_id(f, db), list(node.names), schema, name)
    return _ddl(run)


# --------------------------------------------------------------------------------------------
# routes, bindings, endpoints, priorities, authorization, database options
# --------------------------------------------------------------------------------------------
def _options(c: Compiler, options: tuple[tuple[str, ast.Expr | None], ...]
             ) -> Callable[[Frame], dict[str, Any]]:
    compiled: list[tuple[str, EvalFn | None]] = []
    for key, expr in options:
        compiled.append((key, None if expr is None else c.expr(expr).fn))

    def values(f: Frame) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, fn in compiled:
            v = None if fn is None else fn(f)
            out[key] = v.to_string() if hasattr(v, "to_string") else v
        return out
    return values


@handler(ast.CreateRoute)
def compile_create_route(c: Compiler, node: ast.CreateRoute) -> StmtFn:
    opts = _options(c, node.options)
    return _ddl(permitted("CREATE ROUTE", lambda f, b, txn: b.create_route(
        txn, f.session.db_id, node.name, opts(f), owner_named(f, node.owner))))


@handler(ast.AlterRoute)
def compile_alter_route(c: Compiler, node: ast.AlterRoute) -> StmtFn:
    opts = _options(c, node.options)
    return _ddl(_altering("ROUTE", node.name, lambda f, b, txn: b.alter_route(
        txn, f.session.db_id, node.name, opts(f))))


@handler(ast.DropRoute)
def compile_drop_route(c: Compiler, node: ast.DropRoute) -> StmtFn:
    return _ddl(_dropping("ROUTE", (node.name,), lambda f, b, txn: b.drop_route(
        txn, f.session.db_id, node.name)))


@handler(ast.CreateRemoteServiceBinding)
def compile_create_binding(c: Compiler, node: ast.CreateRemoteServiceBinding) -> StmtFn:
    return _ddl(lambda f, b, txn: b.create_remote_service_binding(
        txn, f.session.db_id, node.name, node.service, node.user, node.anonymous,
        owner_named(f, node.owner)))


@handler(ast.AlterRemoteServiceBinding)
def compile_alter_binding(c: Compiler, node: ast.AlterRemoteServiceBinding) -> StmtFn:
    return _ddl(_altering("REMOTE SERVICE BINDING", node.name,
                          lambda f, b, txn: b.alter_remote_service_binding(
                              txn, f.session.db_id, node.name, node.user, node.anonymous)))


@handler(ast.DropRemoteServiceBinding)
def compile_drop_binding(c: Compiler, node: ast.DropRemoteServiceBinding) -> StmtFn:
    return _ddl(_dropping("REMOTE SERVICE BINDING", (node.name,),
                          lambda f, b, txn: b.drop_remote_service_binding(
                              txn, f.session.db_id, node.name)))


def _no_user_transaction(f: Frame, what: str) -> None:
    if f.session.trancount > 0:
        raise tsql_error(226, what)


def _endpoint_owner(f: Frame, authorization: str | None) -> int:
    """The login owning a new endpoint: AUTHORIZATION's (Msg 15151 for an unknown one),
    else the creating login (sa for a database-scoped impersonation's, which carries none:
    it could not have passed the permission check unless sysadmin)."""
    if authorization is None:
        return login_id(f) or 1
    found = Security.get(f.session.instance.store).find_login(f.session.conn, authorization)
    if found is None:
        raise tsql_error(15151, "login", authorization, cls=BindError)
    return found.principal_id


@handler(ast.CreateEndpoint)
def compile_create_endpoint(c: Compiler, node: ast.CreateEndpoint) -> StmtFn:
    options: dict[str, Any] = dict(node.tcp_options) | dict(node.broker_options)
    if node.state is not None:
        options["state"] = node.state

    def run(f: Frame, b: Broker, txn: Any) -> None:
        _no_user_transaction(f, "ALTER ENDPOINT" if node.alter else "CREATE ENDPOINT")
        if node.alter:
            require_endpoint_ddl(f, node.name, b.endpoint_owner(txn.conn, node.name))
            b.alter_endpoint(txn, node.name, options)
        else:
            require_endpoint_ddl(f, None)
            b.create_endpoint(txn, node.name, options, _endpoint_owner(f, node.owner))
    return _ddl(run)


@handler(ast.DropEndpoint)
def compile_drop_endpoint(c: Compiler, node: ast.DropEndpoint) -> StmtFn:
    def run(f: Frame, b: Broker, txn: Any) -> None:
        _no_user_transaction(f, "DROP ENDPOINT")
        require_endpoint_ddl(f, node.name, b.endpoint_owner(txn.conn, node.name), drop=True)
        endpoint_id = b.drop_endpoint(txn, node.name)
        # Its permissions (CONNECT …, kept at server level) go with it: an endpoint made
        # later may get its id again.
        Security.get(f.session.instance.store).forget_securable(
            txn.conn, 0, CLASSES["ENDPOINT"][0], endpoint_id)
    return _ddl(run)


@handler(ast.CreateBrokerPriority)
def compile_create_priority(c: Compiler, node: ast.CreateBrokerPriority) -> StmtFn:
    opts = _options(c, node.options)

    def run(f: Frame, b: Broker, txn: Any) -> None:
        if node.alter:
            b.alter_broker_priority(txn, f.session.db_id, node.name, opts(f))
        else:
            b.create_broker_priority(txn, f.session.db_id, node.name, opts(f))
    return _ddl(run)


@handler(ast.DropBrokerPriority)
def compile_drop_priority(c: Compiler, node: ast.DropBrokerPriority) -> StmtFn:
    return _ddl(lambda f, b, txn: b.drop_broker_priority(txn, f.session.db_id, node.name))


_BROKER_OPTIONS = {"enable_broker", "disable_broker", "new_broker",
                   "error_broker_conversations", "honor_broker_priority"}


@handler(ast.AlterDatabase)
def compile_alter_database(c: Compiler, node: ast.AlterDatabase) -> StmtFn:
    """Broker options go to the broker; TRUSTWORTHY and DB_CHAINING are recorded; other options (recovery
    model, snapshot isolation …) have no meaning for this engine and are accepted as no-ops,
    so that real setup scripts run."""
    option = node.option.lower()

    def run(f: Frame) -> None:
        s = f.session
        _no_user_transaction(f, "ALTER DATABASE")
        db_id = _db_id(f, node.database)
        if option in _BROKER_OPTIONS:
            value = None if node.value is None else node.value.lower() == "on"
            _broker(f).set_database_broker_option(s.txn_for_statement(), db_id, option, value)
        elif option == "trustworthy":
            txn = s.txn_for_statement()
            txn.write()
            s.instance.catalog.set_database_option(
                s.conn, db_id, is_trustworthy_on=(node.value or "").lower() == "on")
        elif option == "db_chaining":
            if not unchecked(f, None):  # sysadmin only, as documented
                name = s.instance.catalog.database(s.conn, db_id)
                raise tsql_error(5011, name.name if name else str(db_id))
            s.txn_for_statement().write()
            Security.get(s.instance.store).set_database(
                s.conn, db_id, chaining=(node.value or "").lower() == "on")
    return run


@handler(ast.AlterDatabaseFiles)
def compile_alter_database_files(c: Compiler, node: ast.AlterDatabaseFiles) -> StmtFn:
    """Files and filegroups mean nothing to a store that keeps each database in tables of
    its own: the statement is accepted when SQL Server would accept it so far as we can
    tell (the database exists, no user transaction), and changes nothing."""

    def run(f: Frame) -> None:
        _no_user_transaction(f, "ALTER DATABASE")
        _db_id(f, node.database)
    return run


# --------------------------------------------------------------------------------------------
# dialogs
# --------------------------------------------------------------------------------------------
@handler(ast.BeginDialog)
def compile_begin_dialog(c: Compiler, node: ast.BeginDialog) -> StmtFn:
    store = c.assigner(c.var(node.handle, node), T.UNIQUEIDENTIFIER)
    from_service = _named(c, node.from_service, 8421)
    contract = _named(c, node.contract, 8425, "")
    to_service = _text(c, node.to_service)
    to_broker = _text(c, node.to_broker)
    related_conv = _guid(c, node.related_conversation)
    related_group = _guid(c, node.related_group)
    lifetime = _int(c, node.lifetime)
    lifetime_given = node.lifetime is not None

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        if not privileged(f):
            _dialog_permissions(f, from_service(f), to_service(f) if to_service else None,
                                contract(f))
        handle = _broker(f).begin_dialog(
            s.txn_for_statement(), s.db_id, from_service(f),
            to_service(f) if to_service else None,
            to_broker(f) if to_broker else None, contract(f),
            related_conv(f) if related_conv else None,
            related_group(f) if related_group else None,
            lifetime(f) if lifetime else None, node.encryption,
            lifetime_given=lifetime_given)
        store(f, handle)
    return run


def _dialog_permissions(f: Frame, from_service: str, to_service: str | None,
                        contract: str | None) -> None:
    """BEGIN DIALOG's permissions: RECEIVE on the FROM service's queue, REFERENCES on the
    contract (the DEFAULT contract is everyone's), and SEND on the target service when it is
    a service of this database (a remote one checks on its side)."""
    s = f.session
    meta = Broker.get(s.instance.store).meta.get(s.conn, s.db_id)
    if meta is None:
        return  # the broker reports the missing database / service itself
    service = meta.services_by_name.get(from_service)
    queue = meta.queues_by_id.get(service.service_queue_id) if service else None
    if queue is not None:
        obj = s.instance.catalog.object_by_id(s.conn, s.db_id, queue.object_id)
        if obj is not None:
            require_object(f, "RECEIVE", s.db_id, obj, chain=False)
    found = meta.contracts_by_name.get(contract) if contract not in (None, "DEFAULT") else None
    if found is not None:
        require_securable(f, "REFERENCES", 16, found.service_contract_id, found.name)
    target = meta.services_by_name.get(to_service or "")
    if target is not None:
        require_securable(f, "SEND", 17, target.service_id, target.name)


def _body(c: Compiler, node: ast.Expr) -> EvalFn:
    """The message body converted to varbinary(max), as SEND does (explicitly)."""
    e = c.expr(node)
    if e.predicate:
        raise c.bind_error(4145, node, "SEND")
    if e.type.name == "null":
        return lambda _f: None
    conv = converter(e.type, T.VARBINARY_MAX)
    ef = e.fn
    return lambda f: conv(ef(f))


@handler(ast.Send)
def compile_send(c: Compiler, node: ast.Send) -> StmtFn:
    handles = [_guid(c, h) for h in node.handles]
    message_type = _named(c, node.message_type, 8428, "")
    body = _body(c, node.body) if node.body is not None else None

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        values = [h(f) for h in handles if h is not None]
        if any(v is None for v in values):
            raise tsql_error(8418)
        require_send(f, values)
        _broker(f).send(s.txn_for_statement(), s.db_id, values, message_type(f),
                        body(f) if body is not None else None, body is not None)
    return run


@handler(ast.EndConversation)
def compile_end_conversation(c: Compiler, node: ast.EndConversation) -> StmtFn:
    handle = _guid(c, node.handle)
    code = _int(c, node.error_code)
    text = _text(c, node.description)
    with_error = node.error_code is not None or node.description is not None

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        _broker(f).end_conversation(
            s.txn_for_statement(), s.db_id, handle(f) if handle else None,
            code(f) if code else None, text(f) if text else None, node.cleanup,
            with_error=with_error)
    return run


@handler(ast.BeginConversationTimer)
def compile_begin_timer(c: Compiler, node: ast.BeginConversationTimer) -> StmtFn:
    handle = _guid(c, node.handle)
    timeout = _int(c, node.timeout)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        _broker(f).begin_conversation_timer(s.txn_for_statement(), s.db_id,
                                            handle(f) if handle else None,
                                            timeout(f) if timeout else 0)
    return run


@handler(ast.MoveConversation)
def compile_move_conversation(c: Compiler, node: ast.MoveConversation) -> StmtFn:
    handle = _guid(c, node.handle)
    group = _guid(c, node.group)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        _broker(f, work=False).move_conversation(s.txn_for_statement(), s.db_id,
                                     handle(f) if handle else None, group(f) if group else None)
    return run


@special("get_transmission_status")
def compile_get_transmission_status(c: Compiler, node: ast.FunctionCall) -> CExpr:
    if len(node.args) != 1:
        raise c.bind_error(174, node, "get_transmission_status", 1)
    handle = _guid(c, node.args[0])
    assert handle is not None

    def status(f: Frame) -> Any:
        s = f.session
        return _broker(f, work=False).get_transmission_status(s.conn, s.db_id, handle(f))
    return CExpr(T.nvarchar(4000), status)


# --------------------------------------------------------------------------------------------
# RECEIVE / GET CONVERSATION GROUP / WAITFOR
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Projection:
    """How a RECEIVE turns queue rows into its result, assignments or INTO rows."""

    names: list[str]
    types: list[str | None]
    values: Callable[[Frame, tuple[Any, ...]], tuple[Any, ...]]
    assigns: list[Callable[[Frame, tuple[Any, ...]], None]]
    # The queue columns the projection reads (None: every one, as ``*`` does).
    columns: frozenset[str] | None = None


def _hidden_columns(c: Compiler, expr: ast.Expr, slots: dict[str, int],
                    tag: int) -> ast.Expr:
    """``expr`` with every queue column reference replaced by a hidden variable."""

    def rewrite(node: Any) -> Any:
        if (isinstance(node, ast.FunctionCall) and node.name.schema is None
                and node.name.name.lower() in DATEPART_FIRST and node.args
                and isinstance(node.args[0], ast.Column) and len(node.args[0].parts) == 1):
            # DATEADD(day, …): the datepart keyword parses as a column name; it stays one.
            tail = node.args[1:]
            rest = rewrite(tail)
            return node if rest is tail else dataclasses.replace(
                node, args=(node.args[0], *rest))
        if isinstance(node, ast.Column):
            col = node.parts[-1].lower()
            col = _ALIASES.get(col, col)
            if col not in _COLUMN_TYPES:
                raise c.bind_error(207, node, ".".join(node.parts))
            name = _hidden_name(tag, col)
            if col not in slots:
                slots[col] = c.scope.add(name, _COLUMN_TYPES[col]).slot
            return ast.Variable(name, span=node.span)
        if isinstance(node, (ast.Subquery, ast.Exists, ast.InSubquery)):
            return node
        if dataclasses.is_dataclass(node) and isinstance(node, ast.Node):
            changes = {}
            for fl in dataclasses.fields(node):
                if fl.name == "span":
                    continue
                old = getattr(node, fl.name)
                new = rewrite(old)
                if new is not old:
                    changes[fl.name] = new
            return dataclasses.replace(node, **changes) if changes else node
        if isinstance(node, tuple):
            items = tuple(rewrite(x) for x in node)
            return items if any(a is not b for a, b in zip(items, node)) else node
        return node
    return rewrite(expr)


def _compound(c: Compiler, it: ast.SelectItem, expr: ast.Expr, e: CExpr,
              hidden: str | None) -> CExpr:
    """``@v op= expr`` of a RECEIVE item as ``@v op expr``. An item holding a subquery is
    compiled already (a query per queue row, which has no text of its own to compile
    again): its value reaches the operator through the hidden variable ``hidden``."""
    op = (it.assign_op or "+=")[:-1]
    target = ast.Variable(it.assign_to or "", span=it.span)
    if hidden is None:
        return c.expr(ast.Binary(op, target, expr, span=it.span))
    slot = c.scope.add(hidden, e.type).slot
    combined = c.expr(ast.Binary(op, target, ast.Variable(hidden, span=it.span), span=it.span))
    item_fn, combined_fn = e.fn, combined.fn

    def fn(f: Frame) -> Any:
        f.v[slot] = item_fn(f)
        return combined_fn(f)
    return dataclasses.replace(combined, fn=fn)


def _hidden_name(tag: int, col: str) -> str:
    return f"@\x00rcv{tag}_{col}"


# Parameters carrying the current queue row into a RECEIVE item that holds a subquery.
_ROW_PARAM = "@__tsqlb_receive_"


# Tokens of a RECEIVE's text that matter for splitting its column list: quoted text and
# comments (skipped whole), parentheses, commas and words.
_RECEIVE_TOKENS = re.compile(
    r"(?P<skip>N?'(?:[^']|'')*'|\[(?:[^\]]|\]\])*\]|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/)"
    r"|(?P<open>\()|(?P<close>\))|(?P<comma>,)|(?P<word>[^\W\d][\w@#$]*|\d[\w.]*)",
    re.DOTALL | re.IGNORECASE)
_ASSIGNMENT = re.compile(r"\s*@[^\W\d@][\w@#$]*\s*[-+*/%&|^]?=", re.DOTALL)


def _receive_item_texts(text: str) -> list[str]:
    """The source text of each item of a RECEIVE's column list (``text``: the statement's
    text, RECEIVE first): split at the commas outside parentheses, up to FROM."""
    toks = [m for m in _RECEIVE_TOKENS.finditer(text) if not m.group().startswith(("--", "/*"))]
    i = 1                                   # past RECEIVE
    if i < len(toks) and toks[i].group().upper() == "TOP":
        i += 1
        depth = 0
        while i < len(toks):
            kind = toks[i].lastgroup
            depth += (kind == "open") - (kind == "close")
            i += 1
            if depth == 0:
                break
    start = toks[i - 1].end() if toks else 0
    items: list[str] = []
    depth = 0
    for m in toks[i:]:
        kind = m.lastgroup
        depth += (kind == "open") - (kind == "close")
        if depth == 0 and kind == "comma":
            items.append(text[start:m.start()])
            start = m.end()
        elif depth == 0 and kind == "word" and m.group().upper() == "FROM":
            items.append(text[start:m.start()])
            break
    return items


def _row_query(c: Compiler, item_text: str, expr: ast.Expr, queue: ast.ObjectName,
               slots: dict[str, int], tag: int) -> CExpr:
    """A RECEIVE item holding a subquery, run per message by the storage layer as
    ``SELECT item FROM (SELECT @row columns…) AS queue``: name resolution is then SQL's own,
    as in a correlated SELECT (a subquery's own tables first, then the queue's columns, bare
    or qualified with the queue's name)."""
    # Lazy: the DML layer loads sqlglot, which a script without such an item never needs.
    m = _ASSIGNMENT.match(item_text)
    text = item_text[m.end():] if m else item_text
    for col, _spec in QUEUE_COLUMNS:
        if col not in slots:
            slots[col] = c.scope.add(_hidden_name(tag, col), _COLUMN_TYPES[col]).slot
    row = ", ".join(f"{_ROW_PARAM}{col} AS {col}" for col, _spec in QUEUE_COLUMNS)
    alias = "[" + queue.name.replace("]", "]]") + "]"
    sql = f"SELECT {text} FROM (SELECT {row}) AS {alias}"
    user_params = compile_params(c, expr)
    entries = [(f"{_ROW_PARAM}{col}", slots[col], spec) for col, spec in QUEUE_COLUMNS]
    to_xml = converter(DYNAMIC, T.XML)

    def value(f: Frame) -> Any:
        params = user_params(f)
        v = f.v
        for name, slot, spec in entries:
            params[name] = (v[slot], spec)
        sets = list(getattr(run_sql(f, sql, params), "resultsets", []) or [])
        if not sets or not sets[0].rows:
            return None
        rs = sets[0]
        out = rs.rows[0][0]
        return to_xml(out) if isinstance(out, str) and rs.types and rs.types[0] == "xml" else out
    return CExpr(DYNAMIC, value)


def _holds_query(expr: ast.Expr) -> bool:
    return any(isinstance(n, (ast.Subquery, ast.Exists, ast.InSubquery)) for n in walk(expr))


def _compile_projection(c: Compiler, node: ast.Receive) -> _Projection:
    assigning = [it for it in node.items if it.assign_to]
    if assigning and len(assigning) != len(node.items):
        raise c.bind_error(8447, node)
    if assigning and node.into is not None:
        raise c.bind_error(8450, node)
    tag = next(_hidden_ids)
    slots: dict[str, int] = {}
    names: list[str] = []
    types: list[str | None] = []
    getters: list[Callable[[Frame, tuple[Any, ...]], Any]] = []
    assigns: list[Callable[[Frame, tuple[Any, ...]], None]] = []
    item_texts: list[str] | None = None
    for index, it in enumerate(node.items):
        if isinstance(it.expr, ast.Star):
            for col, spec in RECEIVE_STAR:
                idx = _COLUMN_INDEX[col]
                names.append(col)
                types.append(spec)
                getters.append(lambda _f, row, i=idx: row[i])
            continue
        expr = _hidden_columns(c, it.expr, slots, tag)
        e = c.expr(expr)
        if e.predicate:
            raise c.bind_error(4145, it, "RECEIVE")
        if _holds_query(it.expr):
            if item_texts is None:
                item_texts = _receive_item_texts(c.source(node))
                assert len(item_texts) == len(node.items), "RECEIVE items split apart"
            e = _row_query(c, item_texts[index], it.expr, node.queue, slots, tag)
        if it.assign_to:
            info = c.var(it.assign_to, it)
            if (it.assign_op or "=") != "=":
                e = _compound(c, it, expr, e, _hidden_name(tag, f"item{index}")
                              if _holds_query(it.expr) else None)
            store = c.assigner(info, e.type)
            ef = e.fn
            assigns.append(lambda f, _row, st=store, fn=ef: st(f, fn(f)))
            continue
        if isinstance(it.expr, ast.Column):
            col = _ALIASES.get(it.expr.parts[-1].lower(), it.expr.parts[-1].lower())
            names.append(it.alias or it.expr.parts[-1])
            types.append(e.type.spec())
        else:
            names.append(it.alias or "")
            types.append(None if e.type == DYNAMIC else e.type.spec())
        getters.append(lambda f, _row, fn=e.fn: fn(f))
    loads = [(slot, _COLUMN_INDEX[col]) for col, slot in slots.items()]

    def values(f: Frame, row: tuple[Any, ...]) -> tuple[Any, ...]:
        v = f.v
        for slot, idx in loads:
            v[slot] = row[idx]
        return tuple(g(f, row) for g in getters)

    def load(f: Frame, row: tuple[Any, ...]) -> None:
        v = f.v
        for slot, idx in loads:
            v[slot] = row[idx]

    if assigns:
        assigns.insert(0, load)
    star = any(isinstance(it.expr, ast.Star) for it in node.items)
    return _Projection(names, types, values, assigns, None if star else frozenset(slots))


def _cannot_fail_with_rows(c: Compiler, node: ast.Receive) -> bool:
    """Whether nothing of RECEIVE ``node`` can fail once it has its rows, so that they may
    be deleted and committed with them (``Receiving.receive``'s ``with_commit``): RECEIVE
    TOP (n) without WHERE or INTO whose items are ``*`` and queue columns, each shown or
    assigned (``=``) to a variable of its own type (a string or binary variable shorter than
    the column truncates, without error) or a wider integer type. Expressions (a CAST, a
    subquery …) and INTO run after the rows come and may fail there."""
    if node.top is None or node.into is not None or node.where_column is not None:
        return False
    for it in node.items:
        if isinstance(it.expr, ast.Star):
            continue
        if not isinstance(it.expr, ast.Column):
            return False
        if not it.assign_to:
            continue
        col = it.expr.parts[-1].lower()
        src = _COLUMN_TYPES.get(_ALIASES.get(col, col))
        dst = c.var(it.assign_to, it).type
        if src is None or (it.assign_op or "=") != "=":
            return False
        if src.name != dst.name and not _holds_every_integer_of(dst.name, src.name):
            return False
    return True


def _holds_every_integer_of(dst: str, src: str) -> bool:
    """Whether integer type ``dst`` holds every value of integer type ``src``."""
    wide, narrow = T.INT_RANGES.get(dst), T.INT_RANGES.get(src)
    return (wide is not None and narrow is not None
            and wide[0] <= narrow[0] and narrow[1] <= wide[1])


def _timeout_ms(c: Compiler, node: ast.Expr | None) -> EvalFn | None:
    return _int(c, node)


class _Waiter:
    """A WAITFOR's deadline and the activation task's "waiting" flag around each wait."""

    def __init__(self, f: Frame, timeout_ms: int | None) -> None:
        self.f = f
        infinite = timeout_ms is None or timeout_ms < 0
        self.deadline = None if infinite else time.monotonic() + timeout_ms / 1000.0

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def wait(self, broker: Broker, db_id: int, schema: str | None, name: str, txn: Any,
             where: tuple[str, Any] | None) -> bool:
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return False
        s = self.f.session
        task = _task(self.f)
        manager = runtime_for(s.instance, start=False).manager
        if task is not None:
            manager.set_waiting(task, True)
        try:
            with s.waiting("BROKER_RECEIVE_WAITFOR"):
                got = broker.wait_for_message(db_id, schema, name, remaining, s.cancelled,
                                              txn=txn, where=where)
        finally:
            if task is not None:
                manager.set_waiting(task, False)
        s.check_cancel()
        return got


def _receive_runner(c: Compiler, node: ast.Receive, waitfor: bool,
                    timeout: EvalFn | None) -> StmtFn:
    proj = _compile_projection(c, node)
    commit_safe = _cannot_fail_with_rows(c, node)
    db, schema, name = _name_parts(node.queue)
    top = _int(c, node.top)
    where_col = node.where_column
    where_val = _typed(c, node.where_value, T.UNIQUEIDENTIFIER)
    into = node.into
    into_name = into if isinstance(into, str) else (
        _object_text(into) if into is not None else None)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        broker = _broker(f, work=False)
        db_id = _db_id(f, db)
        if not privileged(f):
            _queue_permission(f, db_id, schema, name, "RECEIVE")
        txn = s.txn_for_statement()
        s.rowcount = 0          # what a RECEIVE that fails leaves
        n = top(f) if top is not None else None
        column, wv = where_col, where_val(f) if where_val is not None else None
        scope = None if column else _scope(f, db_id, schema, name)
        if scope is not None:
            column, wv = "conversation_group_id", scope.group
        waiter = (_Waiter(f, timeout(f) if timeout is not None else None)
                  if waitfor and scope is None else None)
        # Failing anywhere up to the last use of its rows, the statement gives them back.
        with broker.receive_statement(txn):
            rows = _received_rows(f, broker, txn, db_id, schema, name, n, (column, wv),
                                  waiter, scope is not None, commit_safe, proj.columns)
            _deliver(f, proj, into_name, rows)
    return run


def _received_rows(f: Frame, broker: Broker, txn: Any, db_id: int, schema: str | None,
                   name: str, n: int | None, where: tuple[str | None, Any],
                   waiter: _Waiter | None, scoped: bool, commit_safe: bool,
                   columns: frozenset[str] | None = None) -> list[tuple[Any, ...]]:
    """A RECEIVE's rows, waiting (``waiter``: WAITFOR) until some come or its time is up
    (``columns``: the costly queue columns its items read; None: all of them)."""
    s = f.session
    column, wv = where
    task = _task(f)
    # The one-round-trip try costs three round trips when it finds nothing (its check,
    # the savepoint's rollback, then the usual read): made on the first pass and after the
    # first wake; a wake whose message another receiver took first polls the usual way.
    commit_tries = 2 if commit_safe and txn.commit_follows and not scoped else 0
    while True:
        # A WAITFOR … WHERE waits for the group lock no longer than its TIMEOUT.
        lock_timeout = waiter.remaining() if waiter is not None else None
        if scoped:
            lock_timeout = 0.0      # the drain's task holds the group or nobody may wait
        kwargs: dict[str, Any] = (
            {} if lock_timeout is None else {"lock_timeout": max(lock_timeout, 0.0)})
        if columns is not None:
            kwargs["columns"] = columns
        if commit_tries > 0:
            commit_tries -= 1
            kwargs["with_commit"] = True      # see receive_then_commit
        rs = broker.receive(txn, db_id, schema, name, n, column, wv,
                            cancelled=s.cancelled, **kwargs)
        if task is not None:
            task.received = True
        if rs.rows or waiter is None:
            return rs.rows
        if not waiter.wait(broker, db_id, schema, name, txn,
                           (column, wv) if column else None):
            return rs.rows


def _deliver(f: Frame, proj: _Projection, into_name: str | None,
             rows: list[tuple[Any, ...]]) -> None:
    """Turn a RECEIVE's rows into its variables, INTO rows or result set (@@ROWCOUNT set
    only once that worked: a failing RECEIVE returned nothing)."""
    s = f.session
    if proj.assigns:
        # Row by row, as SELECT @v = … does: any row's failing item fails the statement.
        for row in rows:
            for fn in proj.assigns:
                fn(f, row)
        s.rowcount = len(rows)
        return
    out = [proj.values(f, row) for row in rows]
    if into_name is not None:
        if out:
            engine_dml.insert_rows(exec_context(f), into_name, None, out)
        s.rowcount = len(out)
        if not s.nocount:
            s.sink.rows_affected(len(out))
        return
    s.sink.resultset(ResultSet(list(proj.names), list(proj.types), out))
    s.rowcount = len(out)
    if not s.nocount:
        s.sink.rows_affected(len(out))


def _queue_permission(f: Frame, db_id: int, schema: str | None, name: str,
                      permission: str) -> None:
    obj = f.session.instance.catalog.find_object(f.session.conn, db_id, schema, name, {"SQ"})
    if obj is not None:  # else the broker reports the unknown queue
        require_object(f, permission, db_id, obj)


@handler(ast.Receive)
def compile_receive(c: Compiler, node: ast.Receive) -> StmtFn:
    return _receive_runner(c, node, False, None)


def _get_group_runner(c: Compiler, node: ast.GetConversationGroup, waitfor: bool,
                      timeout: EvalFn | None) -> StmtFn:
    store = c.assigner(c.var(node.variable, node), T.UNIQUEIDENTIFIER)
    db, schema, name = _name_parts(node.queue)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        broker = _broker(f, work=False)
        db_id = _db_id(f, db)
        txn = s.txn_for_statement()
        scope = _scope(f, db_id, schema, name)
        waiter = (_Waiter(f, timeout(f) if timeout is not None else None)
                  if waitfor and scope is None else None)
        task = _task(f)
        while True:
            group = broker.get_conversation_group(
                txn, db_id, schema, name, only=None if scope is None else scope.group)
            if task is not None:
                task.received = True
            if group is not None or waiter is None:
                break
            if not waiter.wait(broker, db_id, schema, name, txn, None):
                break
        # No group (or TIMEOUT): the variable is set to NULL (reference §5.4).
        store(f, group)
        s.rowcount = 0 if group is None else 1
    return run


@handler(ast.GetConversationGroup)
def compile_get_conversation_group(c: Compiler, node: ast.GetConversationGroup) -> StmtFn:
    return _get_group_runner(c, node, False, None)


@handler(ast.Waitfor)
def compile_waitfor(c: Compiler, node: ast.Waitfor) -> StmtFn:
    timeout = _timeout_ms(c, node.timeout)
    if isinstance(node.statement, ast.Receive):
        return _receive_runner(c, node.statement, True, timeout)
    if isinstance(node.statement, ast.GetConversationGroup):
        return _get_group_runner(c, node.statement, True, timeout)
    raise c.bind_error_text(node, "WAITFOR takes RECEIVE or GET CONVERSATION GROUP.", 102)
