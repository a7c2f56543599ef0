"""Inline table-valued functions in storage queries.

``CREATE FUNCTION f(@n int) RETURNS TABLE AS RETURN (SELECT …)`` is a parameterised view:
each use — ``FROM dbo.f(3) AS x``, ``CROSS APPLY dbo.f(t.a)`` — becomes the function's query
as a derived table, each parameter replaced by ``CAST(argument AS its type)``. The argument may
refer to the enclosing query's tables (APPLY); the APPLY rewriting (``apply.py``) then
correlates the derived table like any other. Inline functions using inline functions expand
in turn (32 levels, Msg 217, as for views).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import MESSAGES, BindError, tsql_error
from .parsing import parse_statement

if TYPE_CHECKING:
    from .transpile import Binder

MESSAGES.setdefault(313, (16, ("An insufficient number of arguments were supplied for the "
                               "procedure or function %.*ls.")))
MESSAGES.setdefault(8144, (16, "Procedure or function %.*ls has too many arguments specified."))

_MAX_DEPTH = 32
# The definition's head as written (ALTER / CREATE OR ALTER), after any leading comments.
_HEAD = re.compile(r"\b(?:CREATE\s+OR\s+ALTER|CREATE|ALTER)\s+FUNCTION\b", re.IGNORECASE)


def expand(binder: Binder, tree: exp.Expression) -> None:
    """Replace every call of an inline table-valued function in ``tree`` by its query."""
    for _ in range(_MAX_DEPTH + 1):
        if not _expand_once(binder, tree):
            return
    raise tsql_error(217)


def _expand_once(binder: Binder, tree: exp.Expression) -> bool:
    changed = False
    for node in list(tree.find_all(exp.Table)):
        if not isinstance(node.this, exp.Anonymous):
            continue
        schema = node.args.get("db")
        query = _inline_query(binder, schema.name if schema else None, node.this)
        if query is None:
            continue
        alias = node.args.get("alias")
        if alias is None:
            alias = exp.TableAlias(this=exp.to_identifier(node.this.name))
        node.replace(exp.Subquery(this=query, alias=alias.copy()))
        changed = True
    for lateral in list(tree.find_all(exp.Lateral)):
        call, schema_name = lateral.this, None
        if isinstance(call, exp.Dot) and isinstance(call.expression, exp.Anonymous):
            qualifier = call.this
            schema_name = qualifier.expression.name if isinstance(qualifier, exp.Dot) \
                else qualifier.name
            call = call.expression
        if not isinstance(call, exp.Anonymous):
            continue
        query = _inline_query(binder, schema_name, call)
        if query is None:
            continue
        lateral.set("this", exp.Subquery(this=query))
        if lateral.args.get("alias") is None:
            lateral.set("alias", exp.TableAlias(this=exp.to_identifier(call.name)))
        changed = True
    return changed


def _inline_query(binder: Binder, schema: str | None, call: exp.Anonymous
                  ) -> exp.Expression | None:
    """The query of inline function ``schema.name`` with the call's arguments in place of its
    parameters (None when no inline function has that name)."""
    name = call.name
    obj = binder.catalog.find_object(binder.conn, binder.ctx.db_id, schema or None, name)
    if obj is None and schema:
        raise tsql_error(208, f"{schema}.{name}", cls=BindError)
    if obj is None or obj.type != "IF" or not obj.definition:
        return None
    head = _HEAD.search(obj.definition)
    text = "CREATE FUNCTION" + obj.definition[head.end():] if head else obj.definition
    create = parse_statement(text).tree
    ret = create.args.get("expression") if isinstance(create, exp.Create) else None
    if not isinstance(ret, exp.Return):
        return None
    query = ret.this.this if isinstance(ret.this, exp.Subquery) else ret.this
    udf = create.this
    params: list[Any] = list(udf.expressions) if isinstance(udf, exp.UserDefinedFunction) else []
    args = list(call.expressions)
    shown = f"{schema}.{name}" if schema else name
    if len(args) > len(params):
        raise tsql_error(8144, shown, cls=BindError, state=2)
    values: dict[str, exp.Expression] = {}
    for i, param in enumerate(params):
        if i >= len(args):  # a function's defaults are asked for with DEFAULT, not omitted
            raise tsql_error(313, shown, cls=BindError, state=2)
        arg = args[i]
        if isinstance(arg, exp.Column) and not arg.table and arg.name.upper() == "DEFAULT":
            arg = param.args.get("default")
            if arg is None:
                raise tsql_error(313, shown, cls=BindError, state=2)
        values[param.this.name.lower()] = exp.Cast(this=arg.copy(), to=param.args["kind"].copy())
    query = query.copy()
    for p in list(query.find_all(exp.Parameter)):
        value = values.get(p.name.lower())
        if value is not None:
            p.replace(value.copy())
    # ALTER FUNCTION must not leave plans built from the old query in the cache.
    binder._extra_sig.append(("if", obj.object_id, obj.modify_date))
    return query
