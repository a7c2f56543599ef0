"""Scalar user-defined functions called inside storage queries (``SELECT dbo.f(a) FROM t``),
and the other calls a query makes of Python where the backend cannot (PARSE, FORMAT on
PostgreSQL).

A UDF body is interpreted T-SQL, which the engine never imports: the interpreter registers a
:class:`UdfBridge` (``register_bridge``) that resolves a function and runs it for a session.

* Constant arguments (literals, variables) on any backend: the function runs once while the
  statement is bound and its value is a bound parameter.
* SQLite calls Python: ``dbo.f(a)`` becomes ``tsqlb_udf(:tsqlb_sid, 'db', 'dbo', 'f', 'ret
  spec', 'arg specs', a)``, a connection function that calls back into the interpreter per
  row. The UDF's own queries run on the same connection while the outer statement is
  stepping (SQLite allows a nested statement on a connection with an open cursor).
* PostgreSQL cannot call Python: before the statement runs, the distinct argument tuples are
  fetched (the call's query with the same FROM / joins — the enclosing queries' too for
  correlated arguments — and the WHERE conjuncts that call no UDF: a superset of the rows
  the call sees), the function runs in Python once per tuple,
  and the call becomes a lookup in a JSON map bound as a parameter:
  ``tsqlb_udf_lookup(CAST(:tsqlb_udf_0 AS jsonb), jsonb_build_array(a))`` read back as the
  return type's storage form. The keys are PostgreSQL's own text of ``jsonb_build_array`` of
  the arguments, computed by the same expressions in both queries, so they always match.

PARSE / TRY_PARSE, whose reading of .NET culture formats lives only in the values layer, go
the same way on PostgreSQL (SQLite calls ``tsqlb_parse`` per row): variables are read while
the statement is bound, columns per distinct (text, culture) of the probe, looked up with
``tsqlb_python_lookup``, which raises a recorded PARSE error only for a row that needs it.
FORMAT, whose .NET formats live in the values layer too, goes the same way (SQLite calls
``tsql_format`` per row with the value's type).

So does a value made xml and turned back into another type in one query
(``CAST(CAST(s AS xml) AS nvarchar(max))``, or xml made in a derived table, CTE or subquery,
which the enclosing query may convert): SQL Server writes the parsed xml out anew
(``<a></a>`` is ``<a />``), which only the values layer's xml reader does; PostgreSQL's
conversion would keep the written text. Where no probe can be built it keeps doing so.
"""

from __future__ import annotations

import json
import weakref
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from ..storage.backends.postgres.casts import from_storage_text, jsonb
from ..storage.stored_values import backend_value, from_storage, spec_of_value, to_storage
from ..values.convert import converter
from ..values.parse_builtins import check_parse_arguments, parse_value
from ..values.types import XML, parse_type_spec
from .execsql import read_rows
from .funcmap import FORMAT_RESULT, bound_format, is_format_call
from .parsing import not_supported
from .transpiler.interface import BindContext
from .transpiler.scope import datatype_spec, param_name, projection_name, source_alias
from .udf_bridge import SPEC_SEP, UdfInfo, UdfName, bridge_of

_XML_METHODS = frozenset({"value", "query", "exist", "nodes", "modify"})


def udf_name(binder: BindContext, node: exp.Dot) -> UdfName | None:
    """The function name if ``node`` (``x.f(…)``, ``x.y.f(…)``) calls a UDF rather than an
    xml method of a column: its first part names no table alias of the query."""
    call = node.expression
    if not isinstance(call, exp.Anonymous):
        return None
    parts: list[str] = []
    target: exp.Expression = node.this
    while isinstance(target, exp.Dot):
        if not isinstance(target.expression, exp.Identifier):
            return None
        parts.insert(0, target.expression.name)
        target = target.this
    if not isinstance(target, exp.Identifier):
        return None
    parts.insert(0, target.name)
    if len(parts) > 2:
        return None
    # xml methods keep their meaning (``T.c.value(…)`` over an APPLY alias the binder may
    # know only later): a UDF named like one is not callable from a query here.
    if parts[0].lower() in binder.sources or call.name.lower() in _XML_METHODS:
        return None
    if len(parts) == 1:
        return None, parts[0], call.name
    return parts[0], parts[1] or None, call.name


