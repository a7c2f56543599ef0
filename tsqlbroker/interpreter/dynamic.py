"""Dynamic SQL: ``EXEC (@sql)`` and ``sp_executesql`` with typed and OUTPUT parameters.

The string runs as a batch of its own, one nesting level down: it sees none of the caller's
variables, its syntax / undeclared-variable errors are errors of the EXEC statement (with the
dynamic text's own line numbers), and a ``USE`` inside it lasts only until it ends — the
caller's database is restored afterwards. Compiled strings are cached per text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.grammar import ast, parser

from ..values import types as T
from . import ast_types
from .batchcache import CompiledCache
from .compiler import Compiler, ReturnSignal, StmtFn, handler
from .control import collect_labels
from .expressions import coerce
from .frames import Frame
from .procedures import (
    MAX_NESTING,
    SYSTEM_PROCEDURES,
    Compiled,
    ParamInfo,
    bind_plan,
    compile_exec_args,
    copy_outputs,
    site_id,
    typed_parameter,
)
from .runtime_errors import aborts_scope
from .security_stmts import compile_sp_rolemember, compile_sp_srvrolemember
from .sysprocs import CATALOG_PROCEDURES

if TYPE_CHECKING:
    from .session import Session

_cache_guard = threading.Lock()


def _cache(s: Session) -> CompiledCache:
    ext = s.instance.extensions
    cache = ext.get("interp_dynamic_cache")
    if cache is None:
        with _cache_guard:
            cache = ext.setdefault("interp_dynamic_cache", CompiledCache())
    return cache  # type: ignore[no-any-return]


def compile_dynamic(s: Session, text: str, params: str = "") -> Compiled:
    """Parse and compile a dynamic SQL string (with sp_executesql parameter definitions)."""
    key = (text, params)
    cache = _cache(s)
    hit = cache.get(key)
    if hit is not None:
        return hit
    try:
        batch = parser.parse_batch(text, 1)
        c = Compiler(batch.text, kind="dynamic")
        formal: list[ParamInfo] = []
        if params.strip():
            for p in _parse_params(params):
                t = ast_types.type_from_ast(p.type, "declare")
                info = c.declare(p.name, t, p, output=p.output)
                formal.append(ParamInfo(p.name, info.slot, t, p.output, False,
                                        type_slot=info.type_slot))
        collect_labels(c, batch.statements)
        run = c.block(batch.statements)
    except TSqlError as e:
        e.located = True  # type: ignore[attr-defined]  # lines of the dynamic text
        raise
    compiled = Compiled(run, c.scope.nslots, c.scope, None, formal)
    cache.put(key, compiled)
    return compiled


def _parse_params(text: str) -> tuple[ast.ParamDef, ...]:
    """The parameter definitions of sp_executesql's ``@params`` string."""
    batch = parser.parse_batch(f"CREATE PROCEDURE sp_executesql_params {text} AS RETURN", 1)
    node = batch.statements[0]
    assert isinstance(node, ast.CreateProcedure)
    return node.params


def run_dynamic(f: Frame, compiled: Compiled, values: dict[int, Any], depth: int = 1) -> Frame:
    """Run compiled dynamic SQL ``depth`` levels down (EXEC (…) one, sp_executesql two: the
    system procedure is a level of its own, as @@NESTLEVEL shows); restores the caller's
    database."""
    s = f.session
    if s.nestlevel + depth > MAX_NESTING:
        raise tsql_error(217)
    frame = Frame(s, compiled.nslots, proc=None, level=s.nestlevel + depth)
    for slot, v in values.items():
        frame.v[slot] = v
    db = (s.db_id, s.current_database)
    s.nestlevel += depth
    try:
        compiled.run(frame)
    except ReturnSignal:
        pass
    except TSqlError as e:
        if aborts_scope(e) and getattr(e, "scope_frame", None) is frame:
            e.scope_done = True  # type: ignore[attr-defined]
        raise
    finally:
        s.nestlevel -= depth
        s.db_id, s.current_database = db
        s.drop_scope_objects(frame)
    return frame


