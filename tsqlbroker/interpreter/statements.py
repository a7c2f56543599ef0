"""Simple statements: DECLARE, SET, SELECT without FROM, PRINT, SET options, USE,
CREATE / DROP DATABASE, WAITFOR DELAY / TIME, RAISERROR and THROW."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from datetime import time as dtime
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.catalog import FIRST_USER_DATABASE_ID
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.engine.security import SA_ID, Security
from tsqlbroker.errors import MESSAGES, ExecutionError, TSqlError, format_message, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from ..values.message_format import format_raiserror
from . import ast_types
from .authorize import (
    login_id,
    require_connect,
    require_create_database,
    require_drop_database,
)
from .compiler import CExpr, Compiler, StmtFn, handler, self_wrapped, touches_storage, walk
from .expressions import coerce
from .function_calls import xml_resolver
from .impersonation import current
from .statement_context import exec_context
from .statistics import set_statistics

if TYPE_CHECKING:
    from tsqlbroker.engine import dml as engine_dml
    from tsqlbroker.engine import parsing as engine_parsing

    from ..values import xml_modify
    from .frames import Frame
else:
    # sqlglot (behind the engine's parser) loads when a SELECT with OPTION compiles.
    from tsqlbroker.lazy import LazyModule

    engine_parsing = LazyModule("tsqlbroker.engine.parsing", globals(), "engine_parsing")
    # The DML engine too, with the first SET IDENTITY_INSERT run.
    engine_dml = LazyModule("tsqlbroker.engine.dml", globals(), "engine_dml")
    # Start-up laziness: lxml (behind the xml type) loads with the first xml modify() run.
    xml_modify = LazyModule("tsqlbroker.values.xml_modify", globals(), "xml_modify")


# --------------------------------------------------------------------------------------------
# Variables
# --------------------------------------------------------------------------------------------
class DeclareTyped:
    """What ``tabletypes.py`` (above this module: it imports the DML bridge, which imports
    this one) plugs in: ``compile(c, item)`` for ``DECLARE @t dbo.SomeTableType``."""

    compile: Callable[[Compiler, ast.VarDecl], StmtFn]


DECLARE_TYPED = DeclareTyped()


@handler(ast.Declare)
def compile_declare(c: Compiler, node: ast.Declare) -> StmtFn:
    inits: list[tuple[int, Any]] = []
    tables: list[StmtFn] = []
    for item in node.items:
        if item.type.name.lower() == "cursor":  # a cursor variable (SET @c = CURSOR …)
            c.declare(item.name, T.SqlType("cursor"), item)
            continue
        if not ast_types.is_builtin(item.type):  # DECLARE @t dbo.SomeTableType
            tables.append(DECLARE_TYPED.compile(c, item))
            continue
        t = ast_types.type_from_ast(item.type, "declare")
        init = c.expr(item.default) if item.default is not None else None
        info = c.declare(item.name, t, item)
        if init is not None:
            inits.append((info.slot, c.typed(info, init, coerce(init, t))))
    if tables:
        def run_tables(f: Frame) -> None:
            for declare in tables:
                declare(f)
            for slot, fn in inits:
                f.v[slot] = fn(f)
        return run_tables
    if not inits:
        # DECLARE without initial values does nothing at run time (a variable declared in a
        # loop keeps its value from one iteration to the next, as in SQL Server).
        return lambda _f: None
    if len(inits) == 1:
        slot, fn = inits[0]

        def run_one(f: Frame) -> None:
            f.v[slot] = fn(f)
        return run_one

    def run(f: Frame) -> None:
        for slot, fn in inits:
            f.v[slot] = fn(f)
    return run


def compile_assignment_value(c: Compiler, name: str, op: str, expr: ast.Expr,
                             node: ast.Node) -> tuple[int, Any]:
    """``(slot, fn(frame) -> converted value)`` for ``@name op expr`` (``=``, ``+=`` …)."""
    info = c.var(name, node)
    if op != "=":
        expr = ast.Binary(op[:-1], ast.Variable(name, span=node.span), expr, span=node.span)
    e = c.expr(expr)
    if e.predicate:
        raise c.bind_error(4145, node, "=")
    return info.slot, c.typed(info, e, coerce(e, info.type))


@handler(ast.SetVariable)
def compile_set_variable(c: Compiler, node: ast.SetVariable) -> StmtFn:
    if node.op == "modify":
        return _compile_xml_modify(c, node)
    if node.op[:1].isalpha():  # SET @x.value(…): a method, but not the one that mutates
        info = c.var(node.name, node)
        if not info.type.is_xml:
            raise c.bind_error(258, node, info.type.name)
        raise c.bind_error(8113, node, node.op)
    target = c.scope.vars.get(node.name.lower())
    if target is not None and target.type.name == "cursor" and node.op == "=":
        ref = _cursor_reference(c, node.expr)
        if ref is not None:
            return _compile_cursor_assignment(target.slot, ref)
    slot, fn = compile_assignment_value(c, node.name, node.op, node.expr, node)
    if touches_storage(node.expr):
        def run(f: Frame) -> None:
            f.v[slot] = fn(f)
            f.session.rowcount = 1
        return run
    line = c.current_line

    # The hot path of procedural code: no transaction, bookkeeping inline.
    def run_set(f: Frame) -> None:
        try:
            f.v[slot] = fn(f)
        except TSqlError as e:
            f.session.statement_error(e, f, line)
            return
        s = f.session
        s.rowcount = 1
        s.error = 0
    return self_wrapped(run_set)


def _cursor_reference(c: Compiler, expr: ast.Expr) -> Callable[[Frame], Any] | None:
    """``fn(frame) -> cursor`` for ``SET @cv = cursor_name`` / ``= @other_cursor_variable``
    (Msg 16916 / 16950 when there is none); None for any other expression."""
    if isinstance(expr, ast.Variable):
        info = c.var(expr.name, expr)
        if info.type.name != "cursor":
            return None
        slot, name = info.slot, expr.name

        def by_var(f: Frame) -> Any:
            cur = f.v[slot]
            if cur is None:
                raise tsql_error(16950, name)
            return cur
        return by_var
    if not isinstance(expr, ast.Column) or len(expr.parts) != 1:
        return None
    written = expr.parts[0]
    key = written.lower()

    def by_name(f: Frame) -> Any:
        cur = f.cursors.get(key) or f.session.cursors.get(key)
        if cur is None:
            raise tsql_error(16916, written)
        return cur
    return by_name


def _compile_cursor_assignment(slot: int, ref: Callable[[Frame], Any]) -> StmtFn:
    """The variable refers to the same cursor: DEALLOCATE of one name leaves the other."""
    def run(f: Frame) -> None:
        f.v[slot] = ref(f)
        f.session.rowcount = 0
    return run


def _compile_xml_modify(c: Compiler, node: ast.SetVariable) -> StmtFn:
    """``SET @x.modify('insert … | delete … | replace value of …')`` on an xml variable."""
    info = c.var(node.name, node)
    call = node.expr
    if not info.type.is_xml or not isinstance(call, ast.MethodCall) or len(call.args) != 1:
        raise c.bind_error(258, node, info.type.name)
    arg = c.expr(call.args[0])
    if not arg.const or not isinstance(arg.value, str):
        raise c.bind_error_text(node, 'The argument 1 of the XML data type method "modify" '
                                      "must be a string literal.", 8172)
    dml = arg.value
    namespaces = dict(c.xmlns)
    resolver = xml_resolver(c, dml, node)
    slot = info.slot
    name = node.name

    def run(f: Frame) -> None:
        x = f.v[slot]
        if x is None:
            raise ExecutionError(5302, f"Mutator 'modify()' on '{name}' cannot be called on a "
                                       "null value.", severity=16)
        f.v[slot] = xml_modify.modify(x, dml, namespaces, resolver(f))
        f.session.rowcount = 1
    return run


# --------------------------------------------------------------------------------------------
# SELECT without FROM
# --------------------------------------------------------------------------------------------
def is_local_select(node: ast.SelectStmt) -> bool:
    """Whether the interpreter evaluates this SELECT itself (no table source)."""
    q = node.query
    return (isinstance(q, ast.Select) and not q.from_ and q.into is None and not node.ctes
            and not q.group_by and q.having is None
            and getattr(q, "for_clause", None) is None  # FOR XML / JSON: the engine's
            # SELECT COUNT(*) / MAX(@x) without FROM aggregates over one row: the engine's.
            and not any(has_aggregate(it.expr) for it in q.items)
            # NEXT VALUE FOR: the engine hands out the values.
            and not any(isinstance(n, ast.NextValueFor) for n in walk(q.items)))


_AGGREGATES = frozenset({"count", "count_big", "sum", "avg", "min", "max", "stdev", "stdevp",
                         "var", "varp", "string_agg", "checksum_agg", "grouping"})


def has_aggregate(node: object) -> bool:
    """Whether an aggregate function call (not a window function, not inside a subquery)
    occurs in the expression ``node``. A loop, not recursion: expressions nest deeply."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (ast.Subquery, ast.Exists)):
            continue
        if isinstance(cur, ast.InSubquery):
            stack.append(cur.expr)
            continue
        if isinstance(cur, ast.FunctionCall) and cur.over is None \
                and cur.name.schema is None and cur.name.name.lower() in _AGGREGATES:
            return True
        if isinstance(cur, (list, tuple)):
            stack.extend(cur)
            continue
        fields = getattr(cur, "__dataclass_fields__", None)
        if fields:
            stack.extend(getattr(cur, f) for f in fields if f != "span")
    return False


