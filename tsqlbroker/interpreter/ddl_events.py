"""DDL events for event notifications ``ON DATABASE`` and ``ON SERVER``.

A CREATE / ALTER / DROP of a table, view, procedure, function or queue raises its DDL event
(CREATE_TABLE …, in the groups DDL_TABLE_EVENTS … DDL_DATABASE_LEVEL_EVENTS); when an event
notification on the database asks for it, the notification's service gets the EventNotification
message whose body is the event's EVENT_INSTANCE document (EVENTDATA()), sent once the
statement's transaction has committed (``engine/broker/notifications.py``). A DROP raises one
event per object it dropped; CREATE OR ALTER raises CREATE_… or ALTER_… as the object was
there before or not.

Every other statement of SQL Server's DDL event table (``_DESCRIBED``: users, roles,
application roles, schemas, certificates, the master key, GRANT / DENY / REVOKE, ALTER
AUTHORIZATION, event notifications, sequences, synonyms, types, triggers, indexes, XML schema
collections, the Service Broker objects; at server level logins, endpoints, server
permissions and server role members) raises its events as it succeeds, with the elements SQL
Server's EVENTDATA schema gives them (DefaultSchema, RoleName, Grantor, Permissions, Grantees,
GrantOption, CascadeOption, OwnerName, TargetObjectName / Type, EndpointName …). A
database-level event goes to the database's notifications and to the server's; a server-level
one to the server's only.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine import permissions as P
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.event_types import is_database_level
from tsqlbroker.engine.broker.notifications import DdlEvent
from tsqlbroker.engine.security import Security
from tsqlbroker.engine.security_views import shown_sid
from tsqlbroker.engine.tableinfo import load_table
from tsqlbroker.grammar import ast

from . import approles  # noqa: F401  (registers sp_addapprole / sp_dropapprole, wrapped below)
from .compiler import STATEMENT_EVENTS, Compiler, StmtFn
from .dynamic import SYSTEM_PROCEDURES  # dynamic's, so that its sp_addrolemember is there
from .function_calls import exec_arg_text
from .impersonation import current

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session

SystemProcedure = Callable[[Compiler, ast.ExecProc], StmtFn]

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
        if events:
            _post_after_commit(s, broker, _database_name(s), events)
    return run


def _database_name(s: Session) -> str:
    row = s.instance.catalog.database(s.conn, s.db_id)
    return row.name if row is not None else ""


def _post_after_commit(s: Session, broker: Broker, db_name: str,
                       events: list[tuple[DdlEvent, bool, bool]]) -> None:
    """Send ``events`` (each with whether the database's and the server's notifications
    asked for it) once the statement's transaction has committed."""
    db_id = s.db_id

    def post() -> None:
        for event, on_db, on_server in events:
            if on_db:
                broker.post_database_event(db_id, event)
            if on_server:
                broker.post_server_event(db_name, event)
    _after_commit(s, post)


def _raising_server(node: Any, fn: StmtFn, text: str) -> StmtFn:
    """CREATE / ALTER / DROP DATABASE: their server-level events, for notifications ON
    SERVER, once the statement has committed."""
    verb = _DATABASE_STATEMENTS[type(node)]
    # DROP's names, ALTER's database (None: CURRENT; ALTER … ADD FILE's ``name`` is the
    # file's), CREATE's name.
    names = list(node.names) if hasattr(node, "names") else [
        node.database if hasattr(node, "database") else node.name]

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


@dataclass(frozen=True)
class SidOf:
    """An element whose value is a principal's SID as the catalog views show it (a
    ``login``: sys.server_principals; a ``user`` or role of the database:
    sys.database_principals), base64 as EVENTDATA writes binary; left out when the
    principal has none there."""

    kind: str  # "login" or "user"
    name: str


Field = tuple[str, "str | tuple[str, ...] | SidOf"]


@dataclass(frozen=True)
class Raised:
    """One event a statement raises, as its AST says it (``describe``): EVENT_INSTANCE's
    ObjectName / ObjectType ("" for none), SchemaName (None: not schema-scoped) and the
    event's own elements."""

    event_type: str
    name: str
    object_type: str
    schema: str | None = None
    fields: tuple[Field, ...] = ()


