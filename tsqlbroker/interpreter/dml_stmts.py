"""The bridge to the storage engine: SELECT with a table source, INSERT / UPDATE / DELETE /
MERGE / TRUNCATE, DDL, table variables, INSERT … EXEC and subqueries in expressions.

Each statement hands its own source text (``node.sql``, or the text sliced from the batch by
its span) to :func:`tsqlbroker.engine.dml.execute_sql` with the variables it references as
typed parameters, inside the Txn of :meth:`Session.txn_for_statement`. XML values cross as
their text. Result sets go to the sink, row counts to ``@@ROWCOUNT`` and (unless NOCOUNT)
the sink, IDENTITY values to ``@@IDENTITY`` / ``SCOPE_IDENTITY()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.context import ExecContext
from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import BindError, TSqlError, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from ..values.variant_props import TypedVariant, VariantSpec, column_variant
from .authorize import PERMISSION_ERRORS, require_statement
from .compiler import (
    CExpr,
    Compiler,
    StmtFn,
    TableVarInfo,
    expr_handler,
    handler,
    variables_in,
    walk,
)
from .expressions import DYNAMIC, comparison_fn, convert_fn, dynamic_binary, in_outcome
from .frames import Frame
from .session import SESSION_PARTS
from .statement_context import TRIGGERS, exec_context
from .statements import compile_local_select, is_local_select
from .xml_nodes import compile_nodes_select, nodes_source

if TYPE_CHECKING:
    from tsqlbroker.engine import dml as engine_dml
    from tsqlbroker.engine import iostats as engine_iostats

    from .session import Session
else:
    # The DML engine (and sqlglot) load on the first DML statement run, not at start-up.
    from tsqlbroker.lazy import LazyModule

    engine_dml = LazyModule("tsqlbroker.engine.dml", globals(), "engine_dml")
    engine_iostats = LazyModule("tsqlbroker.engine.iostats", globals(), "engine_iostats")

Params = Callable[["Frame"], dict[str, tuple[Any, str]]]


def _xml_text(v: Any) -> Any:
    return v.to_string() if v is not None and hasattr(v, "to_string") else v


def compile_params(c: Compiler, node: Any) -> Params:
    """``fn(frame) -> {'@v': (value, type_spec)}`` for the scalar variables ``node`` uses."""
    entries: list[tuple[str, int, str, bool, int | None]] = []
    for name in variables_in(node):
        key = name.lower()
        if key in c.scope.table_vars:
            continue
        info = c.scope.vars.get(key)
        if info is None:
            raise c.bind_error(137, node, name)
        entries.append((info.name, info.slot, info.type.spec(), info.type.is_xml,
                        info.type_slot))
    # @@PROCID is the running module's id, which only the frame knows (the engine's session
    # values are read in a frame of their own): bound here like a variable.
    procid = any(isinstance(n, ast.GlobalVariable) and n.name == "@@procid" for n in walk(node))
    if not entries and not procid:
        return lambda _f: {}

    def params(f: Frame) -> dict[str, tuple[Any, str]]:
        v = f.v
        out = {name: ((_xml_text(v[slot]) if xml else v[slot]),
                      spec if tslot is None else _variant_spec(v[tslot], v[slot], spec))
               for name, slot, spec, xml, tslot in entries}
        if procid:
            out["@@procid"] = (f.proc_id or 0, "int")
        return out
    return params


def _variant_spec(typed: Any, value: Any, spec: str) -> str:
    """A sql_variant variable's spec as a statement binds it: with its base type while its
    typed slot holds its value."""
    if isinstance(typed, TypedVariant) and typed.value is value:
        return VariantSpec(typed)
    return spec


def check_table_variables(c: Compiler, node: Any) -> None:
    """Msg 1087 for a table variable the scope never declared; Msg 10700 for a statement
    writing a (READONLY) table-valued parameter."""
    target = getattr(node, "target", None)
    if isinstance(node, (ast.Insert, ast.Update, ast.Delete)) and isinstance(target, str):
        info = c.scope.table_vars.get(target.lower())
        if info is not None and info.readonly:
            raise c.bind_error(10700, node, target)
    for name in _walk_targets(node):
        key = name.lower()
        if key not in c.scope.table_vars:
            if key in c.scope.vars:
                continue
            raise c.bind_error(1087, node, name)


def _walk_targets(node: Any) -> list[str]:
    out = []
    for n in walk(node):
        if isinstance(n, ast.TableVariableRef):
            out.append(n.name)
        for attr in ("target", "into"):
            val = getattr(n, attr, None)
            if isinstance(val, str) and val.startswith("@"):
                out.append(val)
    return out


def run_sql(f: Frame, sql: str, params: dict[str, tuple[Any, str]]) -> Any:
    """Execute one statement through the engine in the statement's transaction (after
    checking the permissions it needs)."""
    require_statement(f, sql)
    s = f.session
    txn = s.txn
    if txn is None:
        txn = s.stmt_txn or s.txn_for_statement()
    ctx = ExecContext(s.conn, txn, s.db_id, s.id, s.temp_tables, f.table_vars,
                      identity_insert=s.identity_insert, instead_active=TRIGGERS.active(s))
    result = engine_dml.execute_sql(ctx, sql, params)
    if ctx.fired and TRIGGERS.fire is not None:
        TRIGGERS.fire(f, ctx.fired)
    if s.statistics is not None and s.statistics.io:
        s.statistics.note_reads(engine_iostats.table_reads(
            ctx, sql, getattr(result, "rowcount", 0) or 0))
    return result


def _note_identity(f: Frame, result: Any) -> None:
    ident = getattr(result, "identity", None)
    if ident is not None:
        f.session.identity = ident
        f.scope_identity = ident


def _emit(f: Frame, result: Any, count_rows: bool) -> None:
    s = f.session
    sets = list(getattr(result, "resultsets", []) or [])
    for rs in sets:
        s.sink.resultset(rs)
    n = getattr(result, "rowcount", -1)
    if n is None or n < 0:
        n = len(sets[-1].rows) if sets else 0
    s.rowcount = n
    if count_rows and not s.nocount:
        s.sink.rows_affected(n)


def compile_storage_statement(c: Compiler, node: Any, *, writes: bool, count_rows: bool,
                              after: Callable[[Frame, Any], None] | None = None) -> StmtFn:
    """A statement the engine runs as it is written (``after`` sees its result first)."""
    sql = getattr(node, "sql", "") or c.source(node)
    check_table_variables(c, node)
    params = compile_params(c, node)

    def run(f: Frame) -> None:
        s = f.session
        if writes:
            s.check_writable()
        try:
            result = run_sql(f, sql, params(f))
        except TSqlError as e:
            if writes and count_rows and e.number not in PERMISSION_ERRORS \
                    and not isinstance(e, BindError):
                # SQL Server follows a failed DML statement with Msg 3621 (informational),
                # not one refused before it ran (a permission, or a name not bound: Msg
                # 8155 of a derived table's column).
                e.terminated_note = True  # type: ignore[attr-defined]
            raise
        _note_identity(f, result)
        if after is not None:
            after(f, result)
        _emit(f, result, count_rows)
    return run


# --------------------------------------------------------------------------------------------
# SELECT
# --------------------------------------------------------------------------------------------
@handler(ast.SelectStmt)
def compile_select(c: Compiler, node: ast.SelectStmt) -> StmtFn:
    if is_local_select(node):
        return compile_local_select(c, node)
    nodes = nodes_source(node)
    if nodes is not None:  # FROM @x.nodes(…) AS T(c) alone: shredded in Python
        return compile_nodes_select(c, node, nodes)
    q = node.query
    if isinstance(q, ast.SetOperation) and _assigns_in(q):
        raise c.bind_error(141, node)  # SELECT @a = 1 UNION ALL SELECT 1
    assigns = [it for it in q.items if it.assign_to] if isinstance(q, ast.Select) else []
    if assigns:
        return _compile_select_assign(c, node, q)  # type: ignore[arg-type]
    into = isinstance(q, ast.Select) and q.into is not None
    return compile_storage_statement(c, node, writes=into, count_rows=True)


def _assigns_in(q: Any) -> bool:
    """Whether a branch of a set operation assigns variables."""
    if isinstance(q, ast.SetOperation):
        return _assigns_in(q.left) or _assigns_in(q.right)
    return isinstance(q, ast.Select) and any(it.assign_to for it in q.items)


def _compile_select_assign(c: Compiler, node: ast.SelectStmt, q: ast.Select) -> StmtFn:
    """``SELECT @v = col … FROM t``: the engine returns the rows, the last one assigns."""
    if len([it for it in q.items if it.assign_to]) != len(q.items):
        raise c.bind_error(141, node)
    sql = node.sql or c.source(node)
    check_table_variables(c, node)
    params = compile_params(c, node)
    targets = []
    for it in q.items:
        info = c.var(it.assign_to or "", it)
        if it.assign_op and it.assign_op != "=":
            op = it.assign_op[:-1]
            targets.append((info, op))
        else:
            targets.append((info, None))
    convs = [convert_fn(DYNAMIC, info.type) for info, _op in targets]
    compound = [(_compound_fn(op, info.type) if op else None) for info, op in targets]

    def run(f: Frame) -> None:
        result = run_sql(f, sql, params(f))
        sets = list(getattr(result, "resultsets", []) or [])
        rows = sets[0].rows if sets else []
        row_specs = sets[0].value_types() if sets else []
        v = f.v
        for row, specs in zip(rows, row_specs, strict=True):
            for i, (info, _op) in enumerate(targets):
                value = row[i] if i < len(row) else None
                fn = compound[i]
                if fn is not None:
                    value = fn(v[info.slot], value)
                value = v[info.slot] = convs[i](value)
                if info.type_slot is not None:  # a sql_variant keeps the column's type
                    v[info.type_slot] = column_variant(
                        specs[i] if i < len(specs) and fn is None else None, value)
        f.session.rowcount = len(rows)
    return run


def _compound_fn(op: str, t: T.SqlType) -> Callable[[Any, Any], Any]:
    return dynamic_binary(op, t, DYNAMIC)


# --------------------------------------------------------------------------------------------
# DML and DDL
# --------------------------------------------------------------------------------------------
@handler(ast.Insert)
def compile_insert(c: Compiler, node: ast.Insert) -> StmtFn:
    if isinstance(node.source, (ast.ExecProc, ast.ExecDynamic)):
        return _compile_insert_exec(c, node)
    return compile_storage_statement(c, node, writes=True, count_rows=True)


@handler(ast.Update)
def compile_update(c: Compiler, node: ast.Update) -> StmtFn:
    """UPDATE; ``SET @v = col = expr`` / ``SET @v = expr`` take the engine's values of the
    last row updated (the engine returns them as an assignment result, not to the client)."""
    slots = {}
    for a in node.assignments:
        name = a.also_variable or (a.target.name if isinstance(a.target, ast.Variable)
                                   else None)
        if name is not None:
            info = c.var(name, a)
            slots[name.lower()] = (info.slot, convert_fn(DYNAMIC, info.type))
    if not slots:
        return compile_storage_statement(c, node, writes=True, count_rows=True)

    def assign(f: Frame, result: Any) -> None:
        targets = list(getattr(result, "assign_targets", []) or [])
        sets = list(getattr(result, "resultsets", []) or [])
        if not targets or not sets:
            return
        rows = sets[0].rows
        result.resultsets = sets[1:]
        for i, (name, _op) in enumerate(targets):
            entry = slots.get(name.lower())
            if entry is not None and rows:
                f.v[entry[0]] = entry[1](rows[-1][i])
    return compile_storage_statement(c, node, writes=True, count_rows=True, after=assign)


for _cls in (ast.Delete, ast.Merge):
    handler(_cls)(lambda c, node: compile_storage_statement(c, node, writes=True,
                                                            count_rows=True))

for _cls in (ast.Truncate, ast.DropTable, ast.CreateIndex,
             ast.DropIndex, ast.CreateView, ast.DropView):
    handler(_cls)(lambda c, node: compile_storage_statement(c, node, writes=True,
                                                            count_rows=False))


@handler(ast.AlterTable)
def compile_alter_table(c: Compiler, node: ast.AlterTable) -> StmtFn:
    """ALTER TABLE; ``CHECK | NOCHECK CONSTRAINT name | ALL`` switches constraint checking."""
    if node.action != "check_constraint":
        return compile_storage_statement(c, node, writes=True, count_rows=False)
    mode, _, name = (node.target or "").partition(" ")
    table = _object_text(node.name)

    def run(f: Frame) -> None:
        f.session.check_writable()
        engine_dml.set_constraint_checking(exec_context(f), table, name or None,
                                           mode == "check")
        f.session.rowcount = 0
    return run


@handler(ast.CreateTable)
def compile_create_table(c: Compiler, node: ast.CreateTable) -> StmtFn:
    """CREATE TABLE; a procedure's ``#t`` hides its caller's ``#t`` until it ends."""
    run = compile_storage_statement(c, node, writes=True, count_rows=False)
    name = node.name.name
    if not name.startswith("#") or name.startswith("##") or node.name.database:
        return run
    key = name.lower()

    def create_temp(f: Frame) -> None:
        s = f.session
        hidden = None
        if s.nestlevel > 0 and key in s.temp_tables and key not in s.temp_own:
            hidden = s.temp_tables.pop(key)
        try:
            run(f)
        except BaseException:
            if hidden is not None:
                s.temp_tables.setdefault(key, hidden)
            raise
        s.temp_own.add(key)
    return create_temp


