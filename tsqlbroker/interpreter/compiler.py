"""AST → Python closures, compiled once per batch or procedure body.

Every statement compiles to ``fn(frame) -> None`` and every expression to a :class:`CExpr`
(static type + ``fn(frame) -> value``). Handlers are registered per AST node type with
:func:`handler` / :func:`expr_handler` (dispatch tables, one handler per node class); the
statement families live in their own modules (``statements``, ``control``, ``dml_stmts``,
``procedures``, ``cursors``, ``dynamic`` … and the lead's ``broker_stmts``), imported by
:func:`load_handlers`.

The compiler wraps each statement in one small closure that does the per-statement
bookkeeping SQL Server does (``@@ERROR`` reset, committing the implicit transaction of a
statement that touched storage, turning an error into "report and go on" or "propagate").
Statements that never touch storage (SET, IF, WHILE, PRINT) never open a transaction.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from tsqlbroker.errors import BindError, ExecutionError, TSqlError, tsql_error
from tsqlbroker.grammar import ast
from tsqlbroker.storage.failures import storage_error

from ..values import types as T
from ..values.convert import conversion_for_assignment
from ..values.variant_props import TypedVariant, base_type_of, typed_variant, variant_base_type

if TYPE_CHECKING:
    from .frames import Frame

StmtFn = Callable[["Frame"], None]
EvalFn = Callable[["Frame"], Any]
# The base type of a sql_variant expression's value, given the frame and the value (not NULL).
BaseFn = Callable[["Frame", Any], T.SqlType]


# --------------------------------------------------------------------------------------------
# Control-flow signals: not errors, so TRY…CATCH never sees them.
# --------------------------------------------------------------------------------------------
class Signal(Exception):
    """Base of the non-error control transfers."""


class BreakSignal(Signal):
    """BREAK: leave the innermost WHILE."""


class ContinueSignal(Signal):
    """CONTINUE: next iteration of the innermost WHILE."""


class ReturnSignal(Signal):
    """RETURN [status]: leave the batch or procedure."""

    def __init__(self, value: int | None = None) -> None:
        super().__init__(value)
        self.value = value


class GotoSignal(Signal):
    """GOTO label: caught by the statement list that holds the label."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.label = label


# The states SQL Server reports for some compile-time errors.
_BIND_STATES = {137: 2, 134: 1, 133: 1, 444: 2}

BREAK = BreakSignal()
CONTINUE = ContinueSignal()


# --------------------------------------------------------------------------------------------
# Compiled expressions and scopes
# --------------------------------------------------------------------------------------------
@dataclass
class CExpr:
    """A compiled expression: its static T-SQL type and an evaluator over a frame.

    ``const`` marks expressions whose value is known at compile time (``value``); callers
    use it to specialise (``@i < 1000000`` compares against a Python int constant)."""

    type: T.SqlType
    fn: EvalFn
    const: bool = False
    value: Any = None
    # A predicate yields True / False / None (UNKNOWN) rather than a T-SQL value.
    predicate: bool = False
    # A sql_variant that knows its value's base type (a variable, CAST(… AS sql_variant)).
    base: BaseFn | None = None


def const_expr(t: T.SqlType, value: Any) -> CExpr:
    """A compile-time constant."""
    return CExpr(t, lambda _f, _v=value: _v, True, value)


@dataclass
class VarInfo:
    """A declared variable or parameter: its frame slot and declared type."""

    name: str
    slot: int
    type: T.SqlType
    output: bool = False
    readonly: bool = False
    # A sql_variant's typed slot: the value with its base type (values/variant_props.py).
    type_slot: int | None = None

    def base_fn(self) -> BaseFn | None:
        """The base type of this sql_variant variable's value, None for another type."""
        tslot = self.type_slot
        if tslot is None:
            return None

        def base(f: Frame, value: Any) -> T.SqlType:
            return base_type_of(f.v[tslot], value)
        return base


@dataclass
class TableVarInfo:
    """A declared table variable (``DECLARE @t TABLE (…)``)."""

    name: str
    columns_sql: str
    readonly: bool = False  # a table-valued parameter (Msg 10700 when a statement writes it)