def _display(name: UdfName) -> str:
    return ".".join(p for p in name if p)


def _info(binder: BindContext, name: UdfName) -> UdfInfo:
    bridge = bridge_of(binder.conn.store)
    info = bridge.udf_info(binder.ctx.session_id, name) if bridge is not None else None
    if info is None:
        # SQL Server names the first part as the column it might have been.
        raise tsql_error(4121, name[0] or name[1] or "dbo", _display(name), cls=BindError)
    return info


def _constant(binder: BindContext, node: exp.Expression) -> tuple[bool, Any, str | None]:
    """(is constant, value, spec) of an argument known before the query runs."""
    if isinstance(node, exp.Paren):
        return _constant(binder, node.this)
    if isinstance(node, exp.Null):
        return True, None, None
    if isinstance(node, exp.National):
        return True, node.name, f"nvarchar({max(len(node.name), 1)})"
    if isinstance(node, exp.Literal):
        if node.is_string:
            return True, node.name, f"varchar({max(len(node.name), 1)})"
        text = node.name
        if text.isdigit():
            return True, int(text), "int" if int(text) < 2**31 else "bigint"
        return False, None, None
    if isinstance(node, exp.Neg):
        ok, value, spec = _constant(binder, node.this)
        if ok and isinstance(value, str):
            # Negating text makes it float first, as the interpreter does: -('x') is 8114.
            try:
                return True, -float(value), "float"
            except ValueError:
                raise tsql_error(8114, "varchar", "float") from None
        if not ok or not isinstance(value, int):
            return False, None, spec
        return True, -value, spec
    if isinstance(node, exp.Parameter):
        entry = binder.params.get(param_name(node))
        if entry is not None:
            return True, entry[0], entry[1]
    return False, None, None


def constant_args(binder: BindContext, args: Sequence[exp.Expression]
                  ) -> list[tuple[Any, str | None]] | None:
    """The arguments' (value, spec) when every one is known before the query runs."""
    out = []
    for a in args:
        ok, value, spec = _constant(binder, a)
        if not ok:
            return None
        out.append((value, spec))
    return out