def compile_local_select(c: Compiler, node: ast.SelectStmt) -> StmtFn:
    """``SELECT @a = 1, @b = @a + 1`` / ``SELECT @dh, @msg`` with exact T-SQL types."""
    q = node.query
    assert isinstance(q, ast.Select)
    if q.option:
        try:
            engine_parsing.query_hints(q.option)  # Msg 310 for MAXRECURSION out of range
        except TSqlError as e:
            e.line, e.procedure = c.current_line, c.proc_name
            raise
    saved = c.xmlns
    c.xmlns = {(ns.prefix or ""): ns.uri for ns in node.xmlnamespaces} or saved
    try:
        where = c.predicate(q.where) if q.where is not None else None
        assigning = [it for it in q.items if it.assign_to]
        if assigning and len(assigning) != len(q.items):
            raise c.bind_error(141, node)
        if assigning:
            steps = [compile_assignment_value(c, it.assign_to or "", it.assign_op or "=",
                                              it.expr, it) for it in q.items]

            def run_assign(f: Frame) -> None:
                if where is not None and not where(f):
                    f.session.rowcount = 0
                    return
                for slot, fn in steps:
                    f.v[slot] = fn(f)
                f.session.rowcount = 1
            return run_assign
        cols: list[CExpr] = []
        for it in q.items:
            if isinstance(it.expr, ast.Star):
                raise c.bind_error_text(it, "Must specify table to select from.", 263)
            e = c.expr(it.expr)
            if e.predicate:
                raise c.bind_error(4145, it, "SELECT")
            cols.append(e)
    finally:
        c.xmlns = saved
    names = [it.alias or "" for it in q.items]
    specs = [e.type.spec() if e.type.name not in ("null", "sql_variant") else
             ("int" if e.type.name == "null" else None) for e in cols]
    fns = [e.fn for e in cols]
    top = c.expr(q.top.expr) if q.top is not None else None

    def run_select(f: Frame) -> None:
        s = f.session
        # WHERE and TOP first: a row that is filtered out is never computed.
        keep = where is None or where(f)
        if keep and top is not None:
            n = top.fn(f)
            keep = n is None or int(n) > 0
        rows = [tuple(fn(f) for fn in fns)] if keep else []
        s.sink.resultset(ResultSet(list(names), list(specs), rows))
        s.rowcount = len(rows)
        if not s.nocount:
            s.sink.rows_affected(len(rows))
    return run_select