def _object_text(name: ast.ObjectName) -> str:
    """``name`` as T-SQL text for the engine: ``t``, ``s.t``, ``db.s.t`` or ``db..t``
    (each part bracket-quoted, so odd names survive)."""
    def q(part: str) -> str:
        return "[" + part.replace("]", "]]") + "]"

    if name.database:
        return f"{q(name.database)}.{q(name.schema) if name.schema else ''}.{q(name.name)}"
    if name.schema:
        return f"{q(name.schema)}.{q(name.name)}"
    return q(name.name)


class _CaptureSink:
    """Collects the result sets of INSERT … EXEC; everything else goes to the real sink."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.rows: list[tuple[Any, ...]] = []

    def message(self, text: str) -> None:
        self.inner.message(text)

    def resultset(self, rs: ResultSet) -> None:
        self.rows.extend(rs.rows)

    def error(self, err: TSqlError) -> None:
        self.inner.error(err)

    def rows_affected(self, n: int) -> None:
        self.inner.rows_affected(n)


def _compile_insert_exec(c: Compiler, node: ast.Insert) -> StmtFn:
    inner = c.stmt(node.source)  # type: ignore[arg-type]
    target = node.target
    columns = list(node.columns)
    if isinstance(target, str):
        check_table_variables(c, node)

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        if s.insert_exec_depth > 0:
            raise tsql_error(8164)
        capture = _CaptureSink(s.sink)
        saved = s.sink
        s.sink = capture
        s.insert_exec_depth += 1
        nocount = s.nocount
        try:
            inner(f)
        finally:
            s.sink = saved
            s.insert_exec_depth -= 1
        name = target if isinstance(target, str) else _object_text(target)
        ctx = exec_context(f)
        n = engine_dml.insert_rows(ctx, name, columns or None, capture.rows)
        if ctx.fired and TRIGGERS.fire is not None:
            TRIGGERS.fire(f, ctx.fired)
        s.rowcount = n
        if not nocount:
            s.sink.rows_affected(n)
    return run


# --------------------------------------------------------------------------------------------
# Table variables and session objects
# --------------------------------------------------------------------------------------------
def table_columns_sql(c: Compiler, node: ast.DeclareTable) -> str:
    """The text between the parentheses of a table declaration (its column definitions)."""
    text = c.source(node)
    upper = text.upper()
    at = upper.find("TABLE")
    start = text.find("(", max(at, 0))
    end = text.rfind(")")
    return text[start + 1:end] if start >= 0 and end > start else ""


@handler(ast.DeclareTable)
def compile_declare_table(c: Compiler, node: ast.DeclareTable) -> StmtFn:
    key = node.name.lower()
    if key in c.scope.vars or key in c.scope.table_vars:
        raise c.bind_error(134, node, node.name)
    columns_sql = table_columns_sql(c, node)
    c.scope.table_vars[key] = TableVarInfo(node.name, columns_sql)
    name = node.name

    def run(f: Frame) -> None:
        if key in f.table_vars:
            return
        physical = engine_dml.declare_table_variable(exec_context(f), name, columns_sql)
        f.table_vars[key] = physical
        TableVariables.of(f.session).live[physical] = (f.table_vars, key, name, columns_sql)
    return run


class TableVariables:
    """A session's declared table variables, which ROLLBACK leaves as they are (SQL Server's
    table variables take no part in transactions): their rows are read before the storage
    rollback and written back after it (:mod:`transactions` calls :meth:`around`)."""

    KEY = "table_variables"

    def __init__(self) -> None:
        # physical table -> (the frame's name map, its key, the variable, its columns' SQL)
        self.live: dict[str, tuple[dict[str, str], str, str, str]] = {}

    @classmethod
    def of(cls, s: Session) -> TableVariables:
        keeper: TableVariables = s.extensions.setdefault(cls.KEY, cls())
        return keeper

    def around(self, s: Session, txn: Any, undo: Callable[[], None]) -> None:
        """Run ``undo`` (a rollback of ``txn``) keeping the table variables' rows."""
        if not self.live:
            undo()
            return
        ctx = ExecContext(s.conn, txn, s.db_id, s.id, s.temp_tables, {},
                          identity_insert=s.identity_insert)
        saved = [engine_dml.save_table_variable(ctx, p) for p in self.live]
        undo()
        pending = s.stmt_txn
        s.stmt_txn = None  # after a whole rollback the rows go back in a transaction of their own
        try:
            for rows in saved:
                if rows is not None:
                    self._put_back(s, rows)
            if s.txn is None:
                s.end_statement()
        except TSqlError:
            s.rollback_statement()  # cleanup must not hide the statement's own outcome
        finally:
            s.stmt_txn = pending

    def _put_back(self, s: Session, rows: Any) -> None:
        ctx = ExecContext(s.conn, s.txn_for_statement(), s.db_id, s.id, s.temp_tables, {},
                          identity_insert=s.identity_insert)
        try:
            engine_dml.restore_table_variable(ctx, rows)
        except TSqlError:
            # Declared inside the transaction: the rollback took its table too.
            names, key, name, columns_sql = self.live.pop(rows.physical)
            physical = engine_dml.declare_table_variable(ctx, name, columns_sql)
            names[key] = physical
            self.live[physical] = (names, key, name, columns_sql)
            engine_dml.restore_table_variable(ctx, replace(rows, physical=physical))