class UdfCalls:
    """The UDF calls of one statement being bound: values decided before it runs."""

    def __init__(self, binder: BindContext) -> None:
        # Weak: a Binder → UdfCalls → Binder cycle would keep the statement's transaction and
        # so its session alive until the cyclic collector runs (DROP DATABASE: "in use").
        self._binder = weakref.ref(binder)
        self.by_node: dict[int, exp.Expression] = {}  # id(Dot) → replacement (pre-rewrite)
        self.lookups: dict[int, tuple[str, str | None]] = {}  # id(Dot) → (map bind, spec)
        self.operands: dict[int, list[exp.Expression]] = {}  # id(call) → looked-up operands

    @property
    def binder(self) -> BindContext:
        """The binder these calls belong to."""
        binder = self._binder()
        assert binder is not None
        return binder

    def prepare(self, tree: exp.Expression) -> None:
        """Find the UDF calls (and, where queries cannot call Python, PARSE / TRY_PARSE),
        evaluate constant ones and (PostgreSQL) prefetch the rest."""
        binder = self.binder
        if not binder.backend.python_functions:
            for call in tree.find_all(exp.Anonymous):
                if parse_operands(call) is not None:
                    self._prepare_parse(call)
                elif is_format_call(call):
                    self._prepare_format(call)
            for conversion in list(tree.find_all(exp.Cast, exp.Convert)):
                inner = reparsed_xml(conversion)
                if inner is not None:
                    self._prepare_xml(inner)
                elif derived_xml(conversion):
                    self._prepare_xml(conversion)
        calls = [d for d in tree.find_all(exp.Dot) if udf_name(binder, d) is not None]
        if not calls:
            return
        binder.depends_on(("udf",))  # never a reusable plan: values are bound per run
        if binder.backend.python_functions:
            binder.binds["tsqlb_sid"] = binder.ctx.session_id
        bridge = bridge_of(binder.conn.store)
        for dot in calls:
            name = udf_name(binder, dot)
            assert name is not None and bridge is not None
            info = _info(binder, name)
            binder.depends_on(("udf", name, info))  # ALTER FUNCTION recompiles
            args = list(dot.expression.expressions)
            if len(args) > info.nparams:
                raise tsql_error(8144, _display(name))
            const = constant_args(binder, args)
            if const is not None:
                key = bind_key("tsqlb_udfv", name, const)
                value = bridge.call_udf(binder.ctx.session_id, name, const)
                if value is None:  # written NULL: PostgreSQL cannot type a NULL parameter
                    binder.depends_on(("udf-null", key))
                    self.by_node[id(dot)] = exp.Null()
                    continue
                self.by_node[id(dot)] = self._bound(key, value, info.return_spec)
            elif binder.backend.python_functions:
                self.by_node[id(dot)] = self._sqlite_call(name, info, args)
            else:
                self.by_node[id(dot)] = self._pg_lookup(dot, name, info, args)

    def _prepare_parse(self, call: exp.Anonymous) -> None:
        """PARSE / TRY_PARSE of a column or variable where queries cannot call Python: the
        values layer reads the value now — once for variables, else once per distinct
        (value, culture) of the rows the call can see, looked up per row (as a UDF's).
        A PARSE that fails is recorded, raised only if a row of the query looks it up."""
        binder = self.binder
        operands = parse_operands(call)
        assert operands is not None
        target_spec = parse_type_spec(call.expressions[1].name)
        target = target_spec.spec()
        try_ = call.name.lower() == "try_parse"
        # SQL Server's argument rules first, as the rewriter checks them (Msg 8116, 10761).
        source = "null" if isinstance(operands[0], exp.Null) else \
            binder.spec_of(operands[0]) or "nvarchar(4000)"
        check_parse_arguments(parse_type_spec(source), target_spec, call.name.upper())
        binder.depends_on(("parse",))  # never a reusable plan: values are bound per run

        def read(values: list[tuple[Any, str | None]]) -> Any:
            if len(values) > 1 and values[1][0] is None:
                return None  # a NULL culture: NULL, as for constants (rewrite.py)
            return parse_value(values[0][0], target_spec,
                               None if len(values) < 2 else str(values[1][0]), try_=try_)
        self._prepare_python(call, operands, read, target, ("parse", try_), lambda: not_supported(
            "PARSE or TRY_PARSE of a select-list alias, or with one alias for two tables of "
            "the query, on PostgreSQL"))

    def _prepare_format(self, call: exp.Anonymous) -> None:
        """FORMAT where queries cannot call Python: the interpreter's built-in formats the
        values now — once for constants and variables, else once per distinct (value,
        format, culture) of the rows the call can see, looked up per row (as PARSE). The
        argument rules first (Msg 189, 8116), as the rewriter checks them."""
        binder = self.binder
        operands = list(call.expressions)
        bound_format([binder.spec_of(operands[0]) if not isinstance(operands[0], exp.Literal)
                      else None, *(binder.spec_of(a) for a in operands[1:])])
        binder.depends_on(("parse",))  # never a reusable plan: values are bound per run
        formats: dict[tuple[str | None, ...], Callable[..., Any] | None] = {}
        # Constants (literals, variables) and what names no column (GETDATE(), read once:
        # a probe run apart would see another instant than the query, so its keys would
        # never match) are known now: only the others are probed (a parameter inside the
        # look-up's jsonb_build_array would have no type).
        known = [_constant(binder, a) for a in operands]
        known = [k if k[0] else _row_independent(binder, a) for a, k in zip(operands, known)]
        varying = [a for a, k in zip(operands, known) if not k[0]]

        def read(values: list[tuple[Any, str | None]]) -> Any:
            probed = iter(values)
            full = [(k[1], k[2]) if k[0] else next(probed) for k in known]
            if full[0][0] is None:
                return None
            specs = tuple(spec for _value, spec in full)
            if specs not in formats:
                formats[specs] = bound_format(list(specs))
            fmt = formats[specs]
            assert fmt is not None
            return fmt(*(value for value, _spec in full))
        kind = ("format", tuple((k[1], k[2]) if k[0] else None for k in known))
        if not varying:  # formatted once, bound
            self._bind_known(call, kind, read([]), FORMAT_RESULT)
            return
        self._prepare_python(call, varying, read, FORMAT_RESULT, kind, lambda: not_supported(
            "FORMAT of a select-list alias, or with one alias for two tables of the query, "
            "on PostgreSQL"))

    def _prepare_xml(self, conversion: exp.Expression) -> None:
        """A conversion to xml whose value a conversion to another type reads back, where
        queries cannot call Python: the values layer parses and writes it out (``<a />``)
        as SQL Server does — constants now, columns per distinct value of the rows it can
        see; an xml parsing error is raised only for a row that needs it. Where no probe
        can be built, the backend's conversion keeps the written text."""
        binder = self.binder
        value, style = conversion_operands(conversion)
        source = binder.spec_of(value) or "nvarchar(max)"
        if parse_type_spec(source).is_xml or not (
                style is None or isinstance(style, exp.Literal) and not style.is_string):
            return
        try_ = isinstance(conversion, exp.TryCast) or bool(conversion.args.get("safe"))
        binder.depends_on(("parse",))  # never a reusable plan: values are bound per run
        readers: dict[str, Callable[[Any], Any]] = {}

        def read(values: list[tuple[Any, str | None]]) -> Any:
            spec = values[0][1] or source
            if spec not in readers:
                readers[spec] = converter(parse_type_spec(spec), XML, try_=try_, style=None
                                          if style is None else int(style.name))
            out = readers[spec](values[0][0])
            return None if out is None else out.to_string()
        try:
            self._prepare_python(conversion, [value], read, "xml", ("xml", try_, source),
                                 _NoProbe)
        except _NoProbe:
            return

    def _prepare_python(self, call: exp.Expression, operands: list[exp.Expression],
                        read: Callable[[list[tuple[Any, str | None]]], Any], target: str,
                        kind: tuple[Any, ...], unsupported: Callable[[], Exception]) -> None:
        """A call the values layer reads (PARSE, a conversion to xml): constants now, bound;
        otherwise per distinct operand tuple of the rows it can see (:func:`_probe`), an
        error kept for ``tsqlb_python_lookup`` to raise for a row that looks it up."""
        binder = self.binder
        const = constant_args(binder, operands)
        if const is not None:
            self._bind_known(call, kind, read(const), target)
            return
        probe = _probe(binder, call, operands, unsupported)
        key = bind_key("tsqlb_parse", target, kind, probe.sql("tsql"))
        if key not in binder.binds:
            binder.binds[key] = json.dumps(_prefetch(binder, probe, len(operands), read,
                                                     target, deferred_errors=True))
        self.lookups[id(call)] = (key, target)
        self.operands[id(call)] = operands

    def python_replacement(self, call: exp.Expression) -> exp.Expression | None:
        """The prepared form of a PARSE / TRY_PARSE call or of a conversion to xml read
        back (None: the backend reads it per row itself, or its operands are constants
        the rewriter reads, or no probe could be built)."""
        if id(call) in self.lookups:
            key, spec = self.lookups[id(call)]
            assert spec is not None
            return self._lookup_of(key, spec, self.operands[id(call)], "tsqlb_python_lookup")
        return self.by_node.get(id(call))

    def _bind_known(self, call: exp.Expression, kind: tuple[Any, ...], value: Any,
                    target: str) -> None:
        """``call`` stands for ``value``, read now from its constant operands: bound, or
        written NULL (PostgreSQL cannot type a NULL parameter)."""
        key = bind_key("tsqlb_parsev", kind, call.sql("tsql"))
        if value is None:
            self.binder.depends_on(("parse-null", key))
            self.by_node[id(call)] = exp.Null()
        else:
            self.by_node[id(call)] = self._bound(key, value, target)

    def _bound(self, key: str, value: Any, spec: str | None) -> exp.Expression:
        binder = self.binder
        stored = to_storage(value, spec or spec_of_value(value),
                            binder.conn.backend.native_decimal)
        return binder.bind(key, backend_value(stored), spec)

    def _sqlite_call(self, name: UdfName, info: UdfInfo, args: list[exp.Expression]
                     ) -> exp.Expression:
        binder = self.binder
        binder.binds["tsqlb_sid"] = binder.ctx.session_id
        specs = SPEC_SEP.join(binder.spec_of(a) or "" for a in args)
        return exp.Anonymous(this="tsqlb_udf", expressions=[
            exp.Placeholder(this="tsqlb_sid"), exp.Literal.string(name[0] or ""),
            exp.Literal.string(name[1] or ""), exp.Literal.string(name[2]),
            exp.Literal.string(info.return_spec or ""), exp.Literal.string(specs), *args])

    def _pg_lookup(self, dot: exp.Dot, name: UdfName, info: UdfInfo,
                   args: list[exp.Expression]) -> exp.Expression:
        binder = self.binder
        probe = _probe(binder, dot, args, lambda: _unsupported(name))
        # The same call over the same rows (select list and GROUP BY) shares one parameter,
        # so PostgreSQL sees the same expression in both.
        key = bind_key("tsqlb_udf", name, probe.sql("tsql"))
        if key not in binder.binds:
            bridge = bridge_of(binder.conn.store)
            assert bridge is not None
            binder.binds[key] = json.dumps(_prefetch(
                binder, probe, len(args),
                lambda values: bridge.call_udf(binder.ctx.session_id, name, values),
                info.return_spec))
        # Built when the call is rewritten: building it now would re-parent the arguments,
        # and a UDF call among them would no longer find its SELECT.
        self.lookups[id(dot)] = (key, info.return_spec)
        return exp.Placeholder(this=key)

    def replacement(self, node: exp.Dot) -> exp.Expression | None:
        """The rewritten call for ``node`` (its arguments rewritten by the binder)."""
        out = self.by_node.get(id(node))
        if out is None:
            # A copy made while rewriting (APPLY): SQLite can still call it per row.
            name = udf_name(self.binder, node)
            if name is None:
                return None
            if not self.binder.backend.python_functions:
                raise _unsupported(name)
            self.binder.binds["tsqlb_sid"] = self.binder.ctx.session_id
            out = self._sqlite_call(name, _info(self.binder, name),
                                    list(node.expression.expressions))
        if id(node) in self.lookups:
            return self._lookup(node)
        if isinstance(out, (exp.Placeholder, exp.Null)):
            return out
        fixed, args = out.expressions[:6], out.expressions[6:]
        return exp.Anonymous(this="tsqlb_udf", expressions=[
            *fixed, *(self.binder.rewrite(a) for a in args)])

    def _lookup(self, node: exp.Dot) -> exp.Expression:
        """PostgreSQL: the call as a look-up of its (rewritten) arguments in the bound map."""
        key, spec = self.lookups[id(node)]
        return self._lookup_of(key, spec, node.expression.expressions, "tsqlb_udf_lookup")

    def _lookup_of(self, key: str, spec: str | None, args: Sequence[exp.Expression],
                   function: str) -> exp.Expression:
        lookup = exp.Anonymous(this=function, expressions=[
            jsonb(exp.Placeholder(this=key)),
            exp.Anonymous(this="jsonb_build_array",
                          expressions=[self.binder.rewrite(a) for a in args])])
        return from_storage_text(lookup, spec) if spec else lookup


