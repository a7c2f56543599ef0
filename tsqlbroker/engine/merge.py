"""``MERGE`` emulated on backends without it (SQLite).

SQL Server evaluates every WHEN clause against one snapshot of target and source, then
applies the actions. The emulation does the same: three backend queries (matched rows,
source rows not matched by the target, target rows not matched by the source) pick, per row,
the first WHEN clause whose condition holds and compute the new values; the row writer then
applies updates, deletes and inserts with the usual constraint checks. A target row matched
by more than one source row raises Msg 8672, as in SQL Server. ``OUTPUT`` gives
``$action``, ``inserted.*`` and ``deleted.*`` per affected row (source columns are refused).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ..errors import tsql_error
from .context import ExecContext
from .execsql import read_rows
from .parsing import Parsed, not_supported
from .query import run_query
from .results import ResultSet
from .tableinfo import TableInfo
from .transpiler.binder import Binder
from .transpiler.scope import Source, table_key
from .writer import RowWriter

Params = dict[str, tuple[Any, "str | None"]]


def _flag(condition: exp.Expression | None) -> exp.Expression:
    """1 when the WHEN clause's extra condition holds (or it has none), else 0."""
    if condition is None:
        return exp.Literal.number(1)
    return exp.Case(ifs=[exp.If(this=condition.copy(), true=exp.Literal.number(1))],
                    default=exp.Literal.number(0))


def _action_values(when: exp.When, info: TableInfo) -> tuple[list[str], list[exp.Expression]]:
    """Target columns and value expressions of a WHEN clause's UPDATE or INSERT."""
    then = when.args.get("then")
    if isinstance(then, exp.Update):
        names, values = [], []
        for item in then.expressions:
            if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
                raise not_supported(f"The SET item '{item.sql('tsql')}'")
            names.append(item.this.name)
            values.append(item.expression.copy())
        return names, values
    if isinstance(then, exp.Insert):
        cols = then.this
        vals = then.expression
        names = [c.name for c in cols.expressions] if isinstance(cols, exp.Tuple) else [
            c.name for c in info.columns if c.identity is None]
        values = list(vals.expressions) if isinstance(vals, exp.Tuple) else []
        if len(names) != len(values):
            raise tsql_error(109 if len(values) < len(names) else 110)
        return names, [v.copy() for v in values]
    return [], []


def _kind(when: exp.When) -> str:
    then = when.args.get("then")
    if isinstance(then, exp.Update):
        return "UPDATE"
    if isinstance(then, exp.Insert):
        return "INSERT"
    if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
        return "DELETE"
    raise not_supported(f"The MERGE action '{then.sql('tsql') if then else ''}'")


def _check_output(parsed: Parsed) -> None:
    """MERGE's OUTPUT may name ``$action``, ``inserted`` and ``deleted``; the source table's
    columns are not kept after the writes."""
    for item in parsed.output or ():
        for col in item.find_all(exp.Column):
            if col.table.lower() not in ("inserted", "deleted") \
                    and not (not col.table and col.name.lower() == "$action"):
                raise not_supported("MERGE … OUTPUT of a source column")


def output_rows(ctx: ExecContext, info: TableInfo, parsed: Parsed, params: Params,
                    entries: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]
                ) -> ResultSet:
    """The OUTPUT rows: per (action, inserted row, deleted row), the OUTPUT list over
    one-row ``inserted`` / ``deleted`` tables bound as parameters (NULLs where absent)."""
    assert parsed.output is not None
    exprs = []
    for e in parsed.output:
        e = e.copy()
        for col in list(e.find_all(exp.Column)):
            if not col.table and col.name.lower() == "$action":
                repl = exp.Cast(this=exp.Placeholder(this="__act"),
                                to=exp.DataType.build("nvarchar(10)", dialect="tsql"))
                if col is e:
                    e = exp.alias_(repl, "$action", quoted=True)
                else:
                    col.replace(repl)
        exprs.append(e)
    names = [c.name for c in info.columns]
    typed = ctx.conn.backend.untyped_parameters_are_text

    def value(key: str, spec: str | None) -> exp.Expression:
        mark = exp.Placeholder(this=key)
        if not typed or spec is None:
            return mark
        # PostgreSQL types an unannotated parameter as text.
        return exp.Cast(this=mark, to=exp.DataType.build(spec, dialect="tsql"))

    def row_table(prefix: str, alias: str) -> exp.Expression:
        return exp.select(*[exp.alias_(value(f"{prefix}{i}", c.spec), c.name, quoted=True)
                            for i, c in enumerate(info.columns)]).subquery(alias)

    select = exp.select(*exprs).from_(row_table("__i", "inserted")).join(
        row_table("__d", "deleted"), join_type="cross")
    binder = Binder(ctx, params)
    binder.sources["deleted"] = Source("table", "deleted",
                                       [(c.name, c.spec) for c in info.columns], table=info)
    binder.sources["inserted"] = binder.sources["deleted"]
    compiled = binder.compile(select, (parsed.text, "merge-output", info.object_id))
    rows: list[tuple[Any, ...]] = []
    columns, types = compiled.names or [], compiled.types
    for action, ins, dele in entries:
        extra: dict[str, Any] = {"__act": action}
        for i, n in enumerate(names):
            extra[f"__i{i}"] = (ins or {}).get(n.lower())
            extra[f"__d{i}"] = (dele or {}).get(n.lower())
        rs = run_query(binder, compiled, extra)
        columns, types = rs.columns, rs.types
        rows.extend(rs.rows)
    return ResultSet(columns, types, rows)