def drop_table_variables(s: Session, f: Frame) -> None:
    """Drop the physical tables of a scope's table variables (the scope ended)."""
    eng = engine_dml
    pending = s.stmt_txn
    s.stmt_txn = None  # the drops get their own implicit transaction
    live = TableVariables.of(s).live
    try:
        for physical in list(f.table_vars.values()):
            live.pop(physical, None)
            try:
                eng.drop_table_variable(exec_context(f), physical)
            except TSqlError:  # cleanup must not hide the batch's own outcome
                pass
        s.end_statement()
    finally:
        s.stmt_txn = pending
    f.table_vars.clear()


def drop_temp_tables_named(s: Session, names: list[str]) -> None:
    """Drop the temp tables a procedure created (it ended)."""
    f = Frame(s, 0)
    pending = s.stmt_txn
    s.stmt_txn = None
    try:
        for name in names:
            try:
                run_sql(f, f"DROP TABLE {name}", {})
            except TSqlError:  # cleanup must not hide the procedure's own outcome
                pass
        s.end_statement()
    finally:
        s.stmt_txn = pending


def drop_session_objects(s: Session) -> None:
    """Drop the session's temp tables (the session ends)."""
    if not s.temp_tables:
        return
    f = Frame(s, 0)
    engine_dml.drop_temp_tables(exec_context(f))
    s.end_statement()


