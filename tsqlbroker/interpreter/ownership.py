"""``ALTER AUTHORIZATION``: moving a schema, a schema-scoped object or a broker securable
(message type, contract, service, route, remote service binding) to another owner.

As SQL Server documents and does: the caller needs TAKE OWNERSHIP on the securable (CONTROL,
ownership, db_owner imply it), else the securable is "not found" (Msg 15151); the new owner
must be one the caller may name (itself, a role it is a member of; dbo and db_owner anyone),
else Msg 15151 *Cannot find the principal …*; ``TO SCHEMA OWNER`` gives an object back to
its schema's owner (sys.objects.principal_id NULL); the permissions on a securable whose
owner really changes are dropped. Built-in schemas keep theirs (Msg 15150), a constraint or
trigger follows its table (Msg 15346), a temporary table has none (Msg 15344). Roles,
certificates, types and XML schema collections change owner too (:mod:`engine.owners`), and
a database its owning login (who is its dbo); other classes (endpoints) check only that the
securable exists (docs/decisions.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tsqlbroker.engine import access, owners, roles
from tsqlbroker.engine import permissions as P
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.catalog import MASTER, MODEL, TEMPDB
from tsqlbroker.engine.securables import CLASSES, SERVER_LEVEL_OWNED
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.grammar import ast

from .authorize import (
    holds_here,
    holds_path,
    holds_server,
    owner_named,
    path_owners,
    server_principals,
)
from .compiler import Compiler, StmtFn, handler
from .impersonation import privileged, unchecked
from .security_stmts import server_role_owner

if TYPE_CHECKING:
    from .frames import Frame

_SCHEMA_OWNER = "SCHEMA OWNER"
# broker securable class word -> its class number
_BROKER_CLASSES = {kind: CLASSES[kind][0] for kind in (
    "MESSAGE TYPE", "CONTRACT", "SERVICE", "ROUTE", "REMOTE SERVICE BINDING")}


@handler(ast.AlterAuthorization)
def compile_alter_authorization(c: Compiler, node: ast.AlterAuthorization) -> StmtFn:
    kind = (node.object_class or "OBJECT").upper().replace("_", " ")

    def run(f: Frame) -> None:
        f.session.check_writable()
        if kind == "OBJECT":
            _alter_object(f, node)
        elif kind == "SCHEMA":
            _alter_schema(f, node.name, node.owner)
        elif kind in _BROKER_CLASSES:
            _alter_broker(f, kind, node.name, node.owner)
        elif kind in ("USER", "APPLICATION ROLE"):
            raise tsql_error(15344, kind.lower())
        elif kind in _OWNED_HERE:
            _alter_owned(f, kind, node)
        elif kind == "DATABASE":
            _alter_database(f, node.name, node.owner)
        elif kind == "SERVER ROLE":
            _alter_server_role(f, node.name, node.owner)
        else:
            _exists(f, kind, node)
        f.session.rowcount = 0
    return run


def _new_owner(f: Frame, owner: str) -> int:
    """The principal id ALTER AUTHORIZATION names: Msg 15151 *user* for one that does not
    exist, *principal* for one the caller may not name."""
    s = f.session
    if Security.get(s.instance.store).find_user(s.conn, s.db_id, owner) is None:
        raise tsql_error(15151, "user", owner, cls=BindError)
    found = owner_named(f, owner, refused="principal")
    assert found is not None
    return found


def _alter_object(f: Frame, node: ast.AlterAuthorization) -> None:
    s = f.session
    target = node.target or ast.ObjectName(node.name)
    missing = tsql_error(15151, "object", target.name, cls=BindError)
    here = s.instance.catalog.database(s.conn, s.db_id)
    if target.database and (here is None or here.name.lower() != target.database.lower()):
        raise missing
    obj = s.instance.catalog.find_object(s.conn, s.db_id, target.schema, target.name)
    if obj is None or int(obj.schema_id) == 4:
        raise missing
    if obj.session_id is not None:
        raise tsql_error(15344, "object")
    if obj.parent_object_id:
        raise tsql_error(15346)
    path = [(owners.OBJECT, int(obj.object_id)), (owners.SCHEMA, int(obj.schema_id)), (0, 0)]
    if not holds_path(f, "TAKE OWNERSHIP", path):
        raise missing
    new = None if node.owner.upper() == _SCHEMA_OWNER else _new_owner(f, node.owner)
    sec = Security.get(s.instance.store)
    before = owners.object_owner(sec, s.conn, s.db_id, int(obj.object_id), int(obj.schema_id))
    after = new if new is not None else owners.schema_owner(sec, s.conn, s.db_id,
                                                            int(obj.schema_id))
    s.txn_for_statement().write()
    if before != after:
        sec.forget_securable(s.conn, s.db_id, owners.OBJECT, int(obj.object_id))
    owners.set_owner(sec, s.conn, s.db_id, owners.OBJECT, int(obj.object_id), new)


def _alter_schema(f: Frame, name: str, owner: str) -> None:
    s = f.session
    sec = Security.get(s.instance.store)
    schema_id = s.instance.catalog.schema_id(s.conn, s.db_id, name)
    missing = tsql_error(15151, "schema", name, cls=BindError)
    if schema_id is None:
        raise missing
    if schema_id < 5:
        raise tsql_error(15150, "alter", "schema", name)
    if not (privileged(f) or holds_here(f, "TAKE OWNERSHIP", (owners.SCHEMA, schema_id))):
        raise missing
    if owner.upper() == _SCHEMA_OWNER:  # only a schema's contents have a schema owner
        raise tsql_error(15151, "user", owner, cls=BindError)
    new = _new_owner(f, owner)
    s.txn_for_statement().write()
    if owners.schema_owner(sec, s.conn, s.db_id, schema_id) != new:
        sec.forget_securable(s.conn, s.db_id, owners.SCHEMA, schema_id)
    owners.set_owner(sec, s.conn, s.db_id, owners.SCHEMA, schema_id,
                     None if new == owners.DBO else new)


def _alter_broker(f: Frame, kind: str, name: str, owner: str) -> None:
    """A broker securable; ``TO SCHEMA OWNER`` gives it to dbo (it is in no schema, and
    scripts written for SQL Server use the form for services)."""
    s = f.session
    sec = Security.get(s.instance.store)
    class_ = _BROKER_CLASSES[kind]
    major = P.broker_securable_id(sec, s.conn, s.db_id, kind, name)
    if major is None or not (privileged(f) or holds_here(f, "TAKE OWNERSHIP", (class_, major))):
        raise tsql_error(15151, kind.lower(), name, cls=BindError)
    new = owners.DBO if owner.upper() == _SCHEMA_OWNER else _new_owner(f, owner)
    broker = Broker.get(s.instance.store)
    txn = s.txn_for_statement()
    if path_owners(f, s.db_id, [(class_, major)]) != {new}:
        txn.write()
        sec.forget_securable(s.conn, s.db_id, class_, major)
    broker.alter_owner(txn, s.db_id, class_, major, new)


# classes whose owner is a database principal kept by engine/owners.py
_OWNED_HERE = {"ROLE": owners.ROLE, "CERTIFICATE": owners.CERTIFICATE, "TYPE": owners.TYPE,
               "XML SCHEMA COLLECTION": owners.XML_SCHEMA_COLLECTION}


def _alter_owned(f: Frame, kind: str, node: ast.AlterAuthorization) -> None:
    """A role, certificate, type or XML schema collection: TAKE OWNERSHIP on it (its owner,
    CONTROL, db_owner), else Msg 15151 as for one that does not exist; ``TO SCHEMA OWNER``
    gives a type or collection back to its schema's owner (principal_id NULL in the catalog
    views). A role cannot own itself (Msg 15151 naming it)."""
    s = f.session
    sec = Security.get(s.instance.store)
    target = node.target or ast.ObjectName(node.name)
    found = P.resolve_target(sec, s.conn, s.db_id, kind, (None, target.schema, target.name))
    class_, major = found.class_, found.major_id
    user = sec.user_by_id(s.conn, s.db_id, major) if class_ == owners.ROLE else None
    if class_ == owners.ROLE and (user is None or user.is_fixed_role or major == 0):
        raise tsql_error(15151, "role", target.name, cls=BindError)
    if not (privileged(f) or holds_here(f, "TAKE OWNERSHIP", (class_, major))):
        raise tsql_error(15151, kind.lower(), target.name, cls=BindError)
    schema_owner = node.owner.upper() == _SCHEMA_OWNER
    if schema_owner and class_ in (owners.ROLE, owners.CERTIFICATE):
        raise tsql_error(15151, "user", node.owner, cls=BindError)
    new = None if schema_owner else _new_owner(f, node.owner)
    if class_ == owners.ROLE and new == major:
        raise tsql_error(15151, "role", target.name, cls=BindError)
    s.txn_for_statement().write()
    before = path_owners(f, s.db_id, [(class_, major)])
    if new is None or before != {new}:
        sec.forget_securable(s.conn, s.db_id, class_, major)
    if class_ in owners.NAMED_OWNER_CLASSES:
        owners.set_owner(sec, s.conn, s.db_id, class_, major, new)
    else:
        assert new is not None
        owners.set_principal_owner(sec, s.conn, s.db_id, class_, major, new)


def _alter_database(f: Frame, name: str, owner: str) -> None:
    """ALTER AUTHORIZATION ON DATABASE::d TO login: by sysadmin or the database's dbo (Msg
    15151 *database* otherwise); the login must exist (Msg 15151 *login*) and not already
    be a user there (Msg 15110); master, model and tempdb stay sa's (Msg 15109). Its
    owner's login acts as dbo in it."""
    s = f.session
    sec = Security.get(s.instance.store)
    catalog = s.instance.catalog
    db_id = catalog.database_id(s.conn, name)
    missing = tsql_error(15151, "database", name, cls=BindError)
    if db_id is None:
        raise missing
    if not unchecked(f, db_id):
        raise missing
    if db_id in (MASTER, TEMPDB, MODEL):
        raise tsql_error(15109)
    login = sec.find_login(s.conn, owner)
    if login is None or login.type == "R":
        raise tsql_error(15151, "login", owner, cls=BindError)
    mapped = next((u for u in sec.users(s.conn, db_id) if u.principal_id != owners.DBO
                   and login.sid and u.sid == login.sid), None)
    if mapped is not None:
        raise tsql_error(15110)
    s.txn_for_statement().write()
    sec.set_database(s.conn, db_id, owner=login.principal_id)


