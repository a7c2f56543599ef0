"""Batches and stored procedures: compilation (cached per procedure until ALTER / DROP),
CREATE / ALTER / DROP PROCEDURE and FUNCTION, EXEC with parameters, defaults, OUTPUT and the
RETURN status, nesting (``@@NESTLEVEL``, Msg 217 beyond 32) and Msg 266.

A procedure's definition is stored as the text of its CREATE batch (as
``sys.sql_modules.definition`` holds it); it is parsed and compiled on first use and the
compiled body is kept in :attr:`Instance.procedure_cache` keyed by the object's
``modify_date``, which every ALTER moves forward.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.engine.synonyms import SYNONYM, synonym_target
from tsqlbroker.errors import (
    BindError,
    CancelledError,
    ExecutionError,
    Span,
    TSqlError,
    tsql_error,
)
from tsqlbroker.grammar import ast, parser

from ..values import types as T
from ..values.convert import CONVERSION_ERRORS, conversion_for_assignment
from ..values.variant_props import TypedVariant, typed_variant, variant_base_type
from . import ast_types, dml_stmts, transactions
from .authorize import require_database, require_execute
from .compiler import (
    CExpr,
    Compiler,
    ReturnSignal,
    Scope,
    StmtFn,
    TableVarInfo,
    VarInfo,
    handler,
    internal_error,
)
from .control import collect_labels
from .dml_stmts import drop_temp_tables_named
from .expressions import DYNAMIC, coerce
from .frames import Frame
from .function_calls import UDF_CALLS
from .impersonation import enter_module, execute_as_principal, record_execute_as
from .runtime_errors import aborts_scope
from .session import SESSION_PARTS
from .tabletypes import TABLE, make_table_variable, table_argument
from .udf_checks import check_function_body

if TYPE_CHECKING:
    from .session import Session

MAX_NESTING = 32


@dataclass
class ParamInfo:
    """A formal parameter of a compiled procedure / function."""

    name: str
    slot: int
    type: T.SqlType
    output: bool
    has_default: bool
    default: Any = None
    # A table-valued parameter: its table type's name (the slot holds the physical table).
    table_type: str | None = None
    # A sql_variant parameter's typed slot, and its default with its base type.
    type_slot: int | None = None
    typed_default: TypedVariant | None = None


@dataclass
class Compiled:
    """A compiled batch or module body."""

    run: StmtFn
    nslots: int
    scope: Scope
    name: str | None = None
    params: list[ParamInfo] = field(default_factory=list)
    return_type: T.SqlType | None = None
    object_id: int | None = None
    # The database the module belongs to: it runs in that database's context.
    db_id: int | None = None
    db_name: str | None = None
    # Per-call-site caches (argument binding plans) keyed by call site.
    plans: dict[int, Any] = field(default_factory=dict)
    # A multi-statement table-valued function's RETURNS table variable (``@r``).
    table_var: str | None = None
    # WITH EXECUTE AS: CALLER (None), SELF, OWNER or a user name.
    execute_as: str | None = None


def compile_batch(batch: ast.Batch) -> Compiled:
    """Compile a parsed batch (Msg 137, 134, 133 … are raised here, before anything runs)."""
    c = Compiler(batch.text, kind="batch")
    c.batch_statements = batch.statements  # type: ignore[attr-defined]
    collect_labels(c, batch.statements)
    run = c.block(batch.statements)
    return Compiled(run, c.scope.nslots, c.scope)


def compile_module(definition: str, name: str, *, kind: str = "procedure",
                   scope: Scope | None = None) -> Compiled:
    """Parse and compile a procedure / function definition (its CREATE text)."""
    batch = parser.parse_batch(definition, 1)
    node = next((s for s in batch.statements
                 if isinstance(s, (ast.CreateProcedure, ast.CreateFunction))), None)
    if node is None:
        raise ExecutionError(0, f"The definition of '{name}' is not a CREATE PROCEDURE.")
    return compile_module_node(batch.text, node, name, kind=kind)


def compile_module_node(text: str, node: ast.CreateProcedure | ast.CreateFunction, name: str,
                        *, kind: str = "procedure") -> Compiled:
    """Compile the body of a CREATE PROCEDURE / FUNCTION node."""
    c = Compiler(text, proc_name=name, kind=kind)
    params: list[ParamInfo] = []
    for p in node.params:
        if not ast_types.is_builtin(p.type):  # @p dbo.SomeTableType READONLY
            if not p.readonly:
                raise c.bind_error(352, p, p.name)
            key = p.name.lower()
            if key in c.scope.table_vars or key in c.scope.vars:
                raise c.bind_error(134, p, p.name)
            c.scope.table_vars[key] = TableVarInfo(p.name, "", readonly=True)
            hidden = c.declare(p.name + "\x00table", TABLE, p)
            params.append(ParamInfo(p.name, hidden.slot, TABLE, False, True, None,
                                    table_type=p.type.name))
            continue
        t = ast_types.type_from_ast(p.type, "declare")
        default: Any = None
        typed_default = None
        has_default = p.default is not None
        if p.default is not None:
            d = c.expr(p.default)
            default = coerce(d, t)(None) if d.const else None  # type: ignore[arg-type]
            if t == T.SQL_VARIANT:
                typed_default = typed_variant(d.type, default)
        info = c.declare(p.name, t, p, output=p.output, readonly=p.readonly)
        params.append(ParamInfo(p.name, info.slot, t, p.output, has_default, default,
                                type_slot=info.type_slot, typed_default=typed_default))
    return_type = None
    body = node.body
    if isinstance(node, ast.CreateFunction) and node.table_var is not None:
        # A multi-statement table-valued function fills its RETURNS @table variable.
        declare = ast.DeclareTable(node.table_var, node.table_columns, node.table_constraints)
        object.__setattr__(declare, "span", _returns_table_span(text, node))
        body = (declare, *body)
    elif isinstance(node, ast.CreateFunction):
        return_type = ast_types.type_from_ast(node.returns, "declare")
        c.return_type = return_type
    collect_labels(c, body)
    run = c.block(body)
    compiled = Compiled(run, c.scope.nslots, c.scope, name, params, return_type)
    compiled.execute_as = getattr(node, "execute_as", None)
    if isinstance(node, ast.CreateFunction):
        compiled.table_var = node.table_var
    return compiled


def _returns_table_span(text: str, node: ast.CreateFunction) -> Span | None:
    """Where ``@r TABLE (…)`` of ``RETURNS @r TABLE (…)`` is in ``text``: the declaration of
    the function's result table variable compiles from its source like DECLARE @r TABLE."""
    span = node.span
    if span is None or not node.table_var:
        return None
    m = re.compile(r"RETURNS\s+(" + re.escape(node.table_var) + r")\s+(?:AS\s+)?TABLE\s*\(",
                   re.IGNORECASE).search(text, span.start_pos, span.end_pos)
    if m is None:
        return None
    depth, quote, i = 1, "", m.end()
    while i < span.end_pos and depth:
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'[\"":
            quote = "]" if ch == "[" else ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        i += 1
    return dataclasses.replace(span, start_pos=m.start(1), end_pos=i)


