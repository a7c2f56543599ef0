"""Query shapes the backends spell differently: table value constructors used as derived
tables, integer ``AVG`` and ``TOP (n) PERCENT`` / ``TOP (n) WITH TIES`` (see
:func:`top_window`).

``(VALUES (1, 'a'), (2.5, 'b')) AS v(n, s)``: SQL Server types each column by data type
precedence over its values (``n`` is ``decimal(11,1)``); PostgreSQL accepts the column
alias list, SQLite does not (it names the columns ``column1`` …), so there the constructor
becomes ``(SELECT column1 AS n, column2 AS s FROM (VALUES …)) AS v``.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from ..errors import BindError, tsql_error
from ..values.precedence import aggregate_spec, common_spec
from ..values.types import literal_spec, parse_spec
from .parsing import not_supported
from .transpiler.interface import BindContext
from .transpiler.scope import Source, projection_name, require_column_names, source_alias


def xml_method_target(node: exp.Dot) -> exp.Expression:
    """The xml value an xml method is called on (``col.value``, ``t.col.value`` …):
    sqlglot reads ``t.col.method(…)`` as dotted identifiers, made a column here; a method
    of a method's result (``c.query(…).nodes(…)``) is left a method call."""
    target = node.this
    if isinstance(target, exp.Dot) and not isinstance(target.expression, exp.Anonymous):
        return exp.Column(this=target.expression, table=target.this)
    if isinstance(target, exp.Identifier):
        return exp.Column(this=target)
    return target


def aliased(node: exp.Expression, name: str) -> exp.Alias:
    """``node AS "name"`` (``exp.alias_`` would name a subquery instead of aliasing it)."""
    return exp.Alias(this=node, alias=exp.to_identifier(name, quoted=True))


def value_spec(binder: BindContext, node: exp.Expression) -> str | None:
    """The type of one constructor item: constants typed as SQL Server types them."""
    if isinstance(node, exp.Neg):
        return value_spec(binder, node.this)
    if isinstance(node, (exp.National, exp.Literal)):
        return constant_spec(node)
    if isinstance(node, exp.Null):
        return None
    return binder.spec_of(node)


def constant_spec(node: exp.Expression) -> str | None:
    """The type SQL Server gives a constant (``N'abc'`` nvarchar(3), ``12`` int, ``1.5``
    numeric(2,1)); None for another expression."""
    if isinstance(node, exp.National):
        return literal_spec(node.name, True, national=True)
    if isinstance(node, exp.Literal):
        return literal_spec(node.name, node.is_string)
    return None


def _kind(spec: str | None) -> str | None:
    if spec is None:
        return None
    t = parse_spec(spec)
    return "string" if t.is_string else "number" if t.is_numeric else t.name


def values_source(binder: BindContext, node: exp.Values) -> Source | None:
    """A derived table ``(VALUES …) AS alias(columns)``: its columns and their types.
    Items whose kind differs from the column's type (``'1'`` in an int column) get an
    explicit CAST, so they convert (or fail with Msg 245) as SQL Server converts them."""
    alias = node.args.get("alias")
    if not isinstance(alias, exp.TableAlias) or not alias.name:
        return None
    require_column_names(node, alias, alias.name)
    names = [c.name for c in alias.columns]
    rows = [t.expressions if isinstance(t, exp.Tuple) else [t] for t in node.expressions]
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise tsql_error(10709)
    if widths and widths.pop() != len(names):
        raise tsql_error(8158 if len(rows[0]) > len(names) else 8159, alias.name)
    columns: list[tuple[str, str | None]] = []
    for i, name in enumerate(names):
        items = [row[i] for row in rows if i < len(row)]
        specs = [value_spec(binder, item) for item in items]
        spec = common_spec(specs)
        columns.append((name, spec))
        if spec is None:
            continue
        for row, item_spec in zip(rows, specs, strict=True):
            if item_spec is not None and _kind(item_spec) != _kind(spec):
                row[i] = exp.Cast(this=row[i], to=exp.DataType.build(spec, dialect="tsql"))
    return Source("values", alias.name, columns)


def sqlite_values(node: exp.Values) -> exp.Expression:
    """``(VALUES …) AS v(a, b)`` (already rewritten) as SQLite reads it."""
    alias = node.args["alias"]
    items = [exp.alias_(exp.column(f"column{i}"), c.name, quoted=True)
             for i, c in enumerate(alias.columns, 1)]
    node.set("alias", None)
    inner = exp.select(*items).from_(exp.Subquery(this=node))
    return exp.Subquery(this=inner, alias=exp.TableAlias(this=alias.this))