@dataclass
class Scope:
    """Compile-time names of one batch / procedure body: variables by lower-case name."""

    vars: dict[str, VarInfo] = field(default_factory=dict)
    table_vars: dict[str, TableVarInfo] = field(default_factory=dict)
    nslots: int = 0

    def add(self, name: str, t: T.SqlType, **kw: Any) -> VarInfo:
        info = VarInfo(name, self.nslots, t, **kw)
        self.vars[name.lower()] = info
        self.nslots += 1
        if t == T.SQL_VARIANT:
            info.type_slot = self.nslots
            self.nslots += 1
        return info


# --------------------------------------------------------------------------------------------
# Handler registry
# --------------------------------------------------------------------------------------------
StmtHandler = Callable[["Compiler", Any], StmtFn]
ExprHandler = Callable[["Compiler", Any], CExpr]

HANDLERS: dict[type, StmtHandler] = {}
# Statements whose closures manage @@ERROR themselves (compound statements: IF, WHILE …).
COMPOUND: set[type] = set()
# Statements whose closures do all their bookkeeping themselves (hot paths: SET, IF, WHILE,
# BEGIN…END); a handler may also return a closure marked with :func:`self_wrapped`.
SELF_WRAPPED: set[type] = set()
EXPR_HANDLERS: dict[type, ExprHandler] = {}
# Statements that raise events (DDL events for event notifications): ``wrap(node, fn,
# statement text) -> fn`` around the compiled closure (``ddl_events.py`` registers them).
STATEMENT_EVENTS: dict[type, Callable[[Any, StmtFn, str], StmtFn]] = {}
# Two statements that run better together when one directly follows the other in a
# statement list (no label between): ``join(first, second) -> fn`` over their compiled
# closures, keyed by their node types (``transactions.py``: SEND then COMMIT).
PAIRS: dict[tuple[type, type], Callable[[StmtFn, StmtFn], StmtFn]] = {}


def handler(node_type: type, *, compound: bool = False) -> Callable[[StmtHandler], StmtHandler]:
    """Register ``compile_x(c: Compiler, node) -> fn(frame)`` for statements of ``node_type``.

    The returned closure raises :class:`TSqlError` on failure and may call
    ``frame.session.txn_for_statement()`` for storage work; the compiler wraps it with the
    per-statement bookkeeping. ``compound`` statements (containing other statements) are
    wrapped without the ``@@ERROR`` reset: their inner statements do their own."""

    def deco(fn: StmtHandler) -> StmtHandler:
        if node_type in HANDLERS and HANDLERS[node_type] is not fn:
            raise RuntimeError(f"two handlers for {node_type.__name__}")
        HANDLERS[node_type] = fn
        if compound:
            COMPOUND.add(node_type)
        return fn

    return deco


def self_wrapped(fn: StmtFn) -> StmtFn:
    """Mark a statement closure that does its own error handling and bookkeeping (it calls
    ``session.statement_error`` itself), so the compiler does not wrap it again."""
    fn.self_wrapped = True  # type: ignore[attr-defined]
    return fn


def expr_handler(node_type: type) -> Callable[[ExprHandler], ExprHandler]:
    """Register ``compile_x(c: Compiler, node) -> CExpr`` for expressions of ``node_type``."""

    def deco(fn: ExprHandler) -> ExprHandler:
        EXPR_HANDLERS[node_type] = fn
        return fn

    return deco


_loaded = False
_load_lock = threading.RLock()