# --------------------------------------------------------------------------------------------
# Lookup and cache
# --------------------------------------------------------------------------------------------
def resolve_module(s: Session, name: ast.ObjectName, types: set[str], *,
                   synonyms: bool = True) -> Compiled | None:
    """The compiled procedure / function ``name`` (None if it does not exist); a synonym
    stands for its base object (one level: a synonym of a synonym names nothing)."""
    catalog = s.instance.catalog
    db_id = s.db_id
    if name.database:
        other = catalog.database_id(s.conn, name.database)
        if other is None:
            raise tsql_error(911, name.database)
        db_id = other
    row = catalog.find_object(s.conn, db_id, name.schema, name.name, types)
    if row is None and name.name.lower().startswith("sp_") and not name.database \
            and db_id != 1:
        row = catalog.find_object(s.conn, 1, name.schema, name.name, types)
    if row is None and synonyms:
        synonym = catalog.find_object(s.conn, db_id, name.schema, name.name, {SYNONYM})
        if synonym is not None:
            database, schema, target = synonym_target(synonym)
            return resolve_module(s, ast.ObjectName(target, schema, database), types,
                                  synonyms=False)
    if row is None or not row.definition:
        return None
    key = (row.database_id, row.object_id)
    cached = s.instance.procedure_cache.get(key)
    if cached is not None and cached[0] == row.modify_date:
        return cached[1]  # type: ignore[no-any-return]
    kind = "function" if row.type in ("FN", "TF") else "procedure"
    compiled = compile_module(row.definition, row.name, kind=kind)
    compiled.object_id = row.object_id
    compiled.db_id = row.database_id
    db_row = catalog.database(s.conn, row.database_id)
    compiled.db_name = db_row.name if db_row is not None else None
    s.instance.procedure_cache[key] = (row.modify_date, compiled)
    return compiled


