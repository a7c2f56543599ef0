"""FOR XML (PATH, RAW, AUTO) and FOR JSON (PATH, AUTO) in storage queries.

The query's rows are formatted by the backend itself, so that the common correlated forms
work (``STUFF((SELECT ',' + name FROM t WHERE t.k = o.k FOR XML PATH('')), 1, 1, '')``): each
row becomes one string expression (its XML elements / attributes, or its JSON object) and the
rows are concatenated in the query's order::

    SELECT a, b AS [x/@y] FROM t ORDER BY a FOR XML PATH('r')
 →  SELECT STRING_AGG(__q.__x, '') WITHIN GROUP (ORDER BY __q.__o)
    FROM (SELECT <row text> AS __x, ROW_NUMBER() OVER (ORDER BY a) AS __o FROM t) AS __q

Values are written as SQL Server writes them: NULL columns are left out (FOR JSON
INCLUDE_NULL_VALUES writes ``null``), ``&``, ``<``, ``>`` (and ``"`` in attributes) are
entitised, date/time values use the ISO 8601 form (style 126), JSON numbers and ``true`` /
``false`` are unquoted, ``/`` in JSON strings is ``\\/``, a nested ``FOR XML … TYPE`` or
``FOR JSON`` subquery is inserted as is. A query with no rows gives NULL.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from sqlglot import exp

from ..errors import TSqlError, tsql_error
from ..storage.stored_values import BINARY_TYPES, DATE_TYPES
from ..values.types import parse_spec
from .parsing import TSQL_DIALECT, not_supported
from .shapes import aliased, expand_all_stars, order_key
from .transpiler.interface import BindContext
from .transpiler.scope import Source, projection_name

# The column name SQL Server gives the result of a top-level FOR XML / FOR JSON query.
XML_COLUMN = "XML_F52E2B61-18A1-11d1-B105-00805F49916B"
JSON_COLUMN = "JSON_F52E2B61-18A1-11d1-B105-00805F49916B"


@dataclass
class ForOptions:
    """A parsed FOR clause."""

    kind: str  # 'XML' / 'JSON'
    mode: str  # 'PATH', 'RAW', 'AUTO', 'EXPLICIT'
    row: str | None  # PATH / RAW element name ('' for PATH(''))
    root: str | None = None
    elements: bool = False
    type_: bool = False
    without_array_wrapper: bool = False
    include_nulls: bool = False
    binary_base64: bool = False


def options_of(select: exp.Select) -> ForOptions | None:
    """The FOR XML / FOR JSON clause of ``select``, or None."""
    clause = select.args.get("for_")
    if not isinstance(clause, exp.ForClause):
        return None
    kind = str(clause.args.get("kind") or "").upper()
    opts = ForOptions(kind, "", None)
    for option in clause.expressions:
        node = option.this if isinstance(option, exp.QueryOption) else option
        if isinstance(node, exp.XMLKeyValueOption):
            key = node.this.name.upper()
            arg = node.expression.name if node.expression is not None else None
        else:
            key, arg = node.name.upper(), None
        if key in ("PATH", "RAW", "AUTO", "EXPLICIT"):
            opts.mode, opts.row = key, arg
        elif key == "ROOT":
            opts.root = arg or "root"
        elif key == "ELEMENTS":
            opts.elements = True
        elif key == "TYPE":
            opts.type_ = True
        elif key == "WITHOUT_ARRAY_WRAPPER":
            opts.without_array_wrapper = True
        elif key == "INCLUDE_NULL_VALUES":
            opts.include_nulls = True
        elif key == "BINARY BASE64":
            opts.binary_base64 = True
        else:
            raise not_supported(f"FOR {kind} option {key}")
    if opts.mode == "EXPLICIT" or not opts.mode:
        raise not_supported(f"FOR {kind} {opts.mode or ''}".rstrip())
    return opts


def check_lost_clauses(text: str, tree: exp.Expression) -> None:
    """sqlglot drops a FOR XML / FOR JSON clause after UNION / EXCEPT / INTERSECT (the rows
    would come back unformatted): refuse such statements instead."""
    upper = text.upper()
    if "XML" not in upper and "JSON" not in upper:
        return
    words = [t.text.upper() for t in TSQL_DIALECT.tokenize(text)]
    written = sum(1 for a, b in itertools.pairwise(words)
                  if a == "FOR" and b in ("XML", "JSON"))
    parsed = sum(1 for s in tree.find_all(exp.Select) if s.args.get("for_") is not None)
    if written > parsed:
        raise not_supported("FOR XML / FOR JSON after UNION, EXCEPT or INTERSECT")


def result_spec(select: exp.Expression) -> str | None:
    """The type of a FOR XML / FOR JSON query's value: xml with TYPE, else nvarchar(max)."""
    opts = options_of(select) if isinstance(select, exp.Select) else None
    if opts is None:
        return None
    return "xml" if opts.kind == "XML" and opts.type_ else "nvarchar(max)"


