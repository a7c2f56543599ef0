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

from typing import TYPE_CHECKING

from sqlalchemy import select, tuple_

from .permissions import CODES
from .roles import members

if TYPE_CHECKING:
    from .security import Security
    from .store import StoreConnection

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
    16387: ("G", _DDL),                            # db_ddladmin
    16390: ("G", frozenset({"SELECT"})),           # db_datareader
    16391: ("G", _DATA),                           # db_datawriter
    16392: ("D", frozenset({"SELECT"})),           # db_denydatareader
    16393: ("D", _DATA),                           # db_denydatawriter
}


def principal_set(sec: Security, conn: StoreConnection, db_id: int, user_id: int
                  ) -> frozenset[int]:
    """``user_id``, ``public`` and every role ``user_id`` is a member of, transitively."""
    edges = members(sec, conn, db_id)
    found = {user_id, PUBLIC}
    grew = True
    while grew:
        grew = False
        for role, member in edges:
            if member in found and role not in found:
                found.add(role)
                grew = True
    return frozenset(found)


def holds(sec: Security, conn: StoreConnection, db_id: int, principals: frozenset[int],
          permission: str, path: list[tuple[int, int]]) -> bool:
    """Whether ``principals`` together hold ``permission`` on the securable whose
    (class, major_id) and containers' are ``path`` (the database, (0, 0), last)."""
    codes = {CODES[permission], "CL"}
    p = sec.t.permissions
    states = set(conn.execute(select(p.c.state).where(
        p.c.database_id == db_id, p.c.grantee_principal_id.in_(principals),
        p.c.type.in_(codes), p.c.minor_id == 0,
        tuple_(p.c["class"], p.c.major_id).in_(path))).scalars())
    for role in principals & FIXED_ROLES.keys():
        state, carried = FIXED_ROLES[role]
        if permission in carried or "CONTROL" in carried:
            states.add(state)
    if "D" in states:
        return False
    return bool(states & {"G", "W"})