# --------------------------------------------------------------------------------------------
# Invocation
# --------------------------------------------------------------------------------------------
def invoke(s: Session, compiled: Compiled, values: dict[int, Any]) -> tuple[int, Frame]:
    """Run ``compiled`` in a new frame whose parameter slots hold ``values``.

    Returns ``(status, frame)``; the frame's slots give OUTPUT values back. SET options the
    procedure changes are restored when it returns, as in SQL Server."""
    if s.nestlevel >= MAX_NESTING:
        raise tsql_error(217)
    s.check_cancel()
    frame = Frame(s, compiled.nslots, proc=compiled.name, level=s.nestlevel + 1,
                  proc_id=compiled.object_id)
    v = frame.v
    lent: list[str] = []
    for p in compiled.params:
        v[p.slot] = values.get(p.slot, p.default)
        if p.type_slot is not None:  # a sql_variant argument comes with its base type
            v[p.slot], v[p.type_slot] = typed_parameter(p, values)
        if p.table_type is not None:
            # The caller's table variable itself (READONLY), or an empty one of the type.
            key = p.name.lower()
            if v[p.slot] is not None:
                frame.table_vars[key] = v[p.slot]
                lent.append(key)
            else:
                frame.table_vars[key] = make_table_variable(frame, p.name, p.table_type)
    saved = (s.nocount, s.xact_abort, s.datefirst, dict(s.options))
    temp_before = dict(s.temp_tables)
    own_before, s.temp_own = s.temp_own, set()
    database = (s.db_id, s.current_database)
    if compiled.db_id is not None and compiled.db_id != s.db_id and compiled.db_name \
            and not (compiled.db_id == 1 and (compiled.name or "").lower().startswith("sp_")):
        # A procedure runs in the context of its own database (EXEC other_db.dbo.p); an sp_
        # procedure of master runs in the caller's, as SQL Server's system procedures do.
        s.db_id, s.current_database = compiled.db_id, compiled.db_name
    s.nestlevel += 1
    status = 0
    try:
        try:
            enter_module(frame, compiled.execute_as)
        except TSqlError as e:  # the principal cannot be impersonated (Msg 15517)
            raise _at_procedure(e, compiled.name or "", e.state) from None
        compiled.run(frame)
    except ReturnSignal as r:
        status = 0 if r.value is None else r.value
    except TSqlError as e:
        if aborts_scope(e) and getattr(e, "scope_frame", None) is frame:
            # Scope abortion ends this procedure; the caller goes on as after a statement
            # error at its EXEC.
            e.scope_done = True  # type: ignore[attr-defined]
        raise
    finally:
        s.nestlevel -= 1
        s.nocount, s.xact_abort, s.datefirst, s.options = saved
        s.db_id, s.current_database = database
        for key in lent:  # lent by the caller: not the procedure's to drop
            frame.table_vars.pop(key, None)
        s.drop_scope_objects(frame)
        created = [n for n, p in s.temp_tables.items() if temp_before.get(n) != p]
        if created:
            # Temp tables a procedure creates are dropped when it ends; the caller's of the
            # same names, hidden meanwhile, are its own again.
            drop_temp_tables_named(s, created)
        for n in s.temp_own & temp_before.keys():
            s.temp_tables.setdefault(n, temp_before[n])
        s.temp_own = own_before
    return status, frame


def _at_procedure(err: TSqlError, proc_name: str, state: int) -> TSqlError:
    """Locate a call error as SQL Server does: in the called procedure, line 0."""
    err.procedure = proc_name
    err.line = 0
    err.state = state
    err.keep_location = True  # type: ignore[attr-defined]
    return err