def _schema_scoped(event: str, object_type: str) -> Callable[[Any], list[Raised]]:
    """An event of the schema-scoped object(s) the statement names (``name`` or
    ``names``)."""
    return lambda node: [Raised(event, n.name, object_type, n.schema or "dbo")
                         for n in _names(node) if not n.database]


def _named(event: str, object_type: str) -> Callable[[Any], list[Raised]]:
    """An event of the database or server object(s) the statement names (a str ``name`` or
    ``names``): no SchemaName."""
    return lambda node: [Raised(event, n, object_type) for n in (
        node.names if hasattr(node, "names") else (node.name,))]


def _by_flag(kind: str, object_type: str, scoped: bool = True) -> Callable[[Any], list[Raised]]:
    """CREATE_… or (``alter``) ALTER_… of the object the statement names."""
    def describe(node: Any) -> list[Raised]:
        verb = "ALTER" if node.alter else "CREATE"
        make = _schema_scoped if scoped else _named
        return make(f"{verb}_{kind}", object_type)(node)
    return describe


def _user(verb: str) -> Callable[[Any], list[Raised]]:
    def describe(node: Any) -> list[Raised]:
        options = dict(getattr(node, "options", ()))
        schema = options.get("default_schema")
        fields: tuple[Field, ...] = (("DefaultSchema", str(schema)),) \
            if schema is not None else ()
        return [Raised(f"{verb}_USER", node.name, "SQL USER",
                       fields=(*fields, ("SID", SidOf("user", node.name))))]
    return describe


def _login(verb: str) -> Callable[[Any], list[Raised]]:
    def describe(node: Any) -> list[Raised]:
        options = dict(getattr(node, "options", ()))
        fields: list[Field] = [
            (k, str(options[o])) for k, o in (("DefaultLanguage", "default_language"),
                                                ("DefaultDatabase", "default_database"))
            if o in options]
        kind = getattr(node, "kind", None)
        if kind is not None:
            fields.append(("LoginType", {"WINDOWS": "Windows (NT) Login",
                                         "CERTIFICATE": "Certificate Mapped Login"}.get(
                kind, "SQL Login")))
        fields.append(("SID", SidOf("login", node.name)))
        return [Raised(f"{verb}_LOGIN", node.name, "LOGIN", fields=tuple(fields))]
    return describe


def _role(verb: str) -> Callable[[Any], list[Raised]]:
    """CREATE / DROP ROLE: CREATE_ROLE / DROP_ROLE; CREATE / DROP SERVER ROLE:
    CREATE_SERVER_ROLE / DROP_SERVER_ROLE (server-level events)."""
    def describe(node: Any) -> list[Raised]:
        kind = "SERVER ROLE" if node.server else "ROLE"
        return [Raised(f"{verb}_{kind.replace(' ', '_')}", node.name, kind)]
    return describe


def _alter_role(node: ast.AlterRole) -> list[Raised]:
    """ALTER ROLE … ADD / DROP MEMBER: ADD_ROLE_MEMBER / DROP_ROLE_MEMBER of the member
    (ALTER SERVER ROLE: …_SERVER_ROLE_MEMBER, of a login); WITH NAME: ALTER_ROLE."""
    server = "SERVER_" if node.server else ""
    member_type = "LOGIN" if node.server else "SQL USER"
    for verb, member in (("ADD", node.add_member), ("DROP", node.drop_member)):
        if member is not None:
            return [Raised(f"{verb}_{server}ROLE_MEMBER", member, member_type,
                           fields=_member_fields(node.name, member, bool(node.server)))]
    return [Raised(f"ALTER_{server}ROLE", node.name, f"{server.replace('_', ' ')}ROLE")]


def _member_fields(role: str, member: str, server: bool) -> tuple[Field, ...]:
    """A role member event's SID (the member's), RoleName and RoleSID."""
    kind = "login" if server else "user"
    return (("SID", SidOf(kind, member)), ("RoleName", role), ("RoleSID", SidOf(kind, role)))


# Securable classes of the server (GRANT / ALTER AUTHORIZATION on them are server events).
_SERVER_CLASSES = frozenset({"SERVER", "ENDPOINT", "LOGIN", "SERVER ROLE",
                             "AVAILABILITY GROUP"})


