"""Permission checks as SQL Server makes them: does a database principal hold a permission
on a securable?

A principal acts with the permissions of itself, of ``public`` and of every role it is a
member of (transitively). A permission on a securable is implied by CONTROL on it and by the
same permission (or CONTROL) on its containers: an object's schema, then the database. The
fixed database roles hold theirs without rows (db_owner CONTROL on the database,
db_datareader SELECT, db_datawriter INSERT / UPDATE / DELETE, db_ddladmin the CREATE and
ALTER ANY statement permissions, db_denydatareader / db_denydatawriter the DENYs). A DENY
anywhere on that path beats every GRANT; REVOKE has removed its row. The caller short-cuts
what needs no check: sysadmin, the dbo user, the owner of the object, an unbroken ownership
chain (``interpreter/authorize.py``). What a DML / DDL statement needs is :mod:`needs`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import select, tuple_

from .roles import members, with_roles
from .securables import CODES
from .security import SA_ID

if TYPE_CHECKING:
    from ..storage.store import StoreConnection
    from .security import Security

DBO = 1
PUBLIC = 0
_DATA = frozenset({"INSERT", "UPDATE", "DELETE"})
_DDL = frozenset({
    "CREATE TABLE", "CREATE VIEW", "CREATE PROCEDURE", "CREATE FUNCTION", "CREATE QUEUE",
    "CREATE SERVICE", "CREATE CONTRACT", "CREATE MESSAGE TYPE", "CREATE ROUTE",
    "CREATE REMOTE SERVICE BINDING", "CREATE SCHEMA", "CREATE TYPE", "CREATE SYNONYM",
    "CREATE SEQUENCE", "CREATE DEFAULT", "CREATE RULE", "CREATE XML SCHEMA COLLECTION",
    "ALTER ANY SCHEMA", "ALTER ANY MESSAGE TYPE", "ALTER ANY CONTRACT", "ALTER ANY SERVICE",
    "ALTER ANY ROUTE", "ALTER ANY REMOTE SERVICE BINDING", "REFERENCES"})
# fixed database role -> (state, database-level permissions it carries)
FIXED_ROLES: dict[int, tuple[str, frozenset[str]]] = {
    16384: ("G", frozenset({"CONTROL"})),          # db_owner
    16385: ("G", frozenset({"ALTER ANY USER", "CREATE SCHEMA"})),                # db_accessadmin
    16386: ("G", frozenset({"ALTER ANY ROLE", "CREATE ROLE", "CREATE SCHEMA",  # db_securityadmin
                            "ALTER ANY APPLICATION ROLE"})),
    16387: ("G", _DDL),                            # db_ddladmin
    16390: ("G", frozenset({"SELECT"})),           # db_datareader
    16391: ("G", _DATA),                           # db_datawriter
    16392: ("D", frozenset({"SELECT"})),           # db_denydatareader
    16393: ("D", _DATA),                           # db_denydatawriter
}


_SERVER_CONTROL = frozenset({"CONTROL SERVER"})
# fixed server role -> the server permissions it carries (sysadmin: CONTROL SERVER, all)
SERVER_ROLE_PERMISSIONS: dict[int, frozenset[str]] = {
    3: _SERVER_CONTROL,                                                       # sysadmin
    4: frozenset({"ALTER ANY LOGIN", "CREATE SERVER ROLE"}),                  # securityadmin
    5: frozenset({"ALTER ANY ENDPOINT", "SHUTDOWN", "VIEW SERVER STATE"}),    # serveradmin
    7: frozenset({"ALTER ANY CONNECTION", "VIEW SERVER STATE"}),              # processadmin
    9: frozenset({"CREATE ANY DATABASE", "ALTER ANY DATABASE"}),              # dbcreator
}


def server_holds(sec: Security, conn: StoreConnection, principals: frozenset[int],
                 permission: str, securable: tuple[int, int] | None = None) -> bool:
    """Whether the login and server roles ``principals`` hold the server permission
    ``permission`` (on the server-level ``securable`` (class, major_id), an endpoint or a
    login, when given): granted (to them, kept under database 0) or carried by a fixed
    server role, or CONTROL SERVER, and not denied."""
    path = [(100, 0)] if securable is None else [securable, (100, 0)]
    states = {s for _c, _m, _t, s in _rows(sec, conn, 0, principals, permission, path)}
    for role in principals & SERVER_ROLE_PERMISSIONS.keys():
        carried = SERVER_ROLE_PERMISSIONS[role]
        if permission in carried or carried is _SERVER_CONTROL:
            states.add("G")
    return _allowed(states)


def principal_set(sec: Security, conn: StoreConnection, db_id: int, user_id: int
                  ) -> frozenset[int]:
    """``user_id``, ``public`` and every role ``user_id`` is a member of, transitively."""
    return with_roles({user_id, PUBLIC}, members(sec, conn, db_id))


def _rows(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
          permission: str, path: list[tuple[int, int]], *, columns: bool = False
          ) -> list[tuple[int, int, str, str]]:
    """(class, minor_id, type, state) of the rows granting or denying ``permission`` (or
    CONTROL) on ``path`` to ``principals``; column rows (minor_id > 0) only if asked."""
    p = sec.t.permissions
    conds = [p.c.database_id == db_id, p.c.grantee_principal_id.in_(principals),
             p.c.type.in_({CODES[permission], "CL"}),
             tuple_(p.c["class"], p.c.major_id).in_(path)]
    if not columns:
        conds.append(p.c.minor_id == 0)
    return [(int(c), int(m), str(t).strip(), str(s)) for c, m, t, s in conn.execute(
        select(p.c["class"], p.c.minor_id, p.c.type, p.c.state).where(*conds))]


def _role_states(principals: frozenset[int], permission: str) -> set[str]:
    out = set()
    for role in principals & FIXED_ROLES.keys():
        state, carried = FIXED_ROLES[role]
        if permission in carried or "CONTROL" in carried:
            out.add(state)
    return out


def _allowed(states: set[str]) -> bool:
    return "D" not in states and bool(states & {"G", "W"})


def holds(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
          permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether ``principals`` together hold ``permission`` on the securable whose
    (class, major_id) and containers' are ``path`` (the database, (0, 0), last)."""
    states = {s for _c, _m, _t, s in _rows(sec, conn, db_id, principals, permission, path)}
    return _allowed(states | _role_states(principals, permission))


