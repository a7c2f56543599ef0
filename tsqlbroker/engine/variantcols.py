"""sql_variant columns in queries (the transpiler's feature module).

A sql_variant column stores each value with its base type (``storage/stored_values.py``: a
header — family rank, SQL_VARIANT_PROPERTY's answers, the base type — then the value's text).
A query reads it in three ways: a select-list, GROUP BY or ORDER BY item keeps the stored form
(the engine reads a result column back with its base type; ORDER BY sorts it by
:func:`order_keys`); anywhere else the column is its value (``tsqlb_variant_value``, which
each store defines: SQLite gives a number as a number); a comparison with it follows SQL
Server's sql_variant rules (:func:`comparison`: a value of a higher family is the greater,
values of one family compare as values); ``SQL_VARIANT_PROPERTY(column, 'BaseType')`` reads
the header (:func:`property_call`). GROUP BY, DISTINCT and UNION group such a column on
:func:`group_keys` (values equal as SQL Server compares them are one group), which ORDER BY
sorts by too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ..storage.stored_values import VARIANT_FIELDS, VARIANT_SPEC_FIELD
from ..values.types import parse_type_spec
from ..values.variant_props import (
    NUMERIC_RANKS,
    TEXT_RANKS,
    family_rank,
    variant_overhead,
    variant_overheads,
)
from .parsing import not_supported

__all__ = [
    "as_comparisons",
    "comparison",
    "conversion",
    "data_length",
    "distinct_as_group",
    "group_keys",
    "grouped",
    "intersect_except",
    "is_variant_spec",
    "keeps_stored_form",
    "order_keys",
    "property_call",
    "property_spec",
    "set_operation_order",
    "value_of",
]

_VALUE = "tsqlb_variant_value"
_FIELD = "tsqlb_variant_field"
_NUMERIC = [exp.Literal.string(str(r)) for r in sorted(NUMERIC_RANKS)]
_TEXT_PROPERTIES = frozenset({"basetype", "collation"})
_OPERATORS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
# The families whose values a sql_variant column compares with in a query: numbers, strings,
# date and time (stored as numbers or text on both stores).
_COMPARABLE = NUMERIC_RANKS | TEXT_RANKS


def is_variant_spec(spec: str | None) -> bool:
    """Whether ``spec`` names sql_variant."""
    return spec is not None and spec.split("(")[0].strip().lower() == "sql_variant"


def keeps_stored_form(node: exp.Column) -> bool:
    """Whether a sql_variant column reference stays in its stored form: a select-list item
    (aliased or not), a GROUP BY or ORDER BY item."""
    item: exp.Expression = node
    parent = node.parent
    if isinstance(parent, exp.Alias):
        item, parent = parent, parent.parent
    if isinstance(parent, exp.Select):
        return item.arg_key == "expressions"
    return isinstance(parent, (exp.Group, exp.Ordered))


def value_of(stored: exp.Expression) -> exp.Expression:
    """The value of a sql_variant column's stored form."""
    return exp.Anonymous(this=_VALUE, expressions=[stored])


def _stored_form(node: exp.Expression) -> exp.Expression | None:
    if isinstance(node, exp.Anonymous) and node.name.lower() == _VALUE:
        return node.expressions[0]
    return None


def _rank(stored: exp.Expression) -> exp.Expression:
    """The family rank digit of a stored sql_variant (the header's second character)."""
    return exp.Anonymous(this="substr", expressions=[
        stored, exp.Literal.number(2), exp.Literal.number(1)])


def _number(value: exp.Expression) -> exp.Expression:
    return exp.Cast(this=value, to=exp.DataType.build("decimal"))


Fold = Callable[[exp.Expression], exp.Expression]


def group_keys(column: exp.Expression, fold: Fold) -> list[exp.Expression]:
    """What a sql_variant column's values compare by, as GROUP BY and ORDER BY items: the
    family, then a number's value (tinyint 1, int 1 and 1.00 are one), then another value
    as the store compares text without case (``fold``: 'a' and 'A' are one)."""
    def numeric() -> exp.Expression:
        return exp.In(this=_rank(column.copy()), expressions=[n.copy() for n in _NUMERIC])
    number = exp.Case(ifs=[exp.If(this=numeric(), true=_number(value_of(column.copy())))])
    other = exp.Case(ifs=[exp.If(this=exp.Not(this=numeric()),
                                 true=fold(value_of(column.copy())))])
    return [_rank(column.copy()), number, other]