def merge(ctx: ExecContext, parsed: Parsed, params: Params, written: str | None = None
          ) -> tuple[int, int | None, ResultSet | None, list[Any]]:
    """Run a MERGE; returns (rows affected, last identity inserted, OUTPUT rows, the ids of
    the rows updated or inserted). The target may carry joins (a view's FROM, its first
    item holding them): ``written`` is then the alias of the one table the actions write."""
    tree = parsed.tree
    assert isinstance(tree, exp.Merge)
    _check_output(parsed)
    target = tree.this
    using = tree.args.get("using")
    on = tree.args.get("on")
    whens_node = tree.args.get("whens")
    if not isinstance(target, exp.Table) or using is None or on is None or whens_node is None:
        raise not_supported("This MERGE form")
    target_joins = [j.copy() for j in target.args.get("joins") or []]
    target = target.copy()
    target.set("joins", None)
    talias = written or target.alias or target.name
    node = next((t for t in (target, *(j.this for j in target_joins))
                 if isinstance(t, exp.Table) and t.alias_or_name.lower() == talias.lower()),
                target)
    source = Binder(ctx, {}).resolve(table_key(node))
    if source.table is None:
        raise not_supported(f"MERGE into '{source.name}'")
    info = source.table
    whens: list[exp.When] = list(whens_node.expressions)
    matched = [w for w in whens if w.args.get("matched")]
    by_target = [w for w in whens if not w.args.get("matched") and not w.args.get("source")]
    by_source = [w for w in whens if not w.args.get("matched") and w.args.get("source")]
    rid = exp.column(ctx.conn.backend.rowid_column, table=talias, quoted=True)

    def clause_columns(clauses: list[exp.When]) -> list[exp.Expression]:
        out: list[exp.Expression] = []
        for w in clauses:
            out.append(_flag(w.args.get("condition")))
            out.extend(_action_values(w, info)[1])
        return out

    def run(select: exp.Select, tag: str) -> list[tuple[Any, ...]]:
        binder = Binder(ctx, params)
        compiled = binder.compile(select, (parsed.text, tag))
        return read_rows(ctx.conn, compiled.sql, binder.binds)[1]

    def exists(inner_from: exp.Expression, joins: list[exp.Expression]) -> exp.Expression:
        probe = exp.select("1").from_(inner_from.copy()).where(on.copy())
        if joins:
            probe.set("joins", [j.copy() for j in joins])
        return exp.Not(this=exp.Exists(this=probe))

    plans: list[tuple[exp.When, str, Any, list[Any]]] = []
    if matched:
        select = exp.Select(expressions=[rid, *clause_columns(matched)])
        select.set("from_", exp.From(this=target.copy()))
        select.set("joins", [*(j.copy() for j in target_joins),
                             exp.Join(this=using.copy(), on=on.copy())])
        seen: set[Any] = set()
        for row in run(select, "merge-matched"):
            if row[0] in seen:
                raise tsql_error(8672)
            seen.add(row[0])
            plans.extend(_choose(matched, info, row[0], list(row[1:])))
    if by_target:
        select = exp.Select(expressions=clause_columns(by_target))
        select.set("from_", exp.From(this=using.copy()))
        select.set("where", exp.Where(this=exists(target, target_joins)))
        for row in run(select, "merge-not-matched"):
            plans.extend(_choose(by_target, info, None, list(row)))
    if by_source:
        select = exp.Select(expressions=[rid, *clause_columns(by_source)])
        select.set("from_", exp.From(this=target.copy()))
        if target_joins:
            select.set("joins", [j.copy() for j in target_joins])
        select.set("where", exp.Where(this=exists(using, [])))
        for row in run(select, "merge-not-matched-by-source"):
            plans.extend(_choose(by_source, info, row[0], list(row[1:])))
    writer = RowWriter(ctx, info, "MERGE")
    updates = [(r, dict(zip(_action_values(w, info)[0], v, strict=True)))
               for w, kind, r, v in plans if kind == "UPDATE"]
    deletes = [r for _w, kind, r, _v in plans if kind == "DELETE"]
    want = parsed.output is not None
    old = writer.fetch([r for r, _c in updates] + deletes) if want else {}
    new_ids = writer.update(updates)
    writer.delete(deletes)
    inserted: list[Any] = []
    for w, kind, _r, values in plans:
        if kind == "INSERT":
            inserted.extend(writer.insert(_action_values(w, info)[0], [tuple(values)]))
    count = len(updates) + len(deletes) + len(inserted)
    written_ids = list(new_ids) + inserted
    if not want:
        return count, writer.last_identity, None, written_ids
    new = writer.fetch(written_ids)
    entries: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []
    entries += [("INSERT", new.get(r), None) for r in inserted]
    entries += [("UPDATE", new.get(n), old.get(r))
                for (r, _c), n in zip(updates, new_ids, strict=True)]
    entries += [("DELETE", None, old.get(r)) for r in deletes]
    return count, writer.last_identity, output_rows(ctx, info, parsed, params, entries), \
        written_ids


def _choose(clauses: list[exp.When], info: TableInfo, rowid: Any, row: list[Any]
            ) -> list[tuple[exp.When, str, Any, list[Any]]]:
    """The first clause whose condition flag is 1, with its computed values."""
    pos = 0
    for w in clauses:
        width = len(_action_values(w, info)[1])
        flag, values = row[pos], row[pos + 1:pos + 1 + width]
        pos += 1 + width
        if flag == 1:
            return [(w, _kind(w), rowid, values)]
    return []