def parse_operands(call: exp.Expression) -> list[exp.Expression] | None:
    """The value and culture (if any) of a PARSE / TRY_PARSE call that engine/parsing.py
    wrote as ``PARSE(x, 'type'[, culture])`` and whose operands are not all constants
    (those the rewriter reads itself); None for any other node."""
    if not isinstance(call, exp.Anonymous) or call.name.lower() not in ("parse", "try_parse") \
            or len(call.expressions) < 2:
        return None
    operands = [call.expressions[0], *call.expressions[2:3]]
    if all(isinstance(a, (exp.Literal, exp.National, exp.Null)) for a in operands):
        return None
    return operands


def _row_independent(binder: BindContext, node: exp.Expression
                     ) -> tuple[bool, Any, str | None]:
    """(True, value, spec) of an expression that names no column nor query (``GETDATE()``,
    ``@a + 1``), computed once by a SELECT of its own; (False, None, None) otherwise."""
    if any(True for _ in node.find_all(exp.Column, exp.Select, exp.AggFunc, exp.Window,
                                       exp.Dot)):
        return False, None, None
    query = exp.select(exp.alias_(node.copy(), "tsqlb_a0"))
    compiled, binds = binder.compile_apart(query, ("row-independent", query.sql("tsql")))
    rows = read_rows(binder.conn, compiled.sql, {**binder.binds, **binds})[1]
    spec = compiled.types[0] if compiled.types else None
    value = from_storage(rows[0][0], spec) if rows else None
    return True, value, spec or spec_of_value(value)