def denied(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
           permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether ``permission`` (or CONTROL) is denied to ``principals`` on ``path``."""
    states = {s for _c, _m, _t, s in _rows(sec, conn, db_id, principals, permission, path)}
    return "D" in states | _role_states(principals, permission)


def may_grant(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
              permission: str, path: list[tuple[int, int]], *, deny: bool = False) -> bool:
    """Whether ``principals`` may GRANT / REVOKE (``deny``: DENY) ``permission`` on ``path``:
    CONTROL on the securable or a container (db_owner holds it on the database), or, except
    for DENY, the permission itself WITH GRANT OPTION; nothing of it denied."""
    rows = _rows(sec, conn, db_id, principals, permission, path)
    control = {s for _c, _m, t, s in rows if t == "CL"} | _role_states(principals, "CONTROL")
    own = {s for _c, _m, t, s in rows if t == CODES[permission]}
    if "D" in control or "D" in own:
        return False
    return bool(control & {"G", "W"}) or (not deny and "W" in own)


def refused_column(sec: Security, conn: StoreConnection, db_id: int,
                   principals: frozenset[int], permission: str, path: list[tuple[int, int]],
                   used: Callable[[], list[int]]) -> int | None:
    """SELECT / UPDATE / REFERENCES on the columns ``used()`` (ids, read only when column
    permissions exist) of the object ``path`` starts with: None when held, 0 when the object
    as a whole is refused (Msg 229), else the id of the first column refused (Msg 230).

    A column DENY beats a GRANT on the table; a column GRANT is not beaten by a DENY on the
    table (SQL Server's documented exception, kept for backward compatibility) but is by one
    on the schema or the database. With no column named (``COUNT(*)``) a GRANT on any column
    will do."""
    rows = _rows(sec, conn, db_id, principals, permission, path, columns=True)
    whole = {s for c, m, _t, s in rows if m == 0} | _role_states(principals, permission)
    per_column: dict[int, set[str]] = {}
    for _c, minor, code, state in rows:
        if minor and code == CODES[permission]:
            per_column.setdefault(minor, set()).add(state)
    if not per_column:
        return None if _allowed(whole) else 0
    above = {s for c, m, _t, s in rows if m == 0 and c != 1} | \
        _role_states(principals, permission)
    if "D" in above:
        return 0
    ids = used()
    if not ids:
        return None if _allowed(whole) or any(_allowed(s) for s in per_column.values()) \
            else 0
    for column_id in ids:
        states = per_column.get(column_id, set())
        if "D" in states:
            return column_id
        if not states & {"G", "W"} and not _allowed(whole):
            return column_id
    return None


GUEST = 2
# Databases where guest holds CONNECT in every SQL Server instance.
_GUEST_DATABASES = frozenset({"master", "tempdb", "msdb"})


def may_connect(sec: Security, conn: StoreConnection, db_id: int, user_id: int) -> bool:
    """Whether database principal ``user_id`` holds CONNECT on ``db_id`` (guest does in
    master, tempdb and msdb, as in SQL Server; dbo always)."""
    if user_id == DBO:
        return True
    principals = principal_set(sec, conn, db_id, user_id)
    if holds(sec, conn, db_id, principals, "CONNECT", [(0, 0)]):
        return True
    row = sec.catalog.database(conn, db_id)
    return user_id == GUEST and row is not None and row.name.lower() in _GUEST_DATABASES \
        and not denied(sec, conn, db_id, principals, "CONNECT", [(0, 0)])


def mapped_user(sec: Security, conn: StoreConnection, db_id: int, sid: bytes | None
                ) -> int | None:
    """The user of ``db_id`` a login with ``sid`` acts as: the user with its SID, else
    guest when guest may connect; None when it may not enter (Msg 916)."""
    if sid:
        user = next((u for u in sec.users(conn, db_id) if u.sid == sid and u.type != "R"),
                    None)
        if user is not None:
            return user.principal_id
    return GUEST if may_connect(sec, conn, db_id, GUEST) else None


def user_elsewhere(sec: Security, conn: StoreConnection, home_db: int, user_id: int,
                   db_id: int) -> int | None:
    """Who the user ``user_id`` of database ``home_db``, impersonated (EXECUTE AS USER, a
    module's EXECUTE AS, the broker acting for a service's owner), is in database ``db_id``:
    trusted outside its database only when ``home_db`` is TRUSTWORTHY (its owner, sa, may
    authenticate everywhere); then dbo is sa's user (dbo) everywhere and another user is
    mapped by its login's SID (:func:`mapped_user`). None: not admitted (Msg 916)."""
    if home_db == db_id:
        return user_id
    home = sec.catalog.database(conn, home_db)
    if home is None or not home.is_trustworthy_on:
        return None
    if user_id == DBO and sec.database_owner(conn, home_db) == SA_ID:
        return DBO
    user = sec.user_by_id(conn, home_db, user_id)  # dbo: the owner login's SID
    return mapped_user(sec, conn, db_id, user.sid if user else None)