# --------------------------------------------------------------------------------------------
# PRINT, SET options, USE, databases
# --------------------------------------------------------------------------------------------
_PRINT_TYPE = T.NVARCHAR_MAX


@handler(ast.Print)
def compile_print(c: Compiler, node: ast.Print) -> StmtFn:
    e = c.expr(node.expr)
    if e.predicate:
        raise c.bind_error(4145, node, "PRINT")
    if e.type.is_string:
        ef = e.fn
    else:
        # Non-character values print as their varchar conversion (binary as characters);
        # xml and sql_variant go through nvarchar.
        ef = coerce(e, _PRINT_TYPE if e.type.name in ("xml", "sql_variant") else
                    T.VARCHAR_MAX)

    # PRINT shows at most 8,000 characters of a varchar message, 4,000 of an nvarchar one.
    limit = 4000 if e.type.is_unicode or e.type.name in ("xml", "sql_variant") else 8000

    def run(f: Frame) -> None:
        v = ef(f)
        s = f.session
        s.sink.message("" if v is None else v[:limit])
        s.rowcount = 0
    return run


_ON_OFF_OPTIONS = {"nocount": "nocount", "xact_abort": "xact_abort"}


@handler(ast.SetOption)
def compile_set_option(c: Compiler, node: ast.SetOption) -> StmtFn:
    option = node.option.lower()
    value = node.value
    on = value.lower() == "on"
    attr = _ON_OFF_OPTIONS.get(option)
    if attr is not None:
        def run_flag(f: Frame) -> None:
            s = f.session
            setattr(s, attr, on)
            s.rowcount = 0
        return run_flag
    if option == "datefirst":
        try:
            n = int(value)
        except ValueError:
            n = 0
        if not 1 <= n <= 7:
            raise c.bind_error_text(node, f"The DATEFIRST value {value} is outside the range "
                                          "of allowed values (1-7).", 1005)

        def run_datefirst(f: Frame) -> None:
            f.session.datefirst = n
            f.session.rowcount = 0
        return run_datefirst
    if option == "identity_insert" and node.target is not None:
        # The name as written (Msg 8106/8107 quote it); odd names keep their brackets.
        t = node.target
        parts = [p or "" for p in (t.database, t.schema) if t.database or p] + [t.name]
        table = ".".join(p if not p or p.replace("_", "a").isalnum() else f"[{p}]"
                         for p in parts)

        def run_identity_insert(f: Frame) -> None:
            engine_dml.set_identity_insert(exec_context(f), table, on)
            f.session.rowcount = 0
        return run_identity_insert

    if option.startswith("statistics "):
        what = option.split()[1]

        def run_statistics(f: Frame) -> None:
            f.session.options[option] = value
            set_statistics(f.session, what, on)
            f.session.rowcount = 0
        return run_statistics

    def run_other(f: Frame) -> None:
        f.session.options[option] = value
        f.session.rowcount = 0
    return run_other


