"""Application roles: CREATE / ALTER / DROP APPLICATION ROLE, ``sp_setapprole`` and
``sp_unsetapprole``, the older ``sp_addapprole`` / ``sp_dropapprole`` /
``sp_approlepassword`` (the engine side is ``engine/approles.py``).

Activating an application role replaces the session's permissions by the role's in its
database (a context of :mod:`impersonation` that REVERT leaves alone): USER_NAME() is the
role, every check is made for the role and public, and another database is entered as its
guest. Only ``sp_unsetapprole`` with the cookie ``sp_setapprole`` made ends it; without a
cookie it lasts as long as the session.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine import approles, owners
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, TSqlError, cannot, not_supported, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from .authorize import holds_here
from .compiler import Compiler, StmtFn, handler, wrap_statement
from .function_calls import exec_arg_text
from .impersonation import CONTEXT_STACK, Context, context, current, privileged
from .procedures import SYSTEM_PROCEDURES
from .security_stmts import refuse_owner

if TYPE_CHECKING:
    from .frames import Frame

_OPTIONS = {"CREATE": {"password", "default_schema"},
            "ALTER": {"password", "default_schema", "name"}, "DROP": set()}
# sp_setapprole's cookie: random bytes (SQL Server documents varbinary(8000) and makes 50)
_COOKIE_BYTES = 36


def _manages(f: Frame, role: Any) -> bool:
    """ALTER ANY APPLICATION ROLE (db_securityadmin, db_owner), or ALTER / CONTROL on the
    role."""
    if privileged(f) or holds_here(f, "ALTER ANY APPLICATION ROLE"):
        return True
    return role is not None and holds_here(f, "ALTER", (4, role.principal_id))


@handler(ast.ApplicationRole)
def compile_application_role(c: Compiler, node: ast.ApplicationRole) -> StmtFn:
    opts: dict[str, Any] = {}
    for key, value in node.options:
        if key not in _OPTIONS[node.action]:
            raise tsql_error(102, key.upper(), cls=BindError, span=node.span)
        if isinstance(value, bytes):  # binary is a login's SID or hashed password only
            raise tsql_error(102, "0x" + value.hex(), cls=BindError, span=node.span)
        opts[key] = value[0] if isinstance(value, tuple) else value
    if node.action == "CREATE" and "password" not in opts:
        raise tsql_error(102, node.name, cls=BindError, span=node.span)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        txn = s.txn_for_statement()
        txn.write()
        sec, conn, db_id = Security.get(s.instance.store), txn.conn, s.db_id
        if node.action == "CREATE":
            if not _manages(f, None):
                raise tsql_error(15247)
            approles.create(sec, conn, db_id, node.name, str(opts["password"]),
                            opts.get("default_schema"))
            return
        verb = node.action.lower()
        if not _manages(f, approles.find(sec, conn, db_id, node.name)):
            raise cannot(verb, "application role", node.name)
        if node.action == "DROP":
            role = approles.find(sec, conn, db_id, node.name)
            if role is not None:  # sp_addapprole's role owns its schema
                refuse_owner(f, sec, conn, role.principal_id)
            approles.drop(sec, conn, db_id, node.name)
        else:
            approles.alter(sec, conn, db_id, node.name, new_name=opts.get("name"),
                           password=opts.get("password"),
                           default_schema=opts.get("default_schema"))
    return run


def _args(c: Compiler, node: ast.ExecProc, names: tuple[str, ...]) -> dict[str, ast.ExecArg]:
    """``node``'s arguments by parameter name (positional ones in ``names`` order; Msg 8145
    for a name the procedure does not have)."""
    out: dict[str, ast.ExecArg] = {}
    for i, arg in enumerate(node.args):
        key = (arg.name or (names[i] if i < len(names) else "")).lower()
        if key not in names:
            raise c.bind_error(8145, node, arg.name or str(i + 1), node.proc.name)
        out[key] = arg
    return out


def _text(c: Compiler, arg: ast.ExecArg | None) -> Any:
    """An argument as text (:func:`exec_arg_text`)."""
    return exec_arg_text(c, None if arg is None else arg.value)


def compile_sp_setapprole(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_setapprole @rolename, @password [, @encrypt = 'none'] [, @fCreateCookie = true,
    @cookie = @c OUTPUT]``."""
    names = ("@rolename", "@password", "@encrypt", "@fcreatecookie", "@cookie")
    args = _args(c, node, names)
    if "@rolename" not in args:
        raise tsql_error(15431, span=node.span)
    role_f, password_f = _text(c, args.get("@rolename")), _text(c, args.get("@password"))
    encrypt_f, wants_f = _text(c, args.get("@encrypt")), _text(c, args.get("@fcreatecookie"))
    cookie_arg = args.get("@cookie")
    store_cookie = None
    if cookie_arg is not None and isinstance(cookie_arg.value, ast.Variable):
        store_cookie = c.assigner(c.var(cookie_arg.value.name, node), T.VARBINARY_MAX)
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        s = f.session
        if f.level > 0 or f.proc_id is not None:
            raise tsql_error(15422)
        _outside_transaction(f, "sp_setapprole")
        if str(encrypt_f(f) or "none").lower() != "none":
            raise not_supported("sp_setapprole @encrypt = 'odbc'")
        name = role_f(f) or ""
        role = approles.matching(Security.get(s.instance.store), s.conn, s.db_id, name,
                                 password_f(f) or "")
        if role is None:
            raise cannot("find", "application role", name)
        cookie = None
        if str(wants_f(f) or "").lower() in ("true", "1"):
            cookie = secrets.token_bytes(_COOKIE_BYTES)
        stack: list[Context] = s.extensions.setdefault(CONTEXT_STACK, [])
        stack.append(Context(role.name, role.principal_id, current(s, f).login,
                             no_revert=True, cookie=cookie, db_id=s.db_id, approle=True))
        if store_cookie is not None:
            store_cookie(f, cookie)
        if ret is not None:
            ret(f, 0)
    return wrap_statement(run, node.span.line if node.span else c.current_line, False)


