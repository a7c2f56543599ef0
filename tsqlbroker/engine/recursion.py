"""MAXRECURSION: recursive CTEs stop as SQL Server's do, with Msg 530.

SQL Server numbers the rows of a recursive CTE by recursion level (the anchor's are level
0, the rows a recursive member makes from level-n rows are level n + 1) and ends the
statement with Msg 530 (*"The statement terminated. The maximum recursion %d has been
exhausted before statement completion."*) as soon as a row beyond the statement's limit
is made: ``OPTION (MAXRECURSION n)``, 100 when not given, none for 0.

Neither backend counts levels, so the CTE carries its own: ``r`` becomes

    WITH tsqlb_rec_r (cols…, tsqlb_level) AS (
        anchor…, 0
        UNION ALL
        recursive member…, tsqlb_recursion_level(r.tsqlb_level + 1, limit)
          FROM tsqlb_rec_r AS r …),
    r (cols…) AS (SELECT cols… FROM tsqlb_rec_r)

where ``tsqlb_recursion_level`` (a Python function on SQLite, PL/pgSQL on PostgreSQL)
returns the level or raises Msg 530. It is computed in the select list, so only rows the
member really produces count (its WHERE has already rejected the others).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

LEVEL = "tsqlb_level"
_PREFIX = "tsqlb_rec_"
LEVEL_FUNCTION = "tsqlb_recursion_level"


def bound_recursive_ctes(tree: exp.Expression, limit: int,
                         names_of: Callable[[exp.Select], list[str] | None]) -> set[str]:
    """Give every recursive CTE of ``tree`` the level check for ``limit`` (0: none).
    ``names_of(select)`` names a select's columns (None where it cannot). Returns the
    names of the CTEs added (the level-counting ones)."""
    added: set[str] = set()
    if limit == 0:
        return added
    for with_ in list(tree.find_all(exp.With)):
        ctes: list[exp.Expression] = []
        for cte in with_.expressions:
            bounded = _bounded(cte, limit, names_of)
            if bounded is None:
                ctes.append(cte)
                continue
            ctes.extend(bounded)
            added.add(bounded[0].alias_or_name.lower())
        with_.set("expressions", ctes)
    return added


def _bounded(cte: exp.CTE, limit: int, names_of: Callable[[exp.Select], list[str] | None]
             ) -> list[exp.CTE] | None:
    """The two CTEs replacing a recursive ``cte``, or None (not recursive, or a shape SQL
    Server refuses anyway: left as it was)."""
    name = cte.alias_or_name
    low = name.lower()
    members: list[tuple[exp.Expression, exp.Table | None]] = []
    if not _members(cte.this, low, members) or not any(ref for _m, ref in members):
        return None
    alias = cte.args.get("alias")
    columns = [c.name for c in alias.columns] if alias is not None and alias.columns else None
    if columns is None:
        anchor = next(m for m, ref in members if ref is None)
        while isinstance(anchor, exp.SetOperation):
            anchor = anchor.this
        columns = names_of(anchor) if isinstance(anchor, exp.Select) else None
        if not columns or not all(columns):
            return None
    inner = _PREFIX + low
    for member, ref in members:
        if ref is None:
            for select in _selects(member):
                select.append("expressions", exp.alias_(exp.Literal.number(0), LEVEL))
            continue
        ref_name = ref.alias_or_name
        ref.set("this", exp.to_identifier(inner))
        if not ref.alias:
            ref.set("alias", exp.TableAlias(this=exp.to_identifier(ref_name)))
        level = exp.Anonymous(this=LEVEL_FUNCTION, expressions=[
            exp.Add(this=exp.column(LEVEL, table=ref_name), expression=exp.Literal.number(1)),
            exp.Literal.number(limit)])
        member.append("expressions", exp.alias_(level, LEVEL))
    idents = [exp.to_identifier(c, quoted=True) for c in columns]
    counting = exp.CTE(this=cte.this, alias=exp.TableAlias(
        this=exp.to_identifier(inner), columns=[*idents, exp.to_identifier(LEVEL)]))
    visible = exp.CTE(
        this=exp.select(*[exp.column(i.copy()) for i in idents]).from_(inner),
        alias=exp.TableAlias(this=exp.to_identifier(name), columns=[i.copy() for i in idents]))
    return [counting, visible]


def _members(body: exp.Expression, name: str,
             out: list[tuple[exp.Expression, exp.Table | None]]) -> bool:
    """Split a CTE body at its UNION ALLs into members: ``(member, None)`` for an anchor
    part (any query not reading the CTE), ``(select, its reference to the CTE)`` for a
    recursive member. False when the body has another shape."""
    if isinstance(body, exp.Union) and not body.args.get("distinct"):
        return _members(body.this, name, out) and _members(body.expression, name, out)
    refs = [t for t in body.find_all(exp.Table) if _names(t, name)]
    if not refs:
        if not _plain(body):
            return False
        out.append((body, None))
        return True
    if not isinstance(body, exp.Select) or len(refs) != 1:
        return False
    ref = refs[0]
    # Read in the member's own FROM or JOIN (SQL Server allows it nowhere else).
    clause = ref.parent
    if not isinstance(clause, (exp.From, exp.Join)) or clause.parent is not body:
        return False
    out.append((body, ref))
    return True


def _names(table: exp.Table, name: str) -> bool:
    return not table.args.get("db") and not table.args.get("catalog") \
        and table.name.lower() == name


def _plain(query: exp.Expression) -> bool:
    """Whether ``query`` is SELECTs combined by set operations (each gets the level)."""
    if isinstance(query, exp.SetOperation):
        return _plain(query.this) and _plain(query.expression)
    return isinstance(query, exp.Select)


def _selects(query: exp.Expression) -> list[exp.Select]:
    """The SELECTs a set operation (or a single SELECT) combines."""
    if isinstance(query, exp.SetOperation):
        return _selects(query.this) + _selects(query.expression)
    return [query] if isinstance(query, exp.Select) else []