def conversion_operands(node: exp.Expression) -> tuple[exp.Expression, exp.Expression | None]:
    """(value, style) of a CAST / TRY_CAST / CONVERT node."""
    if isinstance(node, exp.Convert):
        return node.expression, node.args.get("style")
    return node.this, None


def _converts_to_xml(node: exp.Expression) -> bool:
    target = node.this if isinstance(node, exp.Convert) else node.args.get("to")
    if not isinstance(node, (exp.Cast, exp.Convert)) or not isinstance(target, exp.DataType):
        return False
    spec = datatype_spec(target)
    return spec is not None and parse_type_spec(spec).is_xml


def reparsed_xml(conversion: exp.Expression) -> exp.Expression | None:
    """The inner conversion of ``CAST(CAST(x AS xml) AS t)`` (CONVERT alike) with ``t`` not
    xml: xml made in the query and read back as another type; None for any other node."""
    if not isinstance(conversion, (exp.Cast, exp.Convert)) or _converts_to_xml(conversion):
        return None
    inner = conversion_operands(conversion)[0]
    while isinstance(inner, exp.Paren):
        inner = inner.this
    return inner if _converts_to_xml(inner) else None


def derived_xml(conversion: exp.Expression) -> bool:
    """Whether ``conversion`` makes xml inside a derived table, CTE or subquery: the
    enclosing query may read it back as another type (``CAST(d.x AS nvarchar(max))``)."""
    return _converts_to_xml(conversion) \
        and conversion.find_ancestor(exp.Subquery, exp.CTE) is not None


