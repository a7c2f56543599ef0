"""Cursors: DECLARE CURSOR / SET @c = CURSOR, OPEN (the rows are materialised), FETCH
NEXT / PRIOR / FIRST / LAST / ABSOLUTE n / RELATIVE n [INTO …], CLOSE, DEALLOCATE.

Cursors are GLOBAL (session-wide) unless declared LOCAL or held in a cursor variable; the
last FETCH of any cursor sets ``@@FETCH_STATUS`` (0 a row, -1 past either end). Only SCROLL
(or STATIC / KEYSET / DYNAMIC) cursors accept directions other than NEXT (Msg 16911).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import ExecutionError, TSqlError, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from ..values.variant_props import column_variant
from . import dml_stmts
from .compiler import CExpr, Compiler, StmtFn, handler
from .expressions import DYNAMIC, coerce, convert_fn
from .function_calls import special
from .statements import is_local_select

if TYPE_CHECKING:
    from .frames import Frame

CURSOR = T.SqlType("cursor")
_SCROLLING = frozenset({"scroll", "static", "keyset", "dynamic"})
_COUNTED = frozenset({"static", "insensitive", "keyset"})


@dataclass
class Cursor:
    """One declared cursor: its query, whether it scrolls, and (while open) its rows."""

    name: str
    source: Callable[[Frame], ResultSet]
    scroll: bool
    rows: list[tuple[Any, ...]] | None = None
    types: list[str | None] = field(default_factory=list)
    # Each row's value types (a sql_variant column's values: their base types).
    row_types: list[tuple[str | None, ...]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    pos: int = -1  # index of the current row; -1 before the first, len(rows) after the last
    # STATIC / INSENSITIVE / KEYSET: CURSOR_STATUS can tell an empty result set (0); for the
    # dynamic kinds it answers 1 whatever the row count, as SQL Server does.
    counted: bool = False


def compile_rowsource(c: Compiler, query: ast.SelectStmt) -> Callable[[Frame], ResultSet]:
    """``fn(frame) -> ResultSet`` for a cursor's SELECT (evaluated at OPEN)."""
    if is_local_select(query):
        q = query.query
        assert isinstance(q, ast.Select)
        cols = [c.expr(it.expr) for it in q.items]
        names = [it.alias or "" for it in q.items]
        specs = [e.type.spec() for e in cols]
        fns = [e.fn for e in cols]
        return lambda f: ResultSet(list(names), list(specs), [tuple(fn(f) for fn in fns)])
    sql = query.sql or c.source(query)
    dml_stmts.check_table_variables(c, query)
    params = dml_stmts.compile_params(c, query)

    def run(f: Frame) -> ResultSet:
        result = dml_stmts.run_sql(f, sql, params(f))
        sets = list(getattr(result, "resultsets", []) or [])
        return sets[0] if sets else ResultSet([])
    return run


def _lookup(c: Compiler, name: str, node: ast.Node) -> Callable[[Frame], Cursor]:
    """``fn(frame) -> Cursor`` for a cursor name or cursor variable (Msg 16916 / 16950)."""
    if name.startswith("@"):
        info = c.var(name, node)
        if info.type.name.lower() != "cursor":
            raise c.bind_error(16948, node, name)
        slot = info.slot

        def by_var(f: Frame) -> Cursor:
            cur = f.v[slot]
            if cur is None:
                raise tsql_error(16950, name)
            return cur  # type: ignore[no-any-return]
        return by_var
    key = name.lower()

    def by_name(f: Frame) -> Cursor:
        cur = f.cursors.get(key) or f.session.cursors.get(key)
        if cur is None:
            raise tsql_error(16916, name)
        return cur  # type: ignore[no-any-return]
    return by_name


@handler(ast.DeclareCursor)
def compile_declare_cursor(c: Compiler, node: ast.DeclareCursor) -> StmtFn:
    source = compile_rowsource(c, node.query)
    options = {o.lower() for o in node.options}
    scroll = bool(options & _SCROLLING) and "forward_only" not in options
    local = "local" in options
    key = node.name.lower()
    name = node.name

    counted = bool(options & _COUNTED)

    def run(f: Frame) -> None:
        where = f.cursors if local else f.session.cursors
        if key in where:
            raise tsql_error(16915, name)
        where[key] = Cursor(name, source, scroll, counted=counted)
    return run


@handler(ast.SetCursorVariable)
def compile_set_cursor_variable(c: Compiler, node: ast.SetCursorVariable) -> StmtFn:
    info = c.var(node.name, node)
    if info.type.name != "cursor":
        raise c.bind_error_text(node, f"The variable '{node.name}' is not a cursor "
                                      "variable.", 16948)
    source = compile_rowsource(c, node.query)
    options = {o.lower() for o in node.options}
    scroll = bool(options & _SCROLLING) and "forward_only" not in options
    slot = info.slot

    counted = bool(options & _COUNTED)

    def run(f: Frame) -> None:
        f.v[slot] = Cursor(node.name, source, scroll, counted=counted)
    return run


@handler(ast.OpenCursor)
def compile_open(c: Compiler, node: ast.OpenCursor) -> StmtFn:
    get = _lookup(c, node.name, node)

    def run(f: Frame) -> None:
        cur = get(f)
        if cur.rows is not None:
            raise tsql_error(16905)
        rs = cur.source(f)
        cur.rows = list(rs.rows)
        cur.types = list(rs.types)
        cur.row_types = rs.value_types()
        cur.columns = list(rs.columns)
        cur.pos = -1
        s = f.session
        s.cursor_rows = len(cur.rows)
        s.rowcount = 0
    return run