def load_handlers() -> None:
    """Import every module that registers handlers (once, thread-safe: sessions of one
    instance compile on several threads, and none may see a half-filled table)."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        for mod in HANDLER_MODULES:
            try:
                importlib.import_module(f"tsqlbroker.interpreter.{mod}")
            except ModuleNotFoundError as exc:  # a family not written yet
                if exc.name != f"tsqlbroker.interpreter.{mod}":
                    raise
        _loaded = True


# The modules that register statement / expression handlers.
HANDLER_MODULES = ("expressions", "statements", "control", "transactions", "dml_stmts",
                   "procedures", "dynamic", "cursors", "function_calls", "broker_stmts",
                   "security_stmts", "tabletypes", "activity", "schemas", "sequences",
                   "aliastypes", "triggers", "approles", "ddl_events", "ownership")


def missing_handlers() -> list[str]:
    """Names of the ``ast.Stmt`` subclasses that no handler compiles."""
    load_handlers()
    out = []
    for name in dir(ast):
        obj = getattr(ast, name)
        if isinstance(obj, type) and issubclass(obj, ast.Stmt) and obj is not ast.Stmt \
                and obj not in HANDLERS:
            out.append(name)
    return out


# --------------------------------------------------------------------------------------------
# The compiler
# --------------------------------------------------------------------------------------------
class Compiler:
    """Compiles the statements of one batch or procedure body.

    ``text`` is the source the node spans point into (``Batch.text``), used to slice the SQL
    of subqueries; ``proc_name`` is set when compiling a procedure body."""

    def __init__(self, text: str = "", *, proc_name: str | None = None,
                 scope: Scope | None = None, kind: str = "batch") -> None:
        load_handlers()
        self.text = text
        self.proc_name = proc_name
        self.scope = scope or Scope()
        self.kind = kind  # batch | procedure | function | dynamic
        self.labels: set[str] = set()
        # WITH XMLNAMESPACES in effect for the statement being compiled: prefix -> uri.
        self.xmlns: dict[str, str] = {}
        self.loop_depth = 0
        # The return type of the scalar function being compiled (RETURN expr converts to it).
        self.return_type: T.SqlType | None = None
        # The line of the statement being compiled (compile errors of unspanned nodes).
        self.current_line = 1
        # The statement being compiled and how far its text has been scanned for subqueries
        # (expression nodes may carry no span: see :meth:`subquery_text`).
        self.current_stmt: ast.Stmt | None = None
        self.scan_pos = 0

    # -- source positions -------------------------------------------------------------------
    def line(self, node: ast.Node | None) -> int:
        """The file line of ``node`` (1 if unknown)."""
        span = getattr(node, "span", None)
        return span.line if span is not None else 1

    def source(self, node: ast.Node) -> str:
        """The source text of ``node`` sliced from the batch text by its span offsets."""
        span = node.span
        if span is None or span.end_pos <= span.start_pos or not self.text:
            raise ExecutionError(0, "internal: no source text for a subquery")
        return self.text[span.start_pos:span.end_pos]

    def subquery_text(self, node: ast.Node) -> str:
        """The text of a subquery ``(SELECT …)`` without its outer parentheses.

        Uses the node's span when the parser gave it one; otherwise the next parenthesised
        ``SELECT`` in the current statement's text (subqueries are compiled in text order)."""
        if node.span is not None and node.span.end_pos > node.span.start_pos and self.text:
            text = self.text[node.span.start_pos:node.span.end_pos].strip()
            # "((SELECT 1) UNION (SELECT 2))" loses its outer pair only, not the operands'.
            while text.startswith("(") and _past_closing_paren(text, 0, len(text)) == len(text):
                text = text[1:-1].strip()
            return text
        stmt = self.current_stmt
        end = stmt.span.end_pos if stmt is not None and stmt.span is not None else len(
            self.text)
        found = find_subquery(self.text, self.scan_pos, end)
        if found is None:
            raise ExecutionError(0, "internal: no source text for a subquery")
        start, stop = found
        self.scan_pos = stop
        return self.text[start + 1:stop - 1].strip()

    # -- variables ----------------------------------------------------------------------------
    def declare(self, name: str, t: T.SqlType, node: ast.Node | None = None, **kw: Any
                ) -> VarInfo:
        """Declare ``name`` in this scope (Msg 134 if it exists)."""
        key = name.lower()
        if key in self.scope.vars or key in self.scope.table_vars:
            raise self.bind_error(134, node, name)
        return self.scope.add(name, t, **kw)

    def var(self, name: str, node: ast.Node | None = None) -> VarInfo:
        """The declared variable ``name`` (Msg 137 at compile time if undeclared)."""
        info = self.scope.vars.get(name.lower())
        if info is None:
            raise self.bind_error(137, node, name)
        return info

    def bind_error(self, number: int, node: ast.Node | None, *args: Any) -> TSqlError:
        """A compile-time error located at ``node``."""
        err = tsql_error(number, *args, cls=BindError, span=getattr(node, "span", None),
                         state=_BIND_STATES.get(number, 1))
        err.procedure = self.proc_name
        if err.line is None:
            err.line = self.current_line
        return err

    def assigner(self, info: VarInfo, src: T.SqlType) -> Callable[[Frame, Any], None]:
        """``store(frame, value)`` converting a ``src``-typed value to the variable's type."""
        slot, tslot = info.slot, info.type_slot
        conv = conversion_for_assignment(src, info.type)
        if tslot is not None:
            def store_typed(f: Frame, value: Any) -> None:
                f.v[tslot] = typed_variant(src, value)
                f.v[slot] = value
            return store_typed
        if conv is None:
            def store(f: Frame, value: Any) -> None:
                f.v[slot] = value
        else:
            def store(f: Frame, value: Any) -> None:
                f.v[slot] = None if value is None else conv(value)
        return store

    @staticmethod
    def typed(info: VarInfo, e: CExpr, fn: EvalFn) -> EvalFn:
        """``fn`` (``e`` converted for ``info``) also writing the base type of the value into
        a sql_variant variable's typed slot; ``fn`` itself for another type."""
        tslot = info.type_slot
        if tslot is None:
            return fn
        base, src = e.base, e.type
        if base is None and src.name != "null":
            variant_base_type(src, None)  # Msg 206 for a type a sql_variant cannot hold

        def typed_value(f: Frame) -> Any:
            v = fn(f)
            if v is None:
                f.v[tslot] = None
            elif base is not None:
                f.v[tslot] = TypedVariant(v, base(f, v))
            else:
                f.v[tslot] = typed_variant(src, v)
            return v
        return typed_value

    # -- statements ---------------------------------------------------------------------------
    def stmt(self, node: ast.Stmt) -> StmtFn:
        """Compile one statement, wrapped with SQL Server's per-statement bookkeeping."""
        h = HANDLERS.get(type(node))
        if h is None:
            raise self.bind_error_text(node, f"The statement {type(node).__name__} is not "
                                             "supported.")
        line = self.line(node)
        outer = (self.current_line, self.current_stmt, self.scan_pos)
        self.current_line = line
        self.current_stmt = node
        self.scan_pos = node.span.start_pos if node.span is not None else 0
        try:
            fn = h(self, node)
        except TSqlError as e:
            if e.line is None:  # raised by a value-library check (a type's size …)
                e.line = line
            raise
        finally:
            self.current_line, self.current_stmt, self.scan_pos = outer
        if getattr(fn, "self_wrapped", False):
            return fn
        raising = STATEMENT_EVENTS.get(type(node))
        if raising is not None:
            span = node.span
            fn = raising(node, fn, self.text[span.start_pos:span.end_pos].strip()
                         if span is not None and self.text else "")
        return wrap_statement(fn, line, type(node) in COMPOUND, command_of(node))

    def bind_error_text(self, node: ast.Node | None, text: str, number: int = 40000
                        ) -> TSqlError:
        err = BindError(number, text, severity=16, span=getattr(node, "span", None))
        err.procedure = self.proc_name
        if err.line is None:
            err.line = self.current_line
        return err

    def block(self, nodes: tuple[ast.Stmt, ...] | list[ast.Stmt]) -> StmtFn:
        """Compile a statement list; it resolves GOTOs to labels it holds itself."""
        compiled: list[StmtFn] = []
        labels: dict[str, int] = {}
        previous: type | None = None
        for node in nodes:
            if isinstance(node, ast.Label):
                labels[node.name.lower()] = len(compiled)
                previous = None
                continue
            fn = self.stmt(node)
            join = PAIRS.get((previous, type(node))) if previous is not None else None
            if join is not None:
                compiled[-1] = join(compiled[-1], fn)
                previous = None
            else:
                compiled.append(fn)
                previous = type(node)
        return make_block(compiled, labels)

    def expr(self, node: ast.Expr) -> CExpr:
        """Compile an expression."""
        h = EXPR_HANDLERS.get(type(node))
        if h is None:
            raise self.bind_error_text(node, f"The expression {type(node).__name__} is not "
                                             "supported here.")
        return h(self, node)

    def predicate(self, node: ast.Expr) -> EvalFn:
        """Compile a search condition to ``fn(frame) -> True | False | None``; Msg 4145
        when ``node`` is not a boolean expression."""
        e = self.expr(node)
        if not e.predicate:
            raise self.bind_error(4145, node, self._last_word(node))
        return e.fn

    def _last_word(self, node: ast.Node) -> str:
        """The last word of ``node``'s source: where Msg 4145 says the condition ends."""
        try:
            text = self.source(node).split()
            return text[-1] if text else ""
        except TSqlError:
            return ""