class _NoProbe(Exception):
    """No probe can range over the rows of this call: leave it to the backend."""


def bind_key(prefix: str, *parts: Any) -> str:
    """A parameter name derived from what the value depends on: the same within a statement
    and in the views it reads, so their binds merge without clashes."""
    return f"{prefix}_{zlib.crc32(repr(parts).encode()):08x}"


def _python_free(binder: BindContext, node: exp.Expression) -> bool:
    """Whether ``node`` calls nothing evaluated in Python (a UDF, PARSE of a column,
    FORMAT, xml read back)."""
    return not any(udf_name(binder, d) is not None for d in node.find_all(exp.Dot)) \
        and not any(parse_operands(a) is not None or is_format_call(a)
                    for a in node.find_all(exp.Anonymous)) \
        and not any(reparsed_xml(c) is not None or derived_xml(c)
                    for c in node.find_all(exp.Cast, exp.Convert))


def _probe(binder: BindContext, call: exp.Expression, args: list[exp.Expression],
           unsupported: Callable[[], Exception]) -> exp.Select:
    """The DISTINCT argument tuples of the rows the call can see: the FROM / joins of the
    call's SELECT — and of the enclosing ones when the arguments, or a derived table among
    those sources, use their columns (a correlated subquery, APPLY), cross-joined outermost
    first, an inner derived table applied so that it sees them — with the WHERE conjuncts
    that call no UDF and use only those tables: a superset of the rows the call sees."""
    chain: list[exp.Select] = []
    select = call.find_ancestor(exp.Select)
    while select is not None:
        chain.append(select)
        if _local(binder, chain, args) and _closed(chain):
            break
        select = select.find_ancestor(exp.Select)
    else:
        raise unsupported()
    aliases = [source_alias(t) for s in chain for t in _tables(s)]
    if not aliases or len(aliases) != len(set(aliases)):
        raise unsupported()  # no rows to range over, or one alias naming two tables
    probe = exp.Select(expressions=[exp.alias_(a.copy(), f"tsqlb_a{j}")
                                    for j, a in enumerate(args)])
    probe.set("distinct", exp.Distinct())
    joins: list[exp.Expression] = []
    for i in reversed(range(len(chain))):
        level = chain[i]
        from_ = level.args.get("from_")
        if from_ is not None:
            if probe.args.get("from_") is None:
                probe.set("from_", from_.copy())
            else:
                joins.append(_cross_join(from_.this.copy()))
        joins.extend(j.copy() for j in _probe_joins(chain, i))
    if joins:
        probe.set("joins", joins)
    kept = [c.copy() for level in chain for c in _conjuncts(level)
            if _python_free(binder, c) and _local(binder, chain, [c])]
    if kept:
        probe.set("where", exp.Where(this=exp.and_(*kept)))
    scope: exp.Expression | None = chain[-1]
    while scope is not None:  # the CTEs the tables may name
        if scope.args.get("with_") is not None:
            probe.set("with_", _named_ctes(scope.args["with_"], probe))
            break
        scope = scope.parent
    return probe