def _s(text: str) -> exp.Expression:
    return exp.Literal.string(text)


def _cat(*parts: exp.Expression) -> exp.Expression:
    out = parts[0]
    for part in parts[1:]:
        out = exp.DPipe(this=out, expression=part, safe=True)
    return out


def _replace(value: exp.Expression, pairs: list[tuple[str, str]]) -> exp.Expression:
    for old, new in pairs:
        value = exp.Anonymous(this="REPLACE", expressions=[value, _s(old), _s(new)])
    return value


def xml_name(name: str) -> str:
    """A column name as an XML name: characters XML does not allow there are written
    ``_xHHHH_`` (``order date`` → ``order_x0020_date``), as SQL Server encodes them."""
    out = []
    for i, ch in enumerate(name):
        ok = ch.isalpha() or ch in "_:" or (i > 0 and (ch.isdigit() or ch in "-."))
        out.append(ch if ok else f"_x{ord(ch):04X}_")
    return "".join(out)


_TEXT_ESCAPES = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\r", "&#x0D;")]
_ATTR_ESCAPES = [*_TEXT_ESCAPES, ('"', "&quot;")]


class _Formatter:
    """Builds the per-row text expression of one FOR clause."""

    def __init__(self, binder: BindContext, opts: ForOptions) -> None:
        self.binder = binder
        self.opts = opts

    # -- values ---------------------------------------------------------------------------
    def _spec(self, value: exp.Expression) -> str | None:
        try:
            return self.binder.spec_of(value)
        except TSqlError:
            return None

    @staticmethod
    def _nested(value: exp.Expression) -> ForOptions | None:
        inner = value.this if isinstance(value, exp.Subquery) else None
        return options_of(inner) if isinstance(inner, exp.Select) else None

    def text(self, value: exp.Expression) -> exp.Expression:
        """The value as SQL Server writes it in XML / JSON, before escaping."""
        spec = self._spec(value)
        name = parse_spec(spec).name if spec else None
        if name in BINARY_TYPES:
            # PATH mode and FOR JSON write binary as base64; RAW and AUTO only when asked
            # (BINARY BASE64): without it SQL Server writes a URL to the value.
            if self.opts.kind == "XML" and self.opts.mode != "PATH" \
                    and not self.opts.binary_base64:
                raise not_supported(f"Binary columns in FOR XML {self.opts.mode} without "
                                    "BINARY BASE64")
            return exp.Anonymous(this="tsqlb_base64", expressions=[value.copy()])
        target = exp.DataType.build("nvarchar(max)", dialect="tsql")
        if name in DATE_TYPES:
            return exp.Convert(this=target, expression=value.copy(),
                               style=exp.Literal.number(126))
        if name in ("money", "smallmoney"):  # all four decimals, not CAST's two
            fixed = exp.Cast(this=value.copy(),
                             to=exp.DataType.build("decimal(19,4)", dialect="tsql"))
            return exp.Cast(this=fixed, to=target)
        if name is not None and parse_spec(spec or "").is_string:
            return value.copy()
        return exp.Cast(this=value.copy(), to=target)

    def xml_value(self, value: exp.Expression, attribute: bool) -> exp.Expression:
        nested = self._nested(value)
        if nested is not None and nested.kind == "XML" and nested.type_ or \
                self._spec(value) == "xml":
            return value.copy()
        return _replace(self.text(value), _ATTR_ESCAPES if attribute else _TEXT_ESCAPES)

    def json_value(self, value: exp.Expression) -> exp.Expression:
        nested = self._nested(value)
        if nested is not None and nested.kind == "JSON":
            return value.copy()
        spec = self._spec(value)
        name = parse_spec(spec).name if spec else None
        if name == "bit":
            return exp.Case(ifs=[exp.If(this=exp.EQ(this=value.copy(),
                                                    expression=exp.Literal.number(0)),
                                        true=_s("false"))], default=_s("true"))
        if name is not None and parse_spec(spec or "").is_numeric \
                and name not in ("money", "smallmoney"):  # money is a JSON string
            return self.text(value)
        quoted = self._json_quote(self.text(value) if name is not None else value.copy())
        return _replace(quoted, [("/", "\\/")])

    def _json_quote(self, value: exp.Expression) -> exp.Expression:
        return self.binder.backend.rewrites.json_quote(value)

    # -- rows -----------------------------------------------------------------------------
    def xml_row(self, items: list[tuple[str, exp.Expression]], table: str | None
                ) -> exp.Expression:
        opts = self.opts
        if opts.mode == "PATH":
            row = "row" if opts.row is None else opts.row
            return self._path_element(row, [(n.split("/") if n else [], v, n)
                                             for n, v in items])
        row = (opts.row or "row") if opts.mode == "RAW" else (table or "row")
        if any(not n for n, _v in items):
            raise not_supported(f"An unnamed column in FOR XML {opts.mode}")
        if opts.elements:
            return self._element(row, [], [self._leaf(n, v) for n, v in items])
        return self._element(row, [(n, v) for n, v in items], [])

    def _leaf(self, name: str, value: exp.Expression) -> exp.Expression:
        name = xml_name(name)
        body = self.xml_value(value, False)
        return self._if_not_null(value, _cat(_s(f"<{name}>"), body, _s(f"</{name}>")))

    @staticmethod
    def _if_not_null(value: exp.Expression, text: exp.Expression) -> exp.Expression:
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()),
                                    true=_s(""))], default=text)

    def _element(self, name: str, attrs: list[tuple[str, exp.Expression]],
                 content: list[exp.Expression]) -> exp.Expression:
        if not name:
            if attrs:
                raise tsql_error(6864)
            return _cat(_s(""), *content) if content else _s("")
        name = xml_name(name)
        start: list[exp.Expression] = [_s(f"<{name}")]
        for attr, value in attrs:
            start.append(self._if_not_null(value, _cat(
                _s(f' {xml_name(attr)}="'), self.xml_value(value, True), _s('"'))))
        if not content:
            return _cat(*start, _s("/>"))
        body = _cat(_s(""), *content)
        return exp.Case(ifs=[exp.If(this=exp.EQ(this=body, expression=_s("")),
                                    true=_cat(*[p.copy() for p in start], _s("/>")))],
                        default=_cat(*start, _s(">"), body.copy(), _s(f"</{name}>")))

    def _path_element(self, name: str, items: list[tuple[list[str], exp.Expression, str]]
                      ) -> exp.Expression:
        """An element (``name``; '' for none) holding PATH columns: (remaining steps, value,
        column name)."""
        attrs: list[tuple[str, exp.Expression]] = []
        content: list[exp.Expression] = []
        i = 0
        while i < len(items):
            steps, value, column = items[i]
            if steps == ["data()"] and i and items[i - 1][0] == ["data()"]:
                content.append(self._if_not_null(value, _cat(_s(" "), self.xml_value(
                    value, False))))
                i += 1
            elif not steps or steps in (["*"], ["text()"], ["data()"], ["node()"]):
                content.append(self._if_not_null(value, self.xml_value(value, False)))
                i += 1
            elif len(steps) == 1 and steps[0].startswith("@"):
                if content:
                    raise tsql_error(6852, column)
                attrs.append((steps[0][1:], value))
                i += 1
            else:
                # Adjacent columns under the same first step share one element: 'a/@x' then
                # 'a' writes <a x="…">value</a>; 'p' then 'p/a' writes <p>value<a>…</a></p>.
                # A second plain 'a' starts a new element (as an empty '' column does).
                j, single = i + 1, len(steps) == 1
                while j < len(items) and items[j][0] and items[j][0][0] == steps[0]:
                    if len(items[j][0]) == 1:
                        if single:
                            break
                        single = True
                    j += 1
                if j == i + 1 and len(steps) == 1:
                    content.append(self._leaf(steps[0], value))
                else:
                    content.append(self._path_element(
                        steps[0], [(s[1:], v, c) for s, v, c in items[i:j]]))
                i = j
        return self._element(name, attrs, content)

    def json_row(self, items: list[tuple[str, exp.Expression]]) -> exp.Expression:
        for name, _v in items:
            if not name:
                raise tsql_error(13605)
        # PATH nests dotted names ('info.name'); AUTO writes them as they are.
        return self._json_object([(n.split(".") if self.opts.mode == "PATH" else [n], v)
                                  for n, v in items])

    def _json_object(self, items: list[tuple[list[str], exp.Expression]]) -> exp.Expression:
        pieces: list[exp.Expression] = []
        i = 0
        while i < len(items):
            steps, value = items[i]
            key = '"' + steps[0].replace("\\", "\\\\").replace('"', '\\"') + '":'
            if len(steps) == 1:
                text = _cat(_s("," + key), self.json_value(value))
                if self.opts.include_nulls:
                    pieces.append(exp.Case(ifs=[exp.If(
                        this=exp.Is(this=value.copy(), expression=exp.Null()),
                        true=_s("," + key + "null"))], default=text))
                else:
                    pieces.append(self._if_not_null(value, text))
                i += 1
                continue
            j = i
            while j < len(items) and len(items[j][0]) > 1 and items[j][0][0] == steps[0]:
                j += 1
            pieces.append(_cat(_s("," + key), self._json_object(
                [(s[1:], v) for s, v in items[i:j]])))
            i = j
        body = _cat(_s(""), *pieces)
        inner = exp.Substring(this=body, start=exp.Literal.number(2),
                              length=exp.Literal.number(2147483647))
        return _cat(_s("{"), inner, _s("}"))