@handler(ast.Use)
def compile_use(c: Compiler, node: ast.Use) -> StmtFn:
    if c.kind in ("procedure", "function"):
        raise c.bind_error_text(node, "a USE database statement is not allowed in a "
                                      "procedure, function or trigger.", 154)
    name = node.database

    def run(f: Frame) -> None:
        require_connect(f, name)
        f.session.use(name)
        f.session.rowcount = 0
    return run


@handler(ast.CreateDatabase)
def compile_create_database(c: Compiler, node: ast.CreateDatabase) -> StmtFn:
    name = node.name

    def run(f: Frame) -> None:
        s = f.session
        if s.trancount > 0:
            raise ExecutionError(226, "CREATE DATABASE statement not allowed within "
                                      "multi-statement transaction.", severity=16)
        require_create_database(f)
        txn = s.txn_for_statement()
        txn.write()
        db_id = s.instance.catalog.create_database(s.conn, name)
        # (sa's: nothing to keep, and no security table made for it)
        creator = None if current(s, f).login.lower() == "sa" else login_id(f)
        if creator is not None and creator != SA_ID:
            # Its creator owns it (sys.databases.owner_sid) and is its dbo.
            Security.get(s.instance.store).set_database(s.conn, db_id, owner=creator)
    return run


@handler(ast.DropDatabase)
def compile_drop_database(c: Compiler, node: ast.DropDatabase) -> StmtFn:
    names = node.names
    if_exists = node.if_exists

    def run(f: Frame) -> None:
        s = f.session
        if s.trancount > 0:
            raise ExecutionError(226, "DROP DATABASE statement not allowed within "
                                      "multi-statement transaction.", severity=16)
        catalog = s.instance.catalog
        for name in names:
            row = catalog.database(s.conn, name)
            if row is None:
                if if_exists:
                    continue
                raise tsql_error(3701, "database", name)
            require_drop_database(f, row.name)
            users = [o for o in list(s.instance.sessions.values())
                     if o.db_id == row.database_id and not o.closed]
            if users and row.database_id >= FIRST_USER_DATABASE_ID:
                raise tsql_error(3702, row.name)
            txn = s.txn_for_statement()
            txn.write()
            catalog.drop_database(s.conn, row.name)
    return run


# --------------------------------------------------------------------------------------------
# WAITFOR DELAY / TIME
# --------------------------------------------------------------------------------------------
def _as_time_of_day(v: Any) -> dtime:
    if isinstance(v, datetime):
        return v.time()
    if isinstance(v, dtime):
        return v
    text = str(v).strip()
    for fmt in ("%H:%M:%S.%f", "%H:%M:%S", "%H:%M"):
        try:
            return datetime.strptime(text, fmt).time()
        except ValueError:
            continue
    raise ExecutionError(148, f"Incorrect time syntax in time string '{text}' used with "
                              "WAITFOR.", severity=15)


def sleep_cancellable(session: Any, seconds: float) -> None:
    """Sleep ``seconds``, waking every 50 ms to honour :meth:`Session.cancel`."""
    deadline = time.monotonic() + max(seconds, 0.0)
    if session.txn is not None:
        session.txn.pause()       # a sleeping transaction holds no storage lock it can drop
    while True:
        session.check_cancel()
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