def _securable(sc: ast.Securable | None) -> tuple[str | None, str, str]:
    """SchemaName, ObjectName, ObjectType of a GRANT's or ALTER AUTHORIZATION's securable
    (a schema-scoped object's class is OBJECT when the statement does not say)."""
    if sc is None:
        return None, "", ""
    cls = sc.object_class or "OBJECT"
    if cls == "OBJECT":
        return sc.name.schema or "dbo", sc.name.name, cls
    return None, sc.name.name, cls


def _permission(node: ast.PermissionStatement) -> list[Raised]:
    """GRANT / DENY / REVOKE: …_SERVER for server permissions (no ON, or ON a server
    securable), else …_DATABASE, with Grantor, Permissions, Grantees and the options."""
    sc = node.securable
    names = [p.name for p in node.permissions]
    server = (sc is None and P.all_server_level(names)) or (
        sc is not None and sc.object_class in _SERVER_CLASSES)
    # GRANT … TO without ON: the database itself (its name is filled in as it runs).
    schema, name, object_type = _securable(sc) if sc is not None or server else (
        None, "", "DATABASE")
    fields: list[tuple[str, str | tuple[str, ...]]] = [
        ("Grantor", ""), ("Permissions", tuple(names)), ("Grantees", tuple(node.principals))]
    if node.as_principal is not None:
        fields.append(("AsGrantor", node.as_principal))
    grant_option = node.with_grant_option or node.grant_option_for
    fields += [("GrantOption", "TRUE" if grant_option else "FALSE"),
               ("CascadeOption", "TRUE" if node.cascade else "FALSE")]
    return [Raised(f"{node.action}_{'SERVER' if server else 'DATABASE'}", name, object_type,
                   schema, tuple(fields))]


def _authorization(node: ast.AlterAuthorization) -> list[Raised]:
    """ALTER AUTHORIZATION: ALTER_AUTHORIZATION_SERVER on a database or a server securable
    (as the DDL Events page has it), else ALTER_AUTHORIZATION_DATABASE; OwnerName."""
    cls = (node.object_class or "OBJECT").upper().replace("_", " ")  # SERVER_ROLE as read
    parts = node.name.split(".") if cls == "OBJECT" else [node.name]
    name = ast.ObjectName(parts[-1], parts[-2] if len(parts) > 1 else None)
    schema, obj, object_type = _securable(ast.Securable(cls, name))
    level = "SERVER" if cls in _SERVER_CLASSES or cls == "DATABASE" else "DATABASE"
    return [Raised(f"ALTER_AUTHORIZATION_{level}", obj, object_type, schema,
                   (("OwnerName", node.owner),))]


def _event_notification(verb: str) -> Callable[[Any], list[Raised]]:
    """CREATE / DROP_EVENT_NOTIFICATION: TargetObjectName / Type say what it is on."""
    def describe(node: Any) -> list[Raised]:
        target = node.target.upper()
        on = node.queue.name if node.queue is not None else ""
        fields = (("TargetObjectName", on), ("TargetObjectType", target))
        return [Raised(f"{verb}_EVENT_NOTIFICATION", n, "EVENT NOTIFICATION", fields=fields)
                for n in (node.names if hasattr(node, "names") else (node.name,))]
    return describe


def _on_table(event: str, object_type: str) -> Callable[[Any], list[Raised]]:
    """An index's or trigger's event: TargetObjectName / Type are its table (when the
    statement names it: DROP TRIGGER does not)."""
    def describe(node: Any) -> list[Raised]:
        table = getattr(node, "table", None)
        fields = (("TargetObjectName", table.name), ("TargetObjectType", "TABLE")) \
            if table is not None else ()
        if isinstance(getattr(node, "name", None), str):  # an index: its table's schema
            return [Raised(event, node.name, object_type,
                           (table.schema if table is not None else None) or "dbo", fields)]
        return [Raised(event, n.name, object_type, n.schema or "dbo", fields)
                for n in _names(node) if not n.database]
    return describe


def _create_trigger(node: ast.CreateTrigger) -> list[Raised]:
    verb = "ALTER" if node.alter else "CREATE"
    return _on_table(f"{verb}_TRIGGER", "TRIGGER")(node)


