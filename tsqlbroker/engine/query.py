"""SELECT: running a query, typing its columns, variable assignment and SELECT … INTO."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlglot import exp

from ..errors import tsql_error
from ..storage.stored_values import from_storage, spec_of_value, variant_spec
from . import forxml
from .context import ExecContext, Params, SqlResult
from .execsql import read_rows
from .parsing import Parsed, parse_statement
from .plans import Folds, PlanCache, QueryPlan, query_binds
from .results import ResultSet
from .shapes import aliased
from .tables import create_table
from .transpiler.binder import Binder
from .transpiler.scope import Compiled, table_key
from .variantcols import is_variant_spec
from .writer import RowWriter


def run_query(binder: Binder, compiled: Compiled, extra: dict[str, Any] | None = None
              ) -> ResultSet:
    """Execute compiled SQL, naming and converting the columns per their specs."""
    binds = dict(binder.binds)
    if extra:
        binds.update(extra)
    keys, raw = read_rows(binder.conn, compiled.sql, binds)
    names = compiled.names if compiled.names is not None and len(compiled.names) == len(
        keys) else keys
    types = compiled.types if len(compiled.types) == len(keys) else [
        _spec_by_name(binder, k) for k in keys]
    return result_set(names, types, raw)


def result_set(names: Sequence[str], types: Sequence[str | None],
               raw: Sequence[Sequence[Any]]) -> ResultSet:
    """A query's rows read back from storage per their column specs; a sql_variant
    column's values with the base type each keeps (``ResultSet.row_types``), so that a
    value read back and written again keeps it."""
    rows = [tuple(from_storage(v, t) for v, t in zip(row, types, strict=True)) for row in raw]
    variants = [i for i, t in enumerate(types) if is_variant_spec(t)]
    row_types = None
    if variants:
        row_types = []
        for row in raw:
            specs = list(types)
            for i in variants:
                specs[i] = variant_spec(row[i]) or specs[i]
            row_types.append(tuple(specs))
    return ResultSet(list(names), list(types), rows, row_types)


def _spec_by_name(binder: Binder, name: str) -> str | None:
    found = {s.spec_of(name) for s in binder.sources.values() if s.has_column(name)}
    return found.pop() if len(found) == 1 else None


def _assignments(select: exp.Expression) -> list[tuple[str, str]]:
    """Rewrite ``SELECT @v = expr`` and ``SELECT alias = expr`` items; return the
    assignment targets."""
    if not isinstance(select, exp.Select):
        return []
    targets: list[tuple[str, str]] = []
    items = []
    for proj in select.expressions:
        if isinstance(proj, exp.EQ) and isinstance(proj.this, exp.Parameter):
            name = "@" + proj.this.name
            targets.append((name, "="))
            items.append(aliased(proj.expression, name.lstrip("@")))
        elif isinstance(proj, exp.EQ) and (
                isinstance(proj.this, exp.Column) and not proj.this.table
                or isinstance(proj.this, exp.Literal) and proj.this.is_string):
            items.append(aliased(proj.expression, proj.this.name))
        else:
            items.append(proj)
    select.set("expressions", items)
    if targets and len(targets) != len(items):
        raise tsql_error(141)
    return targets


def select_statement(ctx: ExecContext, parsed: Parsed, params: Params) -> SqlResult:
    tree = parsed.tree
    into = tree.args.get("into")
    if into is not None:
        tree.set("into", None)
    forxml.check_lost_clauses(parsed.text, tree)
    formatted = isinstance(tree, exp.Select) and forxml.options_of(tree) is not None
    if formatted:
        tree = _formatted_query(tree)
    ops = dict(parsed.assign_ops)
    targets = [(name, ops.get(name.lower(), op)) for name, op in _assignments(tree)]
    binder = Binder(ctx, params)
    folds = _accumulations(binder, tree, targets) if targets else {}
    compiled = binder.compile(tree, (parsed.text, "select", tuple(sorted(folds))))
    rs = run_query(binder, compiled)
    if formatted:
        _drop_null_document(rs)
    if into is None:
        PlanCache.get(ctx.conn.store).record_query(
            ctx, parsed.text, params, binder.resolved, binder.signature()[-1],
            QueryPlan(compiled.sql, compiled.param_keys, list(rs.columns), list(rs.types),
                      targets, folds, formatted))
    return _query_result(rs, targets, folds, binder.params, into, ctx)


def run_query_plan(ctx: ExecContext, plan: QueryPlan, params: Params) -> SqlResult:
    """Run a query through its compiled plan (no parsing, binding or catalog lookup)."""
    _keys, raw = read_rows(ctx.conn, plan.sql, query_binds(plan, params,
                                                       ctx.conn.backend.native_decimal))
    rs = result_set(plan.names, plan.types, raw)
    if plan.formatted:
        _drop_null_document(rs)
    lowered = {k.lower(): v for k, v in params.items()} if plan.folds else {}
    return _query_result(rs, plan.targets, plan.folds, lowered, None, ctx)


def _formatted_query(select: exp.Select) -> exp.Select:
    """A query with FOR XML / FOR JSON returns one column named as SQL Server names it,
    holding the whole document (the backend computes it as a scalar subquery)."""
    opts = forxml.options_of(select)
    name = forxml.JSON_COLUMN if opts is not None and opts.kind == "JSON" \
        else forxml.XML_COLUMN
    return exp.select(aliased(exp.Subquery(this=select), name))


def _drop_null_document(rs: ResultSet) -> None:
    """A FOR XML / FOR JSON query over no rows returns no row (not a NULL document)."""
    rs.rows = [row for row in rs.rows if row[0] is not None]


def _query_result(rs: ResultSet, targets: list[tuple[str, str]], folds: Folds,
                  params: dict[str, tuple[Any, str | None]], into: exp.Expression | None,
                  ctx: ExecContext) -> SqlResult:
    if targets:
        rs.columns = [name for name, _op in targets]
        _fold(rs, folds, params)
        return SqlResult([rs], len(rs.rows), assign_targets=targets)
    if into is not None:
        return _select_into(ctx, into, rs)
    return SqlResult([rs], len(rs.rows))


def _add_operands(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Add):
        return [*_add_operands(node.this), node.expression]
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.Add):
        return _add_operands(node.this)
    return [node]


def _accumulations(binder: Binder, select: exp.Expression, targets: list[tuple[str, str]]
                   ) -> Folds:
    """``SELECT @s = @s + expr FROM …`` assigns once per row, each row seeing the previous
    assignment. Such items are rewritten to compute ``expr`` per row and folded afterwards;
    returns ``{item index: concatenates}`` (for ``ISNULL(@s + sep, start) + expr``: the
    separator and start)."""
    binder.collect(select)
    folds: Folds = {}
    for i, ((name, op), item) in enumerate(zip(targets, select.expressions, strict=True)):
        if op != "=":
            continue  # the caller applies compound operators itself
        value = item.this if isinstance(item, exp.Alias) else item
        operands = _add_operands(value)
        first = operands[0]
        guard = _guarded_start(first, name)
        if guard is not None and len(operands) >= 2 and isinstance(item, exp.Alias):
            rest = operands[1]
            for operand in operands[2:]:
                rest = exp.Add(this=rest, expression=operand)
            if binder.is_string(rest):
                item.set("this", rest)
                folds[i] = guard
            continue
        if len(operands) < 2 or not _is_variable(first, name):
            continue
        concat = isinstance(value, exp.Add) and binder.is_concatenation(value)
        rest = operands[1]
        for operand in operands[2:]:
            rest = exp.Add(this=rest, expression=operand)
        if concat and len(operands) > 2 and not binder.is_string(rest):
            rest = exp.DPipe(this=rest.this, expression=rest.expression)
        if isinstance(item, exp.Alias):  # _assignments made every target item an alias
            item.set("this", rest)
            folds[i] = concat
    return folds


def _is_variable(node: exp.Expression, name: str) -> bool:
    """Whether ``node`` is the variable ``name`` ('@s')."""
    return isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter) \
        and "@" + node.name.lower() == name.lower()


def _string_constant(node: exp.Expression) -> str | None:
    if isinstance(node, exp.National) or isinstance(node, exp.Literal) and node.is_string:
        return node.name
    return None


def _guarded_start(node: exp.Expression, name: str) -> tuple[str, str] | None:
    """(separator, start) of ``ISNULL(@s + 'sep', 'start')`` / ``COALESCE(…)`` over the
    assigned variable ``name``: the list idiom ``@s = ISNULL(@s + ',', '') + col``."""
    if not isinstance(node, exp.Coalesce) or len(node.expressions) != 1:
        return None
    inner, start = node.this, _string_constant(node.expressions[0])
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if start is None or not isinstance(inner, exp.Add) or not _is_variable(inner.this, name):
        return None
    sep = _string_constant(inner.expression)
    return None if sep is None else (sep, start)


def _fold(rs: ResultSet, folds: Folds, params: dict[str, tuple[Any, str | None]]
          ) -> None:
    """Replace the per-row increments of accumulating assignments by running values."""
    if not folds:
        return
    acc: dict[int, Any] = {}
    for i in folds:
        value, spec = params.get(rs.columns[i].lower(), (None, None))
        acc[i] = value
        rs.types[i] = spec
    new_rows = []
    for row in rs.rows:
        values = list(row)
        for i, concat in folds.items():
            prev, step = acc[i], values[i]
            if isinstance(concat, tuple):  # ISNULL(@s + sep, start) + step
                sep, start = concat
                acc[i] = None if step is None else \
                    f"{start if prev is None else f'{prev}{sep}'}{step}"
            elif prev is None or step is None:
                acc[i] = None
            elif concat:
                acc[i] = f"{prev}{step}"
            elif isinstance(prev, Decimal):
                acc[i] = prev + Decimal(str(step))
            elif isinstance(prev, (int, float)) and not isinstance(prev, bool):
                acc[i] = prev + type(prev)(step)
            else:
                acc[i] = prev + step
            values[i] = acc[i]
        new_rows.append(tuple(values))
    rs.rows = new_rows


def _select_into(ctx: ExecContext, into: exp.Expression, rs: ResultSet) -> SqlResult:
    target = into.this if isinstance(into, exp.Into) else into
    assert isinstance(target, exp.Table)
    columns = []
    for i, name in enumerate(rs.columns):
        if not name:
            raise tsql_error(1038)
        spec = rs.types[i] or next((spec_of_value(r[i]) for r in rs.rows
                                    if r[i] is not None), None) or "int"
        columns.append(f"[{name.replace(']', ']]')}] {spec} NULL")
    key = table_key(target)
    name = key[2] if key[3] == "#" else target.sql("tsql")
    create = parse_statement(f"CREATE TABLE {name} ({', '.join(columns)})").tree
    assert isinstance(create, exp.Create)
    info = create_table(ctx, create)
    RowWriter(ctx, info, "INSERT").insert(list(rs.columns), rs.rows, sources=rs.row_types)
    return SqlResult([], len(rs.rows))