@handler(ast.WaitforDelay)
def compile_waitfor_delay(c: Compiler, node: ast.WaitforDelay) -> StmtFn:
    e = c.expr(node.expr)
    ef = e.fn
    kind = node.kind.lower()

    def run(f: Frame) -> None:
        t = _as_time_of_day(ef(f))
        if kind == "delay":
            seconds = t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6
        else:
            now = datetime.now()
            target = datetime.combine(now.date(), t)
            if target <= now:
                target += timedelta(days=1)
            seconds = (target - now).total_seconds()
        with f.session.waiting("WAITFOR"):
            sleep_cancellable(f.session, seconds)
        f.session.rowcount = 0
    return run


# --------------------------------------------------------------------------------------------
# RAISERROR and THROW
# --------------------------------------------------------------------------------------------
def _int_arg(c: Compiler, node: ast.Expr) -> Any:
    e = c.expr(node)
    return coerce(e, T.INT)


@handler(ast.Raiserror, compound=True)  # sets @@ERROR itself (WITH SETERROR)
def compile_raiserror(c: Compiler, node: ast.Raiserror) -> StmtFn:
    msg = c.expr(node.message)
    by_number = msg.type.is_integer or (msg.type.is_numeric and not msg.type.is_string)
    msgf = coerce(msg, T.INT) if by_number else coerce(msg, T.NVARCHAR_MAX)
    sevf = _int_arg(c, node.severity)
    statef = _int_arg(c, node.state)
    args = [c.expr(a) for a in node.args]
    argfs = [(a.fn, a.type) for a in args]
    options = {o.lower() for o in node.options}
    seterror = "seterror" in options
    log = "log" in options

    def run(f: Frame) -> None:
        s = f.session
        severity = sevf(f)
        state = statef(f)
        severity = 0 if severity is None else max(min(int(severity), 25), 0)
        state = 1 if state is None or state < 0 else min(int(state), 255)
        if severity > 18 and not log:
            raise tsql_error(2754)
        values = [(fn(f), t) for fn, t in argfs]
        m = msgf(f)
        if by_number:
            number = 50000 if m is None else int(m)
            if number < 13000 or number == 50000:
                raise tsql_error(2732, number, 13000, 2147483647)
            entry = MESSAGES.get(number) if number > 50000 else None
            if entry is None:
                raise tsql_error(18054, number, severity, state)
            text = format_message(entry[1], *[v for v, _t in values])
        else:
            number = 50000
            text = format_raiserror("" if m is None else m, values)
        s.rowcount = 0
        if severity <= 10:
            s.sink.message(text)
            s.error = number if seterror else 0
            return
        err = ExecutionError(number, text, severity=severity, state=state)
        err.from_raiserror = True  # type: ignore[attr-defined]
        raise err
    return run


@handler(ast.Throw)
def compile_throw(c: Compiler, node: ast.Throw) -> StmtFn:
    if node.number is None:
        def rethrow(f: Frame) -> None:
            s = f.session
            if not s.caught:
                raise tsql_error(10704)
            orig = s.caught[-1]
            err = type(orig)(orig.number, orig.message, severity=orig.severity,
                             state=orig.state, line=orig.line, procedure=orig.procedure) \
                if type(orig) in (TSqlError, ExecutionError) else \
                ExecutionError(orig.number, orig.message, severity=orig.severity,
                               state=orig.state, line=orig.line, procedure=orig.procedure)
            err.located = True  # type: ignore[attr-defined]
            err.batch_abort = True  # type: ignore[attr-defined]
            err.from_raiserror = getattr(orig, "from_raiserror", False)  # type: ignore
            raise err
        return rethrow
    numf = _int_arg(c, node.number)
    msgf = coerce(c.expr(node.message), T.NVARCHAR_MAX) if node.message else (lambda _f: "")
    statef = _int_arg(c, node.state) if node.state else (lambda _f: 1)

    def throw(f: Frame) -> None:
        number = numf(f)
        state = statef(f)
        if number is None or number < 50000:
            err = tsql_error(35100, number, state=10)
            err.batch_abort = True  # type: ignore[attr-defined]
            raise err
        if state is None or not 0 <= state <= 255:
            raise ExecutionError(35101, f"The THROW statement state parameter {state} is "
                                        "outside the valid range of 0 to 255.", severity=16)
        m = msgf(f)
        err = ExecutionError(int(number), "" if m is None else m, severity=16,
                             state=int(state))
        err.batch_abort = True  # type: ignore[attr-defined]
        raise err
    return throw