def make_block(compiled: list[StmtFn], labels: dict[str, int]) -> StmtFn:
    """The runner of a statement list (with GOTO targets ``labels``: name -> index)."""
    n = len(compiled)
    if not labels:
        if n == 1:
            return compiled[0]
        stmts = tuple(compiled)

        def run_block(f: Frame) -> None:
            for st in stmts:
                st(f)
        return run_block

    def run_labelled(f: Frame) -> None:
        i = 0
        while i < n:
            try:
                while i < n:
                    compiled[i](f)
                    i += 1
            except GotoSignal as g:
                target = labels.get(g.label)
                if target is None:
                    raise
                f.session.check_cancel()
                i = target
    return run_labelled


_COMMANDS = {"SelectStmt": "SELECT", "ExecProc": "EXECUTE", "ExecDynamic": "EXECUTE",
             "Waitfor": "WAITFOR", "WaitforDelay": "WAITFOR", "Receive": "RECEIVE",
             "GetConversationGroup": "GET CONVERSATION GROUP", "Send": "SEND",
             "Raiserror": "RAISERROR", "SetOption": "SET OPTION ON",
             # Control flow: the statements inside show theirs.
             "If": "", "While": "", "Block": "", "TryCatch": ""}
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def command_of(node: ast.Stmt) -> str:
    """What sp_who's ``cmd`` and sys.dm_exec_requests' ``command`` show while ``node`` runs
    (SQL Server's words where it has them: SELECT, EXECUTE, WAITFOR, CREATE TABLE …);
    empty for control flow."""
    name = type(node).__name__
    found = _COMMANDS.get(name)
    return found if found is not None else _CAMEL.sub(" ", name).upper()[:32]