@handler(ast.FetchCursor)
def compile_fetch(c: Compiler, node: ast.FetchCursor) -> StmtFn:
    get = _lookup(c, node.name, node)
    direction = node.direction.lower()
    offset = coerce(c.expr(node.offset), T.INT) if node.offset is not None else None
    targets = [c.var(n, node) for n in node.into]
    conv_cache: dict[tuple[int, str | None], Callable[[Any], Any]] = {}

    def converter(i: int, spec: str | None) -> Callable[[Any], Any]:
        key = (i, spec)
        fn = conv_cache.get(key)
        if fn is None:
            src = T.parse_type_spec(spec) if spec else DYNAMIC
            try:
                fn = convert_fn(src, targets[i].type)
            except TSqlError:  # a declared type the value library does not parse
                fn = convert_fn(DYNAMIC, targets[i].type)
            conv_cache[key] = fn
        return fn

    def run(f: Frame) -> None:
        s = f.session
        cur = get(f)
        rows = cur.rows
        if rows is None:
            raise tsql_error(16917)
        if direction != "next" and not cur.scroll:
            raise ExecutionError(16911, f"fetch: The fetch type {direction.upper()} cannot be "
                                        "used with forward only cursors.", severity=16)
        n = len(rows)
        k = offset(f) if offset is not None else None
        if direction == "next":
            pos = cur.pos + 1
        elif direction == "prior":
            pos = cur.pos - 1
        elif direction == "first":
            pos = 0
        elif direction == "last":
            pos = n - 1
        elif direction == "absolute":
            k = k or 0
            pos = k - 1 if k > 0 else (n + k if k < 0 else -1)
        else:  # relative
            pos = cur.pos + (k or 0)
        pos = max(-1, min(pos, n))
        cur.pos = pos
        if 0 <= pos < n:
            row = rows[pos]
            if targets:
                if len(targets) != len(row):
                    raise tsql_error(16924)
                for i, info in enumerate(targets):
                    spec = cur.types[i] if i < len(cur.types) else None
                    value = f.v[info.slot] = converter(i, spec)(row[i])
                    if info.type_slot is not None:  # the value's own base type
                        specs = cur.row_types[pos] if pos < len(cur.row_types) else ()
                        f.v[info.type_slot] = column_variant(
                            specs[i] if i < len(specs) else spec, value)
            else:
                s.sink.resultset(ResultSet(list(cur.columns), list(cur.types), [row]))
            s.fetch_status = 0
            s.rowcount = 1
        else:
            s.fetch_status = -1
            s.rowcount = 0
    return run


@handler(ast.CloseCursor)
def compile_close(c: Compiler, node: ast.CloseCursor) -> StmtFn:
    get = _lookup(c, node.name, node)

    def run(f: Frame) -> None:
        cur = get(f)
        if cur.rows is None:
            raise tsql_error(16917)
        cur.rows = None
        cur.pos = -1
        f.session.rowcount = 0
    return run


@handler(ast.DeallocateCursor)
def compile_deallocate(c: Compiler, node: ast.DeallocateCursor) -> StmtFn:
    get = _lookup(c, node.name, node)
    key = node.name.lower()
    is_var = node.name.startswith("@")
    slot = c.var(node.name, node).slot if is_var else -1

    def run(f: Frame) -> None:
        get(f)  # Msg 16916 if it does not exist
        if is_var:
            f.v[slot] = None
        elif key in f.cursors:
            del f.cursors[key]
        else:
            f.session.cursors.pop(key, None)
        f.session.rowcount = 0
    return run


def _text_arg(c: Compiler, arg: ast.Expr) -> Callable[[Frame], Any]:
    e = c.expr(arg)
    conv, fn = convert_fn(e.type, T.SqlType("nvarchar", 128)), e.fn
    return lambda f: conv(fn(f))


@special("cursor_status")
def compile_cursor_status(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """``CURSOR_STATUS('local' | 'global' | 'variable', name)``: 1 open with rows (always 1
    for dynamic cursors), 0 open and empty, -1 closed, -2 a cursor variable with no cursor,
    -3 no such cursor, NULL for an unknown scope word."""
    if len(node.args) != 2:
        raise c.bind_error(174, node, "cursor_status", 2)
    scope_fn, name_fn = (_text_arg(c, a) for a in node.args)
    variables = {k: info.slot for k, info in c.scope.vars.items()
                 if info.type.name == "cursor"}

    def status(f: Frame) -> Any:
        scope, name = scope_fn(f), name_fn(f)
        if scope is None or name is None:
            return None
        scope, key = scope.strip().lower(), name.strip().lower()
        if scope == "local":
            cur = f.cursors.get(key)
        elif scope == "global":
            cur = f.session.cursors.get(key)
        elif scope == "variable":
            slot = variables.get(key)
            if slot is None:
                return -3
            cur = f.v[slot]
            if cur is None:  # a declared cursor variable with no cursor assigned
                return -2
        else:
            return None
        if not isinstance(cur, Cursor):
            return -3
        if cur.rows is None:
            return -1
        return 0 if cur.counted and not cur.rows else 1
    return CExpr(T.SMALLINT, status)
