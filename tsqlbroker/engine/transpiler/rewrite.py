"""Pass 4 of the transpiler: the backend's tree. :class:`Rewriter` rewrites a statement
bottom-up: tables become backend tables or derived queries, variables bound parameters
(never spliced text), ``+`` on strings ``||``, T-SQL functions calls of the interpreter's
implementations (``tsql_*``) or the engine's (``tsqlb_*``, ``funcmap.py``), and the features
(FOR XML / JSON, TOP windows, APPLY, UDF and session calls, XML methods) their backend
forms. Decisions about types ask :class:`~.annotate.TypeAnnotator`, on the original
children (``_before``) — so the order of the checks is part of the behaviour."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from ...errors import BindError, tsql_error
from ...storage.stored_values import STRING_TYPES, backend_value, to_storage
from ...values.dates import DATEPART_FIRST
from ...values.operators import binary_bitwise_error
from ...values.parse_builtins import check_parse_arguments, parse_value
from ...values.precedence import common_spec
from ...values.string_builtins import HASHED_AS, hashed_input
from ...values.types import literal_spec, parse_spec, parse_type_spec
from .. import apply, forxml, jsonbuild, shapes, variantcols
from ..datecalls import (
    PART_FUNCTIONS,
    check_call,
    datepart_of,
    part_literal,
    uses_datefirst,
    value_spec,
)
from ..funcmap import (
    BUILTIN_FALLBACK,
    IMPLICIT_WRAPPERS,
    bound_format,
    is_format_call,
    typed_call,
)
from ..metafuncs import replacement as session_call
from ..parsing import not_supported
from ..seqcalls import sequence_call
from .annotate import CHAIN_MIN, TypeAnnotator, left_chain
from .interface import BoundStatement
from .resolve import object_id_of
from .scope import (
    cast_spec,
    default_alias,
    param_name,
    table_key,
)

__all__ = ["Rewriter"]


# The argument counts of the xml methods a query may call (Msg 174 otherwise).
_XML_METHOD_ARGUMENTS = {"value": 2, "exist": 1, "query": 1}


def _check_method_arguments(method: exp.Anonymous) -> None:
    """Msg 174 for an xml method called with the wrong number of arguments; the statement's
    WITH XMLNAMESPACES declarations, passed as a marked last argument (engine/parsing.py),
    do not count."""
    name = method.name.lower()
    want = _XML_METHOD_ARGUMENTS.get(name)
    given = [a for a in method.expressions if not a.args.get("_xmlnamespaces")]
    if want is not None and len(given) != want:
        raise tsql_error(174, name, want)



class Rewriter:
    """Rewrites one statement's tree for the backend."""

    def __init__(self, binder: BoundStatement, types: TypeAnnotator) -> None:
        # Weak: the binder holds this pass (see resolve.Resolver).
        self.b: BoundStatement = weakref.proxy(binder)
        self.types = types
        self.ctx = binder.ctx
        self.conn = binder.conn
        self.catalog = binder.catalog
        self.dialect = binder.dialect
        self.backend = binder.backend
        self.params = binder.params
        self.sources = binder.sources
        self.binds = binder.binds
        self.ctes = binder.ctes
        self.functions = binder.functions
        self.applied = binder.applied
        self.placeholder_specs = binder.placeholder_specs
        self._ci_order: set[int] = set()  # ORDER BY items to sort with TSQL_CI (SQLite)
        self._ci_items: set[tuple[int, str, int]] = set()  # other items to collate (SQLite)
        # Nodes of a long operator chain rewritten ahead of their parent (see rewrite).
        self._rewritten: dict[int, tuple[exp.Expression, exp.Expression]] = {}
        self.rewrites = self.backend.rewrites
        self._scratch: dict[str, Any] = {}
        # DATEADD calls' value types, noted before their children are rewritten
        self._date_specs: dict[int, str | None] = {}

    def rewrite(self, node: exp.Expression) -> exp.Expression:
        """Rewrite ``node`` (already a private copy) for the backend, bottom-up."""
        done = self._rewritten.pop(id(node), None)
        if done is not None and done[0] is node:
            return done[1]
        if isinstance(node, exp.Binary) and isinstance(node.this, exp.Binary) \
                and id(node.this) not in self._rewritten:
            self._rewrite_chain(node)
        before = self._before(node)
        if before is not None:
            return before
        return self._after(self.rewrite_children(node))

    def _rewrite_chain(self, top: exp.Binary) -> None:
        """``a + b + c …`` nests each operator in the next one's left operand: rewriting it
        by plain recursion would go as deep as the chain is long. The operators below
        ``top`` are rewritten first, from the innermost out, each kept aside for its
        parent's own rewrite to take — which still sees its original children, so type
        decisions are as before (and, typed in the same order, cost one step each)."""
        chain = left_chain(top)
        if len(chain) < CHAIN_MIN:
            return
        for node in reversed(chain[1:]):
            self._rewritten[id(node)] = (node, self.rewrite(node))

    def _before(self, node: exp.Expression) -> exp.Expression | None:
        """Rewrites that must see the original children (type decisions, tables)."""
        if isinstance(node, exp.Table):
            return self._rewrite_table(node)
        if isinstance(node, (exp.Extract, exp.DateAdd, exp.DateDiff, exp.TimeToStr)):
            self._note_date_call(node)
        if isinstance(node, (exp.Div, exp.Mod, exp.Add, exp.Sub, exp.Mul, exp.Neg)):
            ruled = self._backend_rule(self.rewrites.BEFORE, node)
            if ruled is not None:
                return ruled
        if isinstance(node, exp.Subquery) and not self.backend.derived_column_aliases:
            _inline_column_aliases(node)
        if not self.backend.quantified_subqueries and isinstance(node, _QUANT_COMPARISONS) \
                and isinstance(node.expression, (exp.Any, exp.All)):
            self.ctes.add(_QUANT)
            return self.rewrite(_quantified(node))
        if isinstance(node, exp.With) and self.backend.recursive_keyword:
            _mark_recursive(node)
        if isinstance(node, exp.Select):
            variantcols.distinct_as_group(node, self._is_variant_column)
        if isinstance(node, exp.Select) and node.args.get("for_") is not None:
            formatted = forxml.rewrite_for(self.b, node)
            if formatted is not None:
                return self.rewrite(formatted)
        if isinstance(node, exp.Select):
            windowed = shapes.top_window(self.b, node)
            if windowed is not None:
                return self.rewrite(windowed)
        if isinstance(node, exp.Select) and self.backend.ci_collation_everywhere:
            self._note_collated_order(node)
            self._note_collated_strings(node)
        if isinstance(node, exp.Limit):
            self._check_row_count(node.expression)
        if isinstance(node, exp.Parameter):
            return self.variable(param_name(node))
        if isinstance(node, exp.NextValueFor):
            return sequence_call(self.b, node)
        if isinstance(node, (exp.Add, exp.Sub)):
            shifted = self._date_arithmetic(node)
            if shifted is not None:
                return shifted
        if isinstance(node, exp.Add) and self.types.is_concatenation(node):
            left, right = self.rewrite(node.this), self.rewrite(node.expression)
            joined = exp.DPipe(this=left, expression=right, safe=True)
            if self.types.kind_of(node) == "binary":
                # SQLite's || yields text even of two blobs: keep the joined bytes a blob.
                return exp.Cast(this=joined, to=exp.DataType.build("blob"))
            return joined
        if isinstance(node, _ARITHMETIC):
            # varbinary + int is int arithmetic in SQL Server; the stores would read a blob as 0.
            specs = [self.types.spec_of(node.this), self.types.spec_of(node.expression)]
            names = [parse_spec(s).name if s else None for s in specs]
            read = self._binary_as_integer(node, specs, names)
            if read is not None:
                return read
        hashed = _hashbytes_arguments(node)
        if hashed is not None:
            return self._hashbytes(*hashed)
        if isinstance(node, exp.Anonymous) and node.name.lower() == "datalength" \
                and len(node.expressions) == 1:
            # The byte count depends on the argument's type (varchar 1, nvarchar 2 per char).
            spec = self.types.spec_of(node.expressions[0])
            if variantcols.is_variant_spec(spec):  # the value's bytes in its base type
                length = variantcols.data_length(self.rewrite(node.expressions[0]))
                if length is not None:
                    return length
            return exp.Anonymous(this="tsqlb_datalength", expressions=[
                self.rewrite(node.expressions[0]), exp.Literal.string(spec or "")])
        if isinstance(node, exp.Select) and self.applied:
            apply.expand_stars(self.b, node)
        if isinstance(node, exp.Join) and isinstance(node.this, exp.Lateral) \
                and not self.backend.supports_lateral:
            return apply.sqlite_join_node(self.b, node)
        if isinstance(node, exp.Lateral) and isinstance(node.this, exp.OpenJSON):
            return apply.lateral_openjson(self.b, node)
        if isinstance(node, exp.Values) and not self.backend.values_column_aliases \
                and isinstance(node.args.get("alias"), exp.TableAlias) \
                and node.args["alias"].columns:
            return shapes.sqlite_values(self.rewrite_children(node))
        if isinstance(node, exp.Avg):
            averaged = shapes.integer_avg(self.b, node)
            if averaged is not None:
                return averaged
        if isinstance(node, exp.Sum):
            summed = shapes.integer_sum(self.b, node)
            if summed is not None:
                return summed
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
            return self._xml_method(forxml.pg_fragment_target(self.b, node))
        if isinstance(node, exp.Column) and self.applied:
            applied = apply.column_reference(self.b, node)
            if applied is not None:
                return applied
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            aliased = self._aliased_column(node)
            if aliased is not None:
                return aliased
        if isinstance(node, exp.Column) and (node.args.get("db") or node.args.get("catalog")):
            node.set("db", None)
            node.set("catalog", None)
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star) \
                and not variantcols.keeps_stored_form(node) \
                and variantcols.is_variant_spec(self.types.column_spec(node)):
            return variantcols.value_of(node)  # a sql_variant column's value
        if isinstance(node, exp.Length) and variantcols.is_variant_spec(self.types.spec_of(
                node.this.this if isinstance(node.this, exp.Cast) else node.this)):
            # LEN as the interpreter binds it (values/string_builtins.py): Msg 8116. (sqlglot
            # wraps LEN's argument in a CAST to text; a user's CAST stays inside it.)
            raise tsql_error(8116, "sql_variant", 1, "len", cls=BindError)
        if isinstance(node, (exp.Cast, exp.TryCast, exp.Convert)):
            return self._rewrite_cast(node)
        if isinstance(node, (exp.In, exp.Between)):
            spec = self.types.spec_of(node.this)
            expanded = variantcols.as_comparisons(node, spec, lambda c: self._variant_compared(
                c, [spec, self.types.spec_of(c.expression)]) or self.rewrite(c))
            if expanded is not None:
                return expanded
        if isinstance(node, _COMPARISONS):
            compared = self._variant_compared(
                node, [self.types.spec_of(node.this), self.types.spec_of(node.expression)]
            ) if isinstance(node.this, exp.Column) or isinstance(
                node.args.get("expression"), exp.Column) else None
            return compared if compared is not None else self._rewrite_comparison(node)
        if isinstance(node, exp.GroupConcat):
            return self._backend_rule(self.rewrites.BEFORE, node)
        if isinstance(node, _BITWISE):
            return self._bitwise_with_binary(node)
        if isinstance(node, exp.Anonymous) and node.name.lower() in ("parse", "try_parse"):
            return self._parse_call(node)
        if is_format_call(node):
            return self._format_call(node)
        members = jsonbuild.member_values(node)
        if members is not None:
            specs = [self.types.spec_of(v) for v in members]
            return jsonbuild.json_build(self.rewrite_children(node), self.rewrites.json_scalar,
                                        specs)
        return None

    def _hashbytes(self, algorithm: exp.Expression, data: exp.Expression) -> exp.Expression:
        """HASHBYTES(algorithm, data): the data as the varbinary it hashes, converted as the
        interpreter converts it (values/string_builtins.hashed_input: a string's own bytes,
        another type's implicit conversion to varbinary; Msg 257 for none)."""
        spec = self.types.spec_of(data)
        if spec is None and isinstance(data, exp.Literal) and not data.is_string:
            spec = literal_spec(data.name, False)  # a number past bigint: numeric(p, 0)
        if spec is None and isinstance(data, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            # Integer or float arithmetic (the annotator types decimal arithmetic only): the
            # operands' type of higher precedence.
            operands = [self.types.spec_of(data.this), self.types.spec_of(data.expression)]
            for i, operand in enumerate((data.this, data.expression)):
                if operands[i] is None and isinstance(operand, exp.Literal) \
                        and not operand.is_string:
                    operands[i] = literal_spec(operand.name, False)
            spec = common_spec(operands) if None not in operands else None
        value = self.rewrite(data)
        source = parse_type_spec(spec) if spec else None
        if source is not None and not source.is_binary and source.name != "null":
            hashed_input(source)  # the rule's check: Msg 257 when no implicit conversion
            value = self.converted(value, HASHED_AS.spec(), spec)
        if not isinstance(algorithm, exp.Literal):
            algorithm = self.rewrite(algorithm)
        return self._function(exp.Anonymous(this="hashbytes", expressions=[algorithm, value]))

    def _parse_call(self, node: exp.Anonymous) -> exp.Expression:
        """PARSE / TRY_PARSE, which engine/parsing.py wrote as ``PARSE(x, 'type'[, culture])``:
        SQL Server's argument rules and the reading are values/parse_builtins.py's. With
        constant arguments the value is read here and bound; where queries cannot call
        Python, variables and columns are read before the statement runs (udf_calls.py);
        otherwise the backend's ``parse`` function reads each row's (``rewrites.parse_call``)."""
        function = node.name.upper()
        args = list(node.expressions)
        if len(args) < 2:
            raise tsql_error(174, function.lower(), 2, cls=BindError)
        target = parse_type_spec(args[1].name).spec()
        spec = self.types.spec_of(args[0])
        source = "null" if isinstance(args[0], exp.Null) else spec or "nvarchar(4000)"
        check_parse_arguments(parse_type_spec(source), parse_type_spec(target), function)
        try_ = function == "TRY_PARSE"
        culture = args[2] if len(args) > 2 else None
        if all(isinstance(a, (exp.Literal, exp.National, exp.Null))
               for a in (args[0], culture) if a):
            text = None if isinstance(args[0], exp.Null) else args[0].name
            name = None if culture is None else (
                None if isinstance(culture, exp.Null) else culture.name)
            value = None if culture is not None and name is None else parse_value(
                text, parse_type_spec(target), name, try_=try_)
            key = f"parse_{len(self.binds)}"
            return self.bind(key, backend_value(to_storage(
                value, target, self.conn.backend.native_decimal)),
                             target)
        prepared = self.b.udf_calls.python_replacement(node)
        if prepared is not None:  # read before the statement runs (udf_calls.py)
            return prepared
        rewritten = [self.rewrite(a) for a in (args[0], culture) if a is not None]
        return self.rewrites.parse_call(rewritten[0], target, try_,
                                        rewritten[1] if culture is not None else None)

    def _format_call(self, node: exp.Anonymous) -> exp.Expression:
        """FORMAT(value, format[, culture]) as engine/parsing.py keeps it: the interpreter's
        built-in (values/format_builtins.py) checks the arguments' types now and formats
        the values — per row where queries call Python (``tsql_format`` given the value's
        type), else read before the statement runs (udf_calls.py)."""
        args = list(node.expressions)
        specs = [self._format_operand_spec(a) for a in args]
        bound_format(specs)
        prepared = self.b.udf_calls.python_replacement(node)
        if prepared is not None:  # read before the statement runs (udf_calls.py)
            return prepared
        if "format" not in self.functions:
            raise not_supported("FORMAT of a select-list alias, or with one alias for two "
                                "tables of the query, on PostgreSQL")
        return exp.Anonymous(this="tsql_format", expressions=[
            exp.Literal.string(specs[0] or ""), *(self.rewrite(a) for a in args)])

    def _format_operand_spec(self, node: exp.Expression) -> str | None:
        """An argument's type, a numeric constant's as SQL Server types it (2.50 is
        numeric(3,2), -2147483648 an int)."""
        spec = self.types.operand_spec(node)
        return spec[0] if isinstance(spec, tuple) else spec

    def _bitwise_with_binary(self, node: exp.Binary) -> exp.Expression | None:
        """``varbinary & int`` (``COLUMNS_UPDATED() & 14``): SQL Server reads the binary
        operand as the other operand's integer type; the stores would read a blob as 0."""
        specs = [self.types.spec_of(node.this), self.types.spec_of(node.expression)]
        names = [parse_spec(s).name if s else None for s in specs]
        if names[0] in _BINARY_NAMES and names[1] in _BINARY_NAMES:
            raise binary_bitwise_error(_BITWISE_SYMBOLS[type(node)], names[0], names[1])
        return self._binary_as_integer(node, specs, names)

    def _binary_as_integer(self, node: exp.Binary, specs: list[str | None],
                           names: list[str | None]) -> exp.Expression | None:
        """``node`` with a binary operand beside an integer one read as that integer type
        (data type precedence), or None when the operands are not such a pair."""
        for mine, other in ((0, 1), (1, 0)):
            if names[mine] in ("binary", "varbinary") and names[other] in _INTEGER_NAMES:
                key = ("this", "expression")[mine]
                operand = node.args[key]
                converted = self.converted(self.rewrite(operand), names[other], specs[mine])
                return self._after(self._rewrite_children_with(node, {id(operand): converted}))
        return None

    def _date_arithmetic(self, node: exp.Expression) -> exp.Expression | None:
        """``datetime ± number`` adds days in T-SQL (``GETDATE() - 1`` is yesterday)."""
        left, right = self.types.spec_of(node.this), self.types.kind_of(node.expression)
        if left is None or right != "number":
            return None
        if parse_spec(left).name not in ("datetime", "smalldatetime"):
            return None
        days = self.rewrite(node.expression)
        if isinstance(node, exp.Sub):
            days = exp.Neg(this=exp.Paren(this=days))
        fn = "tsql_dateadd" if "dateadd" in self.functions else "tsqlb_dateadd"
        return exp.Anonymous(this=fn, expressions=[exp.Literal.string("day"), days,
                                                   self.rewrite(node.this),
                                                   exp.Literal.string(left)])

    def _note_date_call(self, node: exp.Expression) -> None:
        """DATEPART / DATENAME / DATEADD / DATEDIFF: the datepart checked against the value's
        type (Msg 155, 9810 now, as the interpreter raises them) and DATEADD's value type
        kept for :meth:`_function` (it decides rounding and range).

        sqlglot's own wrappers around the values go before the children are rewritten
        (DATENAME's value read as datetime2 would lose a datetimeoffset's offset); a
        user's CAST stays."""
        if isinstance(node, exp.DateDiff):
            for key in ("this", "expression"):
                value = node.args.get(key)
                while isinstance(value, IMPLICIT_WRAPPERS):
                    value = value.this
                node.set(key, value)
        mapped = typed_call(node)
        if mapped is None or mapped[0] not in PART_FUNCTIONS:
            return
        name, args = mapped
        part = datepart_of(args[0].name, name)
        if name in ("datediff", "datediff_big"):
            return
        if isinstance(node, exp.TimeToStr) and isinstance(node.this, exp.Cast):
            node.set("this", node.this.this)  # DATENAME(p, v) is TimeToStr(CAST(v AS datetime2))
        value = node.args["expression" if isinstance(node, exp.Extract) else "this"]
        spec = value_spec(self.types.spec_of(value), name)
        check_call(name, part, spec)
        self._date_specs[id(node)] = spec

    def _rewrite_comparison(self, node: exp.Expression) -> exp.Expression | None:
        """Comparing a date/time or uniqueidentifier column with a string: SQL Server
        converts the string to the column's type (data type precedence), so '2024-01-01'
        equals midnight and GUID case does not matter. Convert the string side the same
        way, so that the stored canonical text compares correctly."""
        if isinstance(node, (exp.In, exp.Between)):
            column, others = node.this, (
                list(node.expressions) if isinstance(node, exp.In)
                else [node.args.get("low"), node.args.get("high")])
        else:
            column, others = node.this, [node.expression]
            if not isinstance(column, exp.Column) and isinstance(node.expression, exp.Column):
                column, others = node.expression, [node.this]
        spec = self.types.column_spec(column) if isinstance(column, exp.Column) else None
        replaced: dict[int, exp.Expression] = {}
        if not self.backend.ci_collation_everywhere and spec is not None \
                and self.types.is_string(column):
            # No case-insensitive collation on PostgreSQL: compare folded text instead.
            for operand in (column, *others):
                if operand is not None:
                    replaced[id(operand)] = _folded(self.rewrite(operand))
        elif spec is None or parse_spec(spec).name not in _CANONICAL_TEXT_TYPES or not any(o is not None and self.types.is_string(o) for o in others):
            return self._compare_strings(node, column, others)
        else:
            for other in others:
                if other is not None and self.types.is_string(other):
                    replaced[id(other)] = self._cast_to(self.rewrite(other), spec)
        return self._rewrite_children_with(node, replaced)

    def _backend_rule(self, table: dict[type, Callable[[Any, Any], Any]],
                      node: exp.Expression) -> exp.Expression | None:
        """What the backend's rewrite for ``node``'s class in ``table`` (its rewrites'
        BEFORE or AFTER) makes of it; None: none, or not handled."""
        rule = table.get(type(node))
        return rule(self, node) if rule is not None else None

    # -- what backend rewrites may ask (storage.backends.base.QueryRewriter) ---------------
    def spec_of(self, node: exp.Expression | None) -> str | None:
        """The type spec of an expression of the original tree, when evident."""
        return self.types.spec_of(node)

    def kind_of(self, node: exp.Expression | None) -> str | None:
        """'string', 'binary', 'number' or None for an expression of the original tree."""
        return self.types.kind_of(node)

    def column_spec(self, node: exp.Column) -> str | None:
        """The type spec of a column reference."""
        return self.types.column_spec(node)

    def add_cte(self, name: str) -> None:
        """Note a CTE the rewrite adds (its name is no table to resolve)."""
        self.ctes.add(name)

    def scratch(self) -> dict[str, Any]:
        """Per-statement state a backend's rewrites keep between their calls."""
        return self._scratch

    def _rewrite_children_with(self, node: exp.Expression, replaced: dict[int, exp.Expression],
                               skip: frozenset[str] = frozenset()) -> exp.Expression:
        """``node`` with its children rewritten, those in ``replaced`` (by id) replaced by
        their rewritten form there, those under the keys in ``skip`` left as they are."""
        for key, value in list(node.args.items()):
            if key in skip:
                continue
            if isinstance(value, exp.Expression):
                node.set(key, replaced.get(id(value)) or self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [replaced.get(id(v)) or self.rewrite(v)
                               if isinstance(v, exp.Expression) else v for v in value])
        return node

    def _compare_strings(self, node: exp.Expression, first: exp.Expression,
                         others: list[exp.Expression | None]) -> exp.Expression | None:
        """A comparison of computed strings (``UPPER(w) = 'ABC'``, ``@a = 'x'`` …) with no
        character column to lend its collation: SQL Server still compares them with the
        database's case-insensitive collation. PostgreSQL compares folded text; SQLite gets
        ``COLLATE TSQL_CI``. Left alone unless every operand is evidently a string."""
        operands = [o for o in (first, *others) if o is not None]
        if not operands or not all(self.types.is_string(o) for o in operands):
            return None
        if self.backend.ci_collation_everywhere:
            if any(isinstance(o, exp.Column) for o in operands):
                return None  # a column brings COLLATE TSQL_CI itself
            node.set("this", exp.Collate(this=self.rewrite(node.this),
                                         expression=exp.Var(this=self.backend.ci_collation)))
            return self._rewrite_children_with(node, {}, frozenset({"this"}))
        return self._rewrite_children_with(node, {id(o): _folded(self.rewrite(o))
                                                  for o in operands})

    def _cast_to(self, value: exp.Expression, spec: str) -> exp.Expression:
        """``value`` (already rewritten) converted to ``spec``'s storage form."""
        return self.rewrites.convert(value, spec)

    def _rewrite_table(self, node: exp.Table) -> exp.Expression:
        if not node.name and not isinstance(node.this, exp.Parameter):
            return node
        key = table_key(node)
        if key[3] == "" and not key[0] and not key[1] and key[2].lower() in self.ctes:
            return node
        source = self.b.resolve(key)
        alias_node = node.args.get("alias")
        alias = alias_node.name if alias_node is not None else default_alias(key)
        if source.kind == "table" and source.table is not None:
            schema = source.table.backend_schema
            new = exp.Table(this=exp.Identifier(this=source.table.physical, quoted=True),
                            db=exp.Identifier(this=schema, quoted=True) if schema else None,
                            alias=exp.TableAlias(this=exp.Identifier(this=alias,
                                                                      quoted=True)))
            return new
        inner = source.query(self.dialect)
        return exp.Subquery(this=inner, alias=exp.TableAlias(
            this=exp.Identifier(this=alias, quoted=True)))

    def _rewrite_cast(self, node: exp.Expression) -> exp.Expression:
        prepared = self.b.udf_calls.python_replacement(node)
        if prepared is not None:  # xml read back, parsed before the statement runs
            return prepared
        if isinstance(node, exp.Convert):
            target, value, style = node.this, node.expression, node.args.get("style")
        else:
            target, value, style = node.args.get("to"), node.this, None
        spec = cast_spec(target) if isinstance(target, exp.DataType) else None
        if spec is None:
            return self.rewrite_children(node)
        if _implicit_text_cast(node) and self.types.is_string(value):
            # sqlglot's own CAST(… AS TEXT) around a string argument of LEFT / RIGHT / LEN:
            # no conversion, so the value keeps its column's case-insensitive collation.
            return self.rewrite(value)
        try_ = isinstance(node, exp.TryCast) or bool(node.args.get("safe"))
        rewritten = self.rewrite(value)
        styled = self.rewrite(style) if style is not None else None
        variant = variantcols.conversion(rewritten, lambda v, source: self.converted(
            v, spec, source, styled.copy() if styled is not None else None, try_))
        if variant is not None:
            return variant
        return self.converted(rewritten, spec, self.types.spec_of(value), styled, try_)

    def converted(self, value: exp.Expression, spec: str,
                  source: str | exp.Expression | None, style: exp.Expression | None = None,
                  try_: bool = False) -> exp.Expression:
        """The backend form of ``CAST(value AS spec)`` for an already rewritten ``value``
        of type ``source`` (T-SQL's conversion rules and errors; an expression where the
        type is known per row only, e.g. a sql_variant's base type)."""
        fn = "try_convert" if try_ else "convert"
        if fn in self.functions:
            # The interpreter's conversion rules (styles, string forms of dates and
            # numbers): convert(value, target spec, style, source spec or NULL).
            return exp.Anonymous(this=f"tsql_{fn}", expressions=[
                value, exp.Literal.string(spec),
                style if style is not None else exp.Null(),
                source if isinstance(source, exp.Expression)
                else exp.Literal.string(source) if source else exp.Null()])
        return self.rewrites.convert(value, spec, source, style, try_)

    def rewrite_children(self, node: exp.Expression) -> exp.Expression:
        """``node`` with its children rewritten for the backend (itself left as it is)."""
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expression):
                node.set(key, self.rewrite(value))
            elif isinstance(value, list):
                node.set(key, [self.rewrite(v) if isinstance(v, exp.Expression) else v
                               for v in value])
        return node

    def _xml_method(self, node: exp.Dot) -> exp.Expression:
        udf = self.b.udf_calls.replacement(node)
        if udf is not None:
            return udf
        method = node.expression
        assert isinstance(method, exp.Anonymous)
        name = f"xml_{method.name.lower()}"
        _check_method_arguments(method)
        if name not in self.functions and self.backend.xpath_in_sql:
            return self.rewrites.xml_method(method.name.lower(),
                                            self.rewrite(self._xml_target(node)),
                                            list(method.expressions), None)
        if name not in self.functions:
            raise not_supported(f"The XML method '{method.name}' in a query")
        args = [self.rewrite(self._xml_target(node))] + [self.rewrite(a)
                                                          for a in method.expressions]
        return exp.Anonymous(this=f"tsql_{name}", expressions=args)

    @staticmethod
    def _xml_target(node: exp.Dot) -> exp.Expression:
        return shapes.xml_method_target(node)

    def _after(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Group) and isinstance(node.parent, exp.Select):
            variantcols.grouped(node.parent, self._is_variant_column, self._ci_text)
        if isinstance(node, exp.Order):
            self._variant_order(node)
        if isinstance(node, exp.SetOperation):
            deduplicated = variantcols.union_distinct(node, self._is_variant_column,
                                                      self._ci_text)
            if deduplicated is not None:
                return deduplicated
            matched = variantcols.intersect_except(node, self._is_variant_column, self._ci_text)
            if matched is not None:
                return matched
            ordered = variantcols.set_operation_order(node, self._is_variant_column,
                                                      self._ci_text)
            if ordered is not None:
                return ordered
        if isinstance(node, (exp.Div, exp.Mod)):  # the divisor checked, where the backend must
            node = self._backend_rule(self.rewrites.AFTER, node) or node
        if isinstance(node, exp.BitwiseXor):  # where the backend has no XOR operator
            node = self._backend_rule(self.rewrites.AFTER, node) or node
        if isinstance(node, exp.Is):  # where the backend must type a parameter to test it
            node = self._backend_rule(self.rewrites.AFTER, node) or node
        if self._ci_items and isinstance(node, (exp.Select, exp.Group, exp.Distinct)):
            self._collate_items(node)
        if isinstance(node, exp.National):
            return exp.Literal.string(node.name)
        if isinstance(node, exp.Round):  # refused where the backend has no such ROUND
            self._backend_rule(self.rewrites.AFTER, node)
        if isinstance(node, exp.HexString):
            # T-SQL pads an odd number of digits on the left (0xABC is 0x0ABC); both
            # backends refuse odd hex.
            digits = str(node.this)
            padded = exp.HexString(this="0" + digits if len(digits) % 2 else digits)
            return self._backend_rule(self.rewrites.AFTER, padded) or padded
        if isinstance(node, exp.SessionParameter):
            return self.variable("@@" + node.name.lower())
        return self._function(node)

    def _is_variant_column(self, node: exp.Expression) -> bool:
        """Whether ``node`` is a reference to a sql_variant column."""
        return isinstance(node, exp.Column) and not isinstance(node.this, exp.Star) \
            and variantcols.is_variant_spec(self.types.column_spec(node))

    def _variant_order(self, order: exp.Order) -> None:
        """ORDER BY a sql_variant column: by family, then by value (variantcols.py); left
        alone where ORDER BY may only name select-list items (DISTINCT, UNION)."""
        select = order.parent
        if not isinstance(select, exp.Select) or select.args.get("distinct") is not None:
            return
        items: list[exp.Expression] = []
        for ordered in order.expressions:
            column = ordered.this if isinstance(ordered, exp.Ordered) else None
            if isinstance(column, exp.Column) and not isinstance(column.this, exp.Star) \
                    and variantcols.is_variant_spec(self.types.column_spec(column)):
                items.extend(variantcols.order_keys(ordered, self._ci_text))
            else:
                items.append(ordered)
        order.set("expressions", items)

    def _variant_compared(self, node: exp.Expression, specs: list[str | None]
                          ) -> exp.Expression | None:
        """A comparison with a sql_variant column (``specs``: its operands', a constant's
        own where the annotator has none), or None."""
        specs = [spec or shapes.constant_spec(operand)
                 for spec, operand in zip(specs, (node.this, node.expression), strict=True)]
        return variantcols.comparison(node, specs, self.rewrite, self._ci_text)

    def _ci_text(self, node: exp.Expression) -> exp.Expression:
        """``node`` (text) as the store compares strings without case: in its collation
        where expressions may name one, else folded."""
        if self.backend.ci_collation_everywhere:
            return exp.Collate(this=node, expression=exp.Var(this=self.backend.ci_collation))
        return _folded(node)

    def _check_row_count(self, count: exp.Expression | None) -> None:
        """TOP (n) with a constant or variable n: an integer, not negative (Msg 1060 /
        Msg 127), as SQL Server checks it; the backends would take '2' or 1.5 or read -1 as
        no limit at all."""
        while isinstance(count, exp.Paren):
            count = count.this
        negative = isinstance(count, exp.Neg)
        if negative:
            count = count.this
        if isinstance(count, exp.Literal):
            if count.is_string or not count.name.isdigit():
                raise tsql_error(1060, cls=BindError)
            if negative and int(count.name):
                raise tsql_error(127, cls=BindError)
        elif isinstance(count, exp.Parameter) and not negative:
            value, spec = self.params.get(param_name(count), (None, None))
            if spec is not None and spec.split("(")[0] not in _INTEGER_SPECS:
                raise tsql_error(1060, cls=BindError)
            if isinstance(value, int) and value < 0:
                raise tsql_error(127, cls=BindError)

    def variable(self, name: str) -> exp.Placeholder:
        """The bound parameter of variable ``name`` ('@x' / '@@x', lower-case); Msg 137
        when the statement has no such variable."""
        if name not in self.params:
            if name.startswith("@@"):
                raise not_supported(f"{name.upper()} inside a query")
            raise tsql_error(137, name, cls=BindError)
        value, spec = self.params[name]
        key = "v_" + re.sub(r"\W", "_", name.lstrip("@")) + ("_s" if name.startswith(
            "@@") else "")
        return self.bind(key, backend_value(to_storage(value, spec, self.conn.backend.native_decimal)), spec)

    def bind(self, key: str, value: Any, spec: str | None) -> exp.Placeholder:
        """Bind backend ``value`` (of type ``spec``) as parameter ``key``."""
        self.binds[key] = value
        self.placeholder_specs[key] = spec
        return exp.Placeholder(this=key)

    def _function(self, node: exp.Expression) -> exp.Expression:
        session_fn = session_call(self.b, node)
        if session_fn is not None:
            return session_fn
        if isinstance(node, exp.Anonymous):
            low = node.name.lower()
            args = list(node.expressions)
            if low in DATEPART_FIRST and args and isinstance(args[0], exp.Column) \
                    and not args[0].table:
                args[0] = exp.Literal.string(args[0].name)
            if low in self.functions:
                return exp.Anonymous(this=f"tsql_{low}", expressions=args)
            if low in self.rewrites.FUNCTION_NAMES:
                return exp.Anonymous(this=self.rewrites.FUNCTION_NAMES[low], expressions=args)
            node.set("expressions", args)
            return self._anonymous(node, low)
        if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like) \
                and "like" in self.functions:
            like = node.this
            call = exp.Anonymous(this="tsql_like", expressions=[
                like.this, like.expression, node.expression])
            return exp.Not(this=call) if like.args.get("negate") else call
        if isinstance(node, (exp.Like, exp.Escape)):
            like = self._backend_rule(self.rewrites.AFTER, node)
            if like is not None:
                return like
        if isinstance(node, exp.Ordered):
            if self.backend.ci_collation_everywhere:
                return self._collated_order_item(node)
            return self._folded_order_item(node)
        mapped = typed_call(node)
        if mapped is None:
            return node
        name, args = mapped
        if name in PART_FUNCTIONS:
            args = [part_literal(args[0], name), *args[1:]]
            if name == "dateadd":  # the value's type: '' when not known
                args.append(exp.Literal.string(self._date_specs.pop(id(node), None) or ""))
            elif uses_datefirst(node) and "@@datefirst" in self.params:
                args.append(exp.Cast(this=self.variable("@@datefirst"),
                                     to=exp.DataType.build("int")))
        if name in self.functions:
            call = exp.Anonymous(this=f"tsql_{name}", expressions=args)
            if isinstance(node, exp.Like) and node.args.get("negate"):
                return exp.Not(this=call)
            return call
        builtin = BUILTIN_FALLBACK.get(name)
        if builtin is None:
            if name in self.rewrites.UNSUPPORTED_FUNCTIONS:
                raise not_supported(f"{name.upper()} inside a query on PostgreSQL")
            builtin = self.rewrites.FUNCTION_NAMES.get(name)
        if builtin is None:
            if isinstance(node, exp.ObjectId):
                return self._object_id(node.this)
            return node
        if name in ("year", "month", "day"):
            args = [exp.Literal.string(name), *args]
        return exp.Anonymous(this=builtin, expressions=args)

    def _note_collated_strings(self, select: exp.Select) -> None:
        """Before rewriting a SELECT on SQLite: which select-list items, GROUP BY items and
        DISTINCT aggregate arguments are computed strings (``LEFT(w, 1)``, ``a + b``). SQLite
        gives a function's result no collation, so DISTINCT, GROUP BY and UNION would tell
        'a' from 'A'; SQL Server keeps the case-insensitive collation."""
        def computed(e: exp.Expression) -> bool:
            return not isinstance(e, (exp.Column, exp.Literal, exp.Star, exp.Collate)) \
                and self.types.kind_of(e) == "string"

        for i, proj in enumerate(select.expressions):
            inner = proj.this if isinstance(proj, exp.Alias) else proj
            if computed(inner):
                self._ci_items.add((id(select), "expressions", i))
        group = select.args.get("group")
        for i, item in enumerate(group.expressions if group is not None else []):
            if computed(item):
                self._ci_items.add((id(group), "expressions", i))
        for distinct in select.find_all(exp.Distinct):
            if isinstance(distinct.parent, exp.AggFunc):
                for i, item in enumerate(distinct.expressions):
                    if computed(item):
                        self._ci_items.add((id(distinct), "expressions", i))

    def _collate_items(self, node: exp.Expression) -> None:
        """After rewriting: ``COLLATE TSQL_CI`` on the items :meth:`_note_collated_strings`
        chose."""
        items = node.args.get("expressions") or []
        for i, item in enumerate(items):
            if (id(node), "expressions", i) not in self._ci_items:
                continue
            target = item.this if isinstance(item, exp.Alias) else item
            wrapped = exp.Collate(this=target, expression=exp.Var(this=self.backend.ci_collation))
            if isinstance(item, exp.Alias):
                item.set("this", wrapped)
            else:
                items[i] = wrapped
        node.set("expressions", items)

    def _note_collated_order(self, select: exp.Select) -> None:
        """Before rewriting a SELECT on SQLite: which ORDER BY items sort a computed string
        (``UPPER(w)``, a select-list alias of one) — they get ``COLLATE TSQL_CI``, as SQL
        Server keeps the collation through string functions where SQLite would compare the
        result byte by byte. Columns are declared with it already."""
        order = select.args.get("order")
        for ordered in order.expressions if order is not None else []:
            item = ordered.this
            source: exp.Expression | None = item
            if isinstance(item, (exp.Collate, exp.Literal)):
                continue
            if isinstance(item, exp.Column):
                source = next((p.this for p in select.expressions if isinstance(p, exp.Alias)
                               and p.alias.lower() == item.name.lower()), None) \
                    if not item.table else None
                if source is None or isinstance(source, exp.Column):
                    continue
            if self.types.kind_of(source) == "string":
                self._ci_order.add(id(ordered))

    def _collated_order_item(self, node: exp.Ordered) -> exp.Expression:
        if id(node) in self._ci_order:
            node.set("this", exp.Collate(this=node.this, expression=exp.Var(this=self.backend.ci_collation)))
        return node

    def _folded_order_item(self, node: exp.Ordered) -> exp.Expression:
        """ORDER BY a character column on PostgreSQL sorts by ``rtrim(column)``: the
        column's ``tsqlb_ci`` collation ignores case, SQL Server also ignores trailing spaces.
        Left alone where ORDER BY may only name select-list items (DISTINCT, UNION) and
        for names of select-list aliases."""
        column = node.this
        select = node.parent.parent if isinstance(node.parent, exp.Order) else None
        if not isinstance(column, exp.Column) or not isinstance(select, exp.Select) \
                or select.args.get("distinct") is not None:
            return node
        if not column.table and any(isinstance(p, exp.Alias) and p.alias.lower()
                                    == column.name.lower() for p in select.expressions):
            return node
        spec = self.types.column_spec(column)
        if spec is None or parse_spec(spec).name not in STRING_TYPES:
            return node
        node.set("this", exp.Anonymous(this="rtrim", expressions=[column]))
        return node

    def _anonymous(self, node: exp.Anonymous, low: str) -> exp.Expression:
        args = node.expressions
        if low in ("getutcdate", "sysutcdatetime"):
            return exp.Anonymous(this="tsqlb_getutcdate", expressions=[])
        if low in ("sysdatetime", "sysdatetimeoffset"):
            return exp.Anonymous(this="tsqlb_getdate", expressions=[])
        if low == "db_id":
            if not args:
                return exp.Literal.number(self.ctx.db_id)
            return self._database_lookup("database_id", "name_key", exp.Lower(this=args[0]))
        if low == "db_name":
            if not args:
                name = self.catalog.database(self.conn, self.ctx.db_id)
                return exp.Literal.string(name.name if name else "")
            return self._database_lookup("name", "database_id", args[0])
        if low == "choose" and len(args) >= 2:
            return exp.Case(this=args[0], ifs=[
                exp.If(this=exp.Literal.number(i), true=a) for i, a in enumerate(args[1:], 1)])
        if low in ("scope_identity", "ident_current"):
            return self._placeholder_or_unsupported("scope_identity()", node)
        if low in ("error_number", "error_message", "error_severity", "error_state",
                   "error_line", "error_procedure", "newsequentialid"):
            raise not_supported(f"{low.upper()}() inside a query")
        return node

    def _database_lookup(self, column: str, key: str, value: exp.Expression
                         ) -> exp.Expression:
        """``(SELECT column FROM databases WHERE key = value)`` with the catalog's columns
        renamed in a derived table, so that a column of the outer query in ``value``
        (``DB_NAME(database_id)`` over sys.dm_exec_sessions) is not captured by the
        catalog table's column of the same name."""
        d = self.catalog.t.databases
        inner = sqlglot.select(exp.alias_(exp.column(column), "tsqlb_d_value"),
                               exp.alias_(exp.column(key), "tsqlb_d_key")).from_(
            exp.Table(this=exp.Identifier(this=d.name, quoted=True)))
        return exp.Subquery(this=sqlglot.select(exp.column("tsqlb_d_value")).from_(
            exp.alias_(inner.subquery(), "tsqlb_d", table=True)).where(
            exp.EQ(this=exp.column("tsqlb_d_key"), expression=value)))

    def _placeholder_or_unsupported(self, name: str, node: exp.Expression) -> exp.Expression:
        if name in self.params:
            return self.variable(name)
        raise not_supported(f"{node.sql('tsql')} inside a query")

    def _object_id(self, arg: exp.Expression) -> exp.Expression:
        if not isinstance(arg, (exp.Literal, exp.National)) or not arg.is_string \
                and not isinstance(arg, exp.National):
            raise not_supported("OBJECT_ID with a non-constant argument inside a query")
        oid = object_id_of(self.ctx, arg.name)
        self.b.dependencies.append(("object_id", arg.name, oid))
        return exp.Null() if oid is None else exp.Literal.number(oid)

    def _aliased_column(self, node: exp.Column) -> exp.Expression | None:
        """A virtual table's other name for a column (a queue's ``service_instance_id``):
        the real column, keeping the written name as the output name in a select list."""
        name = node.name.lower()
        table = node.table.lower() if node.table else ""
        sources = [self.sources.get(table)] if table else list(self.sources.values())
        for source in sources:
            vt = source.virtual if source is not None else None
            if vt is None or name not in vt.column_aliases or source.has_column(name):
                continue
            column = exp.Column(this=exp.to_identifier(vt.column_aliases[name]),
                                table=node.args.get("table"))
            if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
                return exp.alias_(column, node.name, quoted=True)
            return column
        return None


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between)
def _hashbytes_arguments(node: exp.Expression
                        ) -> tuple[exp.Expression, exp.Expression] | None:
    """(algorithm, data) of a HASHBYTES call (sqlglot reads MD5 / SHA1 / SHA2_n as calls of
    their own, the other algorithms as HASHBYTES)."""
    if isinstance(node, exp.MD5):
        return exp.Literal.string("MD5"), node.this
    if isinstance(node, exp.SHA):
        return exp.Literal.string("SHA1"), node.this
    if isinstance(node, exp.SHA2):
        length = node.args.get("length")
        return exp.Literal.string(f"SHA2_{length.name if length else 256}"), node.this
    if isinstance(node, exp.Anonymous) and node.name.lower() == "hashbytes" \
            and len(node.expressions) == 2:
        return node.expressions[0], node.expressions[1]
    return None