_MASTER_KEY = "##MS_DatabaseMasterKey##"

# Statement → the events it raises (computed from the AST before the statement runs).
_DESCRIBED: dict[type, Callable[[Any], list[Raised]]] = {
    ast.CreateUser: _user("CREATE"), ast.AlterUser: _user("ALTER"),
    ast.DropUser: _user("DROP"),
    ast.CreateRole: _role("CREATE"), ast.DropRole: _role("DROP"),
    ast.AlterRole: _alter_role,
    ast.ApplicationRole: lambda n: [Raised(f"{n.action}_APPLICATION_ROLE", n.name,
                                           "APPLICATION ROLE")],
    ast.CreateSchema: _named("CREATE_SCHEMA", "SCHEMA"),
    ast.AlterSchemaTransfer: lambda n: [Raised("ALTER_SCHEMA", n.schema, "SCHEMA")],
    ast.DropSchema: _named("DROP_SCHEMA", "SCHEMA"),
    ast.CreateCertificate: _named("CREATE_CERTIFICATE", "CERTIFICATE"),
    ast.AlterCertificate: _named("ALTER_CERTIFICATE", "CERTIFICATE"),
    ast.DropCertificate: _named("DROP_CERTIFICATE", "CERTIFICATE"),
    ast.CreateMasterKey: lambda _n: [Raised("CREATE_MASTER_KEY", _MASTER_KEY, "MASTER KEY")],
    ast.AlterMasterKey: lambda _n: [Raised("ALTER_MASTER_KEY", _MASTER_KEY, "MASTER KEY")],
    ast.DropMasterKey: lambda _n: [Raised("DROP_MASTER_KEY", _MASTER_KEY, "MASTER KEY")],
    ast.PermissionStatement: _permission, ast.AlterAuthorization: _authorization,
    ast.CreateEventNotification: _event_notification("CREATE"),
    ast.DropEventNotification: _event_notification("DROP"),
    ast.CreateSequence: _by_flag("SEQUENCE", "SEQUENCE"),
    ast.DropSequence: _schema_scoped("DROP_SEQUENCE", "SEQUENCE"),
    ast.CreateSynonym: _schema_scoped("CREATE_SYNONYM", "SYNONYM"),
    ast.DropSynonym: _schema_scoped("DROP_SYNONYM", "SYNONYM"),
    ast.CreateAliasType: _schema_scoped("CREATE_TYPE", "TYPE"),
    ast.CreateTableType: _schema_scoped("CREATE_TYPE", "TYPE"),
    ast.DropType: _schema_scoped("DROP_TYPE", "TYPE"),
    ast.CreateTrigger: _create_trigger,
    ast.DropTrigger: _on_table("DROP_TRIGGER", "TRIGGER"),
    ast.CreateIndex: _on_table("CREATE_INDEX", "INDEX"),
    ast.DropIndex: _on_table("DROP_INDEX", "INDEX"),
    ast.CreateXmlSchemaCollection: lambda n: _schema_scoped(
        "CREATE_XML_SCHEMA_COLLECTION", "XML SCHEMA COLLECTION")(n) if n.name else [],
    ast.AlterXmlSchemaCollection: _schema_scoped("ALTER_XML_SCHEMA_COLLECTION",
                                                 "XML SCHEMA COLLECTION"),
    ast.DropXmlSchemaCollection: _schema_scoped("DROP_XML_SCHEMA_COLLECTION",
                                                "XML SCHEMA COLLECTION"),
    ast.CreateMessageType: _named("CREATE_MESSAGE_TYPE", "MESSAGE TYPE"),
    ast.AlterMessageType: _named("ALTER_MESSAGE_TYPE", "MESSAGE TYPE"),
    ast.DropMessageType: _named("DROP_MESSAGE_TYPE", "MESSAGE TYPE"),
    ast.CreateContract: _named("CREATE_CONTRACT", "CONTRACT"),
    ast.DropContract: _named("DROP_CONTRACT", "CONTRACT"),
    ast.CreateService: _named("CREATE_SERVICE", "SERVICE"),
    ast.AlterService: _named("ALTER_SERVICE", "SERVICE"),
    ast.DropService: _named("DROP_SERVICE", "SERVICE"),
    ast.CreateRoute: _named("CREATE_ROUTE", "ROUTE"),
    ast.AlterRoute: _named("ALTER_ROUTE", "ROUTE"), ast.DropRoute: _named("DROP_ROUTE", "ROUTE"),
    ast.CreateRemoteServiceBinding: _named("CREATE_REMOTE_SERVICE_BINDING",
                                           "REMOTE SERVICE BINDING"),
    ast.AlterRemoteServiceBinding: _named("ALTER_REMOTE_SERVICE_BINDING",
                                          "REMOTE SERVICE BINDING"),
    ast.DropRemoteServiceBinding: _named("DROP_REMOTE_SERVICE_BINDING",
                                         "REMOTE SERVICE BINDING"),
    ast.CreateBrokerPriority: _by_flag("BROKER_PRIORITY", "BROKER PRIORITY", scoped=False),
    ast.DropBrokerPriority: _named("DROP_BROKER_PRIORITY", "BROKER PRIORITY"),
    # Server level.
    ast.CreateLogin: _login("CREATE"), ast.AlterLogin: _login("ALTER"),
    ast.DropLogin: _login("DROP"),
    ast.CreateEndpoint: lambda n: [Raised(f"{'ALTER' if n.alter else 'CREATE'}_ENDPOINT", "",
                                          "", fields=(("EndpointName", n.name),))],
    ast.DropEndpoint: lambda n: [Raised("DROP_ENDPOINT", "", "",
                                        fields=(("EndpointName", n.name),))],
}


