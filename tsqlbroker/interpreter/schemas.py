"""Schemas: ``CREATE SCHEMA`` (with its elements), ``ALTER SCHEMA … TRANSFER`` and
``DROP SCHEMA``.

A schema is a row of the catalog's schema table; objects name theirs by id, so a transfer
moves an object (and its constraints and indexes) by updating its catalog rows — the
backend tables stay where they are (their names derive from database and object ids).
CREATE SCHEMA is one statement: its elements run in its transaction, unqualified tables land
in the new schema, and a failing element undoes the whole of it, as SQL Server documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from tsqlbroker.engine import owners
from tsqlbroker.engine.security import Security
from tsqlbroker.errors import BindError, cannot, tsql_error
from tsqlbroker.grammar import ast

from .authorize import holds_here, holds_path, owner_named, require_database
from .compiler import HANDLERS, STATEMENT_EVENTS, Compiler, StmtFn, handler

if TYPE_CHECKING:
    from tsqlbroker.engine.catalog import ObjectRow

    from .frames import Frame
    from .session import Session

_CREATE_TABLE = re.compile(r"\s*CREATE\s+TABLE\s+", re.IGNORECASE)
# Object kinds ALTER SCHEMA … TRANSFER moves per class: TYPE:: names types (table types and
# alias types); OBJECT:: (the default) every other schema-scoped object.
TYPE_KINDS = frozenset({"TT", "AT"})


def ddl_statement(body: Callable[[Session], None]) -> StmtFn:
    """A DDL statement's runner: refused in a doomed transaction (Msg 3930), ``body`` does
    the work, ``@@ROWCOUNT`` is 0 after it."""
    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        body(s)
        s.rowcount = 0
    return run


def drop_objects(s: Session, names: tuple[ast.ObjectName, ...], types: set[str], label: str,
                 if_exists: bool, drop: Callable[[ObjectRow], None]) -> None:
    """``DROP <label> [IF EXISTS] name, …``: ``drop`` each object of ``types`` named (in its
    database), Msg 3701 for one that does not exist unless IF EXISTS."""
    for name in names:
        db_id = s.db_id
        if name.database:
            found = s.instance.catalog.database_id(s.conn, name.database)
            if found is None:
                raise tsql_error(911, name.database, cls=BindError)
            db_id = found
        row = s.instance.catalog.find_object(s.conn, db_id, name.schema, name.name, types)
        if row is None:
            if if_exists:
                continue
            shown = f"{name.schema}.{name.name}" if name.schema else name.name
            raise tsql_error(3701, label, shown, cls=BindError)
        s.txn_for_statement().write()
        drop(row)


def bracketed(name: str) -> str:
    """``name`` as a bracket-quoted T-SQL identifier."""
    return "[" + name.replace("]", "]]") + "]"


def _in_schema(node: ast.Stmt, schema: str, tables: frozenset[str]) -> ast.Stmt:
    """A schema element as it runs: an unqualified CREATE TABLE names the new schema, and so
    does a GRANT / DENY / REVOKE on an unqualified name of a table the statement creates
    (``tables``, lower-case)."""
    if isinstance(node, ast.PermissionStatement):
        sc = node.securable
        if sc is None or (sc.object_class or "OBJECT") != "OBJECT" or sc.name.schema \
                or sc.name.database or sc.name.name.lower() not in tables:
            return node
        return replace(node, securable=replace(sc, name=replace(sc.name, schema=schema)))
    if not isinstance(node, ast.CreateTable) or node.name.schema or node.name.database:
        return node
    m = _CREATE_TABLE.match(node.sql)
    if m is None:
        return node
    sql = node.sql[:m.end()] + bracketed(schema) + "." + node.sql[m.end():]
    return replace(node, name=replace(node.name, schema=schema), sql=sql)


def _element(c: Compiler, node: ast.Stmt) -> StmtFn:
    """A schema element compiled by its handler, sending its DDL events (CREATE_TABLE,
    GRANT_DATABASE …) as the statement would on its own."""
    fn = HANDLERS[type(node)](c, node)
    raising = STATEMENT_EVENTS.get(type(node))
    if raising is None:
        return fn
    span = node.span
    return raising(node, fn, c.text[span.start_pos:span.end_pos].strip()
                   if span is not None and c.text else "")


@handler(ast.CreateSchema)
def compile_create_schema(c: Compiler, node: ast.CreateSchema) -> StmtFn:
    # The elements are parts of this one statement (one transaction), not statements of
    # their own: compiled by their handlers without the per-statement wrapper. SQL Server
    # creates them together, so a GRANT may name a table written after it: the tables are
    # created first, then the permission statements in their written order.
    tables = frozenset(e.name.name.lower() for e in node.elements
                       if isinstance(e, ast.CreateTable) and not e.name.schema
                       and not e.name.database)
    ordered = sorted(node.elements, key=lambda e: isinstance(e, ast.PermissionStatement))
    elements = [_element(c, _in_schema(e, node.name, tables)) for e in ordered]
    name, owner = node.name, node.owner

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        conn = s.conn
        require_database(f, "CREATE SCHEMA")
        owner_id = owner_named(f, owner)
        s.txn_for_statement().write()
        schema_id = s.instance.catalog.create_schema(conn, s.db_id, name)
        if owner_id is not None and owner_id != owners.DBO:
            owners.set_owner(Security.get(conn.store), conn, s.db_id, owners.SCHEMA,
                             schema_id, owner_id)
        for element_fn in elements:
            element_fn(f)
        s.rowcount = 0
    return run


@handler(ast.AlterSchemaTransfer)
def compile_alter_schema(c: Compiler, node: ast.AlterSchemaTransfer) -> StmtFn:
    target = node.name
    klass = (node.object_class or "OBJECT").upper()
    if klass not in ("OBJECT", "TYPE"):
        raise c.bind_error(15151, node, klass.lower(), target.name)
    shown = f"{target.schema}.{target.name}" if target.schema else target.name

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        row = catalog.find_object(s.conn, s.db_id, target.schema, target.name)
        wrong_class = row is not None and (row.type in TYPE_KINDS) != (klass == "TYPE")
        if row is None or wrong_class or row.parent_object_id or row.session_id is not None:
            raise tsql_error(15151, klass.lower(), shown, cls=BindError)
        s.txn_for_statement().write()
        catalog.transfer_object(s.conn, row.object_id, node.schema)
        s.rowcount = 0
    return run


@handler(ast.DropSchema)
def compile_drop_schema(c: Compiler, node: ast.DropSchema) -> StmtFn:
    """DROP SCHEMA: CONTROL on the schema (its owner holds it) or ALTER ANY SCHEMA, else
    Msg 15151 *Cannot drop the schema …* (a missing one is Msg 3701)."""
    name, if_exists = node.name, node.if_exists

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        schema_id = s.instance.catalog.schema_id(s.conn, s.db_id, name)
        if schema_id is not None and not (
                holds_path(f, "CONTROL", [(owners.SCHEMA, schema_id), (0, 0)])
                or holds_here(f, "ALTER ANY SCHEMA")):
            raise cannot("drop", "schema", name)
        s.txn_for_statement().write()
        if not Security.get(s.conn.store).drop_schema(s.conn, s.db_id, name):
            if not if_exists:
                raise tsql_error(3701, "schema", name, cls=BindError)
            return
        s.rowcount = 0
    return run
