"""``sys.parameters``: the parameters of the procedures and functions of a database.

The catalog keeps a module's text, not its parameters, so the rows come from parsing each
module's definition — which needs the grammar, so the view is registered here (as the
session DMVs are, interpreter/activity.py) rather than among the engine's catalog views.
Types are described as ``sys.columns`` describes them (``sysviews.type_facts``); metadata
visibility as for ``sys.objects``. T-SQL modules keep no default values in this view
(``has_default_value`` 0, ``default_value`` NULL), as documented.
"""

from __future__ import annotations

from typing import Any

from tsqlbroker.engine.catalog import Catalog
from tsqlbroker.engine.context import ExecContext, VirtualTable, register_virtual_table
from tsqlbroker.engine.literal_rows import literal_rows
from tsqlbroker.engine.sysviews import type_facts
from tsqlbroker.engine.typeids import type_id
from tsqlbroker.engine.usertypes import alias_type
from tsqlbroker.engine.visibility import object_visible
from tsqlbroker.errors import TSqlError, tsql_error
from tsqlbroker.grammar import ast, parse

from .ast_types import is_builtin, type_from_ast

_COLUMNS: list[tuple[str, str | None]] = [
    ("object_id", "int"), ("name", "sysname"), ("parameter_id", "int"),
    ("system_type_id", "tinyint"), ("user_type_id", "int"), ("max_length", "smallint"),
    ("precision", "tinyint"), ("scale", "tinyint"), ("is_output", "bit"),
    ("is_cursor_ref", "bit"), ("has_default_value", "bit"), ("is_xml_document", "bit"),
    ("default_value", "sql_variant"), ("xml_collection_id", "int"), ("is_readonly", "bit"),
    ("is_nullable", "bit")]
_MODULE_TYPES = {"P", "FN", "IF", "TF"}
_TABLE_TYPE_ID = 243  # system_type_id of a table-valued parameter


def _type_facts(ctx: ExecContext, db_id: int, dt: ast.DataType
                ) -> tuple[int, int | None, int, int, int]:
    """(system_type_id, user_type_id, max_length, precision, scale) of a parameter type."""
    alias = alias_type(ctx.conn, db_id, dt.name)
    if alias is None and is_builtin(dt):
        _name, system_id, max_length, precision, scale, _chars = type_facts(
            type_from_ast(dt, "declare").spec())
        return system_id, system_id, max_length, precision, scale
    user_id = type_id(ctx.conn, ctx.session_id, db_id, dt.name)
    if alias is None:  # a table type (READONLY)
        return _TABLE_TYPE_ID, user_id, -1, 0, 0
    _name, system_id, max_length, precision, scale, _chars = type_facts(alias[0])
    return system_id, user_id, max_length, precision, scale


def _definition(text: str | None) -> ast.CreateProcedure | ast.CreateFunction | None:
    if not text:
        return None
    try:
        script = parse(text)
    except TSqlError:
        return None
    for batch in script.batches:
        for stmt in batch.statements:
            if isinstance(stmt, (ast.CreateProcedure, ast.CreateFunction)):
                return stmt
    return None


def _row(object_id: int, name: str, number: int, facts: tuple[int, int | None, int, int, int],
         output: bool, readonly: bool) -> tuple[Any, ...]:
    system_id, user_id, max_length, precision, scale = facts
    return (object_id, name, number, system_id, user_id, max_length, precision, scale, output,
            False, False, False, None, 0, readonly, True)


def parameter_rows(ctx: ExecContext, db_id: int) -> list[tuple[Any, ...]]:
    """The rows of ``sys.parameters`` for database ``db_id`` as the session sees them: a
    scalar function's return value is parameter 0 (no name, an output)."""
    rows = []
    for obj in Catalog.get(ctx.conn.store).objects(ctx.conn, db_id, _MODULE_TYPES):
        if not object_visible(ctx.conn, ctx.session_id, obj):
            continue
        node = _definition(obj.definition)
        if node is None:
            continue
        if isinstance(node, ast.CreateFunction) and obj.type.strip() == "FN":
            rows.append(_row(obj.object_id, "", 0, _type_facts(ctx, db_id, node.returns),
                             True, False))
        for number, p in enumerate(node.params, start=1):
            rows.append(_row(obj.object_id, p.name, number, _type_facts(ctx, db_id, p.type),
                             p.output, p.readonly))
    return rows


def _resolve(ctx: ExecContext, database: str | None, schema: str | None, name: str
             ) -> VirtualTable | None:
    if schema is None or schema.lower() != "sys" or name.lower() != "parameters":
        return None
    db_id = ctx.db_id if database is None else \
        Catalog.get(ctx.conn.store).database_id(ctx.conn, database)
    if db_id is None:
        return None
    return VirtualTable(literal_rows(_COLUMNS, parameter_rows(ctx, db_id), ctx.conn.backend),
                        _COLUMNS, refuse_error=tsql_error(259))


def install(store: Any) -> None:
    """Register ``sys.parameters`` for ``store``."""
    register_virtual_table(store, _resolve)
