"""Sequences in the interpreter: ``CREATE / ALTER / DROP SEQUENCE``, ``NEXT VALUE FOR`` in
expressions the interpreter evaluates (``SET @v = NEXT VALUE FOR s``) and the system
procedure ``sp_sequence_get_range``. Inside queries ``NEXT VALUE FOR`` is the engine's
(``engine/sequences.py``): a value per row."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.sequences import SequenceOptions, Sequences
from tsqlbroker.errors import BindError, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from . import ast_types
from .compiler import CExpr, Compiler, StmtFn, expr_handler, handler
from .dml_stmts import run_sql
from .expressions import coerce
from .procedures import SYSTEM_PROCEDURES
from .schemas import bracketed, ddl_statement, drop_objects

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session


def shown_name(name: ast.ObjectName) -> str:
    """``schema.name`` (or ``name``) as messages show an object name."""
    return f"{name.schema}.{name.name}" if name.schema else name.name


def object_text(name: ast.ObjectName) -> str:
    """``name`` as bracket-quoted T-SQL text (``[db].[schema].[name]``)."""
    parts = [name.database, name.schema, name.name]
    if name.database and not name.schema:
        return f"{bracketed(name.database)}..{bracketed(name.name)}"
    return ".".join(bracketed(p) for p in parts if p)


def database_of(s: Session, name: ast.ObjectName) -> int:
    """The database ``name`` is in (Msg 911 for an unknown one)."""
    if not name.database:
        return s.db_id
    db_id = s.instance.catalog.database_id(s.conn, name.database)
    if db_id is None:
        raise tsql_error(911, name.database, cls=BindError)
    return db_id


def _options(c: Compiler, node: ast.CreateSequence) -> SequenceOptions:
    opts = SequenceOptions()
    for word, value in node.options:
        if word == "as":
            opts.type_spec = ast_types.type_from_ast(value, "sequence").spec()
        elif word == "start":
            opts.start = value
        elif word == "restart":
            opts.restart, opts.restart_with = True, value
        elif word == "increment":
            opts.increment = value
        elif word == "minvalue":
            opts.minimum = value
        elif word == "maxvalue":
            opts.maximum = value
        elif word == "no_minvalue":
            opts.no_minimum = True
        elif word == "no_maxvalue":
            opts.no_maximum = True
        elif word in ("cycle", "no_cycle"):
            opts.cycle = word == "cycle"
        elif word == "cache":
            opts.cache, opts.cache_size = True, value
        elif word == "no_cache":
            opts.cache = False
    return opts


@handler(ast.CreateSequence)
def compile_create_sequence(c: Compiler, node: ast.CreateSequence) -> StmtFn:
    opts = _options(c, node)
    name = node.name

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        db_id = database_of(s, name)
        s.txn_for_statement().write()
        seqs = Sequences.get(s.conn.store)
        if node.alter:
            obj = s.instance.catalog.find_object(s.conn, db_id, name.schema, name.name, {"SO"})
            if obj is None:
                raise tsql_error(15151, "object", shown_name(name), cls=BindError)
            seqs.alter(s.conn, obj, opts)
        else:
            seqs.create(s.conn, db_id, name.schema, name.name, opts)
        s.rowcount = 0
    return run


@handler(ast.DropSequence)
def compile_drop_sequence(c: Compiler, node: ast.DropSequence) -> StmtFn:
    def drop(s: Session) -> None:
        drop_objects(s, node.names, {"SO"}, "sequence", node.if_exists,
                     lambda row: Sequences.get(s.conn.store).drop(s.conn, row.object_id))
    return ddl_statement(drop)


@expr_handler(ast.NextValueFor)
def compile_next_value_for(c: Compiler, node: ast.NextValueFor) -> CExpr:
    """``NEXT VALUE FOR s`` outside a query: the engine hands out the value."""
    sql = f"SELECT NEXT VALUE FOR {object_text(node.name)}"

    def value(f: Frame) -> Any:
        f.session.check_writable()
        result = run_sql(f, sql, {})
        sets = list(getattr(result, "resultsets", []) or [])
        return sets[0].rows[0][0] if sets and sets[0].rows else None
    return CExpr(T.SQL_VARIANT, value)


# -- sp_sequence_get_range ----------------------------------------------------------------------
_RANGE_PARAMS = ("@sequence_name", "@range_size", "@range_first_value", "@range_last_value",
                 "@range_cycle_count", "@sequence_increment", "@sequence_min_value",
                 "@sequence_max_value")


def compile_sp_sequence_get_range(c: Compiler, node: ast.ExecProc) -> StmtFn:
    """``sp_sequence_get_range @sequence_name, @range_size, @range_first_value OUTPUT
    [, @range_last_value OUTPUT, @range_cycle_count OUTPUT, @sequence_increment OUTPUT,
    @sequence_min_value OUTPUT, @sequence_max_value OUTPUT]``."""
    inputs: dict[str, Callable[[Frame], Any]] = {}
    outputs: dict[str, Callable[[Frame, Any], None]] = {}
    for i, arg in enumerate(node.args):
        pname = (arg.name or (_RANGE_PARAMS[i] if i < len(_RANGE_PARAMS) else "")).lower()
        if pname not in _RANGE_PARAMS:
            raise c.bind_error(8145, node, arg.name or str(i + 1), "sp_sequence_get_range")
        if arg.value is None:
            continue
        if arg.output and isinstance(arg.value, ast.Variable):
            info = c.var(arg.value.name, arg)
            src = T.INT if pname == "@range_cycle_count" else T.BIGINT
            outputs[pname] = c.assigner(info, src)
        else:
            e = c.expr(arg.value)
            target = T.NVARCHAR_MAX if pname == "@sequence_name" else T.BIGINT
            inputs[pname] = coerce(e, target) if e.type != target else e.fn
    for needed in ("@sequence_name", "@range_size", "@range_first_value"):
        if needed not in inputs and needed not in outputs:
            raise c.bind_error(201, node, "sp_sequence_get_range", needed)
    ret = c.assigner(c.var(node.return_var, node), T.INT) if node.return_var else None

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        text = inputs["@sequence_name"](f) or ""
        size = inputs["@range_size"](f)
        schema, _, name = str(text).replace("[", "").replace("]", "").rpartition(".")
        obj = s.instance.catalog.find_object(s.conn, s.db_id, schema or None, name, {"SO"})
        if obj is None:
            raise tsql_error(208, text, cls=BindError)
        if size is None or size <= 0:
            raise tsql_error(11733, "@range_size")
        s.txn_for_statement().write()
        seqs = Sequences.get(s.conn.store)
        first, last, cycles = seqs.next_values(s.conn, obj.object_id, int(size))
        state = seqs.describe(s.conn, obj.object_id)
        values = {"@range_first_value": first, "@range_last_value": last,
                  "@range_cycle_count": cycles, "@sequence_increment": state["increment"],
                  "@sequence_min_value": state["minimum_value"],
                  "@sequence_max_value": state["maximum_value"]}
        for pname, store in outputs.items():
            store(f, values[pname])
        if ret is not None:
            ret(f, 0)
    return run


SYSTEM_PROCEDURES["sp_sequence_get_range"] = compile_sp_sequence_get_range
