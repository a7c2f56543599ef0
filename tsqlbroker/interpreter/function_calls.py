"""Session-aware built-ins and the function-call dispatch.

``@@`` variables, DB_ID / DB_NAME / OBJECT_ID / OBJECT_NAME / OBJECT_SCHEMA_NAME / SCHEMA_NAME, the user and
host functions, XACT_STATE, ERROR_NUMBER() and friends, SCOPE_IDENTITY, and the
short-circuiting IIF / COALESCE / ISNULL live here; every other function comes from the value
library (``functions.lookup``) or is a user-defined scalar function (schema-qualified name).
XML methods on variables (``@x.value('(/a)[1]', 'int')``) are compiled here too, with
``WITH XMLNAMESPACES`` in effect and ``sql:variable()`` read from the frame.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine import objprops, typeids
from tsqlbroker.engine.visibility import object_visible
from tsqlbroker.errors import BindError, TSqlError, tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.lazy import LazyModule

from ..values import builtins as FN
from ..values import dates, precedence
from ..values import types as T
from ..values.convert import variant_type
from ..values.variant_props import variant_base_type, variant_data_length, variant_property
from .compiler import CExpr, Compiler, EvalFn, const_expr, expr_handler
from .expressions import DYNAMIC, coerce
from .server_info import SERVER_NAME, VERSION, server_property
from .setoptions import options_bitmap, session_property
from .statement_context import exec_context

if TYPE_CHECKING:
    from ..values import xml_value
    from .frames import Frame
else:
    # Start-up laziness: lxml (behind the xml type) loads with the first xml value.
    xml_value = LazyModule("tsqlbroker.values.xml_value", globals(), "xml_value")

# The DML engine and the transpiler's name resolution load sqlglot: on first use (IDENT_CURRENT,
# OBJECT_ID …), not at start-up.
engine_dml = LazyModule("tsqlbroker.engine.dml", globals(), "engine_dml")
engine_resolve = LazyModule("tsqlbroker.engine.transpiler.resolve", globals(), "engine_resolve")
engine_binder = LazyModule("tsqlbroker.engine.transpiler.binder", globals(), "engine_binder")
engine_viewcols = LazyModule("tsqlbroker.engine.viewcols", globals(), "engine_viewcols")

LOGIN_NAME = "sa"
USER_NAME = "dbo"
APP_NAME = "tsqlbroker"


def _g(t: T.SqlType, fn: EvalFn) -> tuple[T.SqlType, EvalFn]:
    return t, fn


def _identity(f: Frame) -> Any:
    v = f.session.identity
    return None if v is None else Decimal(int(v))


def _lock_timeout(options: dict[str, str]) -> int:
    """``@@LOCK_TIMEOUT``: the last ``SET LOCK_TIMEOUT n`` (-1, wait forever, by default)."""
    try:
        return int(options.get("lock_timeout", "-1"))
    except ValueError:
        return -1


GLOBALS: dict[str, tuple[T.SqlType, EvalFn]] = {
    "@@rowcount": _g(T.INT, lambda f: f.session.rowcount),
    "@@error": _g(T.INT, lambda f: f.session.error),
    "@@trancount": _g(T.INT, lambda f: f.session.trancount),
    "@@identity": _g(T.decimal_type(38, 0), _identity),
    "@@fetch_status": _g(T.INT, lambda f: f.session.fetch_status),
    "@@spid": _g(T.SMALLINT, lambda f: f.session.id),
    "@@nestlevel": _g(T.INT, lambda f: f.session.nestlevel),
    "@@version": _g(T.nvarchar(300), lambda _f: VERSION),
    "@@servername": _g(T.nvarchar(128), lambda _f: SERVER_NAME),
    "@@servicename": _g(T.nvarchar(128), lambda _f: "MSSQLSERVER"),
    "@@datefirst": _g(T.TINYINT, lambda f: f.session.datefirst),
    "@@procid": _g(T.INT, lambda f: f.proc_id or 0),
    "@@language": _g(T.nvarchar(128), lambda _f: "us_english"),
    "@@langid": _g(T.SMALLINT, lambda _f: 0),
    "@@max_precision": _g(T.TINYINT, lambda _f: 38),
    "@@lock_timeout": _g(T.INT, lambda f: _lock_timeout(f.session.options)),
    "@@textsize": _g(T.INT, lambda _f: 2147483647),
    "@@cursor_rows": _g(T.INT, lambda f: f.session.cursor_rows),
    "@@options": _g(T.INT, lambda f: options_bitmap(f.session)),
}


@expr_handler(ast.GlobalVariable)
def compile_global(c: Compiler, node: ast.GlobalVariable) -> CExpr:
    entry = GLOBALS.get(node.name.lower())
    if entry is None:
        raise c.bind_error(137, node, node.name)
    t, fn = entry
    return CExpr(t, fn)


# --------------------------------------------------------------------------------------------
# Function calls
# --------------------------------------------------------------------------------------------
SpecialFn = Callable[[Compiler, ast.FunctionCall], CExpr]
SPECIAL: dict[str, SpecialFn] = {}


def special(*names: str) -> Callable[[SpecialFn], SpecialFn]:
    """Register a session-aware or short-circuiting function compiler."""

    def deco(fn: SpecialFn) -> SpecialFn:
        for n in names:
            SPECIAL[n] = fn
        return fn
    return deco


@expr_handler(ast.FunctionCall)
def compile_call(c: Compiler, node: ast.FunctionCall) -> CExpr:
    name = node.name
    if name.schema is not None or name.database is not None:
        return UDF_CALLS.compile(c, node)
    key = name.name.lower()
    sp = SPECIAL.get(key)
    if sp is not None:
        return sp(c, node)
    return compile_builtin(c, node)


def compile_builtin(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """A call of a value-library built-in (``functions.lookup``), bound to its argument types
    once; constant calls of deterministic functions are folded."""
    name = node.name
    key = name.name.lower()
    builtin = FN.lookup(key)
    if builtin is None:
        raise c.bind_error(195, node, name.name, "built-in function name")
    args: list[CExpr] = []
    consts: list[Any] = []
    for a in node.args:
        if isinstance(a, ast.Column) and len(a.parts) == 1:
            # bare identifiers (DATEADD's ``day``) are passed as constant text
            args.append(const_expr(T.varchar(len(a.parts[0])), a.parts[0]))
            consts.append(a.parts[0])
            continue
        e = c.expr(a)
        if e.predicate:
            raise c.bind_error(4145, a, name.name)
        args.append(e)
        consts.append(e.value if e.const else FN.NOTCONST)
    if node.star:
        args = []
        consts = []
    t, fn = builtin.bind([a.type for a in args], consts)
    fns = [a.fn for a in args]
    n = len(fns)
    if n == 0:
        def call0(_f: Frame) -> Any:
            return fn()
        out = call0
    elif n == 1:
        a0 = fns[0]

        def call1(f: Frame) -> Any:
            return fn(a0(f))
        out = call1
    elif n == 2:
        a0, a1 = fns

        def call2(f: Frame) -> Any:
            return fn(a0(f), a1(f))
        out = call2
    else:
        def calln(f: Frame) -> Any:
            return fn(*[a(f) for a in fns])
        out = calln
    if args and all(a.const for a in args) and getattr(builtin, "deterministic", False):
        try:
            value = out(None)  # type: ignore[arg-type]
        except TSqlError:
            return CExpr(t, out)
        return CExpr(t, lambda _f, _v=value: _v, True, value)
    return CExpr(t, out)


class UdfCalls:
    """What ``procedures.py`` (which runs T-SQL modules, above this module) plugs in at
    import: ``compile(c, node)`` for a call of a user-defined scalar function, ``dbo.f(…)``."""

    compile: Callable[[Compiler, ast.FunctionCall], CExpr]


UDF_CALLS = UdfCalls()


def arity_args(c: Compiler, node: ast.FunctionCall, lo: int, hi: int) -> list[CExpr]:
    """``node``'s arguments compiled, after checking there are ``lo`` to ``hi`` of them."""
    n = len(node.args)
    if not lo <= n <= hi:
        # As the built-ins' registry says it (functions.py): 174 for a fixed count, else 189.
        name = node.name.name.lower()
        raise (c.bind_error(174, node, name, lo) if lo == hi
               else c.bind_error(189, node, name, lo, hi))
    return [c.expr(a) for a in node.args]


