"""The interpreter's side of calls from storage queries into T-SQL.

The engine never imports the interpreter; :func:`install` registers a
:class:`~tsqlbroker.engine.udf_bridge.UdfBridge` for the instance's store, through which a query
calls scalar user-defined functions (``SELECT dbo.f(a) FROM t``) and gets the values of
session-aware built-ins (``USER_NAME()``, ``@@SPID`` …) exactly as the interpreter computes
them for the calling session.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tsqlbroker.engine.udf_bridge import UdfInfo, UdfName, register_bridge
from tsqlbroker.errors import ExecutionError
from tsqlbroker.grammar import ast

from ..values import types as T
from ..values.variant_props import VariantSpec
from .authorize import catalog_viewer, endpoint_viewer, holds_server
from .compiler import Compiler, load_handlers
from .dml_stmts import drop_table_variables
from .frames import Frame
from .function_calls import GLOBALS, SPECIAL
from .procedures import call_scalar_function, call_table_function, resolve_module

if TYPE_CHECKING:
    from .instance_protocol import InstanceLike
    from .session import Session

# Compiled by the compiler itself with frame state (or SQL of the engine's own).
_NOT_SESSION_VALUES = frozenset({"iif", "coalesce", "isnull", "current_timestamp", "datepart",
                                 "scope_identity", "@@procid"})


class InstanceBridge:
    """A :class:`UdfBridge` running functions in the sessions of one instance."""

    def __init__(self, instance: InstanceLike) -> None:
        self._instance = weakref.ref(instance)
        self._names: frozenset[str] | None = None

    def _session(self, session_id: int) -> Session:
        inst = self._instance()
        session = inst.sessions.get(session_id) if inst is not None else None
        if session is None:
            raise ExecutionError(0, f"internal: session {session_id} is not running")
        return session  # type: ignore[no-any-return]

    def udf_info(self, session_id: int, name: UdfName) -> UdfInfo | None:
        """The scalar function ``name`` as the session resolves it (None: no such one)."""
        s = self._session(session_id)
        compiled = resolve_module(s, _object_name(name), {"FN"})
        # Every statement resolves its calls while it is bound, so the per-row calls of the
        # statement that runs next can use this without a catalog look-up each.
        resolved: dict[tuple[int, UdfName], Any] = s.extensions.setdefault("udf_resolved", {})
        resolved[(s.db_id, name)] = compiled  # by database: a function's body may switch it
        if compiled is None:
            return None
        ret = compiled.return_type
        return UdfInfo(ret.spec() if ret is not None else None, len(compiled.params))

    def call_udf(self, session_id: int, name: UdfName,
                 args: Sequence[tuple[Any, str | None]]) -> Any:
        """Run scalar UDF ``name`` in the session; its value (XML as text)."""
        s = self._session(session_id)
        types = [T.parse_type_spec(spec) if spec else T.NVARCHAR_MAX for _v, spec in args]
        values = [v for v, _spec in args]
        resolved = s.extensions.get("udf_resolved", {}).get((s.db_id, name))
        with _inside_statement(s):
            value = call_scalar_function(Frame(s, 0), _object_name(name), values, types,
                                         resolved)
        return value.to_string() if hasattr(value, "to_string") else value

    def call_table_function(self, session_id: int, name: UdfName,
                            args: Sequence[tuple[Any, str | None] | None]) -> Any:
        """Run multi-statement table-valued function ``name`` in the session: the
        ResultSet of its RETURNS table, or None when there is no such function. An argument
        None is DEFAULT."""
        s = self._session(session_id)
        typed = [None if a is None else
                 (a[0], T.parse_type_spec(a[1]) if a[1] else T.NVARCHAR_MAX) for a in args]
        with _inside_statement(s):
            return call_table_function(Frame(s, 0), _object_name(name), typed)

    def session_names(self) -> frozenset[str]:
        """The session-aware built-ins and ``@@`` variables the bridge evaluates."""
        if self._names is None:
            load_handlers()
            self._names = frozenset(set(SPECIAL) | set(GLOBALS)) - _NOT_SESSION_VALUES
        return self._names

    def session_value(self, session_id: int, name: str,
                      args: Sequence[tuple[Any, str | None]]) -> tuple[Any, str | None]:
        """Evaluate ``name(args…)`` (or ``@@name``) for the session: (value, type spec)."""
        s = self._session(session_id)
        node: ast.Expr
        if name.startswith("@@"):
            node = ast.GlobalVariable(name)
        else:
            node = ast.FunctionCall(ast.ObjectName(name),
                                    tuple(_argument(v, spec) for v, spec in args))
        compiled = Compiler().expr(node)
        # One level inside the running module (as a function it calls would be): an EXECUTE
        # AS made in that module is still in effect there.
        value = compiled.fn(Frame(s, 0, level=s.nestlevel + 1))
        spec = None if compiled.type == T.SQL_VARIANT else compiled.type.spec()
        return value, spec

    def viewer(self, session_id: int, db_id: int) -> frozenset[int] | None:
        """The principals the session views database ``db_id``'s catalog as (None: all)."""
        s = self._session(session_id)
        # As session_value: one level inside the running module, whose EXECUTE AS holds.
        return catalog_viewer(Frame(s, 0, level=s.nestlevel + 1), db_id)

    def holds_server(self, session_id: int, permission: str) -> bool:
        """Whether the session's context holds the server permission ``permission``."""
        s = self._session(session_id)
        return holds_server(Frame(s, 0, level=s.nestlevel + 1), permission)

    def endpoint_viewer(self, session_id: int) -> frozenset[int] | None:
        """The server principals the session views the endpoints as (None: all)."""
        s = self._session(session_id)
        return endpoint_viewer(Frame(s, 0, level=s.nestlevel + 1))