# --------------------------------------------------------------------------------------------
# Subqueries in expressions
# --------------------------------------------------------------------------------------------


def _first_column_type(q: Any) -> T.SqlType:
    """A static type for a scalar subquery where the select list shows it."""
    if isinstance(q, ast.Select) and len(q.items) == 1:
        e = q.items[0].expr
        if isinstance(e, ast.FunctionCall) and not e.name.schema:
            n = e.name.name.lower()
            if n == "count":
                return T.INT
            if n == "count_big":
                return T.BIGINT
    return DYNAMIC


def _subquery_runner(c: Compiler, node: Any, query: Any) -> Callable[[Frame], ResultSet]:
    sql = c.subquery_text(query)
    check_table_variables(c, query)
    params = compile_params(c, query)

    def run(f: Frame) -> ResultSet:
        result = run_sql(f, sql, params(f))
        sets = list(getattr(result, "resultsets", []) or [])
        return sets[0] if sets else ResultSet([])
    return run


@expr_handler(ast.Subquery)
def compile_subquery(c: Compiler, node: ast.Subquery) -> CExpr:
    runner = _subquery_runner(c, node, node.query)
    t = _first_column_type(node.query)
    conv = convert_fn(DYNAMIC, t) if t != DYNAMIC else None
    to_xml = convert_fn(DYNAMIC, T.XML)

    def scalar(f: Frame) -> Any:
        rs = runner(f)
        if not rs.rows:
            return None
        if len(rs.rows) > 1:
            raise tsql_error(512)
        v = rs.rows[0][0] if rs.rows[0] else None
        if conv is None and isinstance(v, str) and rs.types and rs.types[0] == "xml":
            return to_xml(v)  # (SELECT … FOR XML …, TYPE): an xml value, for its methods
        return conv(v) if conv is not None and v is not None else v
    return CExpr(t, scalar)


@expr_handler(ast.Exists)
def compile_exists(c: Compiler, node: ast.Exists) -> CExpr:
    runner = _subquery_runner(c, node, node.query)
    return CExpr(T.BIT, lambda f: bool(runner(f).rows), predicate=True)


@expr_handler(ast.InSubquery)
def compile_in_subquery(c: Compiler, node: ast.InSubquery) -> CExpr:
    e = c.expr(node.expr)
    runner = _subquery_runner(c, node, node.query)
    eq = comparison_fn("=", e.type, DYNAMIC)
    ef = e.fn
    neg = node.negated

    def in_query(f: Frame) -> bool | None:
        v = ef(f)
        return in_outcome((eq(v, row[0]) for row in runner(f).rows), neg)
    return CExpr(T.BIT, in_query, predicate=True)


SESSION_PARTS.drop_table_variables = drop_table_variables
SESSION_PARTS.drop_session_objects = drop_session_objects