def order_keys(ordered: exp.Ordered, fold: Fold) -> list[exp.Ordered]:
    """ORDER BY a sql_variant column: by :func:`group_keys` (the same expressions, so that
    a grouped query may sort by them)."""
    flags = {k: ordered.args.get(k) for k in ("desc", "nulls_first")}
    return [exp.Ordered(this=key, **flags) for key in group_keys(ordered.this, fold)]


def set_operation_order(query: exp.SetOperation, is_variant: Callable[[exp.Expression], bool],
                        fold: Fold) -> exp.Expression | None:
    """UNION / INTERSECT / EXCEPT ordered by a sql_variant column: the set operation as a
    derived table, sorted by :func:`order_keys` of its output column (a compound query's
    ORDER BY may only name its columns); None where no ORDER BY item is such a column."""
    order = query.args.get("order")
    if order is None or not any(isinstance(o, exp.Ordered) and is_variant(o.this)
                                for o in order.expressions):
        return None
    items: list[exp.Expression] = []
    for ordered in order.expressions:
        if isinstance(ordered, exp.Ordered) and is_variant(ordered.this):
            column = exp.Column(this=ordered.this.this.copy())
            items.extend(order_keys(exp.Ordered(this=column, **{
                k: ordered.args.get(k) for k in ("desc", "nulls_first")}), fold))
        else:
            items.append(ordered)
    outer = exp.select(exp.Star()).from_(exp.alias_(
        exp.Subquery(this=query), "tsqlb_set", table=True))
    for key in ("limit", "offset"):
        outer.set(key, query.args.get(key))
        query.set(key, None)
    query.set("order", None)
    outer.set("order", exp.Order(expressions=items))
    return outer


def union_distinct(query: exp.SetOperation, is_variant: Callable[[exp.Expression], bool],
                   fold: Fold) -> exp.Select | None:
    """UNION (without ALL) with a sql_variant column among its first query's items: its
    duplicates are the rows whose values compare equal (tinyint 1 and int 1), as GROUP BY
    of the UNION ALL on :func:`group_keys`, which also order it; None where this does not
    apply (another set operation, an item without a name)."""
    if not isinstance(query, exp.Union) or not query.args.get("distinct"):
        return None
    found = _item_names(query.this, is_variant)
    if found is None or not any(found[1]):
        return None
    names, variant = found
    moved = {k: query.args.get(k) for k in ("order", "limit", "offset")}
    for key in moved:
        query.set(key, None)
    query.set("distinct", False)

    def column(name: str) -> exp.Column:
        return exp.Column(this=exp.to_identifier(name))
    keys: list[exp.Expression] = []
    items: list[exp.Expression] = []
    for name, is_var in zip(names, variant, strict=True):
        keys.extend(group_keys(column(name), fold) if is_var else [column(name)])
        items.append(exp.alias_(exp.Min(this=column(name)), name) if is_var else column(name))
    outer = exp.select(*items).from_(exp.alias_(
        exp.Subquery(this=query), "tsqlb_set", table=True))
    outer.set("group", exp.Group(expressions=keys))
    _outer_order(outer, moved, names, variant, fold)
    return outer


def _outer_order(outer: exp.Select, moved: dict[str, Any], names: list[str],
                 variant: list[bool], fold: Fold) -> None:
    """A set operation's ORDER BY / OFFSET / FETCH (``moved``) on the query standing for it,
    a sql_variant column ordered by :func:`order_keys`."""
    order = moved.pop("order")
    if order is not None:
        by_name = {n.lower() for n, v in zip(names, variant, strict=True) if v}
        ordered_items: list[exp.Expression] = []
        for ordered in order.expressions:
            target = ordered.this if isinstance(ordered, exp.Ordered) else None
            if isinstance(target, exp.Column) and target.name.lower() in by_name:
                ordered_items.extend(order_keys(exp.Ordered(this=exp.Column(
                    this=exp.to_identifier(target.name)), **{
                    k: ordered.args.get(k) for k in ("desc", "nulls_first")}), fold))
            else:
                ordered_items.append(ordered)
        outer.set("order", exp.Order(expressions=ordered_items))
    for key, value in moved.items():
        outer.set(key, value)