# Types stored as canonical text whose comparisons with strings need a conversion first.
_CANONICAL_TEXT_TYPES = {"date", "time", "datetime", "datetime2", "smalldatetime",
                         "datetimeoffset", "uniqueidentifier"}


_BITWISE = (exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_BITWISE_SYMBOLS = {exp.BitwiseAnd: "&", exp.BitwiseOr: "|", exp.BitwiseXor: "^"}
_BINARY_NAMES = frozenset(("binary", "varbinary"))
_INTEGER_NAMES = frozenset({"tinyint", "smallint", "int", "bigint", "bit"})


def _implicit_text_cast(node: exp.Expression) -> bool:
    """Whether ``node`` is the CAST to TEXT sqlglot wraps around the string argument of
    LEFT / RIGHT / LEN (T-SQL's ``text`` type is not what the user wrote there)."""
    to = node.args.get("to")
    return (isinstance(node, exp.Cast) and isinstance(to, exp.DataType)
            and to.this == exp.DataType.Type.TEXT and not to.expressions
            and isinstance(node.parent, (exp.Left, exp.Right, exp.Length))
            and node.arg_key == "this")


def _folded(node: exp.Expression) -> exp.Expression:
    """``lower(rtrim(x))``: SQL Server's default comparison (case and trailing spaces
    ignored) where the backend has no such collation."""
    return exp.Lower(this=exp.Anonymous(this="rtrim", expressions=[
        exp.Cast(this=node, to=exp.DataType.build("text"))]))


def _mark_recursive(node: exp.With) -> None:
    """T-SQL writes a recursive CTE without RECURSIVE; PostgreSQL needs ``WITH RECURSIVE``
    as soon as one CTE of the list reads itself (the keyword changes nothing for the others)."""
    for cte in node.expressions:
        name = cte.alias_or_name.lower()
        if any(not t.args.get("db") and not t.args.get("catalog") and t.name.lower() == name
               for t in cte.this.find_all(exp.Table)):
            node.set("recursive", True)
            return


_INTEGER_SPECS = frozenset({"bigint", "int", "smallint", "tinyint", "bit"})


def _inline_column_aliases(sub: exp.Subquery) -> None:
    """SQLite has no ``(SELECT …) AS y (c, a)``: the names move onto the select items."""
    alias = sub.args.get("alias")
    names = alias.args.get("columns") if alias is not None else None
    body = sub.this
    if not names or not isinstance(body, exp.Select) or len(names) != len(body.expressions) \
            or any(isinstance(i, exp.Star) for i in body.expressions):
        return
    body.set("expressions", [exp.alias_(i.this if isinstance(i, exp.Alias) else i, n.name,
                                        quoted=True)
                             for i, n in zip(body.expressions, names, strict=True)])
    alias.set("columns", None)


_QUANT_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_QUANT = "tsqlb_q"


def _quantified(node: exp.Expression) -> exp.Expression:
    """SQLite has no ``x op ANY / SOME / ALL (subquery)``: ANY is EXISTS over the rows
    where ``x op value`` holds; ALL is NOT EXISTS over the rows where it does not hold
    (false or unknown), so an empty subquery makes ALL true, as in SQL Server."""
    quant = node.expression
    body = quant.this.this if isinstance(quant.this, exp.Subquery) else quant.this
    value = exp.column("v", table=_QUANT, quoted=True)
    compare = type(node)(this=node.this.copy(), expression=value)
    cte = exp.CTE(this=body.copy(), alias=exp.TableAlias(
        this=exp.to_identifier(_QUANT), columns=[exp.to_identifier("v", quoted=True)]))
    if isinstance(quant, exp.Any):
        cond: exp.Expression = compare
    else:
        cond = exp.or_(exp.Not(this=exp.Paren(this=compare)), exp.Is(
            this=value.copy(), expression=exp.Null()), exp.Is(
            this=node.this.copy(), expression=exp.Null()))
    probe = exp.select("1").from_(_QUANT).where(cond)
    probe.set("with_", exp.With(expressions=[cte]))
    found = exp.Exists(this=probe)
    return found if isinstance(quant, exp.Any) else exp.Not(this=found)