@contextlib.contextmanager
def _inside_statement(s: Session) -> Iterator[None]:
    """Run the function's statements inside the calling statement.

    They use the calling statement's transaction (each would otherwise commit that implicit
    transaction when it ends, and with it the savepoint the calling UPDATE still needs), so
    it is presented as the session's transaction for the call; and, as in SQL Server, the
    statements of a function send no row counts, and an error in one ends the calling
    statement. On SQLite the calling statement is still
    stepping, where DROP TABLE fails ("table is locked"): the function's table variables are
    dropped when that transaction ends."""
    outer_txn, outer_stmt, nocount = s.txn, s.stmt_txn, s.nocount
    if outer_txn is None and outer_stmt is not None:
        s.txn, s.stmt_txn = outer_stmt, None
    s.nocount = True
    # An error inside the function ends the calling statement (reported once, by it) rather
    # than being reported and the call yielding NULL: statement errors travel on as in TRY.
    s.try_depth += 1
    shadowed = s.__dict__.get("drop_scope_objects")
    txn = s.txn
    if s.conn.backend.python_functions and txn is not None:
        s.drop_scope_objects = _deferred_drops(s, txn)  # type: ignore[method-assign]
    try:
        yield
    finally:
        s.txn, s.stmt_txn, s.nocount = outer_txn, outer_stmt, nocount
        s.try_depth -= 1
        if shadowed is not None:
            s.drop_scope_objects = shadowed  # type: ignore[method-assign]
        else:
            s.__dict__.pop("drop_scope_objects", None)


def _deferred_drops(s: Session, txn: Any) -> Callable[[Frame], None]:
    """``Session.drop_scope_objects`` dropping table variables once ``txn`` has ended."""
    def drop_scope_objects(frame: Frame) -> None:
        frame.cursors.clear()
        if not frame.table_vars:
            return
        held = dict(frame.table_vars)
        frame.table_vars.clear()

        def drop(_committed: bool) -> None:
            later = Frame(s, 0)
            later.table_vars.update(held)
            drop_table_variables(s, later)
        txn.after_end(drop)
    return drop_scope_objects


def _object_name(name: UdfName) -> ast.ObjectName:
    database, schema, fn = name
    return ast.ObjectName(fn, schema, database)


def _argument(value: Any, spec: str | None) -> ast.Expr:
    """A constant argument: a sql_variant variable's value as a value of its base type
    (SQL_VARIANT_PROPERTY(@v, …) inside a query answers for it), else a literal."""
    if isinstance(spec, VariantSpec) and value is not None:
        return ast.Cast(_literal(value), _data_type(spec.typed.base))
    return _literal(value)


def _data_type(t: T.SqlType) -> ast.DataType:
    """``t`` as written in a CAST."""
    if t.length is not None:
        return ast.DataType(t.name, (t.length,))
    if t.name in ("decimal", "numeric"):
        return ast.DataType(t.name, (t.precision or 18, t.scale or 0))
    if t.name in ("time", "datetime2", "datetimeoffset") and t.scale is not None:
        return ast.DataType(t.name, (t.scale,))
    return ast.DataType(t.name)


def _literal(value: Any) -> ast.Literal:
    """A constant argument as the literal the interpreter would have parsed."""
    if value is None:
        return ast.Literal("null", None, "NULL")
    if isinstance(value, bool):
        return ast.Literal("int", int(value), str(int(value)))
    if isinstance(value, int):
        return ast.Literal("int", value, str(value))
    if isinstance(value, Decimal):
        return ast.Literal("decimal", value, str(value))
    if isinstance(value, float):
        return ast.Literal("float", value, repr(value))
    if isinstance(value, bytes):
        return ast.Literal("binary", value, "0x" + value.hex().upper())
    text = str(value).upper() if type(value).__name__ == "UUID" else str(value)
    return ast.Literal("nstring", text, "N'" + text.replace("'", "''") + "'")


def install(instance: InstanceLike) -> None:
    """Register the bridge for ``instance``'s store."""
    register_bridge(instance.store, InstanceBridge(instance))