def _item_names(select: exp.Expression, is_variant: Callable[[exp.Expression], bool]
                ) -> tuple[list[str], list[bool]] | None:
    """The output names of a SELECT's items and which are sql_variant columns; None when an
    item has no name of its own (or two share one)."""
    if not isinstance(select, exp.Select):
        return None
    names: list[str] = []
    variant: list[bool] = []
    for item in select.expressions:
        if isinstance(item, exp.Alias):
            names.append(item.alias)
            variant.append(is_variant(item.this))
        elif isinstance(item, exp.Column) and not isinstance(item.this, exp.Star):
            names.append(item.name)
            variant.append(is_variant(item))
        else:
            return None
    if len({n.lower() for n in names}) != len(names):
        return None
    return names, variant


def intersect_except(query: exp.SetOperation, is_variant: Callable[[exp.Expression], bool],
                     fold: Fold) -> exp.Select | None:
    """INTERSECT / EXCEPT with sql_variant columns on both sides: a row of the first query
    is matched by a row of the second whose values compare equal as SQL Server compares
    sql_variants (:func:`group_keys`: tinyint 1 and int 1, 'a' and N'A'; NULL matches
    NULL), and the first query's rows are distinct on those keys, as UNION's. None where
    this does not apply (no such column, an item without a name, a column sql_variant on
    one side only)."""
    if not isinstance(query, (exp.Intersect, exp.Except)):
        return None
    left, right = _item_names(query.this, is_variant), _item_names(query.expression,
                                                                     is_variant)
    if left is None or right is None or len(left[0]) != len(right[0]) \
            or not any(left[1]) or left[1] != right[1]:
        return None
    names, variant = left
    moved = {k: query.args.get(k) for k in ("order", "limit", "offset")}
    for key in moved:
        query.set(key, None)

    def keys(name: str, table: str, is_var: bool) -> list[exp.Expression]:
        column = exp.Column(this=exp.to_identifier(name), table=exp.to_identifier(table))
        return group_keys(column, fold) if is_var else [column]
    matches: list[exp.Expression] = []
    left_keys: list[exp.Expression] = []
    for lname, rname, is_var in zip(names, right[0], variant, strict=True):
        lk, rk = keys(lname, "tsqlb_l", is_var), keys(rname, "tsqlb_r", is_var)
        left_keys.extend(lk)
        for a, b in zip(lk, rk, strict=True):
            matches.append(exp.Paren(this=exp.or_(exp.EQ(this=a.copy(), expression=b), exp.and_(
                exp.Is(this=a.copy(), expression=exp.Null()),
                exp.Is(this=b.copy(), expression=exp.Null())))))
    found = exp.Exists(this=exp.select(exp.Literal.number(1)).from_(exp.alias_(
        exp.Subquery(this=query.expression), "tsqlb_r", table=True)).where(exp.and_(*matches)))
    items = [exp.alias_(exp.Min(this=exp.Column(this=exp.to_identifier(n), table=exp.to_identifier(
        "tsqlb_l"))), n) if v else exp.Column(this=exp.to_identifier(n), table=exp.to_identifier(
            "tsqlb_l")) for n, v in zip(names, variant, strict=True)]
    outer = exp.select(*items).from_(exp.alias_(exp.Subquery(this=query.this), "tsqlb_l",
                                                table=True))
    outer.set("where", exp.Where(this=found if isinstance(query, exp.Intersect)
                                 else exp.Not(this=found)))
    outer.set("group", exp.Group(expressions=left_keys))
    _outer_order(outer, moved, names, variant, fold)
    return outer


def grouped(select: exp.Select, is_variant: Callable[[exp.Expression], bool], fold: Fold
            ) -> None:
    """GROUP BY over sql_variant columns (``is_variant`` tells them): grouped on
    :func:`group_keys`, and the select list's other uses of such a column (outside
    aggregates) read one of the group's stored forms (MIN), as SQL Server returns one of
    the group's values."""
    group = select.args.get("group")
    if group is None:
        return
    variant = [e for e in group.expressions if is_variant(e)]
    if not variant:
        return
    keys: list[exp.Expression] = []
    for e in group.expressions:
        keys.extend(group_keys(e, fold) if any(e is v for v in variant) else [e])
    group.set("expressions", keys)
    names = {v.sql() for v in variant}
    for item in list(select.expressions):
        for col in list(item.find_all(exp.Column)):
            if col.sql() in names and col.find_ancestor(exp.AggFunc) is None:
                col.replace(exp.Min(this=col.copy()))