# compound: after EXEC (…), @@ERROR is that of the last statement of the string.
@handler(ast.ExecDynamic, compound=True)
def compile_exec_dynamic(c: Compiler, node: ast.ExecDynamic) -> StmtFn:
    parts = [coerce(c.expr(p), T.NVARCHAR_MAX) for p in node.parts]

    def run(f: Frame) -> None:
        text = "".join(v for v in (p(f) for p in parts) if v is not None)
        s = f.session
        compiled = compile_dynamic(s, text)
        run_dynamic(f, compiled, {})
    return run


# --------------------------------------------------------------------------------------------
# System procedures implemented by the interpreter
# --------------------------------------------------------------------------------------------
def compile_sp_executesql(c: Compiler, node: ast.ExecProc) -> StmtFn:
    args = list(node.args)
    stmt_arg: ast.ExecArg | None = None
    params_arg: ast.ExecArg | None = None
    rest: list[ast.ExecArg] = []
    for i, a in enumerate(args):
        key = (a.name or "").lower()
        if key in ("@stmt", "@statement") or (not a.name and i == 0):
            stmt_arg = a
        elif key == "@params" or (not a.name and i == 1):
            params_arg = a
        else:
            rest.append(a)
    if stmt_arg is None or stmt_arg.value is None:
        raise c.bind_error(201, node, "sp_executesql", "@statement")
    stmt = c.expr(stmt_arg.value)
    if not (stmt.type.is_unicode or stmt.type.name == "null"):
        raise c.bind_error(214, node, "@statement", "ntext/nchar/nvarchar")
    stmtf = stmt.fn
    paramsf: Callable[[Frame], Any] = lambda _f: ""
    if params_arg is not None and params_arg.value is not None:
        pe = c.expr(params_arg.value)
        if not (pe.type.is_unicode or pe.type.name == "null"):
            raise c.bind_error(214, node, "@params", "ntext/nchar/nvarchar")
        paramsf = pe.fn
    c_args, stores = compile_exec_args(c, tuple(rest))
    ret_store = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None
    site = site_id()

    def run(f: Frame) -> None:
        s = f.session
        text = stmtf(f)
        if text is None:
            if ret_store is not None:
                ret_store(f, 0)
            return
        compiled = compile_dynamic(s, text, paramsf(f) or "")
        plan = compiled.plans.get(site)
        if plan is None:
            params_text = paramsf(f) or ""
            try:
                plan = compiled.plans[site] = bind_plan(c_args, compiled, "sp_executesql",
                                                         stores)
            except TSqlError as e:
                if e.number != 201:
                    raise
                missing = e.message.split("'")[3] if e.message.count("'") >= 4 else ""
                raise tsql_error(8178, f"({params_text}){text}", missing) from None
        values = {slot: fn(f) for slot, fn in plan.binds}
        for p in compiled.params:
            if p.type_slot is not None and p.slot in values:
                values[p.slot], values[p.type_slot] = typed_parameter(p, values)
        frame = run_dynamic(f, compiled, values, depth=2)
        copy_outputs(f, frame, plan)
        if ret_store is not None:
            ret_store(f, 0)
    return run


SYSTEM_PROCEDURES["sp_executesql"] = compile_sp_executesql


def _role_procedure(c: Compiler, node: ast.ExecProc) -> StmtFn:
    return compile_sp_rolemember(c, node)


def _server_role_procedure(c: Compiler, node: ast.ExecProc) -> StmtFn:
    return compile_sp_srvrolemember(c, node)


SYSTEM_PROCEDURES.update({"sp_addrolemember": _role_procedure,
                          "sp_droprolemember": _role_procedure,
                          "sp_addsrvrolemember": _server_role_procedure,
                          "sp_dropsrvrolemember": _server_role_procedure})


def _catalog_procedure(c: Compiler, node: ast.ExecProc) -> StmtFn:
    return CATALOG_PROCEDURES[node.proc.name.lower()](c, node)


SYSTEM_PROCEDURES.update({n: _catalog_procedure for n in (
    "sp_help", "sp_helptext", "sp_helpdb", "sp_configure")})