def _present(s: Session, node: Any, r: Raised) -> bool:
    """Whether the object of event ``r`` of a DROP … IF EXISTS is there (an absent one
    raises no event; each of several names is looked at on its own)."""
    if isinstance(node, (ast.DropUser, ast.DropRole)):
        return Security.get(s.instance.store).find_user(s.conn, s.db_id, node.name) \
            is not None
    if isinstance(node, ast.DropSchema):
        return s.instance.catalog.schema_id(s.conn, s.db_id, node.name) is not None
    if isinstance(node, ast.DropIndex):
        return _index_present(s, node)
    types = _IF_EXISTS_TYPES.get(type(node))
    if types is None:
        return True
    return s.instance.catalog.find_object(s.conn, s.db_id, r.schema, r.name, types) \
        is not None


def _index_present(s: Session, node: ast.DropIndex) -> bool:
    """Whether DROP INDEX … IF EXISTS finds its index (on a table of this database)."""
    on = node.table
    if on is None or on.database:
        return True  # no table (an error) or another database's: the drop decides
    table = s.instance.catalog.find_object(s.conn, s.db_id, on.schema, on.name, {"U"})
    return table is not None and load_table(s.conn, table).index(node.name) is not None


_IF_EXISTS_TYPES: dict[type, set[str]] = {
    ast.DropSequence: {"SO"}, ast.DropSynonym: {"SN"}, ast.DropTrigger: {"TR"},
    ast.DropType: {"TT", "AT"}}


# The catalog's object types → EVENT_INSTANCE's ObjectType (of an OBJECT:: securable).
_TYPE_NAMES = {"U": "TABLE", "V": "VIEW", "P": "PROCEDURE", "FN": "FUNCTION",
               "IF": "FUNCTION", "TF": "FUNCTION", "SQ": "QUEUE", "SO": "SEQUENCE",
               "SN": "SYNONYM", "TR": "TRIGGER"}


def _object_type(s: Session, r: Raised) -> str:
    """``r``'s ObjectType; an OBJECT:: securable (GRANT, ALTER AUTHORIZATION) is named by
    what the catalog says it is (TABLE, VIEW …)."""
    if r.object_type != "OBJECT":
        return r.object_type
    row = s.instance.catalog.find_object(s.conn, s.db_id, r.schema, r.name)
    return _TYPE_NAMES.get(row.type.strip(), "OBJECT") if row is not None else "OBJECT"


def describe(node: Any) -> list[Raised]:
    """The events statement ``node`` raises when it succeeds ([] for a statement of none
    of SQL Server's DDL event types handled this way)."""
    how = _DESCRIBED.get(type(node))
    return how(node) if how is not None else []