@dataclass
class _Plan:
    """How one EXEC call site binds its arguments to one procedure's parameters."""

    binds: list[tuple[int, Callable[[Frame], Any]]]
    # (slot, typed slot of a sql_variant parameter, store(frame, value, typed value))
    outputs: list[tuple[int, int | None, Callable[..., None]]]


def bind_plan(c_args: list[tuple[ast.ExecArg, Any]], compiled: Compiled, proc_name: str,
               stores: dict[int, Any]) -> _Plan:
    """Match the call's arguments to the parameters (Msg 201, 8144, 8145, 8162, 119)."""
    try:
        return _bind(c_args, compiled, proc_name, stores)
    except TSqlError as e:
        state = {201: 4, 8144: 2, 8145: 1, 8146: 1}.get(e.number, e.state)
        raise _at_procedure(e, proc_name, state) from None


def _param_converter(ef: Callable[[Frame], Any], conv: Callable[[Any], Any], src: T.SqlType,
                     dst: T.SqlType, proc_name: str) -> Callable[[Frame], Any]:
    """Convert an argument to its parameter's type. A value that does not convert is Msg 8114
    in the called procedure at line 0 (``EXEC p 'x'`` for an int parameter), not the 245 /
    8115 … a CAST would raise."""
    def run(f: Frame) -> Any:
        value = ef(f)
        try:
            return conv(value)
        except TSqlError as e:
            if e.number not in CONVERSION_ERRORS:
                raise
            err = tsql_error(8114, _type_word(src), _type_word(dst))
            raise _at_procedure(err, proc_name, 1) from None
    return run


def typed_parameter(p: ParamInfo, values: dict[int, Any]) -> tuple[Any, TypedVariant | None]:
    """(value, typed slot) of the sql_variant parameter ``p`` given the bound ``values``:
    the argument (bound with its base type) or the default."""
    if p.slot not in values:
        return p.default, p.typed_default
    value = values[p.slot]
    if isinstance(value, TypedVariant):
        return value.value, value
    return value, None


def _typed_argument(ce: CExpr) -> Callable[[Frame], Any]:
    """A sql_variant parameter's argument: the value with the base type it keeps."""
    ef, base, src = ce.fn, ce.base, ce.type
    if base is None and src.name != "null":
        variant_base_type(src, None)  # Msg 206 for a type a sql_variant cannot hold

    def run(f: Frame) -> Any:
        value = ef(f)
        if value is None:
            return None
        return TypedVariant(value, base(f, value) if base is not None else
                            variant_base_type(src, value))
    return run


def _type_word(t: T.SqlType) -> str:
    """A type's name as Msg 8114 writes it (decimal is 'numeric')."""
    return "numeric" if t.name == "decimal" else t.name


def _bind(c_args: list[tuple[ast.ExecArg, Any]], compiled: Compiled, proc_name: str,
          stores: dict[int, Any]) -> _Plan:
    params = compiled.params
    by_name = {p.name.lower(): p for p in params}
    binds: list[tuple[int, Callable[[Frame], Any]]] = []
    outputs: list[tuple[int, int | None, Callable[..., None]]] = []
    given: set[str] = set()
    named_seen = False
    if c_args and not params:
        raise tsql_error(8146, proc_name)
    for i, (arg, ce) in enumerate(c_args):
        if arg.name:
            named_seen = True
            p = by_name.get(arg.name.lower())
            if p is None:
                raise tsql_error(8145, arg.name, proc_name)
        else:
            if named_seen:
                raise tsql_error(119, i + 1)
            if i >= len(params):
                raise tsql_error(8144, proc_name)
            p = params[i]
        key = p.name.lower()
        if key in given:
            raise tsql_error(8143, p.name)
        given.add(key)
        if arg.output and not p.output:
            raise tsql_error(8162, p.name)
        if ce is None:  # DEFAULT
            if not p.has_default:
                raise tsql_error(201, proc_name, p.name)
            continue
        if (p.table_type is None) != (ce.type.name != "table"):
            # A table variable for a scalar parameter or the reverse: operand type clash.
            src = "table" if ce.type.name == "table" else ce.type.name
            dst = p.table_type.split(".")[-1] if p.table_type else p.type.name
            raise tsql_error(206, src, dst)
        if p.table_type is not None:
            binds.append((p.slot, ce.fn))
            continue
        conv = conversion_for_assignment(ce.type, p.type)
        ef = ce.fn
        if p.type_slot is not None:
            binds.append((p.slot, _typed_argument(ce)))
        elif conv is None:
            binds.append((p.slot, ef))
        else:
            binds.append((p.slot, _param_converter(ef, conv, ce.type, p.type, proc_name)))
        if arg.output and p.output and i in stores:
            store_maker = stores[i]
            outputs.append((p.slot, p.type_slot, store_maker(p.type, p.type_slot)))
    for p in params:
        if p.name.lower() not in given and not p.has_default:
            raise tsql_error(201, proc_name, p.name)
    return _Plan(binds, outputs)