def str_arg(e: CExpr) -> EvalFn:
    """``e`` evaluated as a string (converted to nvarchar(max) unless it is one)."""
    return coerce(e, T.NVARCHAR_MAX) if not e.type.is_string else e.fn


def exec_arg_text(c: Compiler, value: ast.Expr | None) -> EvalFn:
    """An EXEC argument of a system procedure as text; a bare word (``sp_dropapprole r1``,
    ``true``) is its own text, as EXEC reads it."""
    if value is None:
        return lambda _f: None
    if isinstance(value, ast.Column) and len(value.parts) == 1:
        word = value.parts[0]
        return lambda _f: word
    return str_arg(c.expr(value))


def int_arg(e: CExpr) -> EvalFn:
    """``e`` evaluated as an int (converted unless it is one)."""
    return coerce(e, T.INT) if e.type != T.INT else e.fn


# -- short-circuit forms -----------------------------------------------------------------------
@special("iif")
def _iif(c: Compiler, node: ast.FunctionCall) -> CExpr:
    if len(node.args) != 3:
        raise c.bind_error(174, node, "iif", 3)
    cond = c.predicate(node.args[0])
    a, b = c.expr(node.args[1]), c.expr(node.args[2])
    t = precedence.common_type([a.type, b.type])
    af, bf = coerce(a, t), coerce(b, t)
    return CExpr(t, lambda f: af(f) if cond(f) else bf(f))