def integer_avg(binder: BindContext, node: exp.Avg) -> exp.Expression | None:
    """``AVG`` of an integer expression is an integer in SQL Server (the sum divided by
    the count, truncated toward zero; Msg 8115 when the sum of an int leaves int's range);
    the backends average in floating point or numeric. Returns the backend form, or None
    when the argument is not an integer."""
    if isinstance(node.parent, exp.Window):
        return None  # AVG(x) OVER (…) must stay the window's own call
    arg = node.this
    distinct = isinstance(arg, exp.Distinct)
    inner = arg.expressions[0] if distinct and arg.expressions else arg
    result = aggregate_spec("avg", binder.spec_of(inner))
    if result not in ("int", "bigint"):
        return None
    rewritten = binder.rewrite(arg)
    if result == "bigint":
        return binder.backend.rewrites.integer_average(rewritten)
    total = binder.converted(exp.Sum(this=rewritten), "int", "bigint")
    # Integer division truncates toward zero on both backends, as SQL Server's does.
    return exp.Div(this=total, expression=exp.Count(this=rewritten.copy()), typed=True)


def integer_sum(binder: BindContext, node: exp.Sum) -> exp.Expression | None:
    """``SUM`` of tinyint, smallint or int is an int: Msg 8115 past int's range (the backends
    sum in 64 bits). None for other arguments, and for a window's SUM."""
    if isinstance(node.parent, exp.Window):
        return None
    arg = node.this
    inner = arg.expressions[0] if isinstance(arg, exp.Distinct) and arg.expressions else arg
    if aggregate_spec("sum", binder.spec_of(inner)) != "int":
        return None
    return binder.converted(exp.Sum(this=binder.rewrite(arg)), "int", "bigint")


def aggregate_result_spec(binder: BindContext, node: exp.Expression) -> str | None:
    """The type spec of a ``SUM`` / ``AVG`` call, as SQL Server types it."""
    arg = node.this
    if isinstance(arg, exp.Distinct) and arg.expressions:
        arg = arg.expressions[0]
    function = "avg" if isinstance(node, exp.Avg) else "sum"
    spec = binder.spec_of(arg)
    if spec is not None:
        name = parse_spec(spec).name
        if name == "bit" or not parse_spec(spec).is_numeric and name != "sql_variant":
            raise tsql_error(8117, name, function)
    return aggregate_spec(function, spec)


def top_window(binder: BindContext, select: exp.Select) -> exp.Expression | None:
    """``TOP (n) PERCENT`` and ``TOP (n) WITH TIES``, which neither backend's LIMIT has, as a
    window over the query::

        SELECT TOP (n) WITH TIES a, b FROM t ORDER BY a
     →  SELECT __t.__c1 AS a, __t.__c2 AS b FROM (SELECT a AS __c1, b AS __c2,
            RANK() OVER (ORDER BY a) AS __r FROM t) AS __t WHERE __r <= n ORDER BY __r

    WITH TIES keeps the rows whose RANK is at most n (exactly the first n rows and those
    tying with the n-th); PERCENT takes CEILING(n * COUNT(*) / 100) rows, as SQL Server
    rounds up. Returns None for a plain TOP."""
    limit = select.args.get("limit")
    options = limit.args.get("limit_options") if isinstance(limit, exp.Limit) else None
    if options is None or not (options.args.get("percent") or options.args.get("with_ties")):
        return None
    ties = bool(options.args.get("with_ties"))
    order = select.args.get("order")
    if ties and order is None:
        raise tsql_error(1062)
    if select.args.get("distinct") is not None:
        raise not_supported("SELECT DISTINCT with TOP … PERCENT or TOP … WITH TIES")
    expand_all_stars(binder, select)
    items = list(select.expressions)
    keys = [order_key(o, items) for o in (order.expressions if order is not None else [])]
    inner_items: list[exp.Expression] = []
    outer_items: list[exp.Expression] = []
    for i, item in enumerate(items, 1):
        hidden = f"__c{i}"
        inner_items.append(aliased(item.this if isinstance(item, exp.Alias) else item,
                                   hidden))
        name = projection_name(item)
        ref = exp.column(hidden, "__t", quoted=True)
        outer_items.append(exp.alias_(ref, name, quoted=True) if name else ref)
    window = exp.Window(this=exp.Anonymous(this="RANK" if ties else "ROW_NUMBER",
                                           expressions=[]),
                        order=exp.Order(expressions=keys) if keys else None)
    inner_items.append(exp.alias_(window, "__r", quoted=True))
    rank = exp.column("__r", "__t", quoted=True)
    keep: exp.Expression = exp.LTE(this=rank, expression=limit.expression)
    if options.args.get("percent"):
        # r <= CEILING(n * count / 100)  ⇔  (r - 1) * 100 < n * count: exact, no CEILING.
        inner_items.append(exp.alias_(exp.Window(this=exp.Count(this=exp.Star())), "__n",
                                      quoted=True))
        keep = exp.LT(
            this=exp.Mul(this=exp.Paren(this=exp.Sub(this=rank.copy(),
                                                     expression=exp.Literal.number(1))),
                         expression=exp.Literal.number(100)),
            expression=exp.Mul(this=exp.Paren(this=limit.expression),
                               expression=exp.column("__n", "__t", quoted=True)))
    select.set("limit", None)
    select.set("order", None)
    select.set("expressions", inner_items)
    return exp.select(*outer_items).from_(exp.Subquery(
        this=select, alias=exp.TableAlias(this=exp.to_identifier("__t", quoted=True)))).where(
        keep).order_by(rank.copy())