def distinct_as_group(select: exp.Select, is_variant: Callable[[exp.Expression], bool]
                      ) -> None:
    """SELECT DISTINCT with a sql_variant column in its select list: as GROUP BY its items
    (which :func:`grouped` compares as SQL Server does), where that means the same."""
    distinct = select.args.get("distinct")
    if distinct is None or distinct.args.get("on") is not None \
            or select.args.get("group") is not None:
        return
    items = [i.this if isinstance(i, exp.Alias) else i for i in select.expressions]
    if not any(is_variant(i) for i in items) or any(
            i.find(exp.AggFunc, exp.Window, exp.Subquery, exp.Star) is not None
            for i in items):
        return
    select.set("distinct", None)
    select.set("group", exp.Group(expressions=[
        i.copy() for i in items if not isinstance(i, (exp.Literal, exp.Null))]))


def comparison(node: exp.Expression, specs: list[str | None],
               rewrite: Callable[[exp.Expression], exp.Expression], fold: Fold
               ) -> exp.Expression | None:
    """``a op b`` where a side is a sql_variant column (``specs``: both operands' specs;
    ``rewrite`` rewrites an operand for the store; ``fold`` makes text compare as the store
    compares it without case). Different families compare by family; one family by value
    (numbers as numbers). None where this does not apply: no sql_variant column, or a side
    whose family is unknown or compares otherwise (binary, uniqueidentifier)."""
    if not isinstance(node, _OPERATORS):
        return None
    operands = [node.this, node.expression]
    variant = [isinstance(o, exp.Column) and is_variant_spec(s)
               for o, s in zip(operands, specs, strict=True)]
    if not any(variant):
        return None
    statics: list[int | None] = []
    for is_variant, spec in zip(variant, specs, strict=True):
        rank = None if is_variant or spec is None else family_rank(parse_type_spec(spec))
        if not is_variant and rank not in _COMPARABLE:
            return None
        statics.append(rank)
    op = type(node)
    parts: list[tuple[exp.Expression, exp.Expression, exp.Expression]] = []
    for operand, rank in zip(operands, statics, strict=True):
        side = rewrite(operand)
        stored = _stored_form(side)
        if rank is None and stored is not None:  # (null test, rank, value)
            parts.append((stored, _rank(stored.copy()), side))
        elif rank is None:
            return None
        else:
            parts.append((side, exp.Literal.string(str(rank)), side))
    (l_null, l_rank, l_value), (r_null, r_rank, r_value) = parts
    static = next((r for r in statics if r is not None), None)
    by_value: exp.Expression
    if static is not None:  # one family known: its values' comparison
        numeric = static in NUMERIC_RANKS
        by_value = op(this=_number(l_value.copy()) if numeric else fold(l_value.copy()),
                      expression=_number(r_value.copy()) if numeric else fold(
                          r_value.copy()))
    else:
        by_value = exp.Case(ifs=[exp.If(
            this=exp.In(this=l_rank.copy(), expressions=[n.copy() for n in _NUMERIC]),
            true=op(this=_number(l_value.copy()), expression=_number(r_value.copy())))],
            default=op(this=fold(l_value.copy()), expression=fold(r_value.copy())))
    return exp.Paren(this=exp.Case(ifs=[
        exp.If(this=exp.or_(exp.Is(this=l_null.copy(), expression=exp.Null()),
                            exp.Is(this=r_null.copy(), expression=exp.Null())),
               true=exp.Null()),
        exp.If(this=exp.EQ(this=l_rank.copy(), expression=r_rank.copy()), true=by_value)],
        default=op(this=l_rank, expression=r_rank)))


