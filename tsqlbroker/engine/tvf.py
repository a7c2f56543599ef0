"""Table-valued user functions in storage queries.

``CREATE FUNCTION f(@n int) RETURNS TABLE AS RETURN (SELECT …)`` is a parameterised view:
each use — ``FROM dbo.f(3) AS x``, ``CROSS APPLY dbo.f(t.a)`` — becomes the function's query
as a derived table, each parameter replaced by ``CAST(argument AS its type)``. The argument may
refer to the enclosing query's tables (APPLY); the APPLY rewriting (``apply.py``) then
correlates the derived table like any other. Inline functions using inline functions expand
in turn (32 levels, Msg 217, as for views).

A multi-statement function (``RETURNS @r TABLE (…) AS BEGIN … END``) runs in the interpreter
when the statement is bound, with constant / variable arguments; its rows become a derived
table of constants.
"""

from __future__ import annotations

import datetime
import re
import uuid
from decimal import Decimal
from typing import Any

from sqlglot import exp

from ..errors import MESSAGES, BindError, tsql_error
from ..values.json_builtins import openjson_rows, parse_path
from .parsing import not_supported, parse_statement
from .transpiler.interface import BindContext
from .transpiler.scope import datatype_spec
from .udf_calls import bridge_of

MESSAGES.setdefault(313, (16, ("An insufficient number of arguments were supplied for the "
                               "procedure or function %.*ls.")))
MESSAGES.setdefault(8144, (16, "Procedure or function %.*ls has too many arguments specified."))

_MAX_DEPTH = 32
# The definition's head as written (ALTER / CREATE OR ALTER), after any leading comments.
_HEAD = re.compile(r"\b(?:CREATE\s+OR\s+ALTER|CREATE|ALTER)\s+FUNCTION\b", re.IGNORECASE)


def expand(binder: BindContext, tree: exp.Expression) -> None:
    """Replace every call of an inline table-valued function in ``tree`` by its query."""
    for _ in range(_MAX_DEPTH + 1):
        if not _expand_once(binder, tree):
            return
    raise tsql_error(217)


def _expand_once(binder: BindContext, tree: exp.Expression) -> bool:
    changed = False
    for call in list(tree.find_all(exp.OpenJSON)):
        holder = call.parent
        if isinstance(holder, exp.Lateral) and correlated_openjson(call):
            # Rows per outer row, in the store's query (apply.py); unaliased, its columns
            # are read by their names alone.
            if holder.args.get("alias") is None:
                holder.set("alias", exp.TableAlias(this=exp.to_identifier("openjson")))
            continue
        query = _openjson_rows(binder, call)
        alias = holder.args.get("alias") if holder is not None else None
        if alias is None:
            alias = exp.TableAlias(this=exp.to_identifier("openjson"))
        if isinstance(holder, exp.Lateral) and isinstance(holder.parent, exp.Join):
            # Uncorrelated rows: CROSS APPLY is a cross join, OUTER APPLY a left join.
            join = holder.parent
            holder.replace(exp.Subquery(this=query, alias=alias.copy()))
            if holder.args.get("cross_apply"):
                join.set("kind", "CROSS")
            else:
                join.set("side", "LEFT")
                join.set("on", exp.true())
        elif isinstance(holder, exp.Table):
            holder.replace(exp.Subquery(this=query, alias=alias.copy()))
        else:
            raise not_supported("OPENJSON outside FROM or APPLY")
        changed = True
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


def _inline_query(binder: BindContext, schema: str | None, call: exp.Anonymous
                  ) -> exp.Expression | None:
    """The query of inline function ``schema.name`` with the call's arguments in place of its
    parameters (None when no inline function has that name)."""
    name = call.name
    obj = binder.catalog.find_object(binder.conn, binder.ctx.db_id, schema or None, name)
    if obj is None and schema:
        if name.lower() == "nodes":  # col.nodes('…') / t.col.nodes('…'): the xml method,
            return None              # an applied table expression (engine/apply.py)
        raise tsql_error(208, f"{schema}.{name}", cls=BindError)
    if obj is not None and obj.type == "TF":
        return _table_function_rows(binder, schema, call)
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
    binder.depends_on(("if", obj.object_id, obj.modify_date))
    return query


def _table_function_rows(binder: BindContext, schema: str | None, call: exp.Anonymous
                         ) -> exp.Expression:
    """A multi-statement table-valued function runs (through the interpreter's bridge) when
    the statement is bound; its rows become a derived table of constants. Its arguments must
    then be known: constants, variables or DEFAULT (not the enclosing query's columns)."""
    bridge = bridge_of(binder.conn.store)
    if bridge is None:
        raise not_supported(f"The table-valued function '{call.name}' in FROM")
    args = [_argument(binder, a, call.name) for a in call.expressions]
    result = bridge.call_table_function(binder.ctx.session_id, (None, schema, call.name),
                                        args)
    # Each execution runs the function again: its plan must not be reused.
    binder.depends_on(("tf", object()))
    return _constant_rows(list(result.columns), [t or "sql_variant" for t in result.types],
                          result.rows)


def correlated_openjson(call: exp.OpenJSON) -> bool:
    """Whether ``OPENJSON(…)``'s JSON argument reads the enclosing query's columns
    (``CROSS APPLY OPENJSON(t.c)``): then its rows differ per outer row."""
    return isinstance(call.this, exp.Expression) and call.this.find(exp.Column) is not None


