"""Alias types and synonyms in the interpreter: ``CREATE TYPE name FROM base_type [NULL |
NOT NULL]``, the resolver that gives variables, parameters and CAST targets of such a type its
base type (``types.ALIAS_TYPES``, bound for each request of a session by
:func:`bind_alias_types`), and ``CREATE / DROP SYNONYM``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tsqlbroker.engine.synonyms import SYNONYM, create_synonym
from tsqlbroker.engine.usertypes import alias_type, create_alias_type
from tsqlbroker.errors import BindError, TSqlError, tsql_error
from tsqlbroker.grammar import ast

from . import types as T
from .compiler import Compiler, StmtFn, handler

if TYPE_CHECKING:
    from .frames import Frame
    from .session import Session


@contextmanager
def bind_alias_types(session: Session) -> Iterator[None]:
    """While the block runs, type names that are no system type resolve to the alias
    types of ``session``'s current database."""
    def resolve(name: str) -> T.SqlType | None:
        try:
            found = alias_type(session.conn, session.db_id, name)
        except TSqlError:
            return None
        return None if found is None else T.parse_type_spec(found[0])
    token = T.ALIAS_TYPES.set(resolve)
    try:
        yield
    finally:
        T.ALIAS_TYPES.reset(token)


@handler(ast.CreateAliasType)
def compile_create_alias_type(c: Compiler, node: ast.CreateAliasType) -> StmtFn:
    name = node.name
    nullable = node.nullable is not False

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        # At run time, as SQL Server reports an unknown base type (Msg 2715) for the
        # statement, not the batch.
        base = T.type_from_ast(node.base, "declare").spec()
        s.txn_for_statement().write()
        create_alias_type(s.conn, s.db_id, name.schema, name.name, base, nullable)
        s.rowcount = 0
    return run


# -- synonyms -----------------------------------------------------------------------------------
@handler(ast.CreateSynonym)
def compile_create_synonym(c: Compiler, node: ast.CreateSynonym) -> StmtFn:
    name, t = node.name, node.target

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        s.txn_for_statement().write()
        create_synonym(s.conn, s.db_id, name.schema, name.name,
                       (t.server, t.database, t.schema, t.name))
        s.rowcount = 0
    return run


@handler(ast.DropSynonym)
def compile_drop_synonym(c: Compiler, node: ast.DropSynonym) -> StmtFn:
    name, if_exists = node.name, node.if_exists
    shown = f"{name.schema}.{name.name}" if name.schema else name.name

    def run(f: Frame) -> None:
        s = f.session
        s.check_writable()
        catalog = s.instance.catalog
        row = catalog.find_object(s.conn, s.db_id, name.schema, name.name, {SYNONYM})
        if row is None:
            if if_exists:
                return
            raise tsql_error(3701, "synonym", shown, cls=BindError)
        s.txn_for_statement().write()
        catalog.drop_object(s.conn, row.object_id)
        s.rowcount = 0
    return run
