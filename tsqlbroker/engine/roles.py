"""Database roles: CREATE / ALTER / DROP ROLE, membership (ALTER ROLE … ADD MEMBER,
sp_addrolemember) and sys.database_role_members; server roles: the fixed ones and CREATE /
ALTER / DROP SERVER ROLE's (server principals of type R, their owners and members kept under
database 0).

Created roles are principals of type ``R`` in the security catalog, numbered with the users;
the fixed roles (db_owner …) are built in, and dbo is always a member of db_owner.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select, update

from ..errors import BindError, cannot, tsql_error
from ..storage.store import StoreConnection
from .security import (
    DATABASE_PRINCIPAL,
    FIRST_USER_PRINCIPAL_ID,
    SERVER_PRINCIPAL,
    Principal,
    Security,
)

DB_OWNER = 16384
SERVER = 0          # role memberships of the fixed server roles are kept under database 0
SYSADMIN = 3


def _role(sec: Security, conn: StoreConnection, db_id: int, name: str) -> Principal:
    role = sec.find_user(conn, db_id, name)
    if role is None or role.type != "R":
        raise tsql_error(15151, "role", name, cls=BindError)
    return role


def create_role(sec: Security, conn: StoreConnection, db_id: int, name: str, owner_id: int
                ) -> int:
    """CREATE ROLE [AUTHORIZATION owner]: Msg 15023 when the name is taken."""
    pid = insert_principal(sec, conn, db_id, name, "R")
    conn.execute(insert(sec.t.roles).values(database_id=db_id, principal_id=pid,
                                            owning_principal_id=owner_id))
    return pid


def insert_principal(sec: Security, conn: StoreConnection, db_id: int, name: str, type_: str,
                     default_schema: str | None = None, sid: str | None = None) -> int:
    """A new database principal of ``type_`` numbered after the others (Msg 15023 when the
    name is taken); its principal_id."""
    sec.ensure(conn)
    if sec.find_user(conn, db_id, name) is not None:
        raise tsql_error(15023, name)
    p = sec.t.principals
    conn.write()
    top = conn.execute(select(p.c.principal_id).where(p.c.database_id == db_id)
                       .order_by(p.c.principal_id.desc())).scalar()
    pid = max(FIRST_USER_PRINCIPAL_ID, (top or 0) + 1)
    now = datetime.now()
    conn.execute(insert(p).values(
        database_id=db_id, principal_id=pid, name=name, name_key=name.lower(), type=type_,
        default_schema_name=default_schema, sid=sid, authentication_type=0, create_date=now,
        modify_date=now))
    return pid


def members(sec: Security, conn: StoreConnection, db_id: int) -> list[tuple[int, int]]:
    """(role_principal_id, member_principal_id) of ``db_id``, dbo in db_owner included."""
    sec.ensure(conn)
    rm = sec.t.role_members
    rows = conn.execute(select(rm.c.role_principal_id, rm.c.member_principal_id).where(
        rm.c.database_id == db_id)).all()
    return sorted({(DB_OWNER, 1), *((int(r), int(m)) for r, m in rows)})


def change_member(sec: Security, conn: StoreConnection, db_id: int, role_name: str,
                  member_name: str, add: bool) -> None:
    """ALTER ROLE … ADD / DROP MEMBER: the role and the member must exist (Msg 15151);
    adding a member twice or dropping a non-member does nothing, as in SQL Server."""
    role = _role(sec, conn, db_id, role_name)
    member = sec.find_user(conn, db_id, member_name)
    if member is None or member.principal_id in (0, 3, 4) or member.is_fixed_role:
        raise tsql_error(15151, "user", member_name, cls=BindError)
    if member.principal_id == role.principal_id or (role.principal_id == DB_OWNER
                                                    and member.principal_id == 1):
        raise tsql_error(15405, member.name)
    rm = sec.t.role_members
    key = (rm.c.database_id == db_id, rm.c.role_principal_id == role.principal_id,
           rm.c.member_principal_id == member.principal_id)
    conn.write()
    present = conn.execute(select(rm.c.database_id).where(*key)).first() is not None
    if add and not present:
        conn.execute(insert(rm).values(database_id=db_id, role_principal_id=role.principal_id,
                                       member_principal_id=member.principal_id))
    elif not add and present:
        conn.execute(delete(rm).where(*key))


def rename_role(sec: Security, conn: StoreConnection, db_id: int, name: str, new_name: str
                ) -> None:
    """ALTER ROLE … WITH NAME = new_name."""
    role = _role(sec, conn, db_id, name)
    if role.is_fixed_role or role.principal_id == 0:
        raise tsql_error(15150, "alter", "role", role.name)
    other = sec.find_user(conn, db_id, new_name)
    if other is not None and other.principal_id != role.principal_id:
        raise tsql_error(15023, new_name)
    p = sec.t.principals
    conn.write()
    conn.execute(update(p).where(p.c.database_id == db_id,
                                 p.c.principal_id == role.principal_id)
                 .values(name=new_name, name_key=new_name.lower(), modify_date=datetime.now()))


def drop_role(sec: Security, conn: StoreConnection, db_id: int, name: str,
              if_exists: bool = False) -> None:
    """DROP ROLE: fixed roles and public stay (Msg 15150); a role with members cannot be
    dropped (Msg 15144). The permissions granted to it and those on it go with it."""
    sec.ensure(conn)
    found = sec.find_user(conn, db_id, name)
    if if_exists and (found is None or found.type != "R"):
        return
    role = _role(sec, conn, db_id, name)
    if role.is_fixed_role or role.principal_id == 0:
        raise tsql_error(15150, "drop", "role", role.name)
    if any(r == role.principal_id for r, _m in members(sec, conn, db_id)):
        raise tsql_error(15144)
    conn.write()
    for table, col in ((sec.t.principals, sec.t.principals.c.principal_id),
                       (sec.t.roles, sec.t.roles.c.principal_id),
                       (sec.t.permissions, sec.t.permissions.c.grantee_principal_id),
                       (sec.t.role_members, sec.t.role_members.c.member_principal_id)):
        conn.execute(delete(table).where(table.c.database_id == db_id,
                                         col == role.principal_id))
    sec.forget_securable(conn, db_id, DATABASE_PRINCIPAL, role.principal_id)


def server_roles(sec: Security, conn: StoreConnection, login_id: int) -> frozenset[int]:
    """The server roles login ``login_id`` is a member of: public (2) always, sysadmin for
    sa, and those ALTER SERVER ROLE … ADD MEMBER gave it or a created server role it is in
    (transitively)."""
    sec.ensure(conn)
    found = with_roles({login_id, 2, *((SYSADMIN,) if login_id == 1 else ())},
                       server_members(sec, conn))
    return found - {login_id}


def with_roles(principals: set[int], edges: list[tuple[int, int]]) -> frozenset[int]:
    """``principals`` and every role one of them is a member of, transitively (``edges``:
    (role_principal_id, member_principal_id))."""
    found = set(principals)
    grew = True
    while grew:
        grew = False
        for role, member in edges:
            if member in found and role not in found:
                found.add(role)
                grew = True
    return frozenset(found)


def server_members(sec: Security, conn: StoreConnection) -> list[tuple[int, int]]:
    """(role_principal_id, member_principal_id) of the server roles, sa in sysadmin
    included (sys.server_role_members)."""
    sec.ensure(conn)
    rm = sec.t.role_members
    rows = conn.execute(select(rm.c.role_principal_id, rm.c.member_principal_id).where(
        rm.c.database_id == SERVER)).all()
    return sorted({(SYSADMIN, 1), *((int(r), int(m)) for r, m in rows)})


def server_role(sec: Security, conn: StoreConnection, name: str) -> Principal:
    """The server role ``name``, fixed or created (public is not one ALTER SERVER ROLE
    takes); Msg 15151 when there is none."""
    role = sec.find_login(conn, name)
    if role is None or role.type != "R" or role.principal_id == 2:
        raise tsql_error(15151, "server role", name, cls=BindError)
    return role


def create_server_role(sec: Security, conn: StoreConnection, name: str, owner_id: int) -> int:
    """CREATE SERVER ROLE [AUTHORIZATION owner]: a server principal of type R (Msg 15025
    when the name is taken), owned by ``owner_id``."""
    pid = sec.create_login(conn, name, "ROLE", None, {})
    conn.execute(insert(sec.t.roles).values(database_id=SERVER, principal_id=pid,
                                            owning_principal_id=owner_id))
    return pid


def rename_server_role(sec: Security, conn: StoreConnection, name: str, new_name: str
                       ) -> None:
    """ALTER SERVER ROLE … WITH NAME = new_name: created roles only (Msg 15151 for a fixed
    one); Msg 15025 when the name is taken."""
    role = server_role(sec, conn, name)
    if role.is_fixed_role:
        raise tsql_error(15151, "server role", name, cls=BindError)
    other = sec.find_login(conn, new_name)
    if other is not None and other.principal_id != role.principal_id:
        raise tsql_error(15025, new_name)
    lg = sec.t.logins
    conn.write()
    conn.execute(update(lg).where(lg.c.principal_id == role.principal_id)
                 .values(name=new_name, name_key=new_name.lower(), modify_date=datetime.now()))


def set_server_role_owner(sec: Security, conn: StoreConnection, role: Principal,
                          owner_id: int) -> None:
    """ALTER AUTHORIZATION ON SERVER ROLE::role: ``owner_id`` owns the created role
    ``role`` (sys.server_principals.owning_principal_id); the permissions on the role go
    when the owner really changes, as for every securable but a database."""
    if role.owning_principal_id == owner_id:
        return
    ro = sec.t.roles
    conn.write()
    conn.execute(update(ro).where(ro.c.database_id == SERVER,
                                  ro.c.principal_id == role.principal_id)
                 .values(owning_principal_id=owner_id))
    lg = sec.t.logins
    conn.execute(update(lg).where(lg.c.principal_id == role.principal_id)
                 .values(modify_date=datetime.now()))
    sec.forget_securable(conn, SERVER, SERVER_PRINCIPAL, role.principal_id)


def drop_server_role(sec: Security, conn: StoreConnection, name: str) -> None:
    """DROP SERVER ROLE: created roles only (Msg 15151); not while it has members (Msg
    15144) or owns a server role (Msg 15141). Its memberships, the permissions granted to it
    and those on it go with it."""
    role = sec.find_login(conn, name)
    if role is None or role.type != "R" or role.is_fixed_role or role.principal_id == 2:
        raise cannot("drop", "server role", name)
    pid = role.principal_id
    if any(r == pid for r, _m in server_members(sec, conn)):
        raise tsql_error(15144)
    if any(lg.owning_principal_id == pid for lg in sec.logins(conn)):
        raise tsql_error(15141, "server roles")
    rm, perm, ro = sec.t.role_members, sec.t.permissions, sec.t.roles
    conn.write()
    conn.execute(delete(rm).where(rm.c.database_id == SERVER, rm.c.member_principal_id == pid))
    conn.execute(delete(perm).where(perm.c.database_id == SERVER,
                                    perm.c.grantee_principal_id == pid))
    sec.forget_securable(conn, SERVER, SERVER_PRINCIPAL, pid)
    conn.execute(delete(ro).where(ro.c.database_id == SERVER, ro.c.principal_id == pid))
    lg = sec.t.logins
    conn.execute(delete(lg).where(lg.c.principal_id == pid))


def change_server_member(sec: Security, conn: StoreConnection, role_name: str,
                         member_name: str, add: bool) -> None:
    """ALTER SERVER ROLE … ADD / DROP MEMBER: a server role, and a login or a created server
    role (Msg 15151 for anything else); sa stays in sysadmin and a role is not its own member
    (Msg 15405, as ALTER ROLE says it)."""
    role = server_role(sec, conn, role_name).principal_id
    member = sec.find_login(conn, member_name)
    if member is None or member.is_fixed_role or member.principal_id == 2:
        raise tsql_error(15151, "login", member_name, cls=BindError)
    # A role is not its own member, not even through others (SQL Server: "circular
    # definitions are not valid").
    if (member.principal_id == 1 and role == SYSADMIN) or member.principal_id == role or (
            add and member.principal_id in server_roles(sec, conn, role)):
        raise tsql_error(15405, member.name)
    rm = sec.t.role_members
    key = (rm.c.database_id == SERVER, rm.c.role_principal_id == role,
           rm.c.member_principal_id == member.principal_id)
    conn.write()
    present = conn.execute(select(rm.c.database_id).where(*key)).first() is not None
    if add and not present:
        conn.execute(insert(rm).values(database_id=SERVER, role_principal_id=role,
                                       member_principal_id=member.principal_id))
    elif not add and present:
        conn.execute(delete(rm).where(*key))