def compile_exec_args(c: Compiler, args: tuple[ast.ExecArg, ...]
                      ) -> tuple[list[tuple[ast.ExecArg, Any]], dict[int, Any]]:
    """Compile EXEC arguments; OUTPUT variables get a store factory by argument index."""
    out: list[tuple[ast.ExecArg, Any]] = []
    stores: dict[int, Any] = {}
    for i, a in enumerate(args):
        if a.value is None:
            out.append((a, None))
            continue
        table = table_argument(c, a.value)
        out.append((a, table if table is not None else c.expr(a.value)))
        if a.output and isinstance(a.value, ast.Variable):
            info = c.var(a.value.name, a.value)
            stores[i] = _store_factory(c, info)
    return out, stores


def _store_factory(c: Compiler, info: VarInfo
                   ) -> Callable[[T.SqlType, int | None], Callable[[Frame, Any], None]]:
    """``make(src, type_slot)``: the store of an OUTPUT argument's value (``type_slot``: the
    callee's typed slot of a sql_variant parameter, whose base type a sql_variant variable
    takes over)."""
    def make(src: T.SqlType, type_slot: int | None = None) -> Callable[[Frame, Any], None]:
        store = c.assigner(info, src)
        own = info.type_slot
        if type_slot is None:
            return store

        def store_typed(f: Frame, value: Any, typed: Any) -> None:
            store(f, value)
            if own is not None and isinstance(typed, TypedVariant) and typed.value is value:
                f.v[own] = typed
        return store_typed
    return make


def run_exec(f: Frame, compiled: Compiled, proc_name: str, site: int,
             c_args: list[tuple[ast.ExecArg, Any]], stores: dict[int, Any]) -> int:
    """Bind, invoke, copy OUTPUT values back, check the transaction count (Msg 266)."""
    s = f.session
    plan = compiled.plans.get(site)
    if plan is None:
        plan = compiled.plans[site] = bind_plan(c_args, compiled, proc_name, stores)
    values = {slot: fn(f) for slot, fn in plan.binds}
    before = s.trancount
    status, frame = invoke(s, compiled, values)
    copy_outputs(f, frame, plan)
    if s.trancount != before:
        raise _at_procedure(tsql_error(266, before, s.trancount), proc_name, 2)
    return status


def copy_outputs(f: Frame, frame: Frame, plan: _Plan) -> None:
    """The OUTPUT parameters' values (sql_variant ones with their base type) back into the
    caller's variables."""
    for slot, tslot, store in plan.outputs:
        if tslot is None:
            store(f, frame.v[slot])
        else:
            store(f, frame.v[slot], frame.v[tslot])


def site_id() -> int:
    """A process-unique id for an EXEC call site (keys its binding plans)."""
    return next(_site_ids)


# The system procedures EXEC runs: name -> compile(c, ExecProc node) -> statement closure.
# Filled at import by the modules that compile them (dynamic.py: sp_executesql, the role and
# catalog procedures; activity.py, approles.py, sequences.py), all above this one.
SYSTEM_PROCEDURES: dict[str, Callable[[Compiler, ast.ExecProc], StmtFn]] = {}

# itertools.count is atomic under the GIL: sessions compile on several threads.
_site_ids = itertools.count(1)