@special("coalesce")
def _coalesce(c: Compiler, node: ast.FunctionCall) -> CExpr:
    if len(node.args) < 2:
        raise c.bind_error_text(node, "The coalesce function requires at least 2 arguments.",
                                189)
    args = [c.expr(a) for a in node.args]
    t = precedence.common_type([a.type for a in args])
    fns = [coerce(a, t) for a in args]

    def coalesce(f: Frame) -> Any:
        for fn in fns:
            v = fn(f)
            if v is not None:
                return v
        return None
    return CExpr(t, coalesce)


@special("isnull")
def _isnull(c: Compiler, node: ast.FunctionCall) -> CExpr:
    if len(node.args) != 2:
        raise c.bind_error(174, node, "isnull", 2)
    a, b = c.expr(node.args[0]), c.expr(node.args[1])
    t = a.type if a.type.name != "null" else (b.type if b.type.name != "null" else T.INT)
    af, bf = coerce(a, t), coerce(b, t)

    def isnull(f: Frame) -> Any:
        v = af(f)
        return bf(f) if v is None else v
    return CExpr(t, isnull)


# -- sessions, databases, objects ----------------------------------------------------------
@special("db_id")
def _db_id(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return CExpr(T.SMALLINT, lambda f: f.session.db_id)
    nf = str_arg(args[0])

    def db_id(f: Frame) -> Any:
        name = nf(f)
        if name is None:
            return None
        s = f.session
        return s.instance.catalog.database_id(s.conn, name)
    return CExpr(T.SMALLINT, db_id)


@special("db_name")
def _db_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return CExpr(T.SYSNAME, lambda f: f.session.current_database)
    idf = int_arg(args[0])

    def db_name(f: Frame) -> Any:
        i = idf(f)
        if i is None:
            return None
        s = f.session
        row = s.instance.catalog.database(s.conn, int(i))
        return None if row is None else row.name
    return CExpr(T.SYSNAME, db_name)


@special("object_id")
def _object_id(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 1, 2)
    nf = str_arg(args[0])
    tf = str_arg(args[1]) if len(args) > 1 else (lambda _f: None)

    def object_id(f: Frame) -> Any:
        name = nf(f)
        if name is None:
            return None
        s = f.session
        oid = engine_resolve.object_id_of(exec_context(f), name)
        if oid is None:
            return None
        want = tf(f)
        row = s.instance.catalog.object_by_id(s.conn, None, oid)
        if want and (row is None or row.type.strip().upper() != want.strip().upper()):
            return None
        if row is not None and not object_visible(s.conn, s.id, row):
            return None  # metadata visibility: an object the caller cannot see
        return oid
    return CExpr(T.INT, object_id)


def _object_property(c: Compiler, node: ast.FunctionCall, ex: bool) -> CExpr:
    """OBJECTPROPERTY / OBJECTPROPERTYEX (id, property) in the current database."""
    args = arity_args(c, node, 2, 2)
    idf, pf = int_arg(args[0]), str_arg(args[1])

    def object_property(f: Frame) -> Any:
        s = f.session
        return objprops.object_property(s.conn, s.id, s.db_id, idf(f), pf(f), ex=ex)
    return CExpr(DYNAMIC if ex else T.INT, object_property)


special("objectproperty")(lambda c, node: _object_property(c, node, False))
special("objectpropertyex")(lambda c, node: _object_property(c, node, True))


@special("col_length")
def _col_length(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """COL_LENGTH('table', 'column'): the column's defined length in bytes."""
    args = arity_args(c, node, 2, 2)
    tf, cf = str_arg(args[0]), str_arg(args[1])

    def col_length(f: Frame) -> Any:
        name = tf(f)
        if name is None:
            return None
        s = f.session
        ctx = exec_context(f)
        oid = engine_resolve.object_id_of(ctx, name)
        views = engine_viewcols.describer(engine_binder.Binder(ctx, {}).resolve, s.conn,
                                          s.db_id)
        return objprops.col_length(s.conn, s.id, s.db_id, oid, cf(f), views)
    return CExpr(T.SMALLINT, col_length)


@special("columnproperty")
def _columnproperty(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """COLUMNPROPERTY(id, 'column', 'property')."""
    args = arity_args(c, node, 3, 3)
    idf, cf, pf = int_arg(args[0]), str_arg(args[1]), str_arg(args[2])

    def columnproperty(f: Frame) -> Any:
        s = f.session
        views = engine_viewcols.describer(engine_binder.Binder(exec_context(f), {}).resolve,
                                          s.conn, s.db_id)
        return objprops.column_property(s.conn, s.id, s.db_id, idf(f), cf(f), pf(f), views)
    return CExpr(T.INT, columnproperty)


# sys.sql_modules holds the text of these kinds of object (OBJECT_DEFINITION, sp_helptext).
MODULE_TYPES = frozenset({"P", "FN", "IF", "TF", "V", "TR"})


@special("object_definition")
def _object_definition(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``OBJECT_DEFINITION(object_id [, ...])``: the module's text as written, NULL for an
    object without one (a table) or an unknown id."""
    args = arity_args(c, node, 1, 1)
    idf = int_arg(args[0])

    def object_definition(f: Frame) -> Any:
        oid = idf(f)
        if oid is None:
            return None
        s = f.session
        row = s.instance.catalog.object_by_id(s.conn, s.db_id, oid)
        if row is None or row.type.strip().upper() not in MODULE_TYPES:
            return None
        if not object_visible(s.conn, s.id, row, definition=True):
            return None  # metadata visibility: the text needs VIEW DEFINITION
        return row.definition
    return CExpr(T.NVARCHAR_MAX, object_definition)


def _object_attr(c: Compiler, node: ast.FunctionCall, attr: str) -> CExpr:
    """OBJECT_NAME / OBJECT_SCHEMA_NAME (object_id [, database_id]): one column of the
    object's catalog row, NULL for an unknown id."""
    args = arity_args(c, node, 1, 2)
    idf = int_arg(args[0])
    dbf = int_arg(args[1]) if len(args) > 1 else None

    def object_attr(f: Frame) -> Any:
        i = idf(f)
        if i is None:
            return None
        s = f.session
        db = dbf(f) if dbf is not None else s.db_id
        row = s.instance.catalog.object_by_id(s.conn, db, int(i))
        if row is None or not object_visible(s.conn, s.id, row):
            return None  # metadata visibility: an object the caller cannot see
        return getattr(row, attr)
    return CExpr(T.SYSNAME, object_attr)


@special("object_name")
def _object_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    return _object_attr(c, node, "name")


@special("object_schema_name")
def _object_schema_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    return _object_attr(c, node, "schema_name")


@special("schema_name")
def _schema_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return const_expr(T.SYSNAME, "dbo")
    idf = int_arg(args[0])

    def schema_name(f: Frame) -> Any:
        i = idf(f)
        if i is None:
            return None
        s = f.session
        for sid, name in s.instance.catalog.schemas(s.conn, s.db_id):
            if sid == int(i):
                return name
        return None
    return CExpr(T.SYSNAME, schema_name)


@special("schema_id")
def _schema_id(c: Compiler, node: ast.FunctionCall) -> CExpr:
    args = arity_args(c, node, 0, 1)
    if not args:
        return const_expr(T.INT, 1)
    nf = str_arg(args[0])

    def schema_id(f: Frame) -> Any:
        name = nf(f)
        if name is None:
            return None
        s = f.session
        return s.instance.catalog.schema_id(s.conn, s.db_id, name)
    return CExpr(T.INT, schema_id)


def _type_lookup(c: Compiler, node: ast.FunctionCall, by_name: bool) -> CExpr:
    """TYPE_ID('[schema.]name') (``by_name``) / TYPE_NAME(user_type_id): the type's id or
    name, NULL for an unknown one or a type the caller cannot see."""
    arg = arity_args(c, node, 1, 1)[0]
    argf = str_arg(arg) if by_name else int_arg(arg)
    find = typeids.type_id if by_name else typeids.type_name

    def type_lookup(f: Frame) -> Any:
        key = argf(f)
        if key is None:
            return None
        s = f.session
        return find(s.conn, s.id, s.db_id, key if by_name else int(key))
    return CExpr(T.INT if by_name else T.SYSNAME, type_lookup)


special("type_id")(lambda c, node: _type_lookup(c, node, True))
special("type_name")(lambda c, node: _type_lookup(c, node, False))


def _const_name(value: str) -> SpecialFn:
    def compile_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
        arity_args(c, node, 0, 1)
        return const_expr(T.SYSNAME, value)
    return compile_name


for _n, _v in (("suser_sname", LOGIN_NAME), ("suser_name", LOGIN_NAME),
               ("system_user", LOGIN_NAME), ("original_login", LOGIN_NAME),
               ("user_name", USER_NAME), ("current_user", USER_NAME),
               ("session_user", USER_NAME), ("user", USER_NAME),
               ("app_name", APP_NAME)):
    SPECIAL[_n] = _const_name(_v)


@special("current_timestamp")
def _current_timestamp(c: Compiler, node: ast.FunctionCall) -> CExpr:
    return c.expr(ast.FunctionCall(ast.ObjectName("getdate"), span=node.span))


_WEEKDAY_PARTS = frozenset({"weekday", "dw", "w"})
_WEEK_PARTS = frozenset({"week", "wk", "ww"})


@special("datepart")
def _datepart(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """DATEPART of weekday and week with the session's ``SET DATEFIRST``."""
    part = node.args[0] if node.args else None
    if not (len(node.args) == 2 and isinstance(part, ast.Column) and len(part.parts) == 1
            and part.parts[0].lower() in _WEEKDAY_PARTS | _WEEK_PARTS):
        return compile_builtin(c, node)
    base = compile_builtin(c, node)  # type checks and Msg 9810 … as the built-in does
    value = c.expr(node.args[1])
    to_date = coerce(value, T.DATE) if value.type.name != "date" else value.fn
    weekday = part.parts[0].lower() in _WEEKDAY_PARTS

    part_name = "weekday" if weekday else "week"

    def datepart(f: Frame) -> Any:
        d = to_date(f)
        return None if d is None else dates.datepart(part_name, d, f.session.datefirst)
    return CExpr(base.type, datepart)


@special("host_name")
def _host_name(c: Compiler, node: ast.FunctionCall) -> CExpr:
    arity_args(c, node, 0, 0)
    return const_expr(T.nvarchar(128), socket.gethostname())


@special("serverproperty")
def _serverproperty(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``SERVERPROPERTY('ProductVersion')`` …: sql_variant, NULL for an unknown name."""
    args = arity_args(c, node, 1, 1)
    namef = str_arg(args[0])
    return CExpr(DYNAMIC, lambda f: server_property(namef(f)))


@special("xact_state")
def _xact_state(c: Compiler, node: ast.FunctionCall) -> CExpr:
    arity_args(c, node, 0, 0)
    return CExpr(T.SMALLINT, lambda f: f.session.xact_state)


@special("scope_identity")
def _scope_identity(c: Compiler, node: ast.FunctionCall) -> CExpr:
    arity_args(c, node, 0, 0)

    def scope_identity(f: Frame) -> Any:
        v = f.scope_identity
        return None if v is None else Decimal(int(v))
    return CExpr(T.decimal_type(38, 0), scope_identity)


def _engine_identity(f: Frame, table: str, what: str) -> Any:
    """The engine's ``ident_current`` / ``identity_definition`` of a table."""
    return getattr(engine_dml, what)(exec_context(f), table)


def _of_name(t: T.SqlType, read: Callable[[Frame, str], Any]) -> SpecialFn:
    """A function of one name argument (NULL for a NULL name): ``read(frame, name)``."""
    def compile_call(c: Compiler, node: ast.FunctionCall) -> CExpr:
        nf = str_arg(arity_args(c, node, 1, 1)[0])

        def run(f: Frame) -> Any:
            name = nf(f)
            return None if name is None else read(f, name)
        return CExpr(t, run)
    return compile_call


def _as_numeric(v: Any) -> Any:
    return None if v is None else Decimal(v)


SPECIAL["ident_current"] = _of_name(T.decimal_type(38, 0), lambda f, name: _as_numeric(
    _engine_identity(f, name, "ident_current")))
SPECIAL["ident_seed"] = _of_name(T.decimal_type(38, 0), lambda f, name: _as_numeric(
    (_engine_identity(f, name, "identity_definition") or (None, None))[0]))
SPECIAL["ident_incr"] = _of_name(T.decimal_type(38, 0), lambda f, name: _as_numeric(
    (_engine_identity(f, name, "identity_definition") or (None, None))[1]))
# SESSIONPROPERTY('ANSI_NULLS'): 1 or 0 as sql_variant, NULL for another name.
SPECIAL["sessionproperty"] = _of_name(DYNAMIC, lambda f, name: session_property(f.session,
                                                                                 name))


@special("datalength")
def _datalength(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """DATALENGTH: the built-in's, but of a sql_variant the value's bytes in the base type
    it keeps (a variable's, a CAST's), else in the type its value stands for."""
    if len(node.args) != 1 or node.star:
        return compile_builtin(c, node)
    value = c.expr(node.args[0])
    if value.type.name != "sql_variant" or value.base is None:
        return compile_builtin(c, node)
    base, fn = value.base, value.fn

    def read(f: Frame) -> Any:
        v = fn(f)
        return None if v is None else variant_data_length(base(f, v), v)
    return CExpr(T.INT, read)


@special("sql_variant_property")
def _sql_variant_property(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``SQL_VARIANT_PROPERTY(v, 'BaseType')`` …: of the argument's declared type, of the
    base type a sql_variant keeps (a variable, a CAST), else of the type its value has."""
    args = arity_args(c, node, 2, 2)
    value, namef = args[0], str_arg(args[1])
    static = value.type if value.type != DYNAMIC else None
    if static is not None:
        variant_base_type(static, None)  # the argument becomes a sql_variant: Msg 206 for (max)
    base = value.base

    def read(f: Frame) -> Any:
        v, name = value.fn(f), namef(f)
        if v is None or name is None:
            return None
        t = base(f, v) if base is not None else static or variant_type(v)
        return variant_property(t, name, v)
    return CExpr(DYNAMIC, read)


def _error_fn(t: T.SqlType, get: Callable[[TSqlError], Any]) -> SpecialFn:
    def compile_error(c: Compiler, node: ast.FunctionCall) -> CExpr:
        arity_args(c, node, 0, 0)

        def read(f: Frame) -> Any:
            caught = f.session.caught
            return get(caught[-1]) if caught else None
        return CExpr(t, read)
    return compile_error


SPECIAL["error_number"] = _error_fn(T.INT, lambda e: e.number)
SPECIAL["error_message"] = _error_fn(T.nvarchar(4000), lambda e: e.message)
SPECIAL["error_severity"] = _error_fn(T.INT, lambda e: e.severity)
SPECIAL["error_state"] = _error_fn(T.INT, lambda e: e.state)
SPECIAL["error_line"] = _error_fn(T.INT, lambda e: e.line if e.line is not None else 1)
SPECIAL["error_procedure"] = _error_fn(T.nvarchar(128), lambda e: e.procedure)


# --------------------------------------------------------------------------------------------
# XML methods
# --------------------------------------------------------------------------------------------
_SQL_VARIABLE = re.compile(r"""sql:variable\(\s*["'](@[^"']+)["']\s*\)""", re.IGNORECASE)


def xml_resolver(c: Compiler, query: str, node: ast.Node) -> Callable[[Frame], Any]:
    """``fn(frame) -> resolver`` reading ``sql:variable("@x")`` from the frame."""
    slots: dict[str, int] = {}
    for name in _SQL_VARIABLE.findall(query):
        slots[name.lower()] = c.var(name, node).slot
    if not slots:
        return lambda _f: None

    def make(f: Frame) -> Callable[[str, str], Any]:
        def resolve(kind: str, name: str) -> Any:
            slot = slots.get(name.lower())
            if kind != "variable" or slot is None:
                raise tsql_error(137, name, cls=BindError)
            return f.v[slot]
        return resolve
    return make


def _xml_at_run_time(fn: EvalFn) -> EvalFn:
    """``fn`` checked to give xml: a sql_variant never holds xml, so its methods are Msg 258
    (unless the value is xml after all: a target typed only when it runs)."""
    def xml(f: Frame) -> Any:
        x = fn(f)
        if x is None or isinstance(x, xml_value.XmlValue):
            return x
        raise tsql_error(258, "sql_variant")
    return xml


@expr_handler(ast.MethodCall)
def compile_method(c: Compiler, node: ast.MethodCall) -> CExpr:
    target = c.expr(node.target)
    method = node.method.lower()
    if not target.type.is_xml and target.type != DYNAMIC:
        raise c.bind_error(258, node, target.type.name)
    consts = []
    for a in node.args:
        e = c.expr(a)
        if not e.const:
            raise c.bind_error_text(a, f"The argument 1 of the XML data type method "
                                       f"\"{method}\" must be a string literal.", 8172)
        consts.append(e.value)
    tf = target.fn
    if target.type == DYNAMIC:  # sql_variant: the value is known only when it runs
        tf = _xml_at_run_time(target.fn)
    ns = dict(c.xmlns)
    if method == "value":
        if len(consts) != 2:
            raise c.bind_error(174, node, "value", 2)
        query, spec = str(consts[0]), str(consts[1])
        t = T.parse_type_spec(spec)
        resolver = xml_resolver(c, query, node)

        def value(f: Frame) -> Any:
            x = tf(f)
            return None if x is None else x.value(query, t, ns, resolver(f))
        return CExpr(t, value)
    if method in ("query", "exist"):
        if len(consts) != 1:
            raise c.bind_error(174, node, method, 1)
        query = str(consts[0])
        resolver = xml_resolver(c, query, node)
        if method == "query":
            def xquery(f: Frame) -> Any:
                x = tf(f)
                return None if x is None else x.query(query, ns, resolver(f))
            return CExpr(T.XML, xquery)

        def exist(f: Frame) -> Any:
            x = tf(f)
            return None if x is None else x.exist(query, ns, resolver(f))
        return CExpr(T.BIT, exist)
    raise c.bind_error_text(node, f"The XML data type method \"{method}\" is not supported "
                                  "here.", 4121)
