"""The security catalog: users, logins, certificates and the database master key.

Every method takes the caller's :class:`StoreConnection` (writers call ``conn.write()``), so
CREATE USER inside ``BEGIN TRAN`` rolls back with it. Names compare case-insensitively.
Permissions live in :mod:`permissions`; the catalog views in :mod:`security_views`.
Permissions are enforced by ``interpreter/authorize.py`` with :mod:`access`.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from ..errors import BindError, cannot, tsql_error
from ..storage.store import Store, StoreConnection
from . import certs
from .catalog import MASTER, Catalog
from .keys import KeysMixin
from .securables import CLASSES
from .security_tables import SecurityTables, security_tables

# securable classes of principals: USER:: / ROLE:: / APPLICATION ROLE::, LOGIN:: / SERVER ROLE::
DATABASE_PRINCIPAL = CLASSES["USER"][0]
SERVER_PRINCIPAL = CLASSES["LOGIN"][0]
PUBLIC, DBO, GUEST = 0, 1, 2
SA_ID = 1  # the sa login's principal_id
FIRST_USER_PRINCIPAL_ID = 5
FIRST_LOGIN_ID = 256


@dataclass(frozen=True)
class Principal:
    """A row of sys.database_principals (or sys.server_principals for logins)."""

    principal_id: int
    name: str
    type: str
    default_schema_name: str | None = None
    sid: bytes | None = None
    authentication_type: int = 0
    is_fixed_role: bool = False
    owning_principal_id: int | None = None
    create_date: datetime | None = None
    modify_date: datetime | None = None
    is_disabled: bool = False
    default_database_name: str | None = None


SQL_EPOCH = datetime(2003, 4, 8, 9, 10, 42, 287000)  # SQL Server's built-ins' create_date
# Every database's built-in principals, with SQL Server's ids.
BUILTIN_USERS: tuple[Principal, ...] = (
    Principal(0, "public", "R", owning_principal_id=1),
    Principal(1, "dbo", "S", "dbo", b"\x01", 1),
    Principal(2, "guest", "S", "guest", b"\x00", 0),
    Principal(3, "INFORMATION_SCHEMA", "S"),
    Principal(4, "sys", "S"),
    *(Principal(i, n, "R", is_fixed_role=True, owning_principal_id=1) for i, n in (
        (16384, "db_owner"), (16385, "db_accessadmin"), (16386, "db_securityadmin"),
        (16387, "db_ddladmin"), (16389, "db_backupoperator"), (16390, "db_datareader"),
        (16391, "db_datawriter"), (16392, "db_denydatareader"), (16393, "db_denydatawriter"))),
)
BUILTIN_LOGINS: tuple[Principal, ...] = (
    Principal(1, "sa", "S", sid=b"\x01", default_database_name="master"),
    *(Principal(i, n, "R", is_fixed_role=i > 2, owning_principal_id=1) for i, n in (
        (2, "public"), (3, "sysadmin"), (4, "securityadmin"), (5, "serveradmin"),
        (6, "setupadmin"), (7, "processadmin"), (8, "diskadmin"), (9, "dbcreator"),
        (10, "bulkadmin"))),
)
USER_TYPE_DESC = {"S": "SQL_USER", "U": "WINDOWS_USER", "R": "DATABASE_ROLE",
                  "C": "CERTIFICATE_MAPPED_USER", "G": "WINDOWS_GROUP", "A": "APPLICATION_ROLE"}
LOGIN_TYPE_DESC = {"S": "SQL_LOGIN", "U": "WINDOWS_LOGIN", "R": "SERVER_ROLE",
                   "C": "CERTIFICATE_MAPPED_LOGIN"}
AUTH_DESC = {0: "NONE", 1: "INSTANCE", 2: "DATABASE", 3: "WINDOWS"}


def _password_hash(options: dict[str, Any]) -> str:
    """What a login keeps of its PASSWORD option: the PBKDF2 hash of a password in clear,
    the hash itself for ``… HASHED`` (Msg 15021 when it is in no form known here)."""
    password = options["password"]
    if not options.get("hashed"):
        return certs.password_hash(str(password))
    stored = certs.stored_password_hash(password) if isinstance(password, bytes) else None
    if stored is None:
        raise tsql_error(15021, "PASSWORD", state=2)  # the state SQL Server gives
    return stored


def _now() -> datetime:
    return datetime.now()


def _hex(b: bytes | None) -> str | None:
    return None if b is None else b.hex().upper()


def _unhex(s: str | None) -> bytes | None:
    return None if s is None else bytes.fromhex(s)


class Security(KeysMixin):
    """The security catalog of one store (``Security.get(store)``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.catalog = Catalog.get(store)
        self.t: SecurityTables = security_tables(store.metadata)
        self._ready = False
        self.catalog.on_drop_database(self._on_drop_database)
        self.catalog.on_drop_object(self._on_drop_object)

    @classmethod
    def get(cls, store: Store) -> Security:
        """The one security catalog of ``store``."""
        sec: Security = store.extension("security", cls)
        return sec

    def ensure(self, conn: StoreConnection) -> None:
        """Create the security tables unless they exist (cheap after the first call)."""
        if self._ready:
            return
        # No lock of ours around it: creating waits for the store's write lock, which a
        # session already inside a write transaction may hold while it comes here too
        # (the REPL's catalog reader against the batch's CREATE LOGIN deadlocked so).
        # create_tables checks for each table under the write lock, so two callers agree.
        if self.catalog.create_tables(conn, self.t.all()):
            self._ready = True

    def _on_drop_database(self, conn: StoreConnection, db_id: int) -> None:
        self.ensure(conn)
        for table in (self.t.principals, self.t.certificates, self.t.master_keys,
                      self.t.permissions, self.t.roles, self.t.role_members, self.t.owners,
                      self.t.module_principals, self.t.databases):
            conn.execute(delete(table).where(table.c.database_id == db_id))

    def _on_drop_object(self, conn: StoreConnection, db_id: int, object_id: int) -> None:
        # A dropped module's EXECUTE AS principal must not outlive it (DROP PROCEDURE /
        # FUNCTION / TRIGGER, a table's triggers with DROP TABLE).
        self.ensure(conn)
        m = self.t.module_principals
        conn.execute(delete(m).where(m.c.database_id == db_id, m.c.object_id == object_id))

    def _next_id(self, conn: StoreConnection, column: Any, first: int, *conds: Any) -> int:
        top = conn.execute(select(func.max(column)).where(*conds)).scalar()
        return max(first, (top or 0) + 1)

    # -- database principals ------------------------------------------------------------------
    def users(self, conn: StoreConnection, db_id: int) -> list[Principal]:
        """The principals of ``db_id``: built-ins then created users, by principal_id."""
        self.ensure(conn)
        p = self.t.principals
        rows = conn.execute(select(p).where(p.c.database_id == db_id)
                            .order_by(p.c.principal_id)).mappings()
        ro = self.t.roles
        owners = dict(conn.execute(select(ro.c.principal_id, ro.c.owning_principal_id)
                                   .where(ro.c.database_id == db_id)).all())
        made = [Principal(r["principal_id"], r["name"], r["type"], r["default_schema_name"],
                          _unhex(r["sid"]), r["authentication_type"], False,
                          owners.get(r["principal_id"]), r["create_date"], r["modify_date"])
                for r in rows]
        builtin = BUILTIN_USERS
        owner = self.database_settings(conn).get(db_id)
        if owner is not None and owner[0] != SA_ID:
            # dbo is the database owner's user: it has the owner login's SID, so that login
            # acts as dbo there (ALTER AUTHORIZATION ON DATABASE, CREATE DATABASE).
            login = next((lg for lg in self.logins(conn) if lg.principal_id == owner[0]), None)
            if login is not None:
                builtin = tuple(replace(u, sid=login.sid) if u.principal_id == DBO else u
                                for u in BUILTIN_USERS)
        return sorted([*builtin, *made], key=lambda u: u.principal_id)

    # -- database owners and DB_CHAINING ------------------------------------------------------
    def database_settings(self, conn: StoreConnection) -> dict[int, tuple[int, bool]]:
        """database_id -> (its owner login's principal_id, DB_CHAINING) for the databases
        that have either set (others: sa, OFF)."""
        self.ensure(conn)
        d = self.t.databases
        return {int(r.database_id): (int(r.owner_principal_id), bool(r.is_db_chaining_on))
                for r in conn.execute(select(d))}

    def database_owner(self, conn: StoreConnection, db_id: int) -> int:
        """The principal_id of the login owning database ``db_id`` (sa's, 1, by default)."""
        return self.database_settings(conn).get(db_id, (SA_ID, False))[0]

    def db_chaining(self, conn: StoreConnection, db_id: int) -> bool:
        """Whether database ``db_id`` has DB_CHAINING ON (cross-database ownership
        chaining)."""
        return self.database_settings(conn).get(db_id, (SA_ID, False))[1]

    def set_database(self, conn: StoreConnection, db_id: int, *, owner: int | None = None,
                     chaining: bool | None = None) -> None:
        """Record a database's owner login and / or its DB_CHAINING setting."""
        self.ensure(conn)
        d = self.t.databases
        conn.write()
        now = self.database_settings(conn).get(db_id)
        values = {"owner_principal_id": owner if owner is not None else
                  (now[0] if now else SA_ID),
                  "is_db_chaining_on": chaining if chaining is not None else
                  (now[1] if now else False)}
        if now is None:
            conn.execute(insert(d).values(database_id=db_id, **values))
        else:
            conn.execute(update(d).where(d.c.database_id == db_id).values(**values))

    def find_user(self, conn: StoreConnection, db_id: int, name: str) -> Principal | None:
        """The database principal called ``name`` (any case), or None."""
        key = name.lower()
        return next((u for u in self.users(conn, db_id) if u.name.lower() == key), None)

    def user_by_id(self, conn: StoreConnection, db_id: int, pid: int) -> Principal | None:
        """The database principal with id ``pid``, or None."""
        return next((u for u in self.users(conn, db_id) if u.principal_id == pid), None)

    def create_user(self, conn: StoreConnection, db_id: int, name: str, kind: str | None,
                    mapped_to: str | None, options: dict[str, Any]) -> int:
        """CREATE USER: for a login (by default the login of the same name), WITHOUT LOGIN
        or for a certificate; the new principal's id. The CONNECT SQL Server grants a new
        user is the statement's second step (:func:`.permissions.grant_connect`): permission
        rows are the layer above the principals."""
        self.ensure(conn)
        if self.find_user(conn, db_id, name) is not None:
            raise tsql_error(15023, name)
        sid: bytes | None
        user_type, auth = "S", 0
        if kind == "CERTIFICATE":
            cert = self.find_certificate(conn, db_id, mapped_to or "")
            if cert is None:
                raise tsql_error(15151, "certificate", mapped_to, cls=BindError)
            sid, user_type = certs.certificate_sid(bytes.fromhex(cert["thumbprint"])), "C"
        elif kind == "WITHOUT LOGIN":
            # SQL Server gives users without login a SID of S-1-5-21-… form; any unique one.
            sid = bytes.fromhex("010500000000000903000000") + secrets.token_bytes(16)
        else:
            login = self.find_login(conn, mapped_to or name)
            if login is None or login.type == "R":  # a server role is no login
                raise tsql_error(15007, mapped_to or name)
            if any(u.sid == login.sid for u in self.users(conn, db_id) if u.sid):
                raise tsql_error(15063)
            sid, auth = login.sid, 1
            user_type = "U" if login.type == "U" else "C" if login.type == "C" else "S"
        p = self.t.principals
        conn.write()
        pid = self._next_id(conn, p.c.principal_id, FIRST_USER_PRINCIPAL_ID,
                            p.c.database_id == db_id)
        now = _now()
        schema = options.get("default_schema")
        conn.execute(insert(p).values(
            database_id=db_id, principal_id=pid, name=name, name_key=name.lower(),
            type=user_type, default_schema_name=schema if schema else
            (None if user_type == "C" else "dbo"),
            sid=_hex(sid), authentication_type=auth, create_date=now, modify_date=now))
        return pid

    def _stored_user(self, conn: StoreConnection, db_id: int, name: str, verb: str
                     ) -> Principal:
        user = self.find_user(conn, db_id, name)
        if user is None or user.type in ("R", "A"):
            raise tsql_error(15151, "user", name, cls=BindError)
        if user.principal_id < FIRST_USER_PRINCIPAL_ID:
            raise tsql_error(15150, verb, "user", user.name)
        return user

    def alter_user(self, conn: StoreConnection, db_id: int, name: str,
                   options: dict[str, Any]) -> None:
        """ALTER USER … WITH NAME / DEFAULT_SCHEMA / LOGIN."""
        self.ensure(conn)
        user = self._stored_user(conn, db_id, name, "alter")
        values: dict[str, Any] = {"modify_date": _now()}
        new_name = options.get("name")
        if new_name is not None and new_name.lower() != user.name.lower() \
                and self.find_user(conn, db_id, new_name) is not None:
            raise tsql_error(15023, new_name)
        if new_name is not None:
            values.update(name=new_name, name_key=new_name.lower())
        if "default_schema" in options:
            values["default_schema_name"] = options["default_schema"]
        if options.get("login") is not None:
            login = self.find_login(conn, options["login"])
            if login is None or login.type == "R":
                raise tsql_error(15007, options["login"])
            values.update(sid=_hex(login.sid), authentication_type=1)
        p = self.t.principals
        conn.write()
        conn.execute(update(p).where(p.c.database_id == db_id,
                                     p.c.principal_id == user.principal_id).values(**values))

    def forget_securable(self, conn: StoreConnection, db_id: int, class_: int,
                         major_id: int) -> None:
        """Delete the permissions on securable (``class_``, ``major_id``) of ``db_id`` (0: a
        server securable) and the owner ALTER AUTHORIZATION gave it (``tsqlb_sec_owners``):
        it was dropped (a securable made later may get its id) or its owner changed."""
        self.ensure(conn)
        for t in (self.t.permissions, self.t.owners):
            conn.execute(delete(t).where(t.c.database_id == db_id, t.c["class"] == class_,
                                         t.c.major_id == major_id))

    def drop_schema(self, conn: StoreConnection, db_id: int, name: str) -> bool:
        """DROP SCHEMA's change (:meth:`.Catalog.drop_schema`: False when there is none,
        Msg 3708 / 3729), and its owner and the permissions on it go: the next schema may get
        its id. sp_dropapprole drops its role's schema this way too."""
        schema_id = self.catalog.schema_id(conn, db_id, name)
        if not self.catalog.drop_schema(conn, db_id, name):
            return False
        assert schema_id is not None
        self.forget_securable(conn, db_id, CLASSES["SCHEMA"][0], schema_id)
        return True

    def drop_user(self, conn: StoreConnection, db_id: int, name: str,
                  if_exists: bool = False) -> None:
        """DROP USER: refused while the user owns a certificate or granted permissions (what
        it owns in schemas and the broker the interpreter checks first);
        the permissions granted to the user go with it."""
        self.ensure(conn)
        if if_exists and self.find_user(conn, db_id, name) is None:
            return
        user = self._stored_user(conn, db_id, name, "drop")
        c, perm = self.t.certificates, self.t.permissions
        if conn.execute(select(c.c.certificate_id).where(
                c.c.database_id == db_id, c.c.principal_id == user.principal_id)).first():
            raise tsql_error(15138, "certificate")
        if conn.execute(select(perm.c.type).where(
                perm.c.database_id == db_id, perm.c.grantor_principal_id == user.principal_id,
                perm.c.grantee_principal_id != user.principal_id)).first():
            raise tsql_error(15284)
        conn.write()
        conn.execute(delete(perm).where(perm.c.database_id == db_id,
                                        perm.c.grantee_principal_id == user.principal_id))
        self.forget_securable(conn, db_id, DATABASE_PRINCIPAL, user.principal_id)
        rm = self.t.role_members
        conn.execute(delete(rm).where(rm.c.database_id == db_id,
                                      rm.c.member_principal_id == user.principal_id))
        p = self.t.principals
        conn.execute(delete(p).where(p.c.database_id == db_id,
                                     p.c.principal_id == user.principal_id))

    # -- logins -------------------------------------------------------------------------------
    def logins(self, conn: StoreConnection) -> list[Principal]:
        """sys.server_principals: built-ins then created logins."""
        self.ensure(conn)
        lg, ro = self.t.logins, self.t.roles
        # Created server roles' owners are kept with the database roles', under database 0.
        owners = dict(conn.execute(select(ro.c.principal_id, ro.c.owning_principal_id)
                                   .where(ro.c.database_id == 0)).all())
        made = [Principal(r["principal_id"], r["name"], r["type"], None, _unhex(r["sid"]),
                          0, False, owners.get(r["principal_id"]), r["create_date"],
                          r["modify_date"], bool(r["is_disabled"]), r["default_database_name"])
                for r in conn.execute(select(lg).order_by(lg.c.principal_id)).mappings()]
        return [*BUILTIN_LOGINS, *made]

    def find_login(self, conn: StoreConnection, name: str) -> Principal | None:
        """The server principal called ``name`` (any case), or None."""
        key = name.lower()
        return next((lg for lg in self.logins(conn) if lg.name.lower() == key), None)

    def login_of(self, conn: StoreConnection, user: Principal) -> Principal | None:
        """The login ``user`` is mapped to (the same SID), if any."""
        if not user.sid:
            return None
        return next((lg for lg in self.logins(conn) if lg.sid == user.sid), None)

    def stored_password(self, conn: StoreConnection, login_id: int) -> str | None:
        """The hash SQL login ``login_id`` keeps of its password (None: none, or no such
        login): :func:`.certs.password_hash`'s form, or ``0x…`` as given HASHED."""
        self.ensure(conn)
        lg = self.t.logins
        return conn.execute(select(lg.c.password_hash).where(
            lg.c.principal_id == login_id, lg.c.type == "S")).scalar()

    def authenticate(self, conn: StoreConnection, name: str, password: str) -> Principal:
        """The SQL login ``name`` if ``password`` is its password (checked against the
        PBKDF2 hash CREATE / ALTER LOGIN stored) and it is enabled; Msg 18456 otherwise,
        with no hint which part was wrong (as SQL Server says it)."""
        self.ensure(conn)
        lg = self.t.logins
        row = conn.execute(select(lg.c.principal_id, lg.c.password_hash, lg.c.is_disabled)
                           .where(lg.c.name_key == name.lower(), lg.c.type == "S")).first()
        login = self.find_login(conn, name)
        if row is None or login is None or row.is_disabled or not row.password_hash or \
                not certs.password_matches(password, row.password_hash):
            raise tsql_error(18456, name)
        return login

    def create_login(self, conn: StoreConnection, name: str, kind: str,
                     certificate: str | None, options: dict[str, Any]) -> int:
        """CREATE LOGIN WITH PASSWORD / FROM WINDOWS / FROM CERTIFICATE (in master); ``kind``
        ROLE: a server role's row (CREATE SERVER ROLE)."""
        self.ensure(conn)
        if self.find_login(conn, name) is not None:
            raise tsql_error(15025, name)
        password = options.get("password")
        if kind == "CERTIFICATE":
            cert = self.find_certificate(conn, MASTER, certificate or "")
            if cert is None:
                raise tsql_error(15151, "certificate", certificate, cls=BindError)
            sid = certs.certificate_sid(bytes.fromhex(cert["thumbprint"]))
            ltype = "C"
        elif kind == "WINDOWS":
            if "\\" not in name:
                raise tsql_error(15401, name)
            sid = bytes.fromhex("010500000000000515000000") + secrets.token_bytes(16)
            ltype = "U"
        elif kind == "ROLE":  # CREATE SERVER ROLE (roles.create_server_role)
            sid, ltype = uuid.uuid4().bytes, "R"
        else:
            sid = options.get("sid") or uuid.uuid4().bytes
            if len(sid) != 16:  # a SQL login's SID is a GUID's 16 bytes
                raise tsql_error(15419)
            if any(lg.sid == sid for lg in self.logins(conn)):
                raise tsql_error(15433)
            ltype = "S"
        lg = self.t.logins
        conn.write()
        pid = self._next_id(conn, lg.c.principal_id, FIRST_LOGIN_ID)
        now = _now()
        conn.execute(insert(lg).values(
            principal_id=pid, name=name, name_key=name.lower(), type=ltype,
            sid=_hex(sid if isinstance(sid, bytes) else bytes(sid)), is_disabled=False,
            default_database_name=options.get("default_database") or "master",
            password_hash=_password_hash(options) if password is not None else None,
            is_policy_checked=bool(options.get("check_policy", ltype == "S")),
            is_expiration_checked=bool(options.get("check_expiration", False)),
            create_date=now, modify_date=now))
        return pid

    def _stored_login(self, conn: StoreConnection, name: str, verb: str) -> Principal:
        login = self.find_login(conn, name)
        if login is None or login.principal_id < FIRST_LOGIN_ID or login.type == "R":
            raise cannot(verb, "login", name)
        return login

    def alter_login(self, conn: StoreConnection, name: str, enable: bool | None,
                    options: dict[str, Any]) -> None:
        """ALTER LOGIN ENABLE / DISABLE / WITH PASSWORD [OLD_PASSWORD], NAME,
        DEFAULT_DATABASE, CHECK_…; a wrong OLD_PASSWORD is Msg 15151, as for a login that
        is not there (SQL Server does not say which)."""
        self.ensure(conn)
        login = self._stored_login(conn, name, "alter")
        old = options.get("old_password")
        if old is not None:
            lg = self.t.logins
            stored = conn.execute(select(lg.c.password_hash)
                                  .where(lg.c.principal_id == login.principal_id)).scalar()
            if not stored or not certs.password_matches(str(old), stored):
                raise cannot("alter", "login", name)
        values: dict[str, Any] = {"modify_date": _now()}
        if enable is not None:
            values["is_disabled"] = not enable
        new_name = options.get("name")
        if new_name is not None:
            other = self.find_login(conn, new_name)
            if other is not None and other.principal_id != login.principal_id:
                raise tsql_error(15025, new_name)
            values.update(name=new_name, name_key=new_name.lower())
        password = options.get("password")
        if password is not None:
            values["password_hash"] = _password_hash(options)
        if "default_database" in options:
            values["default_database_name"] = options["default_database"]
        if "check_policy" in options:
            values["is_policy_checked"] = bool(options["check_policy"])
        if "check_expiration" in options:
            values["is_expiration_checked"] = bool(options["check_expiration"])
        lg = self.t.logins
        conn.write()
        conn.execute(update(lg).where(lg.c.principal_id == login.principal_id).values(**values))

    def drop_login(self, conn: StoreConnection, name: str) -> None:
        """DROP LOGIN (users mapped to it stay, orphaned, as in SQL Server); the permissions
        granted to it and those on it go with it."""
        self.ensure(conn)
        login = self._stored_login(conn, name, "drop")
        if any(owner == login.principal_id
               for owner, _chaining in self.database_settings(conn).values()):
            raise tsql_error(15174, login.name)
        lg, perm = self.t.logins, self.t.permissions
        conn.write()
        conn.execute(delete(perm).where(perm.c.database_id == 0,
                                        perm.c.grantee_principal_id == login.principal_id))
        # … and those on it (LOGIN::): a login made later may get its id.
        self.forget_securable(conn, 0, SERVER_PRINCIPAL, login.principal_id)
        rm = self.t.role_members  # its server role memberships (kept under database 0)
        conn.execute(delete(rm).where(rm.c.database_id == 0,
                                      rm.c.member_principal_id == login.principal_id))
        conn.execute(delete(lg).where(lg.c.principal_id == login.principal_id))