def openjson_schema(call: exp.OpenJSON) -> list[tuple[str, str | None, bool]] | None:
    """The ``WITH (name type ['path'] [AS JSON], …)`` of an OPENJSON call as
    ``values.json_builtins.openjson_rows`` takes it (None: the default schema). Each path is
    checked here, so that a malformed one is Msg 13607 before any row is read."""
    defs = list(call.expressions)
    if not defs:
        return None
    schema = [(d.name, d.args["path"].name if d.args.get("path") else None,
               bool(d.args.get("as_json"))) for d in defs]
    for _name, path, _as_json in schema:
        if path is not None:
            parse_path(path)
    return schema


def openjson_columns(call: exp.OpenJSON) -> list[tuple[str, str]]:
    """The columns (name, type spec) OPENJSON returns: its WITH schema's, or key / value /
    type."""
    defs = list(call.expressions)
    if not defs:
        return [("key", "nvarchar(4000)"), ("value", "nvarchar(max)"), ("type", "int")]
    return [(d.name, "nvarchar(max)" if d.args.get("as_json")
             else datatype_spec(d.args["kind"]) or d.args["kind"].sql("tsql")) for d in defs]


def _openjson_rows(binder: BindContext, call: exp.OpenJSON) -> exp.Expression:
    """``OPENJSON(json [, path]) [WITH (…)]`` with a constant or variable argument: its rows
    (``values.json_builtins.openjson_rows``) become a derived table of constants."""
    given = [a for a in (call.this, call.args.get("path")) if isinstance(a, exp.Expression)]
    if any(a.find(exp.Column) for a in given):
        raise not_supported("OPENJSON of a column outside CROSS APPLY / OUTER APPLY")
    args = [_argument(binder, a, "OPENJSON") for a in given]
    text = args[0][0] if args[0] is not None else None
    if text is not None and not isinstance(text, str):
        text = str(text)  # a number converts to nvarchar as OPENJSON's argument does
    path = args[1][0] if len(args) > 1 and args[1] is not None else "$"
    schema = openjson_schema(call)
    names, specs = (list(c) for c in zip(*openjson_columns(call), strict=True))
    rows = openjson_rows(text, path, schema)
    # The JSON may come from a variable: the plan must not be reused for other values.
    binder.depends_on(("openjson", object()))
    return _constant_rows(names, specs, rows)


def _constant_rows(names: list[str], specs: list[str], rows: list[Any]) -> exp.Expression:
    """``SELECT CAST(v AS spec) AS name … UNION ALL …`` (no rows: one that WHERE 1=0 drops)."""
    # Quoted: a name may be a keyword ([Order]).
    columns = [exp.to_identifier(c, quoted=True) for c in names]
    if not rows:
        nulls = [exp.alias_(_cast(None, spec), col) for col, spec in zip(columns, specs,
                                                                          strict=True)]
        return exp.select(*nulls).where(exp.false())
    query: exp.Expression | None = None
    for row in rows:
        select = exp.select(*(exp.alias_(_cast(v, spec), col)
                              for v, spec, col in zip(row, specs, columns, strict=True)))
        query = select if query is None else exp.union(query, select, distinct=False)
    assert query is not None
    return query


def _argument(binder: BindContext, arg: exp.Expression, name: str) -> tuple[Any, str | None] | None:
    """The value and type spec of a constant / variable argument; None for DEFAULT."""
    if isinstance(arg, exp.Column) and not arg.table and arg.name.upper() == "DEFAULT":
        return None
    if isinstance(arg, exp.Null):
        return (None, None)
    if isinstance(arg, exp.National):
        return arg.name, f"nvarchar({max(len(arg.name), 1)})"
    if isinstance(arg, exp.Placeholder) and arg.name in binder.binds:
        return binder.binds[arg.name], binder.spec_of(arg)
    if isinstance(arg, exp.Parameter):
        hit = binder.params.get(f"@{arg.name}".lower())
        if hit is not None:
            return hit[0], hit[1]
        raise tsql_error(137, f"@{arg.name}", cls=BindError)
    negative = isinstance(arg, exp.Neg) and isinstance(arg.this, exp.Literal)
    literal = arg.this if negative else arg
    if isinstance(literal, exp.Literal):
        text = ("-" if negative else "") + literal.this
        if literal.is_string:
            return text, f"varchar({max(len(text), 1)})"
        if re.fullmatch(r"-?\d+", text):
            return int(text), "int" if -2**31 <= int(text) < 2**31 else "bigint"
        if re.fullmatch(r"-?\d*\.\d*", text):
            digits = text.lstrip("-")
            scale = len(digits.split(".")[1])
            return Decimal(text), f"decimal({max(len(digits) - 1, scale, 1)},{scale})"
        return float(text), "float"
    raise not_supported(f"An argument of the multi-statement table-valued function '{name}' "
                        "that is not a constant, a variable or DEFAULT")


def _cast(value: Any, spec: str) -> exp.Expression:
    """``CAST(constant AS spec)`` for one value of the function's result."""
    if value is None:
        literal: exp.Expression = exp.null()
    elif isinstance(value, bool | int | float | Decimal):
        literal = exp.Literal.number(str(int(value) if isinstance(value, bool) else value))
    elif isinstance(value, bytes):
        literal = exp.HexString(this=value.hex())
    elif isinstance(value, datetime.datetime) and spec in ("datetime", "smalldatetime"):
        literal = exp.Literal.string(value.isoformat(sep=" ", timespec="milliseconds"))
    elif isinstance(value, datetime.date | datetime.time):
        literal = exp.Literal.string(value.isoformat(sep=" ") if isinstance(
            value, datetime.datetime) else value.isoformat())
    else:
        literal = exp.Literal.string(str(value).upper() if isinstance(value, uuid.UUID)
                                     else str(value))
    return exp.Cast(this=literal, to=exp.DataType.build(spec, dialect="tsql"))
