"""Security statements: GRANT / REVOKE / DENY, users, logins, roles, certificates and the
database master key (EXECUTE AS / REVERT and the functions naming the security context are
in :mod:`impersonation`).

Statements record what they declare in the engine's security catalog (``engine.security``,
``engine.permissions``) inside the statement's transaction; :mod:`authorize` enforces the
permissions (see docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine import access, roles
from tsqlbroker.engine import permissions as P
from tsqlbroker.engine.broker import Broker
from tsqlbroker.engine.owners import owned_by
from tsqlbroker.engine.securables import COLUMN_LEVEL
from tsqlbroker.engine.security import (
    FIRST_LOGIN_ID,
    FIRST_USER_PRINCIPAL_ID,
    Principal,
    Security,
)
from tsqlbroker.errors import BindError, cannot, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from .authorize import (
    holds_here,
    holds_server,
    object_columns,
    path_owners,
    server_principals,
)
from .compiler import Compiler, StmtFn, handler, wrap_statement
from .function_calls import str_arg
from .impersonation import context, current, principal_in, privileged, unchecked

if TYPE_CHECKING:
    from tsqlbroker.storage.store import StoreConnection

    from .frames import Frame

_OPEN_KEYS = "security_open_master_keys"  # session.extensions: database id -> open secret

# WITH options each statement accepts (lower-case).
_USER_OPTIONS = {"default_schema"}
_ALTER_USER_OPTIONS = {"default_schema", "name", "login"}
_LOGIN_OPTIONS = {"password", "hashed", "must_change", "check_policy", "check_expiration",
                  "default_database", "default_language", "sid"}
_ALTER_LOGIN_OPTIONS = (_LOGIN_OPTIONS - {"sid"}) | {"name", "old_password", "unlock"}
# What may follow PASSWORD = '…' (without a comma), and nothing else.
_PASSWORD_TAIL = {"hashed", "must_change", "old_password", "unlock"}
# What a login may change of its own without ALTER ANY LOGIN (its password only with
# OLD_PASSWORD).
_OWN_LOGIN_OPTIONS = {"password", "old_password", "default_database", "default_language"}


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _sec(f: Frame) -> Security:
    return Security.get(f.session.instance.store)


def _write_conn(f: Frame) -> StoreConnection:
    """The statement's storage connection, in its (write) transaction."""
    s = f.session
    s.check_writable()
    txn = s.txn_for_statement()
    txn.write()
    return txn.conn


