"""``SELECT … FROM @x.nodes('path') AS T(c)``: shredding an xml variable, run in Python.

The engine has no row source for an xml method (its queries call xml methods per row on
stored text), while an activation procedure's usual first step is exactly this: take the
message body into an xml variable and read its nodes. A SELECT whose only table source is
``nodes()`` of a variable is therefore evaluated here: one row per node, ``T.c`` the context
node (an :class:`~tsqlbroker.values.xml_value.XmlValue` keeping its document, so relative,
absolute and ``..`` paths read as in SQL Server), the select list, WHERE and TOP compiled by
the interpreter's own expression compiler. Anything more (joins, grouping, ORDER BY,
subqueries, INTO) is left to the engine.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from typing import Any

from tsqlbroker.engine.results import ResultSet
from tsqlbroker.errors import tsql_error
from tsqlbroker.grammar import ast

from ..values import types as T
from .compiler import CExpr, Compiler, StmtFn, walk
from .frames import Frame
from .function_calls import xml_resolver
from .statements import compile_assignment_value, has_aggregate

# Nodes whose presence in the select list or WHERE needs the engine.
_ENGINE_ONLY = (ast.Subquery, ast.Exists, ast.InSubquery, ast.Star, ast.NextValueFor)


def nodes_source(node: ast.SelectStmt) -> ast.FunctionTable | None:
    """The ``@x.nodes(…) AS T(c)`` source of a SELECT this module runs, else None."""
    q = node.query
    if not isinstance(q, ast.Select) or node.ctes or q.into is not None or q.group_by \
            or q.having is not None or q.order_by or q.offset is not None \
            or q.fetch is not None or q.option or q.for_clause is not None or q.distinct \
            or len(q.from_) != 1:
        return None
    src = q.from_[0]
    if not isinstance(src, ast.FunctionTable) or not isinstance(src.call, ast.MethodCall) \
            or src.call.method.lower() != "nodes" \
            or not isinstance(src.call.target, ast.Variable) \
            or src.alias is None or len(src.column_aliases) != 1:
        return None
    exprs = [it.expr for it in q.items] + ([q.where] if q.where is not None else [])
    if any(isinstance(n, _ENGINE_ONLY) for n in walk(exprs)) \
            or any(has_aggregate(e) for e in exprs):
        return None
    if any(isinstance(n, ast.Column) and not _names_context(n, src) for n in walk(exprs)):
        return None  # a column of no source: the engine's error
    return src


def _names_context(col: ast.Column, src: ast.FunctionTable) -> bool:
    """Whether ``col`` is ``T.c`` (or ``c``) of the nodes() source."""
    parts = [p.lower() for p in col.parts]
    name = src.column_aliases[0].lower()
    return parts == [name] or parts == [(src.alias or "").lower(), name]


def _substitute(node: Any, src: ast.FunctionTable, var: ast.Variable) -> Any:
    """``node`` with every reference to the context column replaced by ``var``."""
    if isinstance(node, ast.Column) and _names_context(node, src):
        return dataclasses.replace(var, span=node.span)
    if isinstance(node, tuple):
        return tuple(_substitute(n, src, var) for n in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for f in dataclasses.fields(node):
            old = getattr(node, f.name)
            if isinstance(old, tuple) or dataclasses.is_dataclass(old):
                new = _substitute(old, src, var)
                if new is not old:
                    changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node


def compile_nodes_select(c: Compiler, node: ast.SelectStmt, src: ast.FunctionTable
                         ) -> StmtFn:
    """The closure running a SELECT over ``@x.nodes(…)`` (see the module docstring)."""
    q = node.query
    assert isinstance(q, ast.Select) and isinstance(src.call, ast.MethodCall)
    call = src.call
    saved = c.xmlns
    c.xmlns = {(ns.prefix or ""): ns.uri for ns in node.xmlnamespaces} or saved
    try:
        target = c.expr(call.target)
        if not target.type.is_xml:
            raise c.bind_error(258, call, target.type.name)
        if len(call.args) != 1:
            raise c.bind_error(174, call, "nodes", 1)
        path = c.expr(call.args[0])
        if not path.const:
            raise c.bind_error_text(call.args[0], "The argument 1 of the XML data type method "
                                                  "\"nodes\" must be a string literal.", 8172)
        query = str(path.value)
        resolver = xml_resolver(c, query, call)
        ns = dict(c.xmlns)
        # The context node lives in a slot of its own, named so no T-SQL variable can be.
        ctx = c.scope.add(f"@ nodes {id(node)}", T.XML)
        var = ast.Variable(ctx.name)
        items = [dataclasses.replace(it, expr=_substitute(it.expr, src, var))
                 for it in q.items]
        where_node = _substitute(q.where, src, var) if q.where is not None else None
        where = c.predicate(where_node) if where_node is not None else None
        if q.top is not None and q.top.with_ties:
            raise c.bind_error(1062, q.top)  # ORDER BY sends the SELECT to the engine
        top = c.expr(q.top.expr) if q.top is not None else None
        percent = q.top is not None and q.top.percent
        assigning = [it for it in items if it.assign_to]
        if assigning and len(assigning) != len(items):
            raise c.bind_error(141, node)
        steps = [compile_assignment_value(c, it.assign_to or "", it.assign_op or "=",
                                          it.expr, it) for it in assigning]
        cols: list[CExpr] = [] if assigning else [c.expr(it.expr) for it in items]
        for it, e in zip(items, cols, strict=False):
            if e.predicate:
                raise c.bind_error(4145, it, "SELECT")
    finally:
        c.xmlns = saved
    tf, slot = target.fn, ctx.slot

    def contexts(f: Frame) -> list[Any]:
        """The rows: the context nodes, filtered by WHERE, at most TOP of them."""
        x = tf(f)
        found = [] if x is None else x.nodes(query, ns, resolver(f))
        limit: Decimal | None = None
        if top is not None:
            n = top.fn(f)
            limit = None if n is None else Decimal(str(n)) if percent else Decimal(int(n))
            if limit is not None and limit < 0:
                raise tsql_error(127)
        out = []
        for n in found:
            if limit is not None and not percent and len(out) >= limit:
                break
            f.v[slot] = n
            if where is None or where(f):
                out.append(n)
        if percent and limit is not None:  # of the rows WHERE keeps, rounded up (shapes.py)
            out = out[:math.ceil(limit * len(out) / 100)]
        return out

    if assigning:
        def run_assign(f: Frame) -> None:
            rows = contexts(f)
            for n in rows:  # each row assigns in turn: the last one's values stay
                f.v[slot] = n
                for vslot, fn in steps:
                    f.v[vslot] = fn(f)
            f.v[slot] = None
            f.session.rowcount = len(rows)
        return run_assign

    names = [it.alias or "" for it in items]
    specs = [e.type.spec() if e.type.name not in ("null", "sql_variant") else
             ("int" if e.type.name == "null" else None) for e in cols]
    fns = [e.fn for e in cols]

    def run_select(f: Frame) -> None:
        s = f.session
        rows = []
        for n in contexts(f):
            f.v[slot] = n
            rows.append(tuple(fn(f) for fn in fns))
        f.v[slot] = None
        s.sink.resultset(ResultSet(list(names), list(specs), rows))
        s.rowcount = len(rows)
        if not s.nocount:
            s.sink.rows_affected(len(rows))
    return run_select