def wrap_statement(fn: StmtFn, line: int, compound: bool,
                   command: str = "AWAITING COMMAND") -> StmtFn:
    """Per-statement bookkeeping around a compiled statement.

    On success a simple statement clears ``@@ERROR`` and commits the implicit transaction it
    opened (if it touched storage); an error goes to :meth:`Session.statement_error`, which
    reports it and lets the batch go on, or re-raises it (TRY, batch or scope abortion).
    The session shows ``command`` while it runs; ``SET STATISTICS`` reports follow it."""
    if compound:
        def run_compound(f: Frame) -> None:
            try:
                if command:
                    f.session.command = command
                fn(f)
            except TSqlError as e:
                f.session.statement_error(e, f, line)
            except (Signal, KeyboardInterrupt):
                raise
            except Exception as e:  # noqa: BLE001 - a bug must not become a traceback
                f.session.statement_error(internal_error(e), f, line)
        return run_compound

    def run(f: Frame) -> None:
        try:
            s = f.session
            if s._cancel:
                s.check_cancel()
            s.command = command
            fn(f)
            if s.stmt_txn is not None:
                s.end_statement()
            if s.statistics is not None:
                s.statistics.statement_done(s)
        except TSqlError as e:
            f.session.statement_error(e, f, line)
        except Signal:
            s = f.session
            if s.stmt_txn is not None:
                s.end_statement()
            raise
        except KeyboardInterrupt:
            f.session.rollback_statement()  # an interrupted statement commits nothing
            raise
        except Exception as e:  # noqa: BLE001 - a bug must not become a traceback
            f.session.statement_error(internal_error(e), f, line)
        else:
            s.error = 0
    return run