def _named_ctes(with_: exp.With, probe: exp.Select) -> exp.With | None:
    """A copy of ``with_`` keeping the CTEs ``probe`` names (and those they name): not
    the one the call itself is in, whose own probe it would need again."""
    ctes = {cte.alias_or_name.lower(): cte for cte in with_.expressions}
    wanted: set[str] = set()
    todo: list[exp.Expression] = [probe]
    while todo:
        for table in todo.pop().find_all(exp.Table):
            name = table.name.lower()
            if not table.db and name in ctes and name not in wanted:
                wanted.add(name)
                todo.append(ctes[name].this)
    kept = [cte.copy() for name, cte in ctes.items() if name in wanted]
    if not kept:
        return None
    out = with_.copy()
    out.set("expressions", kept)
    return out


def _probe_joins(chain: list[exp.Select], i: int) -> list[exp.Join]:
    """The joins of ``chain[i]`` the probe keeps: not the APPLY holding the inner level (the
    probe would contain the call again)."""
    return [j for j in chain[i].args.get("joins") or []
            if i == 0 or not _contains(j, chain[i - 1])]


def _cross_join(source: exp.Expression) -> exp.Join:
    """An inner level's FROM source joined after the outer levels' ones: a derived table
    as CROSS APPLY, so that its correlated columns see them (LATERAL)."""
    if isinstance(source, exp.Subquery) and isinstance(source.args.get("alias"), exp.TableAlias):
        alias = source.args["alias"]
        source.set("alias", None)
        return exp.Join(this=exp.Lateral(this=source, alias=alias, cross_apply=True))
    return exp.Join(this=source, kind="CROSS")


def _closed(chain: list[exp.Select]) -> bool:
    """Whether the derived tables and applied queries the probe takes from ``chain`` name
    no table (by a qualified column) but theirs and the chain's: one correlated with a
    further outer query needs that query's tables in the probe too."""
    aliases = {source_alias(t) for s in chain for t in _tables(s)}
    for i, level in enumerate(chain):
        from_ = level.args.get("from_")
        sources = ([from_.this] if from_ is not None else []) + [
            j.this for j in _probe_joins(chain, i)]
        for source in sources:
            if isinstance(source, exp.Table):
                continue
            inner = {source_alias(t) for t in source.find_all(exp.Table)} | {
                n.alias.lower() for n in source.find_all(exp.Subquery, exp.Lateral)
                if n.alias}
            if any(c.table and c.table.lower() not in aliases | inner
                   for c in source.find_all(exp.Column)):
                return False
    return True


def _contains(node: exp.Expression, inner: exp.Expression) -> bool:
    return any(n is inner for n in node.walk())


