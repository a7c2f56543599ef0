"""User-defined table types: ``CREATE TYPE t AS TABLE (…)``, ``DECLARE @v t`` and table-valued
parameters (``@p t READONLY``).

A table type is kept in the catalog as an object of type TT whose definition is its column
list; a variable of the type is a table variable made from that list when its DECLARE runs.
A table-valued parameter is the caller's table variable itself, lent to the procedure for
the call (READONLY: the procedure reads it), or an empty one when the caller passes none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tsqlbroker.engine.securables import CLASSES
from tsqlbroker.engine.security import Security
from tsqlbroker.engine.usertypes import ALIAS, referencing_table, user_type_ids
from tsqlbroker.errors import MESSAGES, BindError, tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from .compiler import CExpr, Compiler, StmtFn, TableVarInfo, handler
from .dml_stmts import engine_dml, exec_context, table_columns_sql
from .statements import DECLARE_TYPED

TYPE_CLASS = CLASSES["TYPE"][0]

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session

MESSAGES.setdefault(218, (16, ("Could not find the type '%.*ls'. Either it does not exist or "
                               "you do not have the necessary permission.")))
MESSAGES.setdefault(219, (16, ("The type '%.*ls' already exists, or you do not have "
                               "permission to create it.")))
MESSAGES.setdefault(10700, (16, ('The table-valued parameter "%.*ls" is READONLY and cannot be '
                                 "modified.")))
MESSAGES.setdefault(352, (15, ('The table-valued parameter "%.*ls" must be declared with the '
                               "READONLY option.")))

TABLE = T.SqlType("table")


def _split(type_name: str) -> tuple[str | None, str]:
    schema, _, name = type_name.rpartition(".")
    return (schema or None), name


def type_columns(s: Session, type_name: str) -> str:
    """The column list of table type ``type_name`` (Msg 2715 when there is none)."""
    schema, name = _split(type_name)
    row = s.instance.catalog.find_object(s.conn, s.db_id, schema, name, {"TT"})
    if row is None or row.definition is None:
        raise tsql_error(2715, 1, type_name, cls=BindError)
    return row.definition


def make_table_variable(f: Frame, var_name: str, type_name: str) -> str:
    """A new, empty table variable ``var_name`` of table type ``type_name``: its physical name."""
    columns = type_columns(f.session, type_name)
    physical: str = engine_dml.declare_table_variable(exec_context(f), var_name, columns)
    return physical


def compile_declare_typed(c: Compiler, item: ast.VarDecl) -> StmtFn:
    """``DECLARE @v type`` where type is a user-defined table type."""
    key = item.name.lower()
    if key in c.scope.vars or key in c.scope.table_vars:
        raise c.bind_error(134, item, item.name)
    if item.default is not None:
        raise c.bind_error_text(item, "Cannot assign a default value to a local variable.", 139)
    c.scope.table_vars[key] = TableVarInfo(item.name, "")
    type_name, name = item.type.name, item.name

    def run(f: Frame) -> None:
        if key not in f.table_vars:
            f.table_vars[key] = make_table_variable(f, name, type_name)
    return run


def table_argument(c: Compiler, value: ast.Expr) -> CExpr | None:
    """An EXEC argument naming a table variable: its physical table at run time."""
    if not isinstance(value, ast.Variable):
        return None
    key = value.name.lower()
    if key in c.scope.vars or key not in c.scope.table_vars:
        return None
    return CExpr(TABLE, lambda f: f.table_vars.get(key))


@handler(ast.CreateTableType)
def compile_create_table_type(c: Compiler, node: ast.CreateTableType) -> StmtFn:
    columns = table_columns_sql(c, node)  # type: ignore[arg-type]  # slices "TABLE (…)" alike
    name = node.name
    shown = f"{name.schema}.{name.name}" if name.schema else name.name

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        s.txn_for_statement().write()
        if catalog.find_object(s.conn, s.db_id, name.schema, name.name,
                               {"TT", "AT"}) is not None:
            raise tsql_error(219, shown)
        catalog.create_object(s.conn, s.db_id, name.schema, name.name, "TT",
                              definition=columns)
        s.rowcount = 0
    return run


@handler(ast.DropType)
def compile_drop_type(c: Compiler, node: ast.DropType) -> StmtFn:
    name = node.name
    shown = f"{name.schema}.{name.name}" if name.schema else name.name
    if_exists = node.if_exists

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        row = catalog.find_object(s.conn, s.db_id, name.schema, name.name, {"TT", "AT"})
        if row is None:
            if if_exists:
                return
            raise tsql_error(218, shown)
        user = referencing_table(s.conn, s.db_id, row.object_id) if row.type == ALIAS else None
        if user is not None:
            raise tsql_error(3732, shown, user.name)
        s.txn_for_statement().write()
        if row.type == ALIAS:
            Security.get(s.conn.store).forget_securable(
                s.conn, s.db_id, TYPE_CLASS, user_type_ids(s.conn, s.db_id)[row.object_id])
        catalog.drop_object(s.conn, row.object_id)
        s.rowcount = 0
    return run


# DECLARE @t dbo.SomeTableType: statements.py (below this module) compiles DECLARE.
DECLARE_TYPED.compile = compile_declare_typed
