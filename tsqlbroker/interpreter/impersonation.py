"""EXECUTE AS / REVERT and the functions that name the security context: USER_NAME(),
CURRENT_USER, SESSION_USER, USER, SUSER_SNAME(), SUSER_NAME(), SYSTEM_USER, USER_ID(),
DATABASE_PRINCIPAL_ID(), SUSER_ID(), CERT_ID().

A session runs as the login it connected as (``sa``, a sysadmin, unless the command line
named another: ``-U``), mapped in each database to the user with the login's SID (dbo for
sysadmin; guest when none). It keeps a stack of EXECUTE AS contexts over that; a switch made
inside a procedure or dynamic SQL ends when that module returns. A procedure WITH EXECUTE AS
and an activated procedure of a queue with ACTIVATION (EXECUTE AS …) run in such a context
too. :mod:`authorize` checks permissions for the context in effect.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine import access, certs, owners, roles
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from .compiler import CExpr, Compiler, StmtFn, handler
from .function_calls import arity_args, int_arg, special, str_arg

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session

CONTEXT_STACK = "security_context"          # session.extensions: list[Context]
OWNER_PRINCIPAL = -2  # sys.sql_modules.execute_as_principal_id of EXECUTE AS OWNER


@dataclass
class Context:
    """One EXECUTE AS: who the session is until REVERT."""

    user: str
    user_id: int
    login: str
    no_revert: bool = False
    cookie: bytes | None = None
    sysadmin: bool = False
    # The procedure / dynamic SQL frame that switched (None in a batch): the switch ends
    # when that module returns.
    frame: Frame | None = None
    # The database of a database-scoped impersonation (EXECUTE AS USER, a module's EXECUTE
    # AS, activation); None for the server-scoped ones (EXECUTE AS LOGIN).
    db_id: int | None = None
    # For a server-scoped context: the database its user was mapped in.
    mapped_db: int | None = None
    # An application role (sp_setapprole): outside its database the session is guest.
    approle: bool = False


def _sec(f: Frame) -> Security:
    return Security.get(f.session.instance.store)


def context(s: Session, f: Frame | None = None) -> Context | None:
    """The innermost EXECUTE AS in effect for frame ``f`` of session ``s`` (None: the
    session's own identity)."""
    stack: list[Context] = s.extensions.get(CONTEXT_STACK) or []
    while stack and stack[-1].frame is not None and not _running(stack[-1].frame, f):
        stack.pop()  # set inside a module that has returned since
    return stack[-1] if stack else None


def login_is_sysadmin(s: Session, name: str) -> bool:
    """Whether login ``name`` holds CONTROL SERVER: sa, a member of sysadmin (ALTER SERVER
    ROLE sysadmin ADD MEMBER), or granted it."""
    sec = Security.get(s.instance.store)
    lg = sec.find_login(s.conn, name)
    if lg is None or lg.type == "R":
        return False
    if lg.principal_id == 1:
        return True
    principals = roles.server_roles(sec, s.conn, lg.principal_id) | {lg.principal_id}
    return access.server_holds(sec, s.conn, principals, "CONTROL SERVER")


def session_sysadmin(s: Session) -> bool:
    """Whether session ``s`` connected as a sysadmin (sa, the CLI's default, costs nothing)."""
    return s.sysadmin or login_is_sysadmin(s, s.login_name)


def base_context(s: Session) -> Context:
    """The session's own identity in its current database: sysadmin works as dbo; another
    login as the user mapped to its SID there, else guest."""
    if session_sysadmin(s):
        return Context("dbo", 1, s.login_name, sysadmin=True)
    sec = Security.get(s.instance.store)
    user = next((u for u in sec.users(s.conn, s.db_id)
                 if s.login_sid is not None and u.sid == s.login_sid and u.type != "R"), None)
    if user is None:
        return Context("guest", 2, s.login_name)
    return Context(user.name, user.principal_id, s.login_name)


def current(s: Session, f: Frame | None = None) -> Context:
    """The security context in effect for frame ``f``: an EXECUTE AS or the session's own.
    A server-scoped one (EXECUTE AS LOGIN) is the login's user of the current database."""
    ctx = context(s, f)
    if ctx is None:
        return base_context(s)
    if ctx.approle and ctx.db_id != s.db_id:
        return Context("guest", 2, ctx.login, db_id=s.db_id)  # an application role elsewhere
    if ctx.db_id is None and not ctx.sysadmin and ctx.mapped_db != s.db_id:
        sec = Security.get(s.instance.store)
        lg = sec.find_login(s.conn, ctx.login)
        user = next((u for u in sec.users(s.conn, s.db_id) if lg is not None and lg.sid
                     and u.sid == lg.sid and u.type != "R"), None)
        ctx.user, ctx.user_id = (user.name, user.principal_id) if user else ("guest", 2)
        ctx.mapped_db = s.db_id
    return ctx


def principal_in(f: Frame, db_id: int) -> int:
    """The database principal frame ``f``'s security context acts as in database ``db_id``.

    A login (the session's own, or EXECUTE AS LOGIN) is the user with its SID there, else
    guest when guest may connect. A database-scoped impersonation (EXECUTE AS USER, a
    module's or an activated procedure's EXECUTE AS) is trusted outside its database only
    when that database is TRUSTWORTHY (its owner, sa, may authenticate everywhere); then the
    impersonated user's login is mapped the same way. An application role is guest outside
    its database. Anything else: Msg 916."""
    s = f.session
    ctx = context(s, f)
    if ctx is None:
        return 1 if session_sysadmin(s) else _mapped(f, db_id, s.login_sid, s.login_name)
    if ctx.sysadmin:
        return 1
    if ctx.db_id == db_id:
        return ctx.user_id
    if ctx.db_id is None:
        lg = _sec(f).find_login(s.conn, ctx.login)
        return _mapped(f, db_id, lg.sid if lg else None, ctx.login)
    if ctx.approle:
        return _mapped(f, db_id, None, ctx.login)
    found = access.user_elsewhere(_sec(f), s.conn, ctx.db_id, ctx.user_id, db_id)
    if found is None:
        raise tsql_error(916, ctx.login, _database_name(f, db_id))
    return found


def _database_name(f: Frame, db_id: int) -> str:
    row = f.session.instance.catalog.database(f.session.conn, db_id)
    return row.name if row is not None else str(db_id)


def _mapped(f: Frame, db_id: int, sid: bytes | None, login: str) -> int:
    """The user of ``db_id`` with ``sid``; guest when guest may connect; else Msg 916."""
    found = access.mapped_user(_sec(f), f.session.conn, db_id, sid)
    if found is None:
        raise tsql_error(916, login, _database_name(f, db_id))
    return found


def may_connect(f: Frame, db_id: int, user_id: int) -> bool:
    """Whether database principal ``user_id`` holds CONNECT on ``db_id``
    (:func:`access.may_connect`)."""
    return access.may_connect(_sec(f), f.session.conn, db_id, user_id)


def unchecked(f: Frame, db_id: int | None) -> bool:
    """Whether no permission is checked for frame ``f`` in database ``db_id`` (None: in
    every database): sysadmin anywhere; dbo in its own database, and elsewhere only where
    its context maps to dbo (:func:`principal_in`, which may refuse with Msg 916)."""
    s = f.session
    if not s.extensions.get(CONTEXT_STACK):
        return session_sysadmin(s)
    ctx = current(s, f)
    if ctx.sysadmin:
        return True
    if ctx.user_id != 1 or db_id is None:
        return False
    return ctx.db_id == db_id or principal_in(f, db_id) == 1


def privileged(f: Frame) -> bool:
    """Whether frame ``f`` runs as sysadmin or as the database's dbo (no permission is
    checked then). The common case, sa with no EXECUTE AS, costs two look-ups."""
    s = f.session
    if not s.extensions.get(CONTEXT_STACK):
        return session_sysadmin(s)
    ctx = current(s, f)
    return ctx.sysadmin or ctx.user_id == 1


def owner_name(s: Session, db_id: int, object_id: int | None) -> str:
    """The name of the database principal owning object ``object_id`` (its own owner, else
    its schema's: :mod:`engine.owners`); dbo when unknown."""
    obj = None if object_id is None else s.instance.catalog.object_by_id(s.conn, db_id,
                                                                          object_id)
    if obj is None:
        return "dbo"
    sec = Security.get(s.instance.store)
    owner = owners.object_owner(sec, s.conn, db_id, int(obj.object_id), int(obj.schema_id))
    user = sec.user_by_id(s.conn, db_id, owner)
    return "dbo" if owner == 1 or user is None else user.name


def enter_module(f: Frame, execute_as: str | None, object_id: int | None = None) -> None:
    """Switch frame ``f`` (a module just called: procedure, function, trigger) to its WITH
    EXECUTE AS principal: ``OWNER`` (the module's owner: Msg 15517 when that is a role),
    ``SELF`` (who created or last altered it, :func:`owners.module_principal`; dbo for a
    module made before that was kept) or a user of the module's database; ``CALLER`` (the
    default) keeps the caller's context. ``object_id``: the module's (default
    ``f.proc_id``)."""
    if execute_as is None or execute_as.upper() == "CALLER":
        return
    s = f.session
    module = f.proc_id if object_id is None else object_id
    who = execute_as
    if who.upper() == "OWNER":
        who = owner_name(s, s.db_id, module)
    elif who.upper() == "SELF":
        who = _self_name(s, module)
    if who.upper() == "DBO":
        ctx = Context("dbo", 1, "sa" if s.sysadmin else s.login_name, db_id=s.db_id)
    else:
        ctx = _user_context(s, who)
    ctx.frame = f
    s.extensions.setdefault(CONTEXT_STACK, []).append(ctx)


def _self_name(s: Session, object_id: int | None) -> str:
    """The user a module WITH EXECUTE AS SELF runs as (Msg 15517 when that user has been
    dropped since)."""
    sec = Security.get(s.instance.store)
    pid = None if object_id is None else owners.module_principal(sec, s.conn, s.db_id,
                                                                  object_id)
    if pid is None or pid == 1:
        return "dbo"
    user = sec.user_by_id(s.conn, s.db_id, pid)
    if user is None:
        raise tsql_error(15517, f"principal_id {pid}")
    return user.name


def execute_as_principal(f: Frame, db_id: int, execute_as: str | None) -> int | None:
    """What CREATE / ALTER of a module WITH EXECUTE AS keeps (SQL Server's
    sys.sql_modules.execute_as_principal_id): for SELF the user running the statement in
    the module's database, -2 for OWNER, a named user's id (Msg 15151 when there is no
    such user to impersonate); None for CALLER. Called before the module is written."""
    if execute_as is None or execute_as.upper() == "CALLER":
        return None
    if execute_as.upper() == "SELF":
        return principal_in(f, db_id)
    if execute_as.upper() == "OWNER":
        return OWNER_PRINCIPAL
    s = f.session
    user = Security.get(s.instance.store).find_user(s.conn, db_id, execute_as)
    if user is None or user.type in ("R", "A") or user.principal_id in (0, 3, 4):
        raise tsql_error(15151, "user", execute_as, cls=BindError)
    return user.principal_id


def record_execute_as(f: Frame, db_id: int, object_id: int, principal: int | None, *,
                      altered: bool) -> None:
    """Keep :func:`execute_as_principal`'s answer for the module just written (``altered``:
    an existing one, whose earlier answer may have to go; a new module WITH EXECUTE AS
    CALLER keeps nothing, and makes no security table)."""
    if principal is None and not altered:
        return
    owners.set_module_principal(Security.get(f.session.instance.store), f.session.conn, db_id,
                                object_id, principal)


def _user_context(s: Session, name: str) -> Context:
    """EXECUTE AS USER = ``name`` in the session's database (Msg 15517 when no such user
    can be impersonated)."""
    sec = Security.get(s.instance.store)
    user = sec.find_user(s.conn, s.db_id, name)
    if user is None or user.type in ("R", "C", "A") or user.principal_id in (0, 3, 4):
        raise tsql_error(15517, name)
    login = sec.login_of(s.conn, user)
    return Context(user.name, user.principal_id, login.name if login else user.name,
                   db_id=s.db_id)


def run_as_user(s: Session, name: str) -> None:
    """Make the rest of session ``s`` run as user ``name`` (an activated procedure's
    EXECUTE AS); REVERT cannot undo it."""
    ctx = _user_context(s, name)
    ctx.no_revert = True
    s.extensions.setdefault(CONTEXT_STACK, []).append(ctx)


def _running(frame: Frame, current: Frame | None) -> bool:
    """Whether the module ``frame`` is still running when ``current`` runs: it is the
    current frame or one nested deeper (frames do not link to their callers, so a frame at
    a shallower level is taken as a caller)."""
    if current is None:
        return frame.level <= frame.session.nestlevel
    return frame is current or frame.level < current.level


# --------------------------------------------------------------------------------------------
# EXECUTE AS / REVERT
# --------------------------------------------------------------------------------------------
@handler(ast.ExecuteAs)
def compile_execute_as(c: Compiler, node: ast.ExecuteAs) -> StmtFn:
    store_cookie = None
    if node.cookie_variable is not None:
        store_cookie = c.assigner(c.var(node.cookie_variable, node), T.VARBINARY_MAX)

    def run(f: Frame) -> None:
        s = f.session
        sec = _sec(f)
        now = current(s, f)
        allowed = privileged(f)
        if node.kind == "USER":
            ctx = _user_context(s, node.name or "")
            if not allowed and ctx.user_id != now.user_id and not _may_impersonate(
                    f, s.db_id, now.user_id, 4, ctx.user_id):
                raise tsql_error(15517, node.name)
        elif node.kind == "LOGIN":
            lg = sec.find_login(s.conn, node.name or "")
            if lg is None or lg.type == "R" or lg.is_disabled:
                raise tsql_error(15406, node.name)
            if not (now.sysadmin or lg.name.lower() == now.login.lower()
                    or _may_impersonate(f, 0, _login_id(f, now.login), 101, lg.principal_id)):
                raise tsql_error(15406, node.name)
            mapped = None if lg.principal_id == 1 else next(
                (u for u in sec.users(s.conn, s.db_id) if u.sid == lg.sid and lg.sid), None)
            if login_is_sysadmin(s, lg.name):
                ctx = Context("dbo", 1, lg.name, sysadmin=True)
            else:
                ctx = Context(mapped.name if mapped else "guest",
                              mapped.principal_id if mapped else 2, lg.name, mapped_db=s.db_id)
        else:  # CALLER: the context the module was called in (the current one at batch level)
            ctx = Context(now.user, now.user_id, now.login, sysadmin=now.sysadmin,
                          db_id=now.db_id)
        ctx.no_revert = node.no_revert
        ctx.frame = f if f.level > 0 else None
        if store_cookie is not None:
            ctx.cookie = secrets.token_bytes(8)
            store_cookie(f, ctx.cookie)
        s.extensions.setdefault(CONTEXT_STACK, []).append(ctx)
    return run


def _login_id(f: Frame, name: str) -> int:
    lg = _sec(f).find_login(f.session.conn, name)
    return lg.principal_id if lg is not None else -1


def _may_impersonate(f: Frame, db_id: int, grantee: int, class_: int, major_id: int) -> bool:
    """IMPERSONATE (or CONTROL) on the user / login ``major_id``, held by ``grantee`` (and,
    in a database, its roles)."""
    sec = _sec(f)
    conn = f.session.conn
    principals = access.principal_set(sec, conn, db_id, grantee) if db_id else \
        frozenset({grantee})
    return access.holds(sec, conn, db_id, principals, "IMPERSONATE", [(class_, major_id)])


@handler(ast.Revert)
def compile_revert(c: Compiler, node: ast.Revert) -> StmtFn:
    cookie = c.expr(ast.Variable(node.cookie_variable)) if node.cookie_variable else None

    def run(f: Frame) -> None:
        context(f.session, f)  # drops switches of modules that have returned
        stack: list[Context] = f.session.extensions.get(CONTEXT_STACK) or []
        if not stack or stack[-1].no_revert:
            return  # nothing to revert to; a NO REVERT context stays
        top = stack[-1]
        if top.cookie is not None and (cookie is None or cookie.fn(f) != top.cookie):
            return  # a cookie-protected context reverts only with its cookie
        stack.pop()
    return run


# --------------------------------------------------------------------------------------------
# functions naming the security context
# --------------------------------------------------------------------------------------------
def _user_name(f: Frame) -> str:
    return current(f.session, f).user


def _login_name(f: Frame) -> str:
    return current(f.session, f).login


def _original_login(f: Frame) -> str:
    return f.session.login_name


@special("user_name")
def _fn_user_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return CExpr(T.SYSNAME, _user_name)
    idf = int_arg(args[0])

    def user_name(f: Frame) -> Any:
        pid = idf(f)
        if pid is None:
            return None
        user = _sec(f).user_by_id(f.session.conn, f.session.db_id, int(pid))
        return None if user is None else user.name
    return CExpr(T.SYSNAME, user_name)


def _niladic(fn: Callable[[Frame], str]) -> Callable[[Compiler, ast.FunctionCall], CExpr]:
    def compile_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
        arity_args(c, node, 0, 0)
        return CExpr(T.SYSNAME, fn)
    return compile_name


for _name in ("current_user", "session_user", "user"):
    special(_name)(_niladic(_user_name))
special("system_user")(_niladic(_login_name))
special("original_login")(_niladic(_original_login))


@special("suser_sname", "suser_name")
def _fn_suser_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return CExpr(T.SYSNAME, _login_name)
    by_sid = node.name.name.lower() == "suser_sname"
    argf = args[0].fn if by_sid else int_arg(args[0])

    def suser_name(f: Frame) -> Any:
        key = argf(f)
        if key is None:
            return None
        for lg in _sec(f).logins(f.session.conn):
            if (lg.sid == bytes(key)) if by_sid else (lg.principal_id == int(key)):
                return lg.name
        return None
    return CExpr(T.SYSNAME, suser_name)


def _principal_id_fn(server: bool) -> Callable[[Compiler, ast.FunctionCall], CExpr]:
    def compile_id(c: Compiler, node: ast.FunctionCall) -> CExpr:
        args = arity_args(c, node, 0, 1)
        namef = str_arg(args[0]) if args else None

        def principal_id(f: Frame) -> Any:
            s = f.session
            name = namef(f) if namef else (_login_name(f) if server else _user_name(f))
            if name is None:
                return None
            sec = _sec(f)
            found = sec.find_login(s.conn, name) if server else \
                sec.find_user(s.conn, s.db_id, name)
            return None if found is None else found.principal_id
        return CExpr(T.INT, principal_id)
    return compile_id


special("user_id", "database_principal_id")(_principal_id_fn(False))
special("suser_id")(_principal_id_fn(True))


@special("cert_id")
def _fn_cert_id(c: Compiler, node: ast.FunctionCall) -> CExpr:
    namef = str_arg(arity_args(c, node, 1, 1)[0])

    def cert_id(f: Frame) -> Any:
        name = namef(f)
        if name is None:
            return None
        row = _sec(f).find_certificate(f.session.conn, f.session.db_id, name)
        return None if row is None else int(row["certificate_id"])
    return CExpr(T.INT, cert_id)


@special("is_srvrolemember")
def _fn_is_srvrolemember(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """IS_SRVROLEMEMBER('role' [, 'login']): 1 / 0, NULL for an unknown role or login."""
    args = arity_args(c, node, 1, 2)
    rolef = str_arg(args[0])
    loginf = str_arg(args[1]) if len(args) > 1 else None

    def is_member(f: Frame) -> Any:
        s = f.session
        role_name = rolef(f)
        name = loginf(f) if loginf is not None else current(s, f).login
        sec = _sec(f)
        found = sec.find_login(s.conn, role_name) if role_name is not None else None
        role = found.principal_id if found is not None and found.type == "R" else None
        lg = sec.find_login(s.conn, name) if name is not None else None
        if role is None or lg is None:
            return None
        if role == roles.SYSADMIN:
            return int(login_is_sysadmin(s, lg.name))
        return int(role in roles.server_roles(sec, s.conn, lg.principal_id))
    return CExpr(T.INT, is_member)


@special("loginproperty")
def _fn_loginproperty(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """LOGINPROPERTY('login', 'property') of a SQL login (sql_variant): PasswordHash (its
    hash, to CONTROL SERVER only, as SQL Server: a hash admits an offline guess),
    PasswordHashAlgorithm, DefaultDatabase, DefaultLanguage; NULL for another login type,
    an unknown login or property, and for the properties of password policy, which is not
    modelled (docs/decisions.md)."""
    args = arity_args(c, node, 2, 2)
    loginf, propf = str_arg(args[0]), str_arg(args[1])

    def value(f: Frame) -> Any:
        s = f.session
        name, prop = loginf(f), (propf(f) or "").lower()
        sec = _sec(f)
        lg = sec.find_login(s.conn, name) if name is not None else None
        if lg is None or lg.type != "S":
            return None
        if prop == "defaultdatabase":
            return lg.default_database_name
        if prop == "defaultlanguage":
            return "us_english"
        stored = sec.stored_password(s.conn, lg.principal_id)
        if stored is None:
            return None
        if prop == "passwordhashalgorithm":
            return certs.password_hash_algorithm(stored)
        ctx = current(s, f)
        if prop == "passwordhash" and (unchecked(f, None) or (
                ctx.db_id is None and login_is_sysadmin(s, ctx.login))):
            return certs.shown_password_hash(stored)
        return None
    return CExpr(T.SQL_VARIANT, value)
