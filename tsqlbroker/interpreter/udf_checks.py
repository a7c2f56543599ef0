"""What a scalar function body may not do (checked at CREATE / ALTER FUNCTION).

SQL Server refuses side effects in functions when the function is created: INSERT, UPDATE,
DELETE and MERGE on anything but the function's own table variables, PRINT, RAISERROR,
transaction statements and NEWID() / RAND() raise Msg 443, and a SELECT that would send rows to
the client Msg 444. Queries may therefore call a function once per row (or once per distinct
argument list) without changing what they see.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from tsqlbroker.errors import MESSAGES
from tsqlbroker.grammar import ast

from .compiler import walk

if TYPE_CHECKING:
    from .compiler import Compiler

MESSAGES.setdefault(443, (16, ("Invalid use of a side-effecting operator '%.*ls' within a "
                              "function.")))
MESSAGES.setdefault(444, (16, ("Select statements included within a function cannot return "
                              "data to a client.")))

_WRITES: dict[type, str] = {ast.Insert: "INSERT", ast.Update: "UPDATE", ast.Delete: "DELETE",
                            ast.Merge: "MERGE"}
_STATEMENTS: dict[type, str] = {ast.Print: "PRINT", ast.Raiserror: "RAISERROR",
                                ast.BeginTran: "BEGIN TRANSACTION",
                                ast.CommitTran: "COMMIT TRANSACTION",
                                ast.RollbackTran: "ROLLBACK TRANSACTION",
                                ast.SaveTran: "SAVE TRANSACTION"}

# Built-ins SQL Server counts as side-effecting (named in lower case in Msg 443).
_SIDE_EFFECT_FUNCTIONS = frozenset({"newid", "rand", "newsequentialid"})


def _body(node: ast.CreateFunction) -> Iterator[ast.Node]:
    """Every node of the function's body."""
    return iter(walk(node.body))


def side_effect(node: ast.CreateFunction) -> tuple[ast.Node, str] | None:
    """The first statement of the body SQL Server refuses in a function, with the operator
    name Msg 443 gives (None: the body is allowed)."""
    for n in _body(node):
        if isinstance(n, ast.FunctionCall) and n.name.schema is None \
                and n.name.name.lower() in _SIDE_EFFECT_FUNCTIONS:
            return n, n.name.name.lower()
        op = _STATEMENTS.get(type(n))
        if op is not None:
            return n, op
        op = _WRITES.get(type(n))
        target = getattr(n, "target", None)
        if op is not None and not (isinstance(target, str) and target.startswith("@")):
            return n, op
    return None


def returns_rows(node: ast.CreateFunction) -> ast.Node | None:
    """The first SELECT of the body that would send rows to the client (no variable
    assignment, no INTO)."""
    for n in _body(node):
        if isinstance(n, ast.SelectStmt):
            q = n.query
            if not (isinstance(q, ast.Select) and (q.into is not None
                                                    or any(it.assign_to for it in q.items))):
                return n
    return None


def check_function_body(c: Compiler, node: ast.CreateFunction) -> None:
    """Msg 443 for a side-effecting statement in a function body, Msg 444 for a SELECT
    returning rows."""
    found = side_effect(node)
    err = None
    if found is not None:
        err = c.bind_error(443, found[0], found[1])
    else:
        select = returns_rows(node)
        if select is not None:
            err = c.bind_error(444, select)
    if err is not None:
        err.procedure = node.name.name  # reported inside the function, as SQL Server does
        raise err