def rewrite_for(binder: BindContext, select: exp.Select) -> exp.Select | None:
    """The backend-ready (still T-SQL) form of a query with FOR XML / FOR JSON (see the
    module docstring), or None when it has no FOR clause."""
    opts = options_of(select)
    if opts is None:
        return None
    select.set("for_", None)
    expand_all_stars(binder, select)
    items = list(select.expressions)
    named = [(projection_name(p), p.this if isinstance(p, exp.Alias) else p) for p in items]
    order = select.args.get("order")
    keys = [order_key(o, items) for o in (order.expressions if order is not None else [])]
    from_ = select.args.get("from_") or select.args.get("from")
    table = None
    if opts.mode == "AUTO":
        if select.args.get("joins"):
            raise not_supported(f"FOR {opts.kind} AUTO over joined tables")
        if from_ is not None:
            source = from_.this
            table = source.alias or (source.name if isinstance(source, exp.Table)
                                     else source.alias_or_name)
    if select.args.get("distinct") is not None:
        # DISTINCT applies to the selected values (compared as SQL Server compares them),
        # not to their formatted text: select them distinct one level down, typed as before.
        specs = [binder.spec_of(value) for _name, value in named]
        select.set("expressions", [
            *[aliased(value.copy(), f"__c{i}") for i, (_n, value) in enumerate(named)],
            *[aliased(k.this.copy(), f"__k{i}") for i, k in enumerate(keys)]])
        if select.args.get("limit") is None:
            select.set("order", None)
        binder.sources["__d"] = Source("derived", "__d", [
            (f"__c{i}", spec) for i, spec in enumerate(specs)])
        named = [(name, exp.column(f"__c{i}", "__d", quoted=True))
                 for i, (name, _v) in enumerate(named)]
        keys = [exp.Ordered(this=exp.column(f"__k{i}", "__d", quoted=True),
                            desc=k.args.get("desc"), nulls_first=k.args.get("nulls_first"))
                for i, k in enumerate(keys)]
        select = exp.select("*").from_(exp.Subquery(
            this=select, alias=exp.TableAlias(this=exp.to_identifier("__d", quoted=True))))
    fmt = _Formatter(binder, opts)
    row = fmt.xml_row(named, table) if opts.kind == "XML" else fmt.json_row(named)
    window = exp.Window(this=exp.Anonymous(this="ROW_NUMBER", expressions=[]),
                        order=exp.Order(expressions=keys) if keys else None)
    select.set("expressions", [aliased(row, "__x"), aliased(window, "__o")])
    if select.args.get("limit") is None:
        select.set("order", None)
    sep = "," if opts.kind == "JSON" else ""
    if opts.kind == "XML" and opts.mode == "PATH" and opts.row == "" \
            and all(name == "data()" for name, _v in named):
        sep = " "  # atomic values (data()) are separated by a space, across rows too
    agg = exp.GroupConcat(this=exp.Order(this=exp.column("__x", "__q", quoted=True),
                                         expressions=[exp.Ordered(
                                             this=exp.column("__o", "__q", quoted=True))]),
                          separator=_s(sep))
    value: exp.Expression = agg
    if opts.kind == "JSON":
        if not opts.without_array_wrapper:
            value = _cat(_s("["), value, _s("]"))
        if opts.root:
            if opts.without_array_wrapper:
                raise tsql_error(13620)
            value = _cat(_s('{"' + opts.root + '":'), value, _s("}"))
    elif opts.root:
        value = _cat(_s(f"<{opts.root}>"), value, _s(f"</{opts.root}>"))
    return exp.select(value).from_(exp.Subquery(
        this=select, alias=exp.TableAlias(this=exp.to_identifier("__q", quoted=True))))