_SUBQUERY_START = re.compile(r"\(\s*(?:SELECT|WITH)\b", re.IGNORECASE)


def find_subquery(text: str, pos: int, end: int) -> tuple[int, int] | None:
    """``(start, stop)`` of the next ``( SELECT … )`` in ``text[pos:end]`` (stop past the
    closing parenthesis), skipping string literals, quoted names and comments."""
    i = pos
    while i < end:
        ch = text[i]
        if ch in "'\"[":
            i = _skip_quoted(text, i)
            continue
        if text.startswith("--", i):
            nl = text.find("\n", i)
            i = end if nl == -1 else nl + 1
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = end if close == -1 else close + 2
            continue
        if ch == "(" and _SUBQUERY_START.match(text, i):
            stop = _past_closing_paren(text, i, end)
            return None if stop is None else (i, stop)
        i += 1
    return None


def _past_closing_paren(text: str, i: int, end: int) -> int | None:
    """The position past the ``)`` that closes the ``(`` at ``text[i]`` (before ``end``),
    skipping string literals and quoted names."""
    depth = 0
    j = i
    while j < end:
        cj = text[j]
        if cj in "'\"[":
            j = _skip_quoted(text, j)
            continue
        if cj == "(":
            depth += 1
        elif cj == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


def _skip_quoted(text: str, i: int) -> int:
    close = {"'": "'", '"': '"', "[": "]"}[text[i]]
    j = i + 1
    while j < len(text):
        if text[j] == close:
            if j + 1 < len(text) and text[j + 1] == close:
                j += 2
                continue
            return j + 1
        j += 1
    return j


def internal_error(exc: BaseException) -> TSqlError:
    """An exception that is not a TSqlError, reported as an error instead of a traceback: a
    storage failure as the error SQL Server gives for it (a deadlock victim is Msg 1205), a
    statement nested deeper than Python's recursion allows as Msg 191, anything else — a
    bug — as Msg 3624."""
    if isinstance(exc, RecursionError):
        return tsql_error(191)
    mapped = storage_error(exc)
    if mapped is not None:
        return mapped
    return ExecutionError(3624, f"A system assertion check has failed: "
                                f"{type(exc).__name__}: {exc}", severity=16)


def touches_storage(node: Any) -> bool:
    """Whether an expression / statement may read storage (subqueries, user functions,
    session functions that query the catalog): such statements keep the generic wrapper,
    which ends the implicit transaction."""
    for n in walk(node):
        if isinstance(n, (ast.Subquery, ast.Exists, ast.InSubquery)):
            return True
        if isinstance(n, ast.FunctionCall):
            if n.name.schema is not None or n.name.database is not None:
                return True
            if n.name.name.lower() in _STORAGE_FUNCTIONS:
                return True
    return False


_STORAGE_FUNCTIONS = frozenset({"db_id", "db_name", "object_id", "object_name",
                                "object_schema_name", "schema_name", "schema_id", "type_id",
                                "objectproperty", "objectpropertyex", "col_length",
                                "columnproperty",
                                "type_name"})


def walk(node: Any) -> Iterator[Any]:
    """Every AST node under ``node`` (itself included), depth first."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (list, tuple)):
            stack.extend(reversed(cur))
            continue
        if not is_dataclass(cur):
            continue
        yield cur
        for fl in fields(cur):
            if fl.name == "span":
                continue
            val = getattr(cur, fl.name)
            if isinstance(val, (list, tuple)) or is_dataclass(val):
                stack.append(val)


def variables_in(node: Any) -> list[str]:
    """The ``@variable`` names referenced under ``node`` (first-seen order, unique)."""
    seen: dict[str, str] = {}
    for n in walk(node):
        if isinstance(n, (ast.Variable, ast.TableVariableRef)):
            seen.setdefault(n.name.lower(), n.name)
        elif isinstance(n, ast.SelectItem) and n.assign_to:
            seen.setdefault(n.assign_to.lower(), n.assign_to)
        elif isinstance(n, ast.Assignment) and n.also_variable:
            seen.setdefault(n.also_variable.lower(), n.also_variable)
    return list(seen.values())