# compound: after EXEC, @@ERROR is that of the last statement the procedure ran.
@handler(ast.ExecProc, compound=True)
def compile_exec_proc(c: Compiler, node: ast.ExecProc) -> StmtFn:
    if isinstance(node.proc, ast.ObjectName):
        system = SYSTEM_PROCEDURES.get(node.proc.name.lower())
        if system is not None and node.proc.schema not in (None, "sys", "dbo"):
            system = None
        if system is not None:
            return system(c, node)
    c_args, stores = compile_exec_args(c, node.args)
    ret_store = None
    if node.return_var:
        ret_store = c.assigner(c.var(node.return_var, node), T.INT)
    site = site_id()
    if isinstance(node.proc, ast.Variable):
        name_fn = c.expr(node.proc).fn

        def target(f: Frame) -> ast.ObjectName:
            v = name_fn(f)
            return parse_object_name("" if v is None else str(v))
    else:
        fixed = node.proc

        def target(_f: Frame) -> ast.ObjectName:
            return fixed

    def run(f: Frame) -> None:
        s = f.session
        name = target(f)
        system = SYSTEM_PROCEDURES.get(name.name.lower())
        if system is not None and isinstance(node.proc, ast.Variable):
            raise ExecutionError(2812, f"Could not find stored procedure '{name.name}'.")
        compiled = resolve_module(s, name, {"P"})
        if compiled is None:
            raise tsql_error(2812, _display(name), cls=BindError, state=62)
        if compiled.object_id is not None and compiled.db_id is not None:
            require_execute(f, compiled.db_id, compiled.object_id)
        status = run_exec(f, compiled, compiled.name or name.name, site, c_args, stores)
        if ret_store is not None:
            ret_store(f, status)
    return run


def _display(name: ast.ObjectName) -> str:
    return ".".join(p for p in (name.database, name.schema, name.name) if p)


def parse_object_name(text: str) -> ast.ObjectName:
    """``[db.][schema.]name`` from a string (``EXEC @name``), brackets removed."""
    parts: list[str] = []
    cur = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            j = text.find("]", i + 1)
            while j != -1 and j + 1 < len(text) and text[j + 1] == "]":
                j = text.find("]", j + 2)
            j = len(text) if j == -1 else j
            cur += text[i + 1:j].replace("]]", "]")
            i = j + 1
            continue
        if ch == ".":
            parts.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    parts.append(cur.strip())
    parts = [p.strip() for p in parts]
    name = parts[-1]
    schema = parts[-2] if len(parts) > 1 and parts[-2] else None
    database = parts[-3] if len(parts) > 2 and parts[-3] else None
    return ast.ObjectName(name, schema, database)


def call_procedure_batch(s: Session, name: str, args: dict[str, Any]) -> int:
    """:meth:`Session.call_procedure`: run a procedure as a batch of its own."""
    try:
        compiled = resolve_module(s, parse_object_name(name), {"P"})
        if compiled is None:
            raise tsql_error(2812, name, cls=BindError)
        given = {k.lower().lstrip("@"): v for k, v in args.items()}
        values: dict[int, Any] = {}
        for p in compiled.params:
            key = p.name.lower().lstrip("@")
            if key in given:
                values[p.slot] = given.pop(key)
            elif not p.has_default:
                raise tsql_error(201, compiled.name, p.name)
        if given:
            raise tsql_error(8145, "@" + next(iter(given)), compiled.name)
        status, _frame = invoke(s, compiled, values)
        return status
    except TSqlError as e:
        s.rollback_statement()
        if isinstance(e, CancelledError):
            transactions.rollback_all(s)
            e = s.cancellation(e)
        s.report(e)
        return -6
    except Exception as e:  # noqa: BLE001 - never a traceback
        s.rollback_statement()
        s.report(internal_error(e))
        return -6


# --------------------------------------------------------------------------------------------
# CREATE / ALTER / DROP PROCEDURE and FUNCTION
# --------------------------------------------------------------------------------------------
def _definition(c: Compiler, node: ast.CreateProcedure | ast.CreateFunction) -> str:
    source = node.source or c.source(node)
    span = node.span
    first = getattr(c, "batch_statements", None)
    if span is not None and first and first[0] is node and c.text:
        # Keep what precedes the CREATE in its batch (comments), as sys.sql_modules does,
        # so that error line numbers inside the procedure count from the batch start.
        return c.text[:span.start_pos] + source
    return source


