"""Permission checks of the statements a session runs, as SQL Server makes them
(``engine/access.py`` decides whether a principal holds a permission, ``engine/needs.py``
says what an engine statement needs).

Who is checked is the session's security context (:mod:`impersonation`: the login it
connected as, mapped to a user of the current database, or an EXECUTE AS). No check is made
for sysadmin (the ``sa`` login, the CLI's default) or the ``dbo`` user: that path costs one
attribute test per statement. The owner of a securable or of its schema holds CONTROL on
it (:mod:`engine.owners`). SQL Server's ownership chain: a module (procedure, function,
trigger) is not checked on the objects of its database with its own owner, a view read is
followed to its base objects and checked where their owner differs from the view's;
dynamic SQL (EXEC of a string) breaks the chain, and so does another database unless both
have DB_CHAINING ON and the owners are one login.

Refusals: Msg 229 for an object (table, view, procedure, queue), Msg 262 for a statement
permission (CREATE TABLE …), Msg 300 for a securable outside schemas (service, contract),
Msg 3701 / 1088 for DROP / ALTER of an object (which SQL Server words as "does not exist or
you do not have permission").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, NoReturn, ParamSpec, TypeVar

from tsqlbroker.engine import access, owners, roles
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.broker.fastsql import fetch_endpoint
from tsqlbroker.engine.broker.model import uid
from tsqlbroker.engine.broker.objects import OWNED_CLASSES
from tsqlbroker.engine.context import ExecContext
from tsqlbroker.engine.permissions import broker_securable_id, table_columns
from tsqlbroker.engine.securables import COLUMN_LEVEL
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, TSqlError, cannot, tsql_error
from tsqlbroker.lazy import LazyModule

from .impersonation import context, current, may_connect, principal_in, privileged, unchecked

if TYPE_CHECKING:
    from .frames import Frame

# Statement needs parse with sqlglot: loaded by the first statement a non-sysadmin runs.
needs = LazyModule("tsqlbroker.engine.needs", globals(), "needs")
# A view's columns come from running it (sqlglot too): loaded by the first column check on one.
engine_dml = LazyModule("tsqlbroker.engine.dml", globals(), "engine_dml")

_Key = tuple[str | None, str | None, str]  # a table as a statement names it

# The refusals (a statement refused before it ran: no "The statement has been terminated.").
PERMISSION_ERRORS = frozenset({229, 230, 262, 300, 1088, 3701})


def _sec(f: Frame) -> Security:
    return Security.get(f.session.instance.store)


# session.extensions: the owners.OwnerCache of the permission check running, if any
_OWNER_CACHE = "authorize_owner_cache"
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_check(fn: Callable[Concatenate[Frame, _P], _R]) -> Callable[Concatenate[Frame, _P], _R]:
    """A check that reads each database's owner rows once (:class:`owners.OwnerCache`),
    for itself and the checks it makes (a module's owner, each object it reaches and their
    schemas are asked for several times); the cache goes when the outermost check returns,
    so no statement after it (an ALTER AUTHORIZATION, a DROP) sees an owner it kept."""
    @wraps(fn)
    def check(f: Frame, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        ext = f.session.extensions
        if _OWNER_CACHE in ext:
            return fn(f, *args, **kwargs)
        ext[_OWNER_CACHE] = owners.OwnerCache(_sec(f), f.session.conn)
        try:
            return fn(f, *args, **kwargs)
        finally:
            del ext[_OWNER_CACHE]
    return check


def _owner_cache(f: Frame) -> owners.OwnerCache | None:
    return f.session.extensions.get(_OWNER_CACHE)


def _owner_of(f: Frame, db_id: int, obj: Any) -> int:
    """The principal owning the catalog object ``obj`` of database ``db_id`` (a trigger's
    or constraint's is its table's)."""
    if obj.parent_object_id:
        parent = f.session.instance.catalog.object_by_id(f.session.conn, db_id,
                                                         int(obj.parent_object_id))
        if parent is not None:
            obj = parent
    return owners.object_owner(_sec(f), f.session.conn, db_id, int(obj.object_id),
                               int(obj.schema_id), _owner_cache(f))


def _chained(f: Frame, db_id: int, obj: Any) -> bool:
    """Whether the ownership chain covers ``obj`` of database ``db_id``: frame ``f`` runs a
    module (procedure, function, trigger) owned by the owner of ``obj``. Another owner
    breaks the chain, and so does another database unless cross-database chaining joins
    them (:func:`_same_owner`)."""
    if f.proc_id is None:
        return False
    module_db = f.session.db_id  # a module runs in its own database
    module = f.session.instance.catalog.object_by_id(f.session.conn, module_db, f.proc_id)
    return module is not None and _same_owner(f, module_db, module, db_id, obj)


def _same_owner(f: Frame, db_a: int, a: Any, db_b: int, b: Any) -> bool:
    """Whether object ``a`` of ``db_a`` and object ``b`` of ``db_b`` have one owner, so that
    the ownership chain from ``a`` goes on to ``b``. In one database: the same principal.
    Across databases: both have DB_CHAINING ON and the owners are the same login (the
    owning users' SIDs are equal; dbo's is the database owner's); the caller must still be
    admitted to ``db_b`` (a user or guest there: Msg 916 otherwise)."""
    if db_a == db_b:
        return _owner_of(f, db_a, a) == _owner_of(f, db_b, b)
    sec, conn = _sec(f), f.session.conn
    if not (sec.db_chaining(conn, db_a) and sec.db_chaining(conn, db_b)):
        return False
    owner_a = sec.user_by_id(conn, db_a, _owner_of(f, db_a, a))
    owner_b = sec.user_by_id(conn, db_b, _owner_of(f, db_b, b))
    if owner_a is None or owner_b is None or not owner_a.sid or owner_a.sid != owner_b.sid:
        return False
    principal_in(f, db_b)
    return True


@_one_check
def path_owners(f: Frame, db_id: int, path: list[tuple[int, int]]) -> frozenset[int]:
    """The owners of the securables on ``path`` (the securable, then its containers): each
    holds CONTROL on the securable without a GRANT. Schemas and objects
    (:mod:`engine.owners`), and the broker's securables (their principal_id)."""
    s = f.session
    found = owners.path_owners(_sec(f), s.conn, db_id, path, _owner_cache(f))
    class_, major = path[0]
    if class_ in OWNED_CLASSES:
        broker_owner = Broker.get(s.instance.store).securable_owner(s.conn, db_id, class_,
                                                                     major)
        if broker_owner is not None:
            found |= {broker_owner}
    return found


def _principals(f: Frame, db_id: int) -> frozenset[int]:
    s = f.session
    return access.principal_set(_sec(f), s.conn, db_id, principal_in(f, db_id))


def _holds(f: Frame, db_id: int, permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether frame ``f``'s context holds ``permission`` on ``path``: as an owner of the
    securable or a container, or granted (:func:`access.holds`)."""
    principals = _principals(f, db_id)
    if principals & path_owners(f, db_id, path):
        return True
    return access.holds(_sec(f), f.session.conn, db_id, principals, permission, path)


def _denied(f: Frame, db_id: int, permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether ``permission`` (or CONTROL) is denied to frame ``f``'s context on ``path``:
    such a DENY beats what a role or an ALTER ANY … would allow (an owner is never denied
    on what it owns)."""
    principals = _principals(f, db_id)
    if principals & path_owners(f, db_id, path):
        return False
    return access.denied(_sec(f), f.session.conn, db_id, principals, permission, path)


def _bracketed(name: str) -> str:
    return "[" + name.replace("]", "]]") + "]"


def object_columns(f: Frame, obj: Any) -> list[tuple[int, str]]:
    """(column_id, name) of the table ``obj`` (a catalog object row); of a view, its result
    columns in order, numbered from 1 (the catalog keeps no columns for views: they are
    read from the view itself, run with WHERE 1 = 0)."""
    s = f.session
    if str(obj.type).strip() != "V":
        return table_columns(_sec(f), s.conn, int(obj.object_id))
    db_id = int(obj.database_id)
    sql = (f"SELECT * FROM {_bracketed(_database_name(f, db_id))}."
           f"{_bracketed(obj.schema_name)}.{_bracketed(obj.name)} WHERE 1 = 0")
    ctx = ExecContext(s.conn, s.txn_for_statement(), s.db_id, s.id, s.temp_tables)
    result = engine_dml.execute_sql(ctx, sql, {})
    names = result.resultsets[0].columns if result.resultsets else []
    return list(enumerate(names, 1))


def _database_name(f: Frame, db_id: int) -> str:
    row = f.session.instance.catalog.database(f.session.conn, db_id)
    return row.name if row is not None else str(db_id)


@_one_check
def holds_here(f: Frame, permission: str, securable: tuple[int, int] | None = None) -> bool:
    """Whether frame ``f``'s context holds ``permission`` on the current database, or on the
    database-level ``securable`` (class, major_id) of it."""
    if privileged(f):
        return True
    path = [(0, 0)] if securable is None else [securable, (0, 0)]
    return _holds(f, f.session.db_id, permission, path)


@_one_check
def holds_path(f: Frame, permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether frame ``f``'s context holds ``permission`` on the securable of the current
    database whose (class, major_id) and containers' are ``path``."""
    return privileged(f) or _holds(f, f.session.db_id, permission, path)


def require_database(f: Frame, permission: str) -> None:
    """A statement permission in the current database (Msg 262)."""
    if privileged(f):
        return
    db_id = f.session.db_id
    if not _holds(f, db_id, permission, [(0, 0)]):
        raise tsql_error(262, permission, _database_name(f, db_id))


@_one_check
def require_object(f: Frame, permission: str, db_id: int, obj: Any, *, error: int = 229,
                   kind: str = "table", chain: bool = True,
                   columns: Callable[[], set[str]] | None = None) -> None:
    """``permission`` on the schema-scoped object ``obj`` (a catalog object row); for
    SELECT / UPDATE / REFERENCES, ``columns()`` names the columns used (lower case, ``*`` for
    all), read only when column permissions exist (Msg 230 for a column refused)."""
    if unchecked(f, db_id) or (chain and _chained(f, db_id, obj)):
        return
    path = [(1, int(obj.object_id)), (3, int(obj.schema_id)), (0, 0)]
    if columns is None or permission not in COLUMN_LEVEL:
        if _holds(f, db_id, permission, path):
            return
        refused = 0
    else:
        refused = _refused_column(f, db_id, permission, path, obj, columns)
        if refused is None:
            return
    if error == 229:
        if refused:
            raise tsql_error(230, permission, refused, obj.name, _database_name(f, db_id),
                             obj.schema_name)
        raise tsql_error(229, permission, obj.name, _database_name(f, db_id),
                         obj.schema_name)
    if error == 3701:
        raise tsql_error(3701, kind, obj.name)
    raise tsql_error(1088, obj.name)


def _refused_column(f: Frame, db_id: int, permission: str, path: list[tuple[int, int]],
                    obj: Any, columns: Callable[[], set[str]]) -> str | int | None:
    """None when ``permission`` is held on the columns used, 0 when the object is refused,
    else the name of the first column refused."""
    s = f.session
    sec = _sec(f)
    table = object_columns(f, obj)

    def used() -> list[int]:
        names = columns()
        return [i for i, name in table if "*" in names or name.lower() in names]

    principals = access.principal_set(sec, s.conn, db_id, principal_in(f, db_id))
    if principals & path_owners(f, db_id, path):
        return None
    refused = access.refused_column(sec, s.conn, db_id, principals, permission, path, used)
    if not refused:
        return refused
    return dict(table).get(refused, str(refused))


@_one_check
def require_securable(f: Frame, permission: str, class_: int, major_id: int, name: str
                      ) -> None:
    """``permission`` on a database securable outside schemas (Msg 300)."""
    if privileged(f):
        return
    db_id = f.session.db_id
    if not _holds(f, db_id, permission, [(class_, major_id), (0, 0)]):
        raise tsql_error(300, permission, name, _database_name(f, db_id))


@_one_check
def require_statement(f: Frame, sql: str) -> None:
    """What the engine statement ``sql`` needs (:func:`needs.statement_needs`)."""
    if unchecked(f, None):
        return
    s = f.session
    lookup, columns_of = _resolver(f, s.db_id)
    for need in needs.statement_needs(sql):
        if need.name is None:
            if not unchecked(f, s.db_id):
                require_database(f, need.permission)
            continue
        hit = lookup(need.key)
        if hit is None:
            continue  # the engine reports the unknown name
        used = None if need.columns is None else _binder(need, columns_of)
        require_object(f, need.permission, hit[0], hit[1], error=need.error, kind=need.kind,
                       columns=used)
        if str(hit[1].type).strip() == "V" and need.permission in _THROUGH_VIEWS:
            _through_view(f, hit[0], hit[1], 0, need.permission)


def _resolver(f: Frame, db_id: int) -> tuple[Callable[[_Key], tuple[int, Any] | None],
                                             Callable[[_Key], frozenset[str]]]:
    """``lookup(key)`` → (database id, catalog row) of a table a statement of database
    ``db_id`` names (None: no such object), and ``columns_of(key)`` → its column names
    (lower case); both remember what they found."""
    s = f.session
    catalog = s.instance.catalog
    found: dict[_Key, tuple[int, Any] | None] = {}

    def lookup(key: _Key) -> tuple[int, Any] | None:
        if key not in found:
            here: int | None = db_id
            if key[0]:
                here = catalog.database_id(s.conn, key[0])
            obj = None if here is None else catalog.find_object(s.conn, here, key[1], key[2])
            found[key] = None if obj is None else (here, obj)
        return found[key]

    def columns_of(key: _Key) -> frozenset[str]:
        hit = lookup(key)
        if hit is None:
            return frozenset()
        return frozenset(n.lower() for _i, n in object_columns(f, hit[1]))
    return lookup, columns_of


_VIEW_DEPTH = 32  # SQL Server's nesting limit for views
# What the ownership chain follows through a view to its base objects
_THROUGH_VIEWS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE"})


def _through_view(f: Frame, db_id: int, view: Any, depth: int,
                  permission: str = "SELECT") -> None:
    """The ownership chain through view ``view`` (read with SELECT): an object its query
    uses with another owner than the view's breaks the chain and the caller's SELECT on it
    is checked (Msg 229; Msg 230 for a column of it the view uses and the caller may not
    read), as is one of another database unless cross-database chaining joins them;
    one with the same owner is not, and the chain goes on through the views it reaches.
    INSERT / UPDATE / DELETE through the view (``permission``) check that permission on
    each base object where the chain breaks, on the object as a whole (Msg 229)."""
    if depth >= _VIEW_DEPTH or not view.definition:
        return
    lookup, columns_of = _resolver(f, db_id)
    for need in needs.view_needs(view.definition):
        if need.name is None:
            continue
        hit = lookup(need.key)
        if hit is None:
            continue
        here, obj = hit
        if not _same_owner(f, db_id, view, here, obj):
            if permission == "SELECT":
                # checked per column where column permissions exist (Msg 230): the columns
                # of the base object the view's query uses
                used = None if need.columns is None else _binder(need, columns_of)
                require_object(f, need.permission, here, obj, chain=False, columns=used)
            else:
                require_object(f, permission, here, obj, chain=False)
        if str(obj.type).strip() == "V":
            _through_view(f, here, obj, depth + 1, permission)


def _binder(need: Any, columns_of: Callable[[_Key], frozenset[str]]
            ) -> Callable[[], set[str]]:
    """``need``'s columns, bound when first asked."""
    return lambda: needs.columns_used(need, columns_of)


@_one_check
def require_execute(f: Frame, db_id: int, object_id: int) -> None:
    """EXECUTE on the procedure ``object_id`` (not when chained from a module of its
    database with the same owner)."""
    if unchecked(f, db_id):
        return
    obj = f.session.instance.catalog.object_by_id(f.session.conn, db_id, object_id)
    if obj is not None:
        require_object(f, "EXECUTE", db_id, obj)


def require_connect(f: Frame, database: str) -> None:
    """USE ``database``: the security context must map to a principal there holding CONNECT
    (a login with no user where guest may not connect, an impersonation from a database that
    is not TRUSTWORTHY, a user denied CONNECT: Msg 916)."""
    s = f.session
    db_id = s.instance.catalog.database_id(s.conn, database)
    if db_id is None or unchecked(f, db_id):
        return  # USE reports an unknown database itself
    active = context(s, f)
    if active is not None and active.approle and active.db_id == db_id:
        return  # an application role's own database: it needs no CONNECT there
    user_id = principal_in(f, db_id)
    if not may_connect(f, db_id, user_id):
        login = current(s, f).login
        raise tsql_error(916, login, _database_name(f, db_id))


def require_send(f: Frame, handles: list[Any]) -> None:
    """SEND ON CONVERSATION: RECEIVE on the queue of the service each conversation sends
    from (SQL Server's SEND permission; Msg 229 naming the queue). Chained inside a module,
    as RECEIVE is; an unknown handle is left to the broker's own error."""
    s = f.session
    if unchecked(f, s.db_id):
        return
    catalog = s.instance.catalog
    for handle in handles:
        try:
            endpoint = fetch_endpoint(s.conn, uid(handle))
        except (ValueError, TypeError):
            continue
        if endpoint is None or endpoint.database_id != s.db_id:
            continue
        queue = catalog.object_by_id(s.conn, s.db_id, endpoint.queue_id)
        if queue is not None:
            require_object(f, "RECEIVE", s.db_id, queue)


# broker securable outside schemas -> (class, the database permission covering every one of
# the class: ALTER ANY …, which db_ddladmin carries)
_ALTER_ANY: dict[str, tuple[int, str]] = {
    "MESSAGE TYPE": (15, "ALTER ANY MESSAGE TYPE"), "CONTRACT": (16, "ALTER ANY CONTRACT"),
    "SERVICE": (17, "ALTER ANY SERVICE"),
    "REMOTE SERVICE BINDING": (18, "ALTER ANY REMOTE SERVICE BINDING"),
    "ROUTE": (19, "ALTER ANY ROUTE")}


def require_broker_ddl(f: Frame, kind: str, name: str, *, drop: bool = False) -> None:
    """ALTER (``drop``: DROP) of the message type, contract, service, route or remote
    service binding ``name`` of the current database: ALTER (DROP: CONTROL) on it, or ALTER
    ANY <class> / ALTER on the database (db_ddladmin, db_owner). Every broker object is owned
    by dbo, who is not checked. Refused with the error a missing one gives (Msg 15151), so
    that a principal learns nothing of what it may not touch; a missing one is left to the
    broker."""
    if privileged(f):
        return
    db_id = f.session.db_id
    major = broker_securable_id(_sec(f), f.session.conn, db_id, kind, name)
    if major is None:
        return
    class_, alter_any = _ALTER_ANY[kind]
    on_it = [(class_, major), (0, 0)]
    permission = "CONTROL" if drop else "ALTER"
    if not _denied(f, db_id, permission, on_it) and (
            _holds(f, db_id, permission, on_it) or _holds(f, db_id, alter_any, [(0, 0)])
            or _holds(f, db_id, "ALTER", [(0, 0)])):
        return
    raise cannot("drop" if drop else "alter", kind.lower(), name)


def require_queue_ddl(f: Frame, db_id: int, schema: str | None, name: str, *,
                      drop: bool = False) -> None:
    """ALTER QUEUE (ALTER on the queue or its schema) or DROP QUEUE (CONTROL on the queue or
    ALTER on its schema); ALTER ANY SCHEMA (db_ddladmin) covers every schema. Refused as
    SQL Server refuses an object it will not show: Msg 1088 / 3701 (level 14, state 20); a
    missing queue gets the same texts."""
    obj = f.session.instance.catalog.find_object(f.session.conn, db_id, schema, name, {"SQ"})
    if obj is not None and unchecked(f, db_id):
        return
    if obj is None:
        _no_queue(name, drop)
    on_queue = [(1, int(obj.object_id)), (3, int(obj.schema_id)), (0, 0)]
    permission = "CONTROL" if drop else "ALTER"
    if drop:
        held = _holds(f, db_id, "CONTROL", on_queue) or _holds(f, db_id, "ALTER", on_queue[1:])
    else:
        held = _holds(f, db_id, "ALTER", on_queue)
    if not _denied(f, db_id, permission, on_queue) and (
            held or _holds(f, db_id, "ALTER ANY SCHEMA", [(0, 0)])):
        return
    if drop:
        refused = tsql_error(3701, "queue", name, state=20)
        refused.severity = 14  # SQL Server's refused DROP (a missing object's is level 11)
        raise refused
    raise tsql_error(1088, name)


def _no_queue(name: str, drop: bool) -> NoReturn:
    """A missing queue, worded as a refused one is (Msg 3701 level 11 / Msg 1088)."""
    raise tsql_error(3701, "queue", name) if drop else tsql_error(1088, name)


def require_endpoint_ddl(f: Frame, name: str | None, owned: tuple[int, int] | None = None,
                         *, drop: bool = False) -> None:
    """CREATE ENDPOINT (``name`` None: the CREATE ENDPOINT server permission, which ALTER
    ANY ENDPOINT implies; Msg 262 in master), ALTER ENDPOINT (ALTER ANY ENDPOINT, or ALTER
    / CONTROL on it) or DROP ENDPOINT (CONTROL on it); its owner and CONTROL SERVER
    (sysadmin) may do all; ``owned`` is the endpoint's (endpoint_id, owner's principal_id),
    None when it does not exist (left to the broker). A refused ALTER / DROP says what a
    missing endpoint does (Msg 15151)."""
    if unchecked(f, None):
        return
    if name is None:
        if not (holds_server(f, "CREATE ENDPOINT") or holds_server(f, "ALTER ANY ENDPOINT")):
            raise tsql_error(262, "CREATE ENDPOINT", "master")
        return
    if owned is None or owned[1] == login_id(f):
        return
    principals = server_principals(f)
    sec, conn, securable = _sec(f), f.session.conn, (105, owned[0])
    if drop:
        held = access.server_holds(sec, conn, principals, "CONTROL", securable)
    else:
        held = (access.server_holds(sec, conn, principals, "ALTER", securable)
                or access.server_holds(sec, conn, principals, "ALTER ANY ENDPOINT"))
    if not held:
        raise cannot("drop" if drop else "alter", "endpoint", name)


def login_id(f: Frame) -> int | None:
    """The principal id of frame ``f``'s login (None for a database-scoped impersonation,
    which has no login outside its database)."""
    s = f.session
    ctx = current(s, f)
    if ctx.db_id is not None:
        return None
    lg = _sec(f).find_login(s.conn, ctx.login)
    return None if lg is None else lg.principal_id


DdlFn = Callable[["Frame", Any, Any], None]


def permitted(permission: str, fn: DdlFn, message_types: list[str] | None = None) -> DdlFn:
    """A broker DDL statement ``fn(frame, broker, txn)`` run after its statement permission
    (CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE ROUTE …: Msg 262) and, for a contract, the
    REFERENCES on each message type it names (Msg 300)."""
    def run(f: Frame, broker: Any, txn: Any) -> None:
        if not privileged(f):
            require_database(f, permission)
            if message_types:
                meta = broker.meta.get(f.session.conn, f.session.db_id)
                for name in message_types:
                    found = meta.types_by_name.get(name) if meta is not None else None
                    if found is not None:
                        require_securable(f, "REFERENCES", 15, found.message_type_id,
                                          found.name)
        fn(f, broker, txn)
    return run


def server_principals(f: Frame) -> frozenset[int]:
    """The login of frame ``f``'s security context and its server roles (public only for a
    database-scoped impersonation, which carries no server permissions)."""
    s = f.session
    ctx = current(s, f)
    if ctx.db_id is not None:
        return frozenset({2})
    sec = _sec(f)
    lg = sec.find_login(s.conn, ctx.login)
    if lg is None:
        return frozenset({2})
    return roles.server_roles(sec, s.conn, lg.principal_id) | {lg.principal_id}


def holds_server(f: Frame, permission: str) -> bool:
    """Whether frame ``f``'s context holds the server permission ``permission``."""
    if unchecked(f, None):
        return True
    return access.server_holds(_sec(f), f.session.conn, server_principals(f), permission)


def catalog_viewer(f: Frame, db_id: int) -> frozenset[int] | None:
    """The principals frame ``f``'s context views database ``db_id``'s catalog as
    (:mod:`engine.visibility`): None for sysadmin, dbo and VIEW ANY DEFINITION (they see
    everything); public alone when the context has no principal there."""
    try:
        if unchecked(f, db_id) or holds_server(f, "VIEW ANY DEFINITION"):
            return None
        user_id = principal_in(f, db_id)
    except TSqlError:
        return frozenset({access.PUBLIC})
    return access.principal_set(_sec(f), f.session.conn, db_id, user_id)


# Server permissions that show every endpoint in sys.endpoints (CONTROL SERVER is implied by
# server_holds)
_ALL_ENDPOINTS = ("VIEW ANY DEFINITION", "ALTER ANY ENDPOINT")


def endpoint_viewer(f: Frame) -> frozenset[int] | None:
    """The login and server roles frame ``f``'s context views the endpoint catalog views as
    (:func:`engine.visibility.endpoint_condition`); None when it sees every endpoint
    (sysadmin, CONTROL SERVER, VIEW ANY DEFINITION, ALTER ANY ENDPOINT)."""
    if unchecked(f, None) or any(holds_server(f, p) for p in _ALL_ENDPOINTS):
        return None
    return server_principals(f)


def require_create_database(f: Frame) -> None:
    """CREATE DATABASE: CREATE ANY DATABASE (dbcreator), else Msg 262 in master."""
    if not holds_server(f, "CREATE ANY DATABASE"):
        raise tsql_error(262, "CREATE DATABASE", "master")


def require_drop_database(f: Frame, database: str) -> None:
    """DROP DATABASE: ALTER ANY DATABASE (dbcreator) or CONTROL on it (its db_owner), else
    Msg 3701."""
    s = f.session
    db_id = s.instance.catalog.database_id(s.conn, database)
    if db_id is None or holds_server(f, "ALTER ANY DATABASE"):
        return  # DROP reports an unknown database itself
    try:
        user_id = principal_in(f, db_id)
    except TSqlError:
        user_id = None
    if user_id == 1 or (user_id is not None and _holds(f, db_id, "CONTROL", [(0, 0)])):
        return
    raise tsql_error(3701, "database", database)


def owner_named(f: Frame, name: str | None, *, refused: str = "user") -> int | None:
    """``AUTHORIZATION name`` of a CREATE or the new owner of ALTER AUTHORIZATION: the
    owning user's or role's principal id (None: no name given). As documented, dbo and
    db_owner may name any user or role, others only themselves or a role they are a
    member of; Msg 15151 otherwise (naming the ``refused`` class: ALTER AUTHORIZATION says
    *principal*), or for a principal that does not exist (an application role owns
    nothing)."""
    if name is None:
        return None
    s = f.session
    sec = _sec(f)
    found = sec.find_user(s.conn, s.db_id, name)
    if found is None or found.type == "A":
        raise tsql_error(15151, "user", name, cls=BindError)
    if not (privileged(f) or holds_here(f, "CONTROL")
            or found.principal_id in _principals(f, s.db_id)):
        raise tsql_error(15151, refused, name, cls=BindError)
    return found.principal_id
