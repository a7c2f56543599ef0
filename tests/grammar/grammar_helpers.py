"""Helpers shared by the grammar tests (a plain module: tests/ directories are not packages)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tsqlbroker.grammar import ast, parse_batch

LISTINGS = Path(__file__).resolve().parent.parent / "listings"


def one(sql: str) -> ast.Stmt:
    """The single statement of a one-statement batch."""
    stmts = parse_batch(sql).statements
    assert len(stmts) == 1, stmts
    return stmts[0]


def expr(sql: str) -> ast.Expr:
    """The expression of ``SELECT <sql>``."""
    stmt = one(f"SELECT {sql}")
    assert isinstance(stmt, ast.SelectStmt) and isinstance(stmt.query, ast.Select)
    return stmt.query.items[0].expr


def no_sql(node: Any) -> Any:
    """``node`` with its ``sql`` text cleared, to compare with a hand-built node."""
    return dataclasses.replace(node, sql="")