def _raising_described(node: Any, fn: StmtFn, text: str) -> StmtFn:
    """A statement of ``_DESCRIBED``: its events go, once it has committed, to the
    notifications on its database (database-level events) and on the server."""
    raised = describe(node)
    if_exists = bool(getattr(node, "if_exists", False))
    return lambda f: _run_raising(f, fn, raised, text,
                                  lambda s, r: not if_exists or _present(s, node, r))


def _run_raising(f: Frame, fn: StmtFn, raised: list[Raised], text: str,
                 present: Callable[[Session, Raised], bool],
                 self_reporting: bool = False) -> None:
    """Run statement ``fn`` and, when it succeeds, send the events ``raised`` that some
    notification asks for (not those ``present`` says a DROP … IF EXISTS does not find).
    A ``self_reporting`` ``fn`` reports its own error (@@ERROR) rather than raising it."""
    s = f.session
    broker = Broker.get(s.instance.store)
    wanted = []
    for r in raised:
        on_db = is_database_level(r.event_type) and broker.database_notified(
            s.conn, s.db_id, r.event_type)
        on_server = broker.server_notified(s.conn, r.event_type)
        if on_db or on_server:
            wanted.append((r, on_db, on_server))
    # What is there before the statement runs decides (it is gone after a DROP).
    wanted = [w for w in wanted if present(s, w[0])]
    if not wanted:
        fn(f)
        return
    # The target of a trigger as the catalog has it before the statement (DROP removes it).
    wanted = [(_trigger_target(s, r), d, sv) for r, d, sv in wanted]
    # A SID is the catalog's after the statement, or before it (what a DROP removed).
    before = _sids(s, raised)
    fn(f)
    if self_reporting and s.error:
        return
    sids = {**before, **{k: v for k, v in _sids(s, raised).items() if v is not None}}
    who = current(s, f)
    db_name = _database_name(s)
    # GRANT / DENY / REVOKE: the Grantor is who ran it (its login for server ones).
    grantor = (("Grantor", who.user), ("Grantor", who.login))
    events = [(DdlEvent(r.event_type, r.schema,
                        r.name or (db_name if r.object_type == "DATABASE" else ""),
                        _object_type(s, r), text, s.id,
                        who.login, who.user,
                        tuple(grantor[not is_database_level(r.event_type)]
                              if k == "Grantor" else (k, sids[v] if isinstance(v, SidOf)
                                                      else v)
                              for k, v in r.fields
                              if not isinstance(v, SidOf) or sids[v] is not None)),
               on_db, on_server)
              for r, on_db, on_server in wanted]
    _post_after_commit(s, broker, db_name, events)


def _trigger_target(s: Session, r: Raised) -> Raised:
    """A DML trigger's TargetObjectName / TargetObjectType as the catalog says them: VIEW for
    a trigger on a view (the AST says TABLE), and the target of a DROP TRIGGER, which does
    not name it."""
    fields = dict(r.fields)
    if r.object_type != "TRIGGER" or fields.get("TargetObjectType", "TABLE") != "TABLE":
        return r
    catalog = s.instance.catalog
    target = fields.get("TargetObjectName")
    if isinstance(target, str):
        row = catalog.find_object(s.conn, s.db_id, r.schema, target)
    else:
        trigger = catalog.find_object(s.conn, s.db_id, r.schema, r.name, {"TR"})
        row = None if trigger is None or not trigger.parent_object_id else \
            catalog.object_by_id(s.conn, s.db_id, trigger.parent_object_id)
    if row is None:
        return r
    kind = "VIEW" if row.type.strip() == "V" else "TABLE"
    return replace(r, fields=(*[(k, v) for k, v in r.fields if not k.startswith("Target")],
                              ("TargetObjectName", row.name), ("TargetObjectType", kind)))


def _sids(s: Session, raised: list[Raised]) -> dict[SidOf, str | None]:
    """The base64 SIDs the catalog views show now for the SidOf elements of ``raised``."""
    security = Security.get(s.instance.store)
    out: dict[SidOf, str | None] = {}
    for r in raised:
        for _k, v in r.fields:
            if isinstance(v, SidOf) and v not in out:
                principal = security.find_login(s.conn, v.name) if v.kind == "login" \
                    else security.find_user(s.conn, s.db_id, v.name)
                sid = shown_sid(principal) if principal is not None else None
                out[v] = base64.b64encode(sid).decode("ascii") if sid else None
    return out