def _options(node: ast.Node, options: tuple[tuple[str, Any], ...], allowed: set[str]
             ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in options:
        if key not in allowed:
            raise tsql_error(102, key.upper(), cls=BindError, span=node.span)
        # Binary is a login's SID or hashed password only (the grammar reads it anywhere).
        if isinstance(value, bytes) and key != "sid" and (
                key != "password" or "hashed" not in allowed):
            raise tsql_error(102, "0x" + value.hex(), cls=BindError, span=node.span)
        out[key] = value
    return out


DdlFn = Callable[["Frame", "Security", "StoreConnection"], None]


def _ddl(fn: DdlFn, guard: DdlFn | None = None) -> StmtFn:
    """A security statement ``fn`` in the statement's transaction, after its permission
    check ``guard`` (skipped for sysadmin and dbo)."""
    def run(f: Frame) -> None:
        sec, conn = _sec(f), _write_conn(f)
        if guard is not None and not privileged(f):
            guard(f, sec, conn)
        fn(f, sec, conn)
    return run


def _control_database(f: Frame, sec: Security, conn: StoreConnection) -> None:
    """The database master key is managed with CONTROL on the database (Msg 15247)."""
    if not holds_here(f, "CONTROL"):
        raise tsql_error(15247)


def _create_certificate(f: Frame, sec: Security, conn: StoreConnection) -> None:
    if not holds_here(f, "CREATE CERTIFICATE"):
        raise tsql_error(262, "CREATE CERTIFICATE", sec.catalog.database(
            conn, f.session.db_id).name)


def _on_certificate(name: str, permission: str) -> DdlFn:
    """``permission`` on certificate ``name`` (its owner holds it; Msg 15151 otherwise; an
    unknown certificate is left to the statement's own error)."""
    def guard(f: Frame, sec: Security, conn: StoreConnection) -> None:
        cert = sec.find_certificate(conn, f.session.db_id, name)
        if cert is None or cert["principal_id"] == principal_in(f, f.session.db_id):
            return
        if not holds_here(f, permission, (25, int(cert["certificate_id"]))):
            raise tsql_error(15151, "certificate", name, cls=BindError)
    return guard


def _current_user_id(f: Frame) -> int:
    ctx = context(f.session, f)
    return ctx.user_id if ctx else 1


def _master_key_open(f: Frame) -> str | None:
    """The master key secret the session opened in its database, if any."""
    opened: dict[int, str] = f.session.extensions.get(_OPEN_KEYS) or {}
    return opened.get(f.session.db_id)


# --------------------------------------------------------------------------------------------
# GRANT / REVOKE / DENY
# --------------------------------------------------------------------------------------------
@handler(ast.PermissionStatement)
def compile_permission(c: Compiler, node: ast.PermissionStatement) -> StmtFn:
    def run(f: Frame) -> None:
        sec, conn = _sec(f), _write_conn(f)
        db_id = f.session.db_id
        sc = node.securable
        names = [p.name for p in node.permissions]
        if sc is None:
            target = P.server_target() if P.all_server_level(names) else \
                P.database_target(db_id)
        else:
            target = P.resolve_target(sec, conn, db_id, sc.object_class,
                                      (sc.name.database, sc.name.schema, sc.name.name))
        grantees = [P.grantee_id(sec, conn, target, name) for name in node.principals]
        grantor = _current_user_id(f) if target.database_id else 1
        if node.as_principal is not None:
            grantor = P.grantee_id(sec, conn, target, node.as_principal)
        if not privileged(f):
            _check_grantor(f, sec, conn, target, names, node.action,
                           grantor if node.as_principal is not None else None)
        for perm in node.permissions:
            if perm.columns and perm.name not in COLUMN_LEVEL:
                raise tsql_error(1020)
            columns = P.column_ids(sec, conn, target, perm.columns,
                                   _view_columns(f, target)) if perm.columns else [0]
            P.change(sec, conn, node.action, target, P.expand([perm.name], target), grantees,
                     grantor, with_grant_option=node.with_grant_option,
                     grant_option_for=node.grant_option_for, cascade=node.cascade,
                     columns=columns)
    return run


def _view_columns(f: Frame, target: Any) -> list[tuple[int, str]] | None:
    """A view's columns for a column-level GRANT / DENY / REVOKE on it (None: a table's are
    in the catalog)."""
    if target.class_ != 1 or target.object_type != "V":
        return None
    obj = f.session.instance.catalog.object_by_id(f.session.conn, target.database_id,
                                                  target.major_id)
    return None if obj is None else object_columns(f, obj)


def _check_grantor(f: Frame, sec: Security, conn: StoreConnection, target: Any,
                   names: list[str], action: str, as_principal: int | None) -> None:
    """Who may GRANT / REVOKE / DENY (Msg 4613): the grantor (the AS principal, else the
    current user) needs CONTROL on the securable or a container, or, for GRANT and REVOKE,
    the permission WITH GRANT OPTION, or to own it or a container; server-level permissions
    only sysadmin grants."""
    db_id = target.database_id
    if db_id == 0:
        # Server permissions: sysadmin and securityadmin grant them (or WITH GRANT OPTION).
        logins = server_principals(f)
        if 4 in logins or all(access.may_grant(sec, conn, 0, logins, name,
                                               [(target.class_, target.major_id), (100, 0)],
                                               deny=action == "DENY")
                              for name in P.expand(names, target)):
            return
        raise tsql_error(4613)
    path = [(target.class_, target.major_id), (0, 0)]
    if target.class_ == 1:
        obj = sec.catalog.object_by_id(conn, db_id, target.major_id)
        path.insert(1, (3, int(obj.schema_id)) if obj is not None else (0, 0))
    elif target.class_ == 0:
        path = [(0, 0)]
    who = as_principal if as_principal is not None else principal_in(f, db_id)
    principals = access.principal_set(sec, conn, db_id, who)
    if principals & path_owners(f, db_id, path):
        return  # an owner holds CONTROL on what it owns
    for name in P.expand(names, target):
        if not access.may_grant(sec, conn, db_id, principals, name, path,
                                deny=action == "DENY"):
            raise tsql_error(4613)


# --------------------------------------------------------------------------------------------
# users and logins
# --------------------------------------------------------------------------------------------
@handler(ast.CreateUser)
def compile_create_user(c: Compiler, node: ast.CreateUser) -> StmtFn:
    opts = _options(node, node.options, _USER_OPTIONS)
    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        if not holds_here(f, "ALTER ANY USER"):
            raise tsql_error(15247)
        db_id = f.session.db_id
        pid = sec.create_user(conn, db_id, node.name, node.kind, node.mapped_to, opts)
        P.grant_connect(conn, sec, db_id, pid)  # as SQL Server does for every new user
    return _ddl(run)


@handler(ast.AlterUser)
def compile_alter_user(c: Compiler, node: ast.AlterUser) -> StmtFn:
    opts = _options(node, node.options, _ALTER_USER_OPTIONS)
    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        _require_on_user(f, sec, conn, node.name, "ALTER")
        sec.alter_user(conn, f.session.db_id, node.name, opts)
    return _ddl(run)


@handler(ast.DropUser)
def compile_drop_user(c: Compiler, node: ast.DropUser) -> StmtFn:
    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        _require_on_user(f, sec, conn, node.name, "CONTROL")
        user = sec.find_user(conn, f.session.db_id, node.name)
        if user is not None and user.principal_id >= FIRST_USER_PRINCIPAL_ID:
            refuse_owner(f, sec, conn, user.principal_id)
        sec.drop_user(conn, f.session.db_id, node.name, node.if_exists)
    return _ddl(run)


def refuse_owner(f: Frame, sec: Security, conn: StoreConnection, principal_id: int) -> None:
    """DROP USER (DROP APPLICATION ROLE) of an owner: Msg 15183 while it owns objects, Msg
    15138 a schema or a broker securable (in that order, as SQL Server reports them)."""
    db_id = f.session.db_id
    owned = owned_by(sec, conn, db_id, principal_id)
    if owned == "object":
        raise tsql_error(15183)
    owned = owned or Broker.get(f.session.instance.store).owned_by(conn, db_id, principal_id)
    if owned is not None:
        raise tsql_error(15138, owned)


def _login_options(c: Compiler, node: ast.CreateLogin | ast.AlterLogin, allowed: set[str]
                   ) -> dict[str, Any]:
    """A login statement's WITH options; OLD_PASSWORD, MUST_CHANGE and UNLOCK only right
    after PASSWORD = '…' (Msg 102 near them elsewhere)."""
    before = None
    for key, _value in node.options:
        if key in _PASSWORD_TAIL and before not in _PASSWORD_TAIL | {"password"}:
            raise c.bind_error(102, node, key.upper())
        before = key
    opts = _options(node, node.options, allowed)
    # A hash is written as binary and marked HASHED, a password as a string; SID binary.
    password = opts.get("password")
    if isinstance(password, bytes) and not opts.get("hashed"):
        raise c.bind_error(102, node, "0x" + password.hex())
    if opts.get("hashed") and not isinstance(password, bytes):
        raise c.bind_error(102, node, "HASHED")
    if "sid" in opts and not isinstance(opts["sid"], bytes):
        raise c.bind_error(102, node, str(opts["sid"]))
    return opts


@handler(ast.CreateLogin)
def compile_create_login(c: Compiler, node: ast.CreateLogin) -> StmtFn:
    opts = _login_options(c, node, _LOGIN_OPTIONS)
    if node.kind == "PASSWORD" and "password" not in opts:
        raise c.bind_error(102, node, node.options[0][0].upper() if node.options else "WITH")

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        if not holds_server(f, "ALTER ANY LOGIN"):
            raise tsql_error(15247)
        sec.create_login(conn, node.name, node.kind, node.certificate, opts)
    return _ddl(run)


@handler(ast.AlterLogin)
def compile_alter_login(c: Compiler, node: ast.AlterLogin) -> StmtFn:
    opts = _login_options(c, node, _ALTER_LOGIN_OPTIONS)
    # A login may change its own password (giving the old one), default database and
    # language; anything else needs ALTER ANY LOGIN.
    own_change = node.enable is None and set(opts) <= _OWN_LOGIN_OPTIONS and (
        "password" not in opts or "old_password" in opts)

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        own = own_change and node.name.lower() == current(f.session, f).login.lower()
        if not own and not holds_server(f, "ALTER ANY LOGIN"):
            raise cannot("alter", "login", node.name)
        sec.alter_login(conn, node.name, node.enable, opts)
    return _ddl(run)


@handler(ast.DropLogin)
def compile_drop_login(c: Compiler, node: ast.DropLogin) -> StmtFn:
    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        if not holds_server(f, "ALTER ANY LOGIN"):
            raise cannot("drop", "login", node.name)
        login = sec.find_login(conn, node.name)
        if login is not None and Broker.get(f.session.instance.store).endpoints_owned_by(
                conn, login.principal_id):
            raise tsql_error(15141, "endpoints")  # DROP LOGIN: it owns a securable
        if login is not None and any(r.owning_principal_id == login.principal_id
                                     for r in sec.logins(conn)
                                     if r.principal_id >= FIRST_LOGIN_ID):
            raise tsql_error(15141, "server roles")
        sec.drop_login(conn, node.name)
    return _ddl(run)


# --------------------------------------------------------------------------------------------
# roles
# --------------------------------------------------------------------------------------------
@handler(ast.CreateRole)
def compile_create_role(c: Compiler, node: ast.CreateRole) -> StmtFn:
    if node.server:
        return _ddl(lambda f, sec, conn: _create_server_role(f, sec, conn, node))

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        if not holds_here(f, "CREATE ROLE"):
            raise tsql_error(15247)
        roles.create_role(sec, conn, f.session.db_id, node.name,
                          _owner_id(f, sec, conn, node.owner))
    return _ddl(run)


@handler(ast.AlterRole)
def compile_alter_role(c: Compiler, node: ast.AlterRole) -> StmtFn:
    opts = _options(node, node.options, {"name"})

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        db_id = f.session.db_id
        if node.server:
            _alter_server_role(f, sec, conn, node, opts)
            return
        _require_on_role(f, sec, conn, node.name, "ALTER")
        if node.add_member is not None or node.drop_member is not None:
            roles.change_member(sec, conn, db_id, node.name,
                                node.add_member or node.drop_member or "",
                                node.add_member is not None)
        elif "name" in opts:
            roles.rename_role(sec, conn, db_id, node.name, str(opts["name"]))
    return _ddl(run)


def _create_server_role(f: Frame, sec: Security, conn: StoreConnection,
                        node: ast.CreateRole) -> None:
    """CREATE SERVER ROLE [AUTHORIZATION owner]: CREATE SERVER ROLE (securityadmin) or
    CONTROL SERVER (Msg 15247); the owner is a login or a server role (Msg 15151), another
    one than the caller's login needing IMPERSONATE on it (ALTER on a role); by default the
    caller's login."""
    if not holds_server(f, "CREATE SERVER ROLE"):
        raise tsql_error(15247)
    roles.create_server_role(sec, conn, node.name,
                             server_role_owner(f, sec, conn, node.owner).principal_id)


def server_role_owner(f: Frame, sec: Security, conn: StoreConnection, name: str | None
                      ) -> Principal:
    """The owner CREATE SERVER ROLE … AUTHORIZATION / ALTER AUTHORIZATION ON SERVER ROLE::
    name: a login or a created server role (Msg 15151 *login* otherwise), the caller's login
    by default; another one than the caller's login needs IMPERSONATE on it (ALTER on a
    role), else Msg 15247."""
    me = sec.find_login(conn, current(f.session, f).login)
    owner = me if name is None else sec.find_login(conn, name)
    if owner is None or owner.is_fixed_role or owner.principal_id == 2:
        raise tsql_error(15151, "login", name, cls=BindError)
    if (me is None or owner.principal_id != me.principal_id) and not unchecked(f, None) \
            and not access.server_holds(
            sec, conn, server_principals(f), "ALTER" if owner.type == "R" else "IMPERSONATE",
            (101, owner.principal_id)):
        raise tsql_error(15247)
    return owner


def _alter_server_role(f: Frame, sec: Security, conn: StoreConnection, node: ast.AlterRole,
                       opts: dict[str, Any]) -> None:
    """ALTER SERVER ROLE: a fixed role's members by sysadmin, or by a member of that role
    (not of sysadmin); a created role's members by ALTER ANY SERVER ROLE, its owner or ALTER
    on it, its name by ALTER ANY SERVER ROLE (CONTROL SERVER and sysadmin hold both); Msg
    15151 otherwise, and for a fixed role's name."""
    member = node.add_member or node.drop_member
    if member is not None:
        change_server_member(f, sec, conn, node.name, member, node.add_member is not None)
        return
    role = roles.server_role(sec, conn, node.name)
    if role.is_fixed_role or not (unchecked(f, None)
                                  or holds_server(f, "ALTER ANY SERVER ROLE")):
        raise tsql_error(15151, "server role", node.name, cls=BindError)
    if "name" in opts:
        roles.rename_server_role(sec, conn, node.name, str(opts["name"]))


def change_server_member(f: Frame, sec: Security, conn: StoreConnection, role_name: str,
                         member: str, add: bool) -> None:
    """ALTER SERVER ROLE … ADD / DROP MEMBER and sp_addsrvrolemember / sp_dropsrvrolemember:
    a fixed role's members change by sysadmin or a member of that role (not of sysadmin), a
    created role's by ALTER ANY SERVER ROLE, its owner or ALTER on it; Msg 15151 *server
    role* otherwise."""
    role = roles.server_role(sec, conn, role_name)
    if not unchecked(f, None):
        mine = server_principals(f)
        if role.is_fixed_role:
            allowed = role.principal_id != roles.SYSADMIN and role.principal_id in mine
        else:
            allowed = holds_server(f, "ALTER ANY SERVER ROLE") or \
                role.owning_principal_id in mine or access.server_holds(
                    sec, conn, mine, "ALTER", (roles.SERVER_PRINCIPAL, role.principal_id))
        if not allowed:
            raise tsql_error(15151, "server role", role_name, cls=BindError)
    roles.change_server_member(sec, conn, role_name, member, add)


def compile_sp_srvrolemember(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_addsrvrolemember`` / ``sp_dropsrvrolemember`` @loginame, @rolename (the older
    form of ALTER SERVER ROLE … ADD / DROP MEMBER, with its own messages: 15412 for a name
    that is no server role, 15007 for one that is no login, 15002 inside a transaction; sa
    and public keep their memberships, Msg 15405); the same checks and change otherwise."""
    proc = node.proc.name.lower().removeprefix("sys.")
    add = proc == "sp_addsrvrolemember"
    given: dict[str, ast.Expr | None] = {}
    for i, arg in enumerate(node.args):
        key = (arg.name or ("@loginame", "@rolename")[min(i, 1)]).lower()
        given[key] = arg.value
    if "@loginame" not in given:
        raise c.bind_error(201, node, node.proc.name, "@loginame")
    null = ast.Literal("null", None, "NULL")
    login_f = str_arg(c.expr(given["@loginame"] or null))
    role_f = str_arg(c.expr(given.get("@rolename") or null))
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        if f.session.trancount > 0:
            raise tsql_error(15002, f"sys.{proc}")
        sec, conn = _sec(f), _write_conn(f)
        login, role = login_f(f), role_f(f)
        found = sec.find_login(conn, role) if role is not None else None
        if found is None or found.type != "R" or found.principal_id == 2:
            raise tsql_error(15412, "(null)" if role is None else role)
        member = sec.find_login(conn, login) if login is not None else None
        if member is None or member.type == "R" and (member.is_fixed_role
                                                     or member.principal_id == 2):
            raise tsql_error(15007, "(null)" if login is None else login)
        if member.principal_id == 1:
            raise tsql_error(15405, member.name)
        change_server_member(f, sec, conn, found.name, member.name, add)
        if ret is not None:
            ret(f, 0)
    # As sp_addrolemember: a simple statement, committed as it succeeds.
    return wrap_statement(run, node.span.line if node.span else c.current_line, False)


def _drop_server_role(f: Frame, sec: Security, conn: StoreConnection, node: ast.DropRole
                      ) -> None:
    """DROP SERVER ROLE: ALTER ANY SERVER ROLE, its owner or CONTROL on it (Msg 15151, as
    for a role that is not there)."""
    role = sec.find_login(conn, node.name)
    if role is not None and role.type == "R" and not unchecked(f, None):
        mine = server_principals(f)
        if not (holds_server(f, "ALTER ANY SERVER ROLE") or role.owning_principal_id in mine
                or access.server_holds(sec, conn, mine, "CONTROL", (101, role.principal_id))):
            raise cannot("drop", "server role", node.name)
    roles.drop_server_role(sec, conn, node.name)


def _require_on_role(f: Frame, sec: Security, conn: StoreConnection, name: str,
                     permission: str) -> None:
    """ALTER (membership, name) or CONTROL (DROP) on a database role: by its owner, with the
    permission on it or ALTER ANY ROLE (db_securityadmin); a fixed role only by db_owner.
    Msg 15151 otherwise (an unknown role is left to the statement's own error)."""
    if privileged(f):
        return
    role = sec.find_user(conn, f.session.db_id, name)
    if role is None or role.type != "R":
        return
    if role.is_fixed_role or role.principal_id == 0:
        allowed = holds_here(f, "CONTROL")
    else:
        allowed = role.owning_principal_id == principal_in(f, f.session.db_id) or \
            holds_here(f, "ALTER ANY ROLE") or holds_here(f, permission, (4, role.principal_id))
    if not allowed:
        raise tsql_error(15151, "role", name, cls=BindError)


def _require_on_user(f: Frame, sec: Security, conn: StoreConnection, name: str,
                     permission: str) -> None:
    """ALTER / DROP USER: ALTER ANY USER (db_accessadmin) or the permission on the user
    (a user may alter itself); Msg 15151 otherwise."""
    if privileged(f):
        return
    user = sec.find_user(conn, f.session.db_id, name)
    if user is None or user.type == "R":
        return
    me = principal_in(f, f.session.db_id)
    if (permission == "ALTER" and user.principal_id == me) or holds_here(f, "ALTER ANY USER") \
            or holds_here(f, permission, (4, user.principal_id)):
        return
    raise tsql_error(15151, "user", name, cls=BindError)


@handler(ast.DropRole)
def compile_drop_role(c: Compiler, node: ast.DropRole) -> StmtFn:
    if node.server:
        return _ddl(lambda f, sec, conn: _drop_server_role(f, sec, conn, node))

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        _require_on_role(f, sec, conn, node.name, "CONTROL")
        roles.drop_role(sec, conn, f.session.db_id, node.name, node.if_exists)
    return _ddl(run)


def compile_sp_rolemember(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_addrolemember`` / ``sp_droprolemember`` @rolename, @membername (the older form of
    ALTER ROLE … ADD / DROP MEMBER, with its own messages 15014 and 15410)."""
    add = node.proc.name.lower() == "sp_addrolemember"
    given: dict[str, ast.Expr | None] = {}
    for i, arg in enumerate(node.args):
        key = (arg.name or ("@rolename", "@membername")[min(i, 1)]).lower()
        given[key] = arg.value
    if "@rolename" not in given or "@membername" not in given:
        missing = "@rolename" if "@rolename" not in given else "@membername"
        raise c.bind_error(201, node, node.proc.name, missing)
    role_f = str_arg(c.expr(given["@rolename"] or ast.Literal("null", None, "NULL")))
    member_f = str_arg(c.expr(given["@membername"] or ast.Literal("null", None, "NULL")))
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        sec, conn = _sec(f), _write_conn(f)
        db_id = f.session.db_id
        role, member = role_f(f) or "", member_f(f) or ""
        found = sec.find_user(conn, db_id, role)
        if found is None or found.type != "R":
            raise tsql_error(15014, role)
        if sec.find_user(conn, db_id, member) is None:
            raise tsql_error(15410, member)
        _require_on_role(f, sec, conn, role, "ALTER")
        roles.change_member(sec, conn, db_id, role, member, add)
        if ret is not None:
            ret(f, 0)
    # EXEC is a compound statement (it commits nothing itself): run as a simple statement,
    # so the change commits now and a later failing statement cannot roll it back.
    return wrap_statement(run, node.span.line if node.span else c.current_line, False)


# --------------------------------------------------------------------------------------------
# certificates and the database master key
# --------------------------------------------------------------------------------------------
def _owner_id(f: Frame, sec: Security, conn: StoreConnection, owner: str | None) -> int:
    if owner is None:
        return _current_user_id(f)
    user = sec.find_user(conn, f.session.db_id, owner)
    if user is None:
        raise tsql_error(15151, "user", owner, cls=BindError)
    return user.principal_id


@handler(ast.CreateCertificate)
def compile_create_certificate(c: Compiler, node: ast.CreateCertificate) -> StmtFn:
    pk = node.private_key or ast.PrivateKeyOptions()

    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        sec.create_certificate(
            conn, f.session.db_id, node.name, owner_id=_owner_id(f, sec, conn, node.owner),
            subject=node.subject, start=node.start_date, expiry=node.expiry_date,
            password=node.password or pk.encryption_password, file=node.file,
            key_file=pk.file, key_password=pk.decryption_password,
            active=node.active_for_begin_dialog, master_key_open=_master_key_open(f))
    return _ddl(run, _create_certificate)


@handler(ast.AlterCertificate)
def compile_alter_certificate(c: Compiler, node: ast.AlterCertificate) -> StmtFn:
    pk = node.private_key or ast.PrivateKeyOptions()
    return _ddl(lambda f, sec, conn: sec.alter_certificate(
        conn, f.session.db_id, node.name, remove_private_key=node.remove_private_key,
        active=node.active_for_begin_dialog, key_file=pk.file,
        key_password=pk.decryption_password, new_password=pk.encryption_password,
        master_key_open=_master_key_open(f)), _on_certificate(node.name, "ALTER"))


@handler(ast.DropCertificate)
def compile_drop_certificate(c: Compiler, node: ast.DropCertificate) -> StmtFn:
    return _ddl(lambda f, sec, conn: sec.drop_certificate(conn, f.session.db_id, node.name),
                _on_certificate(node.name, "CONTROL"))


@handler(ast.BackupCertificate)
def compile_backup_certificate(c: Compiler, node: ast.BackupCertificate) -> StmtFn:
    pk = node.private_key or ast.PrivateKeyOptions()
    return _ddl(lambda f, sec, conn: sec.backup_certificate(
        conn, f.session.db_id, node.name, node.file, pk.file, pk.encryption_password,
        pk.decryption_password, _master_key_open(f)), _on_certificate(node.name, "CONTROL"))


@handler(ast.CreateMasterKey)
def compile_create_master_key(c: Compiler, node: ast.CreateMasterKey) -> StmtFn:
    return _ddl(lambda f, sec, conn: sec.create_master_key(conn, f.session.db_id,
                                                           node.password), _control_database)


@handler(ast.AlterMasterKey)
def compile_alter_master_key(c: Compiler, node: ast.AlterMasterKey) -> StmtFn:
    return _ddl(lambda f, sec, conn: sec.alter_master_key(
        conn, f.session.db_id, node.action, node.password, node.service_master_key,
        _master_key_open(f)), _control_database)


@handler(ast.DropMasterKey)
def compile_drop_master_key(c: Compiler, node: ast.DropMasterKey) -> StmtFn:
    def run(f: Frame, sec: Security, conn: StoreConnection) -> None:
        sec.drop_master_key(conn, f.session.db_id)
        (f.session.extensions.get(_OPEN_KEYS) or {}).pop(f.session.db_id, None)
    return _ddl(run, _control_database)


@handler(ast.OpenMasterKey)
def compile_open_master_key(c: Compiler, node: ast.OpenMasterKey) -> StmtFn:
    def run(f: Frame) -> None:
        s = f.session
        if not privileged(f):
            _control_database(f, _sec(f), s.conn)
        secret = _sec(f).open_master_key(s.conn, s.db_id, node.password)
        # An opened key stays open for the session, even if a transaction rolls back.
        s.extensions.setdefault(_OPEN_KEYS, {})[s.db_id] = secret
    return run


@handler(ast.CloseMasterKey)
def compile_close_master_key(c: Compiler, node: ast.CloseMasterKey) -> StmtFn:
    def run(f: Frame) -> None:
        (f.session.extensions.get(_OPEN_KEYS) or {}).pop(f.session.db_id, None)
    return run
