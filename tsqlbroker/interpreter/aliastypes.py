"""Alias types and synonyms in the interpreter: ``CREATE TYPE name FROM base_type [NULL |
NOT NULL]`` (names of such types resolve through ``typenames.py``) and ``CREATE / DROP
SYNONYM``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tsqlbroker.engine.synonyms import SYNONYM, create_synonym
from tsqlbroker.engine.usertypes import create_alias_type
from tsqlbroker.grammar import ast

from . import ast_types
from .compiler import Compiler, StmtFn, handler
from .schemas import ddl_statement, drop_objects

if TYPE_CHECKING:
    from .session import Session


@handler(ast.CreateAliasType)
def compile_create_alias_type(c: Compiler, node: ast.CreateAliasType) -> StmtFn:
    name = node.name
    nullable = node.nullable is not False

    def create(s: Session) -> None:
        # At run time, as SQL Server reports an unknown base type (Msg 2715) for the
        # statement, not the batch.
        base = ast_types.type_from_ast(node.base, "declare").spec()
        s.txn_for_statement().write()
        create_alias_type(s.conn, s.db_id, name.schema, name.name, base, nullable)
    return ddl_statement(create)


# -- synonyms -----------------------------------------------------------------------------------
@handler(ast.CreateSynonym)
def compile_create_synonym(c: Compiler, node: ast.CreateSynonym) -> StmtFn:
    name, t = node.name, node.target

    def create(s: Session) -> None:
        s.txn_for_statement().write()
        create_synonym(s.conn, s.db_id, name.schema, name.name,
                       (t.server, t.database, t.schema, t.name))
    return ddl_statement(create)


@handler(ast.DropSynonym)
def compile_drop_synonym(c: Compiler, node: ast.DropSynonym) -> StmtFn:
    def drop(s: Session) -> None:
        drop_objects(s, (node.name,), {SYNONYM}, "synonym", node.if_exists,
                     lambda row: s.instance.catalog.drop_object(s.conn, row.object_id))
    return ddl_statement(drop)