_DATABASE_STATEMENTS: dict[type, str] = {
    ast.CreateDatabase: "CREATE", ast.AlterDatabase: "ALTER", ast.AlterDatabaseFiles: "ALTER",
    ast.DropDatabase: "DROP"}


def _procedure_events(inner: SystemProcedure, params: tuple[str, ...],
                      raises: Callable[[str, list[str]], list[Raised]]) -> SystemProcedure:
    """System procedure ``inner`` sending, when it succeeds, the events ``raises(procedure,
    arguments)`` gives for its ``params`` (as text; positional ones in that order) — the
    procedures the DDL Events page lists under a statement's event."""
    def compile_procedure(c: Compiler, node: ast.ExecProc) -> StmtFn:
        fn = inner(c, node)
        given = {(a.name or params[i]).lower(): a.value for i, a in enumerate(node.args)
                 if a.name or i < len(params)}
        arg_fns = [exec_arg_text(c, given.get(p)) for p in params]
        proc = node.proc.name.lower().removeprefix("sys.")
        span = node.span
        text = c.text[span.start_pos:span.end_pos].strip() if span and c.text else ""

        def run(f: Frame) -> None:
            raised = raises(proc, [a(f) or "" for a in arg_fns])
            _run_raising(f, fn, raised, text, lambda _s, _r: True, self_reporting=True)
        return run
    return compile_procedure


def _role_member(proc: str, args: list[str]) -> list[Raised]:
    """``sp_addrolemember`` / ``sp_droprolemember`` @rolename, @membername: ADD_ROLE_MEMBER
    / DROP_ROLE_MEMBER as ALTER ROLE … ADD / DROP MEMBER."""
    verb = "ADD" if proc == "sp_addrolemember" else "DROP"
    return [Raised(f"{verb}_ROLE_MEMBER", args[1], "SQL USER",
                   fields=_member_fields(args[0], args[1], False))]


def _server_role_member(proc: str, args: list[str]) -> list[Raised]:
    """``sp_addsrvrolemember`` / ``sp_dropsrvrolemember`` @loginame, @rolename:
    ADD_SERVER_ROLE_MEMBER / DROP_SERVER_ROLE_MEMBER as ALTER SERVER ROLE … ADD / DROP
    MEMBER."""
    verb = "ADD" if proc == "sp_addsrvrolemember" else "DROP"
    return [Raised(f"{verb}_SERVER_ROLE_MEMBER", args[0], "LOGIN",
                   fields=(("RoleName", args[1]),))]


def _application_role(proc: str, args: list[str]) -> list[Raised]:
    """``sp_addapprole`` / ``sp_dropapprole`` @rolename: CREATE_APPLICATION_ROLE /
    DROP_APPLICATION_ROLE as CREATE / DROP APPLICATION ROLE."""
    verb = "CREATE" if proc == "sp_addapprole" else "DROP"
    return [Raised(f"{verb}_APPLICATION_ROLE", args[0], "APPLICATION ROLE")]


def _register() -> None:
    raising: Callable[[Any, StmtFn, str], StmtFn] = _raising
    for statement in _STATEMENTS:
        STATEMENT_EVENTS[statement] = raising
    for statement in _DATABASE_STATEMENTS:
        STATEMENT_EVENTS[statement] = _raising_server
    for statement in _DESCRIBED:
        STATEMENT_EVENTS[statement] = _raising_described
    for name, params, raises in (
            ("sp_addrolemember", ("@rolename", "@membername"), _role_member),
            ("sp_droprolemember", ("@rolename", "@membername"), _role_member),
            ("sp_addsrvrolemember", ("@loginame", "@rolename"), _server_role_member),
            ("sp_dropsrvrolemember", ("@loginame", "@rolename"), _server_role_member),
            ("sp_addapprole", ("@rolename",), _application_role),
            ("sp_dropapprole", ("@rolename",), _application_role)):
        SYSTEM_PROCEDURES[name] = _procedure_events(SYSTEM_PROCEDURES[name], params, raises)


_register()