def _module_relative_line(err: TSqlError, text: str, node: Any) -> None:
    """Count an error's line in a module being created from the start of its batch (as
    SQL Server numbers lines inside a procedure), not from the start of the script."""
    span = node.span
    if err.line is None or span is None or err.procedure is None:
        return
    batch_first_line = span.line - text[:span.start_pos].count("\n")
    err.line = max(err.line - (batch_first_line - 1), 1)


def _function_type(node: ast.CreateFunction) -> str:
    """sys.objects type of a function: FN scalar, IF inline / TF multi-statement table."""
    if node.inline is not None:
        return "IF"
    return "TF" if node.table_var is not None else "FN"


def _module_handler(kind: str, module_type: str, label: str
                    ) -> Callable[[Compiler, Any], StmtFn]:
    def compile_create(c: Compiler, node: Any) -> StmtFn:
        name: ast.ObjectName = node.name
        definition = _definition(c, node)
        type_code = _function_type(node) if kind == "function" else module_type
        if type_code == "IF":
            # The query is bound when a statement uses the function; the parameters' types
            # are checked now.
            for p in node.params:
                ast_types.type_from_ast(p.type, "declare")
        else:
            # Validate the body now (Msg 137 … fail the CREATE, as in SQL Server).
            try:
                compile_module_node(c.text, node, name.name, kind=kind)
            except TSqlError as e:
                _module_relative_line(e, c.text, node)
                raise
        if kind == "function" and type_code != "IF":  # Msg 443: no side effects
            check_function_body(c, node)
        alter, or_alter = node.alter, node.or_alter
        execute_as = getattr(node, "execute_as", None)

        def run(f: Frame) -> None:
            s = f.session
            s.check_writable()
            catalog = s.instance.catalog
            txn = s.txn_for_statement()
            txn.write()
            existing = catalog.find_object(s.conn, s.db_id, name.schema, name.name)
            if existing is None or not (alter or or_alter):
                require_database(f, f"CREATE {label.upper()}")
            if existing is not None and existing.type != type_code and (alter or or_alter):
                raise tsql_error(2714, name.name)
            if alter and existing is None:
                raise tsql_error(208, name.name, cls=BindError)
            principal = execute_as_principal(f, s.db_id, execute_as)
            if existing is not None and existing.type == type_code and (alter or or_alter):
                catalog.update_object(s.conn, existing.object_id, definition=definition)
                object_id = int(existing.object_id)
            else:
                object_id = catalog.create_object(s.conn, s.db_id, name.schema, name.name,
                                                  type_code, definition=definition)
            record_execute_as(f, s.db_id, object_id, principal, altered=existing is not None)
        return run

    return compile_create


handler(ast.CreateProcedure)(_module_handler("procedure", "P", "procedure"))
handler(ast.CreateFunction)(_module_handler("function", "FN", "function"))


def _drop_handler(type_codes: set[str], label: str) -> Callable[[Compiler, Any], StmtFn]:
    def compile_drop(c: Compiler, node: Any) -> StmtFn:
        names: tuple[ast.ObjectName, ...] = node.names
        if_exists = node.if_exists

        def run(f: Frame) -> None:
            s = f.session
            s.check_writable()
            catalog = s.instance.catalog
            for name in names:
                row = catalog.find_object(s.conn, s.db_id, name.schema, name.name, type_codes)
                if row is None:
                    if if_exists:
                        continue
                    raise tsql_error(3701, label, _display(name), cls=BindError, state=5)
                s.txn_for_statement().write()
                catalog.drop_object(s.conn, row.object_id)
                s.instance.procedure_cache.pop((row.database_id, row.object_id), None)
        return run

    return compile_drop


handler(ast.DropProcedure)(_drop_handler({"P"}, "procedure"))
handler(ast.DropFunction)(_drop_handler({"FN", "IF", "TF"}, "function"))