_FRAGMENT = "tsqlb_fragment"


def _fragment_query(query: str) -> str | None:
    """An XQuery path over a FOR XML fragment as the same path over the fragment wrapped in
    a ``tsqlb_fragment`` element (None: a form not handled)."""
    q = query.strip()
    root = f"/{_FRAGMENT}"
    if q == ".":
        return f"({root})[1]"  # the context item is a singleton; a path is not
    for prefix, replaced in (("(./", f"({root}/"), ("./", f"{root}/"), ("(/", f"({root}/"),
                             ("/", f"{root}/")):
        if q.startswith(prefix) and not q.startswith(prefix + "/"):
            return replaced + q[len(prefix):]
    return None


def pg_fragment_target(binder: BindContext, node: exp.Dot) -> exp.Dot:
    """``(SELECT … FOR XML …, TYPE).value(…)`` (also ``query()``, ``exist()``) on
    PostgreSQL: the FOR XML value is a fragment (several top-level nodes or bare text) and
    PostgreSQL's xpath() takes only documents, so the fragment is wrapped in an element and
    the path is moved under it ('.' → '(/tsqlb_fragment)[1]', '(/i)[2]' →
    '(/tsqlb_fragment/i)[2]'). Other targets and path forms are left as they are."""
    target, method = node.this, node.expression
    if not binder.backend.xpath_in_sql or not isinstance(target, exp.Paren | exp.Subquery):
        return node
    inner = target.this
    while isinstance(inner, exp.Paren | exp.Subquery):
        inner = inner.this
    opts = options_of(inner) if isinstance(inner, exp.Select) else None
    args = list(method.expressions) if isinstance(method, exp.Anonymous) else []
    if opts is None or opts.kind != "XML" or not args or not isinstance(args[0], exp.Literal):
        return node
    moved = _fragment_query(args[0].name)
    if moved is None:
        return node
    wrapped = _cat(_s(f"<{_FRAGMENT}>"), target, _s(f"</{_FRAGMENT}>"))
    call = exp.Anonymous(this=method.name, expressions=[_s(moved), *args[1:]])
    return exp.Dot(this=exp.Paren(this=wrapped), expression=call)
