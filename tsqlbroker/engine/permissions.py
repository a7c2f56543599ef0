"""GRANT / REVOKE / DENY: resolving securables and principals, recording permission states.

A permission row is (database, class, major_id, minor_id, grantee, type) → (grantor,
state) as sys.database_permissions shows it; server-level ones (endpoints, logins, the
server) are kept under database 0 and shown by sys.server_permissions. State ``G`` is GRANT,
``W`` GRANT WITH GRANT OPTION, ``D`` DENY; REVOKE removes the row. :mod:`access` decides from
these rows whether a principal holds a permission; the permission names, codes and securable
classes are :mod:`securables`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select, update

from ..errors import BindError, tsql_error
from ..storage.store import StoreConnection
from .broker import Broker
from .securables import CLASSES, CODES, OBJECT_PERMS, OWNED
from .usertypes import alias_user_type_id

if TYPE_CHECKING:
    from .security import Security

# What the deprecated ALL stands for, per object type (SQL Server's ANSI-92 set).
_ALL = {"U": ["DELETE", "INSERT", "REFERENCES", "SELECT", "UPDATE"], "P": ["EXECUTE"],
        "FN": ["EXECUTE", "REFERENCES"], "SQ": ["RECEIVE"]}
_ALL_DATABASE = ["BACKUP DATABASE", "BACKUP LOG", "CREATE DEFAULT", "CREATE FUNCTION",
                 "CREATE PROCEDURE", "CREATE RULE", "CREATE TABLE", "CREATE VIEW"]
# Permissions only the server has (GRANT … TO login without ON).
SERVER_ONLY = frozenset({"CONTROL SERVER", "VIEW SERVER STATE", "VIEW ANY DEFINITION",
                         "ALTER ANY LOGIN", "ALTER ANY ENDPOINT", "CREATE ENDPOINT",
                         "CONNECT SQL", "ALTER ANY DATABASE", "VIEW ANY DATABASE", "SHUTDOWN",
                         "CREATE ANY DATABASE", "ALTER ANY CONNECTION",
                         "CREATE SERVER ROLE", "ALTER ANY SERVER ROLE"})
_NOT_DATABASE = SERVER_ONLY | {"SEND", "RECEIVE", "IMPERSONATE"}


@dataclass(frozen=True)
class Target:
    """A resolved securable: where its permissions are kept."""

    database_id: int          # 0 for server-level classes
    class_: int
    major_id: int
    object_type: str | None   # the sys.objects type of an OBJECT
    valid: frozenset[str]


def _broker_id(conn: StoreConnection, table: Any, id_col: str, db_id: int, name: str,
               exact: bool) -> int | None:
    cond = table.c.name == name if exact else table.c.name.ilike(name)
    return conn.execute(select(table.c[id_col]).where(table.c.database_id == db_id, cond)
                        ).scalar()


def database_target(db_id: int) -> Target:
    """The current database as securable (GRANT … TO without ON)."""
    return Target(db_id, 0, 0, None, frozenset(set(CODES) - _NOT_DATABASE))


def server_target() -> Target:
    """The server as securable (server permissions granted without ON)."""
    return Target(0, 100, 0, None, SERVER_ONLY)


def all_server_level(names: Iterable[str]) -> bool:
    """Whether every permission named is one only the server has."""
    return all(n in SERVER_ONLY for n in names)


# USER::, ROLE:: and APPLICATION ROLE:: name database principals of their own kind only:
# principal type -> its class word (every other type is a USER)
_PRINCIPAL_KINDS = {"R": "ROLE", "A": "APPLICATION ROLE"}


def resolve_target(sec: Security, conn: StoreConnection, db_id: int, cls: str | None,
                   parts: tuple[str | None, str | None, str]) -> Target:
    """The securable ``cls::[db.][schema.]name`` (no class: an object) of database
    ``db_id``; Msg 15151 when it does not exist."""
    database, schema, name = parts
    kind = (cls or "OBJECT").upper()
    if kind not in CLASSES:
        raise tsql_error(15151, kind.lower(), name, cls=BindError)
    number, _desc, valid = CLASSES[kind]
    missing = tsql_error(15151, kind.lower(), name, cls=BindError)
    if kind == "OBJECT":
        here = sec.catalog.database(conn, db_id)
        if database is not None and (here is None or here.name.lower() != database.lower()):
            raise missing
        obj = sec.catalog.find_object(conn, db_id, schema, name)
        if obj is None:
            raise missing
        return Target(db_id, 1, obj.object_id, obj.type,
                      OBJECT_PERMS.get(obj.type, OWNED))
    if kind == "DATABASE":
        here = sec.catalog.database(conn, db_id)
        if here is None or here.name.lower() != name.lower():
            raise tsql_error(15151, "database", name, cls=BindError)
        return database_target(db_id)
    major: int | None
    if kind == "SCHEMA":
        major = sec.catalog.schema_id(conn, db_id, name)
    elif kind in ("USER", "ROLE", "APPLICATION ROLE"):
        user = sec.find_user(conn, db_id, name)
        major = None if user is None or _PRINCIPAL_KINDS.get(user.type, "USER") != kind \
            else user.principal_id
    elif kind == "TYPE":
        major = alias_user_type_id(conn, db_id, schema, name)
    elif kind == "CERTIFICATE":
        cert = sec.find_certificate(conn, db_id, name)
        major = None if cert is None else int(cert["certificate_id"])
    elif kind in ("LOGIN", "SERVER ROLE"):
        login = sec.find_login(conn, name)
        major = None if login is None or (login.type == "R") != (kind == "SERVER ROLE") \
            else login.principal_id
        db_id = 0
    else:
        major = broker_securable_id(sec, conn, db_id, kind, name)
        if kind == "ENDPOINT":
            db_id = 0
    if major is None:
        raise missing
    return Target(db_id, number, major, None, valid)


def broker_securable_id(sec: Security, conn: StoreConnection, db_id: int, kind: str,
                        name: str) -> int | None:
    """The id of the broker securable ``kind`` (MESSAGE TYPE, CONTRACT, SERVICE, ROUTE,
    REMOTE SERVICE BINDING, XML SCHEMA COLLECTION, ENDPOINT) named ``name``, or None."""
    broker = Broker.get(sec.store)
    broker.ensure_schema(conn)
    t = broker.t
    # Message types, contracts and services are named case-sensitively (binary collation).
    found = {
        "MESSAGE TYPE": lambda: _broker_id(conn, t.message_types, "message_type_id", db_id,
                                           name, True),
        "CONTRACT": lambda: _broker_id(conn, t.contracts, "service_contract_id", db_id,
                                       name, True),
        "SERVICE": lambda: _broker_id(conn, t.services, "service_id", db_id, name, True),
        "ROUTE": lambda: _broker_id(conn, t.routes, "route_id", db_id, name, False),
        "REMOTE SERVICE BINDING": lambda: _broker_id(conn, t.bindings,
                                                     "remote_service_binding_id", db_id, name,
                                                     False),
        "XML SCHEMA COLLECTION": lambda: _xml_collection(conn, t, db_id, name),
        "ENDPOINT": lambda: conn.execute(select(t.endpoints_net.c.endpoint_id).where(
            t.endpoints_net.c.name.ilike(name))).scalar(),
    }[kind]
    value = found()
    return None if value is None else int(value)


def _xml_collection(conn: StoreConnection, t: Any, db_id: int, name: str) -> int | None:
    x = t.xml_schemas
    return conn.execute(select(x.c.xml_collection_id).where(
        x.c.database_id == db_id, x.c.name.ilike(name))).scalar()


def expand(names: Iterable[str], target: Target) -> list[str]:
    """The permission names of a statement, ALL expanded, each checked against the
    securable: Msg 102 for an unknown name, Msg 4606 for one the securable does not have."""
    out: list[str] = []
    for name in names:
        if name == "ALL":
            if target.class_ == 0:
                out.extend(_ALL_DATABASE)
            else:
                out.extend(_ALL.get(target.object_type or "", []))
            continue
        if name not in CODES:
            raise tsql_error(102, name.split()[0])
        if name not in target.valid:
            raise tsql_error(4606, name)
        out.append(name)
    return out


def grantee_id(sec: Security, conn: StoreConnection, target: Target, name: str) -> int:
    """The principal a permission is granted to: a database principal, or a login for
    server-level securables (Msg 15151 when there is none)."""
    if target.database_id == 0:
        login = sec.find_login(conn, name)
        if login is None:
            raise tsql_error(15151, "login", name, cls=BindError)
        return login.principal_id
    user = sec.find_user(conn, target.database_id, name)
    if user is None:
        raise tsql_error(15151, "user", name, cls=BindError)
    return user.principal_id


def change(sec: Security, conn: StoreConnection, action: str, target: Target,
           permissions: list[str], grantees: list[int], grantor: int, *,
           with_grant_option: bool = False, grant_option_for: bool = False,
           cascade: bool = False, columns: Iterable[int] = (0,)) -> None:
    """Apply GRANT / REVOKE / DENY of ``permissions`` on ``target`` to ``grantees``.

    Revoking or denying a permission held WITH GRANT OPTION needs CASCADE (Msg 4611);
    REVOKE GRANT OPTION FOR keeps the permission itself."""
    p = sec.t.permissions
    conn.write()
    for grantee in grantees:
        for name in permissions:
            code = CODES[name]
            for minor in columns:
                key = (p.c.database_id == target.database_id, p.c["class"] == target.class_,
                       p.c.major_id == target.major_id, p.c.minor_id == minor,
                       p.c.grantee_principal_id == grantee, p.c.type == code)
                state = conn.execute(select(p.c.state).where(*key)).scalar()
                if action != "GRANT" and state == "W" and not cascade:
                    raise tsql_error(4611)
                if action == "REVOKE":
                    if minor == 0 and not grant_option_for:
                        # A REVOKE on the whole object takes its column permissions too.
                        conn.execute(delete(p).where(*key[:3], p.c.minor_id != 0,
                                                     *key[4:]))
                    if grant_option_for:
                        if state == "W":
                            conn.execute(update(p).where(*key).values(state="G"))
                    else:
                        conn.execute(delete(p).where(*key))
                    continue
                new = "D" if action == "DENY" else "W" if with_grant_option else "G"
                if state is None:
                    conn.execute(insert(p).values(
                        database_id=target.database_id, **{"class": target.class_},
                        major_id=target.major_id, minor_id=minor, grantee_principal_id=grantee,
                        type=code, grantor_principal_id=grantor, state=new))
                else:
                    conn.execute(update(p).where(*key).values(state=new,
                                                               grantor_principal_id=grantor))


def grant_connect(conn: StoreConnection, sec: Security, db_id: int, principal_id: int
                  ) -> None:
    """The CONNECT that CREATE USER grants the new user (grantor dbo)."""
    target = Target(db_id, 0, 0, None, frozenset({"CONNECT"}))
    change(sec, conn, "GRANT", target, ["CONNECT"], [principal_id], 1)


def table_columns(sec: Security, conn: StoreConnection, object_id: int
                  ) -> list[tuple[int, str]]:
    """(column_id, name) of the columns of table ``object_id``, by column_id."""
    c = sec.catalog.t.columns
    return [(int(i), str(n)) for i, n in conn.execute(
        select(c.c.column_id, c.c.name).where(c.c.object_id == object_id)
        .order_by(c.c.column_id))]


def column_ids(sec: Security, conn: StoreConnection, target: Target,
               columns: tuple[str, ...], known: list[tuple[int, str]] | None = None
               ) -> list[int]:
    """The column ids (minor_id) of ``columns`` of the target table (Msg 207 if unknown);
    ``known``: the (column_id, name) of a view, which the catalog does not keep."""
    if not columns:
        return [0]
    listed = known if known is not None else table_columns(sec, conn, target.major_id)
    ids = {name.lower(): i for i, name in listed}
    out = []
    for col in columns:
        if col.lower() not in ids:
            raise tsql_error(207, col, cls=BindError)
        out.append(ids[col.lower()])
    return out