# --------------------------------------------------------------------------------------------
# Scalar user-defined functions (called from expressions)
# --------------------------------------------------------------------------------------------
def call_table_function(f: Frame, name: ast.ObjectName, args: list[tuple[Any, T.SqlType] | None]
                        ) -> ResultSet | None:
    """Run multi-statement table-valued function ``name``; the rows of its RETURNS table
    (None: no such function). An argument None asks for the parameter's DEFAULT."""
    s = f.session
    compiled = resolve_module(s, name, {"TF"})
    if compiled is None:
        return None
    shown = _display(name)
    if len(args) > len(compiled.params):
        raise tsql_error(8144, shown, state=2)
    if len(args) < len(compiled.params):
        raise tsql_error(313, shown, state=2)
    frame = Frame(s, compiled.nslots, proc=compiled.name, level=s.nestlevel + 1)
    for p, arg in zip(compiled.params, args, strict=True):
        if arg is None:
            if not p.has_default:
                raise tsql_error(313, shown, state=2)
            frame.v[p.slot] = p.default
            continue
        value, src = arg
        conv = conversion_for_assignment(src, p.type)
        frame.v[p.slot] = value if conv is None or value is None else conv(value)
    if s.nestlevel >= MAX_NESTING:
        raise tsql_error(217)
    database = (s.db_id, s.current_database)
    if compiled.db_id is not None and compiled.db_name:
        s.db_id, s.current_database = compiled.db_id, compiled.db_name
    s.nestlevel += 1
    s.function_depth += 1
    try:
        try:
            enter_module(frame, compiled.execute_as, compiled.object_id)
            compiled.run(frame)
        except ReturnSignal:
            pass
        result = dml_stmts.run_sql(frame, f"SELECT * FROM {compiled.table_var}", {})
        sets = list(getattr(result, "resultsets", []) or [])
        return sets[0] if sets else ResultSet([])
    finally:
        s.nestlevel -= 1
        s.function_depth -= 1
        s.db_id, s.current_database = database
        s.drop_scope_objects(frame)  # the function's table variables, its result included


def compile_udf_call(c: Compiler, node: ast.FunctionCall) -> CExpr:
    """A call of user-defined scalar function ``node.name`` (typed at run time: the function
    is resolved when the call runs)."""
    args = [c.expr(a) for a in node.args]
    fns = [a.fn for a in args]
    types = [a.type for a in args]
    name = node.name

    def call(f: Frame) -> Any:
        return call_scalar_function(f, name, [a(f) for a in fns], types)
    return CExpr(DYNAMIC, call)


UDF_CALLS.compile = compile_udf_call


def call_scalar_function(f: Frame, name: ast.ObjectName, args: list[Any],
                         arg_types: list[T.SqlType], resolved: Compiled | None = None) -> Any:
    """Run scalar UDF ``name`` with ``args``; its RETURN value converted to its type.
    ``resolved``: the function as the caller resolved it already (a query calling it per
    row resolves it once)."""
    s = f.session
    compiled = resolved if resolved is not None else resolve_module(s, name, {"FN"})
    if compiled is None:
        raise tsql_error(4121, name.schema or "dbo", _display(name), cls=BindError)
    if resolved is None and compiled.object_id is not None and compiled.db_id is not None:
        require_execute(f, compiled.db_id, compiled.object_id)  # queries checked theirs
    if len(args) > len(compiled.params):
        raise tsql_error(8144, compiled.name)
    values: dict[int, Any] = {}
    for i, p in enumerate(compiled.params):
        if i < len(args):
            conv = conversion_for_assignment(arg_types[i], p.type)
            values[p.slot] = args[i] if conv is None or args[i] is None else conv(args[i])
        else:
            raise ExecutionError(313, "An insufficient number of arguments were supplied for "
                                      f"the procedure or function {compiled.name}.")
    if s.nestlevel >= MAX_NESTING:
        raise tsql_error(217)
    frame = Frame(s, compiled.nslots, proc=compiled.name, level=s.nestlevel + 1)
    for slot, v in values.items():
        frame.v[slot] = v
    database = (s.db_id, s.current_database)
    if compiled.db_id is not None and compiled.db_name:
        s.db_id, s.current_database = compiled.db_id, compiled.db_name
    s.nestlevel += 1
    s.function_depth += 1
    value: Any = None
    try:
        enter_module(frame, compiled.execute_as, compiled.object_id)
        compiled.run(frame)
    except ReturnSignal as r:
        value = r.value
    finally:
        s.nestlevel -= 1
        s.function_depth -= 1
        s.db_id, s.current_database = database
        s.drop_scope_objects(frame)  # the function's table variables
    return value


SESSION_PARTS.compile_batch = compile_batch
SESSION_PARTS.call_procedure_batch = call_procedure_batch