def order_key(ordered: exp.Ordered, items: list[exp.Expression]) -> exp.Ordered:
    """An ORDER BY item usable inside OVER (…): select-list aliases and ordinals replaced
    by the expressions they name."""
    key = ordered.this
    target: exp.Expression | None = None
    if isinstance(key, exp.Literal) and not key.is_string and key.name.isdigit():
        index = int(key.name) - 1
        if 0 <= index < len(items):
            target = items[index]
    elif isinstance(key, exp.Column) and not key.table:
        target = next((p for p in items if isinstance(p, exp.Alias)
                       and p.alias.lower() == key.name.lower()), None)
    if target is not None:
        ordered = ordered.copy()
        ordered.set("this", (target.this if isinstance(target, exp.Alias) else target).copy())
    return ordered


def refuse_aliases_in_order_expressions(binder: BindContext, tree: exp.Expression) -> None:
    """Msg 207 for a select-list alias named inside an ORDER BY expression (``ORDER BY s +
    1``, ``ORDER BY TRY_PARSE(s AS int)``): SQL Server takes an alias there only as a whole
    item (SQLite would read it). Only where every source of the SELECT is known and none of
    the statement's has a column of that name."""
    for select in tree.find_all(exp.Select):
        order = select.args.get("order")
        names = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
        if order is None or not names:
            continue
        aliases = source_aliases(select)
        if not aliases or any(binder.sources.get(a) is None for a in aliases):
            continue
        for ordered in order.expressions:
            item = ordered.this
            while isinstance(item, exp.Paren):
                item = item.this
            if isinstance(item, exp.Column):
                continue
            for col in item.find_all(exp.Column):
                if col.table or col.name.lower() not in names \
                        or col.find_ancestor(exp.Select) is not select \
                        or any(s.has_column(col.name) for s in binder.sources.values()):
                    continue
                raise tsql_error(207, col.name, cls=BindError)


def is_star(node: exp.Expression) -> bool:
    """``*`` or ``t.*``."""
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column)
                                          and isinstance(node.this, exp.Star))


def source_aliases(select: exp.Select) -> list[str]:
    """The aliases of ``select``'s FROM and JOIN sources, in order."""
    from_ = select.args.get("from_") or select.args.get("from")
    order = [source_alias(from_.this)] if from_ is not None else []
    return order + [source_alias(j.this) for j in select.args.get("joins") or []]


def replace_stars(select: exp.Select, order: list[str],
                  columns: Callable[[str], list[exp.Expression]]) -> None:
    """Each ``*`` / ``t.*`` of ``select`` as ``columns(alias)`` of the sources it covers
    (``order``: :func:`source_aliases`)."""
    items: list[exp.Expression] = []
    for proj in select.expressions:
        if not is_star(proj):
            items.append(proj)
            continue
        table = proj.table.lower() if isinstance(proj, exp.Column) else ""
        for alias in order:
            if not table or alias == table:
                items += columns(alias)
    select.set("expressions", items)


def expand_all_stars(binder: BindContext, select: exp.Select) -> None:
    """``*`` and ``t.*`` as the columns they stand for (the query gets a hidden column)."""
    if not any(is_star(p) for p in select.expressions):
        return

    def columns(alias: str) -> list[exp.Expression]:
        source = binder.sources.get(alias)
        if source is None:
            raise tsql_error(208, alias)
        return [exp.column(name, alias) for name, _spec in source.columns]
    replace_stars(select, source_aliases(select), columns)
