"""Application roles: CREATE / ALTER / DROP APPLICATION ROLE and the password check of
``sp_setapprole``.

An application role is a database principal of type ``A`` with a password and no members.
The stored layout has no password column for database principals, so the role's salted
PBKDF2 hash (``certs.password_hash``: 16 bytes of salt, 32 of digest) is kept, as hex, in
its ``sid`` column; sys.database_principals shows the salt alone as the role's SID.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update

from ..errors import cannot, tsql_error
from ..storage.store import StoreConnection
from . import certs
from .roles import insert_principal
from .security import DATABASE_PRINCIPAL, Principal, Security

APPLICATION_ROLE = "A"
SID_BYTES = 16          # the salt: what sys.database_principals shows as the SID


def _stored(password: str) -> str:
    salt, _sep, digest = certs.password_hash(password).partition("$")
    return salt + digest


def find(sec: Security, conn: StoreConnection, db_id: int, name: str) -> Principal | None:
    """The application role ``name`` of ``db_id``, or None."""
    found = sec.find_user(conn, db_id, name)
    return found if found is not None and found.type == APPLICATION_ROLE else None


def _existing(sec: Security, conn: StoreConnection, db_id: int, name: str, verb: str
              ) -> Principal:
    found = find(sec, conn, db_id, name)
    if found is None:
        raise cannot(verb, "application role", name)
    return found


def create(sec: Security, conn: StoreConnection, db_id: int, name: str, password: str,
           default_schema: str | None) -> int:
    """CREATE APPLICATION ROLE (Msg 15023 when the name is taken); default schema dbo."""
    return insert_principal(sec, conn, db_id, name, APPLICATION_ROLE, default_schema or "dbo",
                            _stored(password))


def alter(sec: Security, conn: StoreConnection, db_id: int, name: str, *,
          new_name: str | None = None, password: str | None = None,
          default_schema: str | None = None) -> None:
    """ALTER APPLICATION ROLE … WITH NAME / PASSWORD / DEFAULT_SCHEMA."""
    role = _existing(sec, conn, db_id, name, "alter")
    values: dict[str, object] = {"modify_date": datetime.now()}
    if new_name is not None:
        other = sec.find_user(conn, db_id, new_name)
        if other is not None and other.principal_id != role.principal_id:
            raise tsql_error(15023, new_name)
        values.update(name=new_name, name_key=new_name.lower())
    if password is not None:
        values["sid"] = _stored(password)
    if default_schema is not None:
        values["default_schema_name"] = default_schema
    p = sec.t.principals
    conn.write()
    conn.execute(update(p).where(p.c.database_id == db_id,
                                 p.c.principal_id == role.principal_id).values(**values))


def drop(sec: Security, conn: StoreConnection, db_id: int, name: str) -> None:
    """DROP APPLICATION ROLE: the permissions granted to it, and those on it
    (APPLICATION ROLE::name), go with it."""
    role = _existing(sec, conn, db_id, name, "drop")
    conn.write()
    p = sec.t.permissions
    for table, col in ((sec.t.principals, sec.t.principals.c.principal_id),
                       (p, p.c.grantee_principal_id)):
        conn.execute(delete(table).where(table.c.database_id == db_id,
                                         col == role.principal_id))
    sec.forget_securable(conn, db_id, DATABASE_PRINCIPAL, role.principal_id)


def matching(sec: Security, conn: StoreConnection, db_id: int, name: str, password: str
             ) -> Principal | None:
    """The application role ``name`` if ``password`` is its password, else None."""
    role = find(sec, conn, db_id, name)
    if role is None or role.sid is None:
        return None
    stored = role.sid.hex()
    return role if certs.password_matches(password, f"{stored[:32]}${stored[32:]}") else None