def _alter_server_role(f: Frame, name: str, owner: str) -> None:
    """ALTER AUTHORIZATION ON SERVER ROLE::r TO login: a created role (a fixed one, or one
    that is not there, Msg 15151 *server role*), by ALTER ANY SERVER ROLE, its owner or
    TAKE OWNERSHIP (CONTROL) on it, else Msg 15151 as for a role that is not there; the new
    owner is a login or another created server role the caller may name
    (:func:`.security_stmts.server_role_owner`)."""
    s = f.session
    sec = Security.get(s.instance.store)
    role = roles.server_role(sec, s.conn, name)
    missing = tsql_error(15151, "server role", name, cls=BindError)
    if role.is_fixed_role:
        raise missing
    if not holds_server(f, "ALTER ANY SERVER ROLE"):
        mine = server_principals(f)
        if role.owning_principal_id not in mine and not access.server_holds(
                sec, s.conn, mine, "TAKE OWNERSHIP", (roles.SERVER_PRINCIPAL, role.principal_id)):
            raise missing
    new = server_role_owner(f, sec, s.conn, owner)
    if new.principal_id == role.principal_id:  # a role does not own itself
        raise missing
    s.txn_for_statement().write()
    roles.set_server_role_owner(sec, s.conn, role, new.principal_id)


def _exists(f: Frame, kind: str, node: ast.AlterAuthorization) -> None:
    """A class whose owner is not kept (docs/decisions.md): the securable must exist (Msg
    15151) and a database principal new owner be one the caller may name (a database's
    or an endpoint's owner is a login)."""
    s = f.session
    sec = Security.get(s.instance.store)
    target = node.target or ast.ObjectName(node.name)
    P.resolve_target(sec, s.conn, s.db_id, kind, (None, target.schema, target.name))
    if kind not in SERVER_LEVEL_OWNED and node.owner.upper() != _SCHEMA_OWNER:
        _new_owner(f, node.owner)