def as_comparisons(node: exp.Expression, spec: str | None, compare: Callable[
        [exp.Expression], exp.Expression]) -> exp.Expression | None:
    """``v IN (a, b)`` / ``v BETWEEN a AND b`` of a sql_variant column ``v`` (``spec``: its
    spec) as the comparisons they stand for (``v = a OR v = b``, ``v >= a AND v <= b``),
    each rewritten by ``compare``; None for another node."""
    column = node.this
    if not isinstance(column, exp.Column) or not is_variant_spec(spec):
        return None
    if isinstance(node, exp.In) and node.expressions and not node.args.get("query"):
        return exp.Paren(this=exp.or_(*[compare(exp.EQ(this=column.copy(), expression=e))
                                        for e in node.expressions]))
    if isinstance(node, exp.Between):
        return exp.Paren(this=exp.and_(
            compare(exp.GTE(this=column.copy(), expression=node.args["low"])),
            compare(exp.LTE(this=column, expression=node.args["high"]))))
    return None


def conversion(value: exp.Expression, convert: Callable[[exp.Expression, exp.Expression],
                                                         exp.Expression]
               ) -> exp.Expression | None:
    """CAST / CONVERT of a sql_variant column's value (``value``, rewritten): from its
    stored base type, as SQL Server converts (int 5 to varchar is '5', money 1.5 is '1.50',
    a date its date's text); a number is passed as a number (PostgreSQL reads the value as
    text). ``convert(value, source spec)`` is the store's conversion, the source spec an
    expression (the header's base type, known per row), so the extracted value is never read
    as a stored form again. None for another value."""
    stored = _stored_form(value)
    if stored is None:
        return None

    def base() -> exp.Expression:
        return exp.Anonymous(this=_FIELD, expressions=[
            stored.copy(), exp.Literal.number(VARIANT_SPEC_FIELD)])
    return exp.Case(ifs=[exp.If(
        this=exp.In(this=_rank(stored.copy()), expressions=[n.copy() for n in _NUMERIC]),
        true=convert(_number(value.copy()), base()))],
        default=convert(value, base()))


def property_call(args: list[exp.Expression]) -> exp.Expression:
    """``SQL_VARIANT_PROPERTY(column, 'property')`` of a sql_variant column (its arguments
    rewritten): the header field; NULL for another property name."""
    stored = _stored_form(args[0]) if len(args) == 2 else None
    if stored is None:
        raise not_supported("SQL_VARIANT_PROPERTY() with a column argument inside a query")
    prop = args[1]
    if not isinstance(prop, exp.Literal) or not prop.is_string:
        raise not_supported("SQL_VARIANT_PROPERTY() with a property that is no constant")
    name = prop.name.strip().lower()
    field = VARIANT_FIELDS.get(name)
    if field is None:
        return exp.Null()
    call = exp.Anonymous(this=_FIELD, expressions=[stored, exp.Literal.number(field)])
    return call if name in _TEXT_PROPERTIES else exp.Cast(
        this=call, to=exp.DataType.build("int"))


def data_length(value: exp.Expression) -> exp.Expression | None:
    """DATALENGTH of a sql_variant column (``value``: its rewritten value): the value's own
    bytes, the header's TotalBytes less the header and the base type's properties
    (values/variant_props.py); None for another expression."""
    stored = _stored_form(value)
    if stored is None:
        return None

    def field(name: str) -> exp.Expression:
        return exp.Anonymous(this=_FIELD, expressions=[
            stored.copy(), exp.Literal.number(VARIANT_FIELDS[name])])
    by_size: dict[int, list[str]] = {}
    for name, size in variant_overheads().items():
        by_size.setdefault(size, []).append(name)
    overhead = exp.Case(ifs=[
        exp.If(this=exp.In(this=field("basetype"), expressions=[
            exp.Literal.string(n) for n in sorted(names)]), true=exp.Literal.number(size))
        for size, names in sorted(by_size.items())], default=exp.Literal.number(
            variant_overhead("")))
    total = exp.Cast(this=field("totalbytes"), to=exp.DataType.build("int"))
    return exp.Paren(this=exp.Sub(this=total, expression=overhead))


def property_spec(args: list[Any]) -> str:
    """The type spec of a per-row SQL_VARIANT_PROPERTY call."""
    prop = args[1] if len(args) == 2 else None
    name = prop.name.strip().lower() if isinstance(prop, exp.Literal) else ""
    return "nvarchar(128)" if name in _TEXT_PROPERTIES else "int"
