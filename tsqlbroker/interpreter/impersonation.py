"""EXECUTE AS / REVERT and the functions that name the security context: USER_NAME(),
CURRENT_USER, SESSION_USER, USER, SUSER_SNAME(), SUSER_NAME(), SYSTEM_USER, USER_ID(),
DATABASE_PRINCIPAL_ID(), SUSER_ID(), CERT_ID().

The session keeps a stack of contexts; a switch made inside a procedure or dynamic SQL ends
when that module returns. Permissions are not enforced (docs/decisions.md), so a context only
changes the names these functions report.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import tsql_error
from tsqlbroker.grammar import ast

from . import types as T
from .compiler import CExpr, Compiler, StmtFn, handler
from .sysfuncs import _arity, _int_arg, _str_arg, special

if TYPE_CHECKING:
    from tsqlbroker.engine.security import Security

    from .frames import Frame
    from .session import Session

_CONTEXT = "security_context"          # session.extensions: list[Context]


@dataclass
class Context:
    """One EXECUTE AS: who the session is until REVERT."""

    user: str
    user_id: int
    login: str
    no_revert: bool = False
    cookie: bytes | None = None
    # The procedure / dynamic SQL frame that switched (None in a batch): the switch ends
    # when that module returns.
    frame: Frame | None = None


def _sec(f: Frame) -> Security:
    from tsqlbroker.engine.security import Security

    return Security.get(f.session.instance.store)


def context(s: Session, f: Frame | None = None) -> Context | None:
    """The innermost EXECUTE AS in effect for frame ``f`` of session ``s`` (None: the
    session's own identity)."""
    stack: list[Context] = s.extensions.get(_CONTEXT) or []
    while stack and stack[-1].frame is not None and not _running(stack[-1].frame, f):
        stack.pop()  # set inside a module that has returned since
    return stack[-1] if stack else None


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
        current = context(s, f)
        if node.kind == "USER":
            user = sec.find_user(s.conn, s.db_id, node.name or "")
            if user is None or user.type in ("R", "C") or user.principal_id in (0, 3, 4):
                raise tsql_error(15517, node.name)
            login = next((lg.name for lg in sec.logins(s.conn) if lg.sid == user.sid
                          and user.sid), None)
            ctx = Context(user.name, user.principal_id, login or user.name)
        elif node.kind == "LOGIN":
            lg = sec.find_login(s.conn, node.name or "")
            if lg is None or lg.type == "R" or lg.is_disabled:
                raise tsql_error(15406, node.name)
            mapped = next((u for u in sec.users(s.conn, s.db_id) if u.sid == lg.sid and
                           lg.sid), None)
            ctx = Context(mapped.name if mapped else "guest",
                          mapped.principal_id if mapped else 2, lg.name)
        else:  # CALLER: the context the module was called in (the current one at batch level)
            ctx = Context(current.user, current.user_id, current.login) if current else \
                Context("dbo", 1, "sa")
        ctx.no_revert = node.no_revert
        ctx.frame = f if f.level > 0 else None
        if store_cookie is not None:
            ctx.cookie = secrets.token_bytes(8)
            store_cookie(f, ctx.cookie)
        s.extensions.setdefault(_CONTEXT, []).append(ctx)
    return run


@handler(ast.Revert)
def compile_revert(c: Compiler, node: ast.Revert) -> StmtFn:
    cookie = c.expr(ast.Variable(node.cookie_variable)) if node.cookie_variable else None

    def run(f: Frame) -> None:
        context(f.session, f)  # drops switches of modules that have returned
        stack: list[Context] = f.session.extensions.get(_CONTEXT) or []
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
    ctx = context(f.session, f)
    return ctx.user if ctx else "dbo"


def _login_name(f: Frame) -> str:
    ctx = context(f.session, f)
    return ctx.login if ctx else "sa"


@special("user_name")
def _fn_user_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = _arity(c, node, 0, 1)
    if not args:
        return CExpr(T.SYSNAME, _user_name)
    idf = _int_arg(args[0])

    def user_name(f: Frame) -> Any:
        pid = idf(f)
        if pid is None:
            return None
        user = _sec(f).user_by_id(f.session.conn, f.session.db_id, int(pid))
        return None if user is None else user.name
    return CExpr(T.SYSNAME, user_name)


def _niladic(fn: Callable[[Frame], str]) -> Callable[[Compiler, ast.FunctionCall], CExpr]:
    def compile_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
        _arity(c, node, 0, 0)
        return CExpr(T.SYSNAME, fn)
    return compile_name


for _name in ("current_user", "session_user", "user"):
    special(_name)(_niladic(_user_name))
special("system_user")(_niladic(_login_name))


@special("suser_sname", "suser_name")
def _fn_suser_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = _arity(c, node, 0, 1)
    if not args:
        return CExpr(T.SYSNAME, _login_name)
    by_sid = node.name.name.lower() == "suser_sname"
    argf = args[0].fn if by_sid else _int_arg(args[0])

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
        args = _arity(c, node, 0, 1)
        namef = _str_arg(args[0]) if args else None

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
    namef = _str_arg(_arity(c, node, 1, 1)[0])

    def cert_id(f: Frame) -> Any:
        name = namef(f)
        if name is None:
            return None
        row = _sec(f).find_certificate(f.session.conn, f.session.db_id, name)
        return None if row is None else int(row["certificate_id"])
    return CExpr(T.INT, cert_id)