def _tables(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_")
    return ([from_.this] if from_ is not None else []) + [
        j.this for j in select.args.get("joins") or []]


def _conjuncts(select: exp.Select) -> list[exp.Expression]:
    where = select.args.get("where")
    if where is None:
        return []
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def _prefetch(binder: BindContext, probe: exp.Select, nargs: int,
              evaluate: Callable[[list[tuple[Any, str | None]]], Any], spec: str | None, *,
              deferred_errors: bool = False) -> dict[str, Any]:
    """PostgreSQL: ``evaluate`` the call's (value, spec) arguments for each row of ``probe``;
    ``{jsonb key text: storage text of the value}``. ``deferred_errors``: an error is kept
    as ``{"number", "message"}``, which ``tsqlb_python_lookup`` raises when a row of the
    query looks it up (the probe's rows are a superset of those)."""
    compiled, binds = binder.compile_apart(probe, ("udf-probe", probe.sql("tsql")))
    # Placeholders the statement binds itself (OUTPUT's row id and deleted values) too.
    binds = {**binder.binds, **binds}
    cols = ", ".join(f'q."tsqlb_a{j}"' for j in range(nargs))
    sql = compiled.sql.wrap(f"SELECT q.*, CAST(jsonb_build_array({cols}) AS text) AS "
                            "tsqlb_key FROM (", ") AS q")
    rows = read_rows(binder.conn, sql, binds)[1]
    out: dict[str, Any] = {}
    for row in rows:
        values = []
        for j in range(nargs):
            arg_spec = compiled.types[j] if j < len(compiled.types) else None
            py = from_storage(row[j], arg_spec)
            values.append((py, arg_spec or spec_of_value(py)))
        try:
            value = evaluate(values)
        except TSqlError as err:
            if not deferred_errors:
                raise
            out[row[-1]] = {"number": err.number, "message": err.message}
            continue
        out[row[-1]] = _storage_text(value, spec, binder.conn.backend.native_decimal)
    return out


def _local(binder: BindContext, chain: list[exp.Select], exprs: list[exp.Expression]) -> bool:
    """Whether every column ``exprs`` use comes from the FROM / joins of the SELECTs in
    ``chain`` (not a further outer query, nor a select-list alias): only then can the probe
    compute them. A failing probe would abort the PostgreSQL transaction, so this is
    checked first."""
    tables = [t for s in chain for t in _tables(s)]
    aliases = {source_alias(t) for t in tables}
    # A CTE read by the chain has no source of its own: its select list names its columns.
    ctes = {source_alias(t): _cte_columns(chain[-1], t.name) for t in tables
            if isinstance(t, exp.Table) and binder.sources.get(source_alias(t)) is None}
    for e in exprs:
        for col in e.find_all(exp.Column):
            if col.table:
                if col.table.lower() not in aliases:
                    return False
            elif not any(binder.sources.get(al) is not None
                         and binder.sources[al].has_column(col.name)
                         or col.name.lower() in ctes.get(al, ()) for al in aliases):
                return False
    return True


def _cte_columns(select: exp.Select, name: str) -> frozenset[str]:
    """The lower-case column names of CTE ``name`` of the WITH around ``select`` (empty
    when there is none or a column has no evident name, a star's included)."""
    scope: exp.Expression | None = select
    while scope is not None:
        with_ = scope.args.get("with_")
        for cte in with_.expressions if with_ is not None else []:
            if cte.alias_or_name.lower() != name.lower():
                continue
            listed = cte.args["alias"].columns if cte.args.get("alias") is not None else []
            if listed:
                return frozenset(c.name.lower() for c in listed)
            body = cte.this
            while isinstance(body, (exp.Union, exp.Except, exp.Intersect, exp.Subquery)):
                body = body.this
            if not isinstance(body, exp.Select):
                return frozenset()
            names = [projection_name(i).lower() for i in body.expressions]
            return frozenset(names) if all(names) else frozenset()
        scope = scope.parent
    return frozenset()


def _storage_text(value: Any, spec: str | None, native_decimal: bool) -> str | None:
    """A value as the text ``casts.from_storage_text`` reads back as ``spec``'s storage form."""
    stored = backend_value(to_storage(value, spec or spec_of_value(value), native_decimal))
    if stored is None:
        return None
    if isinstance(stored, bytes):
        return stored.hex()
    if isinstance(stored, bool):
        return "1" if stored else "0"
    return str(stored)


def _unsupported(name: UdfName) -> Exception:
    return not_supported(f"The user-defined function '{_display(name)}' with arguments that "
                         "use select-list aliases, or one alias for two tables of the "
                         "query, on PostgreSQL")


def spec_of(binder: BindContext, node: exp.Expression) -> str | None:
    """The return type spec of a UDF call node (None: not a UDF call)."""
    if not isinstance(node, exp.Dot):
        return None
    name = udf_name(binder, node)
    if name is None:
        return None
    return _info(binder, name).return_spec
