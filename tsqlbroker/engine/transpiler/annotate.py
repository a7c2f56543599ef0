"""Pass 3 of the transpiler: types. :class:`TypeAnnotator` works out the T-SQL type spec
(``spec_of``) and kind (string / number, ``kind_of``) of expressions of the original tree,
as SQL Server types them (data type precedence, literal and aggregate types), and the names
and types a query outputs (``describe``). Each node is typed once per statement (a memo),
and long operator chains from the innermost operator out, so typing never recurses as deep
as a chain is long."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

from sqlglot import exp

from ...errors import TSqlError
from ...storage.stored_values import STRING_TYPES
from ...values.precedence import arithmetic_spec
from ...values.types import BINARY_TYPES, literal_spec, parse_spec
from .. import forxml, shapes
from ..datecalls import value_spec
from ..funcmap import FORMAT_RESULT
from ..metafuncs import spec_of as session_call_spec
from ..seqcalls import sequence_spec
from ..udf_calls import spec_of as udf_call_spec
from .interface import BoundStatement
from .scope import (
    Source,
    cast_spec,
    param_name,
    projection_name,
    source_alias,
)

__all__ = ["CHAIN_MIN", "TypeAnnotator", "is_decimal", "left_chain"]



def _with_precision(name: str, precision: exp.Expression | None) -> str:
    """``time(3)`` … of a *FROMPARTS call whose precision argument is the constant 3."""
    if isinstance(precision, exp.Literal) and precision.name.isdigit() \
            and int(precision.name) <= 7:
        return f"{name}({precision.name})"
    return name

class TypeAnnotator:
    """Types the expressions of one statement."""

    def __init__(self, binder: BoundStatement) -> None:
        # Weak: the binder holds this pass (see resolve.Resolver).
        self.b: BoundStatement = weakref.proxy(binder)
        self.params = binder.params
        self.sources = binder.sources
        self.placeholder_specs = binder.placeholder_specs
        # Types worked out per node (spec_of / kind_of), each asked once however often the
        # nodes above ask again: without them, typing ``a + b + c …`` doubled its work per
        # term. Keyed by id with the node kept (no id reuse); valid while the sources and
        # the prepared session calls (what a type depends on) stay as they were.
        self._specs: dict[int, tuple[exp.Expression, str | None]] = {}
        self._kinds: dict[int, tuple[exp.Expression, str | None]] = {}
        self._typed_for = (0, 0)

    def spec_of(self, node: exp.Expression | None) -> str | None:
        """The type spec of an expression when it is evident (column, cast, parameter …)."""
        if node is None:
            return None
        return self._typed(self._specs, node, self._spec_of)

    def _typed(self, table: dict[int, tuple[exp.Expression, str | None]],
               node: exp.Expression, work: Callable[[exp.Expression], str | None]
               ) -> str | None:
        """``work(node)``, remembered in ``table`` (forgotten once what types depend on
        has grown)."""
        now = (len(self.sources), len(self.b.session_calls))
        if now != self._typed_for:
            self._specs.clear()
            self._kinds.clear()
            self._typed_for = now
        hit = table.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        self._type_chain(node)
        found = work(node)
        table[id(node)] = (node, found)
        return found

    def _type_chain(self, node: exp.Expression) -> None:
        """Type the operators of a long chain below ``node`` from the innermost out, so
        that typing ``node`` (which asks its left operand, which asks its own …) never
        recurses deeper than one step."""
        if not isinstance(node, exp.Binary) or not isinstance(node.this, exp.Binary) \
                or id(node.this) in self._specs:
            return
        chain = left_chain(node)
        if len(chain) < CHAIN_MIN:
            return
        for inner in reversed(chain[1:]):
            self.spec_of(inner)
            self.kind_of(inner)

    def _spec_of(self, node: exp.Expression) -> str | None:
        if isinstance(node, exp.Paren):
            return self.spec_of(node.this)
        called = udf_call_spec(self.b, node) or session_call_spec(self.b, node)
        if called is not None:
            return called
        if isinstance(node, exp.Alias):
            return self.spec_of(node.this)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) \
                and node.this.args.get("for_") is not None:
            return forxml.result_spec(node.this)
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) \
                and len(node.this.expressions) == 1:
            return self.spec_of(node.this.expressions[0])  # a scalar subquery
        if isinstance(node, exp.National):
            return f"nvarchar({max(len(node.name), 1)})"
        if isinstance(node, exp.HexString):  # 0x… is varbinary of its bytes (0xABC: 2)
            return f"varbinary({max((len(str(node.this)) + 1) // 2, 1)})"
        if isinstance(node, exp.NextValueFor):
            return sequence_spec(self.b, node)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return f"varchar({max(len(node.name), 1)})"
            return "int" if re.fullmatch(r"\d+", node.name) and int(node.name) < 2**31 \
                else None
        if isinstance(node, exp.Column):
            return self.column_spec(node)
        if isinstance(node, exp.Parameter):
            entry = self.params.get(param_name(node))
            return entry[1] if entry else None
        if isinstance(node, exp.Placeholder):
            return self.placeholder_specs.get(node.name)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            to = node.args.get("to")
            return cast_spec(to) if isinstance(to, exp.DataType) else None
        if isinstance(node, exp.Convert):
            return cast_spec(node.this) if isinstance(node.this, exp.DataType) else None
        if isinstance(node, exp.CurrentTimestamp):
            return "datetime"
        if isinstance(node, (exp.LastDay, exp.DateFromParts)):
            return "date"
        if isinstance(node, exp.TimestampFromParts):
            return "datetime"
        if isinstance(node, exp.TimeFromParts):
            return _with_precision("time", node.args.get("precision"))
        if isinstance(node, exp.Uuid):
            return "uniqueidentifier"
        if isinstance(node, exp.DateDiff) and node.args.get("big_int"):
            return "bigint"
        if isinstance(node, (exp.Count, exp.DateDiff, exp.Extract, exp.Year, exp.Month,
                             exp.Day, exp.ObjectId)):
            return "int"
        if isinstance(node, exp.DateAdd):  # the value's date/time type; datetime otherwise
            return value_spec(self.spec_of(node.this), "dateadd") or "datetime"
        if isinstance(node, (exp.Length, exp.StrPosition, exp.Ascii, exp.Unicode)):
            return "int"
        if isinstance(node, exp.Chr):  # CHAR(n) is char(1): CHAR(1) + 'abc' stays varchar
            return "char(1)"
        if isinstance(node, exp.Anonymous):
            low = node.name.lower()
            if low in ("getutcdate", "sysdatetime", "sysutcdatetime"):
                return "datetime2" if low.startswith("sys") else "datetime"
            if low == "smalldatetimefromparts":
                return "smalldatetime"
            if low in ("datetime2fromparts", "datetimeoffsetfromparts"):
                return _with_precision(low[:-9], node.expressions[-1])
            if low in ("datalength", "db_id"):
                return "int"
            if low == "nchar":
                return "nchar(1)"
            if low == "db_name":
                return "nvarchar(128)"
            if low == "format":  # engine/parsing.py keeps FORMAT as written
                return FORMAT_RESULT
            if low in ("parse", "try_parse") and len(node.expressions) > 1:
                return node.expressions[1].name  # engine/parsing.py wrote the type as text
        if isinstance(node, (exp.Upper, exp.Lower, exp.Substring, exp.Left, exp.Right,
                             exp.Replace, exp.Trim, exp.DPipe, exp.Concat)):
            return self._string_result(node)
        if isinstance(node, exp.Coalesce):
            return self.spec_of(node.this)
        if isinstance(node, (exp.Max, exp.Min)):
            return self.spec_of(node.this)
        if isinstance(node, (exp.Sum, exp.Avg)):
            return shapes.aggregate_result_spec(self.b, node)
        if isinstance(node, exp.Window) and isinstance(node.this, (exp.Sum, exp.Avg)):
            return shapes.aggregate_result_spec(self.b, node.this)
        if isinstance(node, (exp.Add, exp.Sub)):
            left = self.spec_of(node.this)
            if left in ("datetime", "smalldatetime") and self.kind_of(node.expression) == "number":
                return left
        if isinstance(node, exp.Add) and self.is_string(node):
            return self._string_result(node)
        if isinstance(node, exp.Case):
            ifs = node.args.get("ifs") or []
            return self.spec_of(ifs[0].args.get("true")) if ifs else None
        if isinstance(node, (exp.Floor, exp.Ceil, exp.Round)):
            return self._rounding_spec(node)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            read = self._binary_read_as_number(node)
            if read is not None:
                return read
            op = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}.get(type(node), "%")
            left, right = self.operand_spec(node.this), self.operand_spec(node.expression)
            # An integer constant next to a decimal is decimal(digits,0), not decimal(10,0).
            if isinstance(left, tuple):
                left = left[1] if is_decimal(right) else "int"
            if isinstance(right, tuple):
                right = right[1] if is_decimal(left) else "int"
            return arithmetic_spec(op, left, right)
        return None

    def operand_spec(self, node: exp.Expression) -> str | tuple[str, str] | None:
        """spec_of, with numeric constants typed as SQL Server types them (2.50 is
        decimal(3,2)); an integer constant is ("int", its decimal(digits,0))."""
        inner = node.this if isinstance(node, (exp.Neg, exp.Paren)) else node
        if isinstance(inner, exp.Literal) and not inner.is_string:
            # -2147483648 is one int constant, 2147483648 a numeric
            sign = "-" if isinstance(node, exp.Neg) else ""
            spec = literal_spec(sign + inner.name, False)
            if spec == "int":
                return "int", f"decimal({len(inner.name.lstrip('0')) or 1},0)"
            return spec
        return self.spec_of(node)

    def _rounding_spec(self, node: exp.Expression) -> str | None:
        """FLOOR / CEILING give decimal(p,0) for a decimal, ROUND keeps its argument's
        scale (one more digit for the carry), both keep int and float as they are — so
        ``FLOOR(-2.1)`` is -3 and ``ROUND(2.5, 0)`` 3.0 on both backends."""
        arg = node.this
        inner = arg.this if isinstance(arg, exp.Neg) else arg
        if isinstance(inner, exp.Literal) and not inner.is_string:
            spec = literal_spec(inner.name, False)
        else:
            spec = self.spec_of(arg)
        if spec is None:
            return None
        m = re.fullmatch(r"(?:decimal|numeric)\((\d+),\s*(\d+)\)", spec)
        if m is None:
            return spec if spec in ("int", "bigint", "smallint", "tinyint", "float",
                                    "real", "money") else None
        p, sc = int(m.group(1)), int(m.group(2))
        if isinstance(node, exp.Round):
            return f"decimal({min(p + 1, 38)},{sc})"
        return f"decimal({min(p - sc + 1, 38)},0)"

    def _binary_read_as_number(self, node: exp.Binary) -> str | None:
        """The number operand's type when the other operand is binary: data type precedence
        reads the bytes as that number (varbinary + int is an int)."""
        for mine, other in ((node.this, node.expression), (node.expression, node.this)):
            spec = self.spec_of(mine)
            if spec is not None and _is_binary_spec(spec) and self.kind_of(other) == "number":
                return self.spec_of(other)
        return None

    def _string_result(self, node: exp.Expression) -> str:
        """varchar(max) or nvarchar(max) for a string function or concatenation: nvarchar
        when an operand is unicode (data type precedence), as SQL Server types it — so a
        conversion error names the right type."""
        if isinstance(node, (exp.Concat, exp.Add, exp.DPipe)):
            operands = list(node.expressions) if isinstance(node, exp.Concat) \
                else [node.this, node.expression]
        else:
            operands = [node.this]
        specs = [self.spec_of(operand) for operand in operands]
        if isinstance(node, (exp.Substring, exp.Add, exp.DPipe)) and all(
                spec is not None and _is_binary_spec(spec) for spec in specs):
            # SUBSTRING of binary, and binary + binary, stay varbinary in SQL Server
            # (LEFT, RIGHT, UPPER … convert to varchar instead).
            return "varbinary(max)"
        for operand, spec in zip(operands, specs):
            if spec is None and not isinstance(operand, exp.Literal):
                return "nvarchar(max)"  # unknown: the widest
            if spec is not None and spec.split("(")[0] in ("nchar", "nvarchar", "ntext",
                                                           "sysname", "xml"):
                return "nvarchar(max)"
        return "varchar(max)"

    def is_concatenation(self, node: exp.Add) -> bool:
        """T-SQL ``+`` concatenates when both sides are strings, or one is a string and the
        other is not evidently numeric (int + '1' is arithmetic, as data type precedence
        converts the string)."""
        left, right = self.kind_of(node.this), self.kind_of(node.expression)
        if left == "binary" and right == "binary":
            return True  # varbinary + varbinary joins the bytes
        if left == "string" and right == "string":
            return True
        return (left == "string" and right != "number") or (
            right == "string" and left != "number")

    def kind_of(self, node: exp.Expression | None) -> str | None:
        """'string', 'binary', 'number' or None (not evident) for an expression."""
        if node is None:
            return None
        return self._typed(self._kinds, node, self._kind_of)

    def _kind_of(self, node: exp.Expression) -> str | None:
        if isinstance(node, exp.Paren):
            return self.kind_of(node.this)
        if isinstance(node, exp.Add):
            if not self.is_concatenation(node):
                left = self.kind_of(node.this)
                return "number" if self._binary_read_as_number(node) else left
            binary = self.kind_of(node.this) == self.kind_of(node.expression) == "binary"
            return "binary" if binary else "string"
        spec = self.spec_of(node)
        if spec is None:
            return None
        try:
            t = parse_spec(spec)
        except TSqlError:
            return None
        if t.name in STRING_TYPES or t.name == "xml":
            return "string"
        if t.name in BINARY_TYPES:
            return "binary"
        return "number" if t.is_numeric else None

    def is_string(self, node: exp.Expression | None) -> bool:
        """Whether an expression is evidently a character string (for ``+``)."""
        return self.kind_of(node) == "string"

    def column_spec(self, node: exp.Column) -> str | None:
        name = node.name
        table = node.table.lower() if node.table else ""
        if table:
            source = self.sources.get(table)
            return _source_spec(source, name) if source else None
        for source in self.sources.values():
            spec = _source_spec(source, name)
            if spec is not None:
                return spec
        return None

    def describe(self, tree: exp.Expression) -> tuple[list[str] | None, list[str | None]]:
        """Output column names (None when the backend's names must be used) and specs of
        a query, from the original tree."""
        select = tree
        while isinstance(select, (exp.Subquery, exp.Paren)):
            select = select.this
        if isinstance(select, exp.SetOperation):
            select = select.left
            while isinstance(select, exp.SetOperation):
                select = select.left
        if not isinstance(select, exp.Select):
            return None, []
        names: list[str] = []
        types: list[str | None] = []
        for proj in select.expressions:
            if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column)
                                               and isinstance(proj.this, exp.Star)):
                table = proj.table.lower() if isinstance(proj, exp.Column) else ""
                expanded = self._expand_star(select, table)
                if expanded is None:
                    return None, []
                for n, s in expanded:
                    names.append(n)
                    types.append(s)
                continue
            names.append(projection_name(proj))
            types.append(self.spec_of(proj))
        return names, types

    def _expand_star(self, select: exp.Select, table: str) -> list[tuple[str, str | None]] | None:
        order: list[str] = []
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None:
            order.append(source_alias(from_.this))
        for join in select.args.get("joins") or []:
            order.append(source_alias(join.this))
        out: list[tuple[str, str | None]] = []
        for alias in order:
            if table and alias != table:
                continue
            source = self.sources.get(alias)
            if source is None:
                return None
            out.extend(source.columns)
        return out or None


# Operator chains at least this long are typed and rewritten from the innermost operator
# out rather than by recursion (shorter ones recurse: that is cheaper).
CHAIN_MIN = 16


def left_chain(top: exp.Expression) -> list[exp.Expression]:
    """``top`` and the binary operators nested in each one's left operand, outermost first."""
    chain = [top]
    node = top.this
    while isinstance(node, exp.Binary):
        chain.append(node)
        node = node.this
    return chain


def _source_spec(source: Source, name: str) -> str | None:
    """The type spec of column ``name`` of ``source``, also under a virtual table's alias."""
    if source.has_column(name):
        return source.spec_of(name)
    vt = source.virtual
    if vt is not None and name.lower() in vt.column_aliases:
        return source.spec_of(vt.column_aliases[name.lower()])
    return None


def is_decimal(spec: object) -> bool:
    """Whether ``spec`` is a decimal / numeric type spec."""
    return isinstance(spec, str) and spec.split("(")[0].strip().lower() in ("decimal", "numeric")


def _is_binary_spec(spec: str) -> bool:
    """Whether a type spec names binary, varbinary or image."""
    try:
        return parse_spec(spec).name in BINARY_TYPES
    except TSqlError:
        return False