def compile_sp_unsetapprole(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_unsetapprole @cookie``: back to the context ``sp_setapprole`` replaced, given the
    cookie it made (Msg 15151 otherwise: no application role is active, or another cookie)."""
    args = _args(c, node, ("@cookie",))
    cookie_arg = args.get("@cookie")
    cookie_f = c.expr(cookie_arg.value).fn if cookie_arg and cookie_arg.value else None
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        s = f.session
        top = context(s, f)
        given = cookie_f(f) if cookie_f is not None else None
        if top is None or not top.approle or top.cookie is None or given != top.cookie:
            raise cannot("find", "application role", top.user if top else "")
        stack: list[Context] = s.extensions[CONTEXT_STACK]
        stack.pop()
        if ret is not None:
            ret(f, 0)
    return wrap_statement(run, node.span.line if node.span else c.current_line, False)


def _outside_transaction(f: Frame, procedure: str) -> None:
    """These procedures cannot run inside a user transaction (Msg 15002)."""
    if f.session.trancount > 0:
        raise tsql_error(15002, procedure)


def _legacy(names: tuple[str, ...], action: Any) -> Any:
    """A compiler of ``sp_addapprole`` and friends: ``action(frame, sec, conn, args)`` with
    the arguments as text, after the transaction check; the procedure returns 0."""
    def compile_proc(c: Compiler, node: ast.ExecProc) -> StmtFn:
        args = _args(c, node, names)
        missing = [n for n in names if n not in args]
        if missing:
            raise c.bind_error(201, node, node.proc.name, missing[0])
        texts = [_text(c, args.get(n)) for n in names]
        ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None
        proc = node.proc.name.lower().removeprefix("sys.")

        def run(f: Frame) -> None:
            s = f.session
            _outside_transaction(f, proc)
            s.check_writable()
            txn = s.txn_for_statement()
            txn.write()
            action(f, Security.get(s.instance.store), txn.conn, [t(f) for t in texts])
            if ret is not None:
                ret(f, 0)
        return wrap_statement(run, node.span.line if node.span else c.current_line, False)
    return compile_proc


def _addapprole(f: Frame, sec: Security, conn: Any, args: list[Any]) -> None:
    """``sp_addapprole @rolename, @password``: as CREATE APPLICATION ROLE, and (for what
    older versions did) a schema of the role's name, its default schema; Msg 2714 when that
    schema exists already."""
    name, password = str(args[0] or ""), args[1]
    if password is None:
        raise tsql_error(15600, "sp_addapprole")
    if not _manages(f, None) or not (privileged(f) or holds_here(f, "CREATE SCHEMA")):
        raise tsql_error(15247)
    db_id = f.session.db_id
    if sec.find_user(conn, db_id, name) is not None:
        raise tsql_error(15023, name)
    schema_id = sec.catalog.create_schema(conn, db_id, name)
    role_id = approles.create(sec, conn, db_id, name, str(password), name)
    # CREATE SCHEMA name AUTHORIZATION name, as the procedure does in SQL Server
    owners.set_owner(sec, conn, db_id, owners.SCHEMA, schema_id, role_id)


def _dropapprole(f: Frame, sec: Security, conn: Any, args: list[Any]) -> None:
    """``sp_dropapprole @rolename``: as DROP APPLICATION ROLE; the schema of its name that
    sp_addapprole made goes with it while empty (Msg 15138 otherwise: the role owns it)."""
    name, db_id = str(args[0] or ""), f.session.db_id
    role = approles.find(sec, conn, db_id, name)
    if role is None or not _manages(f, role):
        raise cannot("drop", "application role", name)
    try:
        sec.drop_schema(conn, db_id, name)  # as DROP SCHEMA: its owner and permissions go
    except TSqlError as e:
        if e.number != 3729:
            raise
        raise tsql_error(15138, "schema") from None
    approles.drop(sec, conn, db_id, name)


def _approlepassword(f: Frame, sec: Security, conn: Any, args: list[Any]) -> None:
    """``sp_approlepassword @rolename, @newpwd``: ALTER APPLICATION ROLE … WITH PASSWORD."""
    name, password, db_id = str(args[0] or ""), args[1], f.session.db_id
    if password is None:
        raise tsql_error(15600, "sp_approlepassword")
    if not _manages(f, approles.find(sec, conn, db_id, name)):
        raise cannot("alter", "application role", name)
    approles.alter(sec, conn, db_id, name, password=str(password))


SYSTEM_PROCEDURES.update({
    "sp_setapprole": compile_sp_setapprole, "sp_unsetapprole": compile_sp_unsetapprole,
    "sp_addapprole": _legacy(("@rolename", "@password"), _addapprole),
    "sp_dropapprole": _legacy(("@rolename",), _dropapprole),
    "sp_approlepassword": _legacy(("@rolename", "@newpwd"), _approlepassword)})
