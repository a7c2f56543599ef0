"""T-SQL data types: the static type of an expression, variable or column.

A :class:`SqlType` is the static type of an expression, variable or column. Runtime values are
plain Python objects (see docs/ARCHITECTURE.md "Values"); the compiler asks this module (and
``convert``/``operators``/``builtins``) for result types and specialised callables once, so
nothing here runs per row.

Data-type precedence, literal typing and the declare/cast defaults follow SQL Server's
documentation ("Data type precedence", "Constants", "char and varchar" …).
"""

from __future__ import annotations

import datetime
import functools
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Context, Decimal
from typing import Any

from tsqlbroker.errors import BindError, tsql_error

MAX = -1  # length of the (max) types

# Alias types (CREATE TYPE name FROM base): the running request's session resolves names
# that are no system type to their base type (set by Session.request, aliastypes.py).
ALIAS_TYPES: ContextVar[Callable[[str], SqlType | None] | None] = ContextVar(
    "alias_types", default=None)

# Exact decimal work on values of up to 38 digits, and on floats made decimal (up to 309
# integer digits): the default context's 28 digits cannot even quantize a decimal(38, 10).
EXACT = Context(prec=1000)


class ArgumentTypeError(Exception):
    """A built-in function was bound to an argument type it does not take; the function
    registry turns this into Msg 8116 naming the function."""

    def __init__(self, type_name: str, position: int) -> None:
        super().__init__(type_name, position)
        self.type_name = type_name
        self.position = position

STRING_TYPES = frozenset({"char", "varchar", "nchar", "nvarchar", "text", "ntext"})
UNICODE_TYPES = frozenset({"nchar", "nvarchar", "ntext"})
BINARY_TYPES = frozenset({"binary", "varbinary", "image"})
INTEGER_TYPES = frozenset({"bigint", "int", "smallint", "tinyint", "bit"})
DECIMAL_TYPES = frozenset({"decimal", "numeric"})
MONEY_TYPES = frozenset({"money", "smallmoney"})
EXACT_TYPES = INTEGER_TYPES | DECIMAL_TYPES | MONEY_TYPES
FLOAT_TYPES = frozenset({"float", "real"})
NUMERIC_TYPES = EXACT_TYPES | FLOAT_TYPES
DATETIME_TYPES = frozenset(
    {"date", "time", "datetime", "datetime2", "smalldatetime", "datetimeoffset"}
)
FIXED_LENGTH = frozenset({"char", "nchar", "binary"})

# The decimal(p,0) an integer type becomes when mixed with decimals.
INT_DECIMAL_PRECISION = {"bigint": 19, "int": 10, "smallint": 5, "tinyint": 3, "bit": 1}
INT_RANGES = {
    "bigint": (-(2**63), 2**63 - 1),
    "int": (-(2**31), 2**31 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "tinyint": (0, 255),
    "bit": (0, 1),
}
INT_BYTES = {"bigint": 8, "int": 4, "smallint": 2, "tinyint": 1, "bit": 1}
# SQL Server's internal names in some overflow messages ("overflowed an INT1 column").
INT_INTERNAL_NAMES = {"tinyint": "INT1", "smallint": "INT2", "int": "INT4", "bigint": "INT8"}


@dataclass(frozen=True)
class SqlType:
    """A T-SQL data type: canonical lower-case ``name`` plus length / precision / scale.

    ``length`` counts characters for the character types and bytes for the binary types;
    ``-1`` means ``(max)``. ``precision``/``scale`` apply to decimal/numeric, ``scale`` to the
    fractional-second types (time, datetime2, datetimeoffset). ``const_digits`` is set only on
    the type of an integer literal: SQL Server types such a constant as ``decimal(digits,0)``
    when it meets a decimal (``1.0/3`` is ``0.333333``); it takes no part in equality.
    """

    name: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    xml_collection: str | None = None
    const_digits: int | None = field(default=None, compare=False, repr=False)

    def spec(self) -> str:
        """The type as T-SQL text: ``'nvarchar(max)'``, ``'decimal(10,2)'``, ``'int'`` …"""
        n = self.name
        if n in ("char", "varchar", "nchar", "nvarchar", "binary", "varbinary"):
            if self.length is None:
                return n
            return f"{n}(max)" if self.length == MAX else f"{n}({self.length})"
        if n in DECIMAL_TYPES:
            return f"{n}({self.precision if self.precision is not None else 18},"\
                   f"{self.scale or 0})"
        if n in ("time", "datetime2", "datetimeoffset"):
            return f"{n}({7 if self.scale is None else self.scale})"
        if n == "xml" and self.xml_collection:
            return f"xml({self.xml_collection})"
        return n

    def __str__(self) -> str:
        return self.spec()

    @property
    def is_string(self) -> bool:
        """char, varchar, nchar, nvarchar, text, ntext."""
        return self.name in STRING_TYPES

    @property
    def is_unicode(self) -> bool:
        """nchar, nvarchar, ntext."""
        return self.name in UNICODE_TYPES

    @property
    def is_numeric(self) -> bool:
        """Exact or approximate numbers, bit included."""
        return self.name in NUMERIC_TYPES

    @property
    def is_exact_numeric(self) -> bool:
        """Integers, bit, decimal/numeric, money/smallmoney."""
        return self.name in EXACT_TYPES

    @property
    def is_integer(self) -> bool:
        """bigint, int, smallint, tinyint, bit."""
        return self.name in INTEGER_TYPES

    @property
    def is_decimal(self) -> bool:
        """decimal / numeric."""
        return self.name in DECIMAL_TYPES

    @property
    def is_money(self) -> bool:
        """money / smallmoney."""
        return self.name in MONEY_TYPES

    @property
    def is_float(self) -> bool:
        """float / real."""
        return self.name in FLOAT_TYPES

    @property
    def is_binary(self) -> bool:
        """binary, varbinary, image."""
        return self.name in BINARY_TYPES

    @property
    def is_datetime(self) -> bool:
        """date, time, datetime, datetime2, smalldatetime, datetimeoffset."""
        return self.name in DATETIME_TYPES

    @property
    def is_xml(self) -> bool:
        """xml (typed or untyped)."""
        return self.name == "xml"

    @property
    def is_null(self) -> bool:
        """The type of a bare ``NULL``."""
        return self.name == "null"

    @property
    def is_max(self) -> bool:
        """``(max)`` types and the legacy large types text/ntext/image."""
        return self.length == MAX or self.name in ("text", "ntext", "image")


# Frequently used types.
NULL = SqlType("null")
BIT = SqlType("bit")
TINYINT = SqlType("tinyint")
SMALLINT = SqlType("smallint")
INT = SqlType("int")
BIGINT = SqlType("bigint")
FLOAT = SqlType("float")
REAL = SqlType("real")
MONEY = SqlType("money")
SMALLMONEY = SqlType("smallmoney")
DATE = SqlType("date")
DATETIME = SqlType("datetime")
SMALLDATETIME = SqlType("smalldatetime")
DATETIME2 = SqlType("datetime2", scale=7)
DATETIMEOFFSET = SqlType("datetimeoffset", scale=7)
TIME = SqlType("time", scale=7)
UNIQUEIDENTIFIER = SqlType("uniqueidentifier")
XML = SqlType("xml")
SQL_VARIANT = SqlType("sql_variant")
SYSNAME = SqlType("nvarchar", 128)
NVARCHAR_MAX = SqlType("nvarchar", MAX)
VARCHAR_MAX = SqlType("varchar", MAX)
VARBINARY_MAX = SqlType("varbinary", MAX)


def varchar(n: int) -> SqlType:
    """``varchar(n)`` (n = -1 for max)."""
    return SqlType("varchar", n)


def nvarchar(n: int) -> SqlType:
    """``nvarchar(n)`` (n = -1 for max)."""
    return SqlType("nvarchar", n)


def decimal_type(p: int, s: int) -> SqlType:
    """``decimal(p,s)``."""
    return SqlType("decimal", precision=p, scale=s)


_ALIASES = {
    "integer": "int", "dec": "decimal", "character": "char", "char varying": "varchar",
    "character varying": "varchar", "national character": "nchar", "national char": "nchar",
    "national character varying": "nvarchar", "national char varying": "nvarchar",
    "national text": "ntext", "double precision": "float", "binary varying": "varbinary",
    "rowversion": "timestamp",
}
# Every base type name (after aliases) a spec may name.
KNOWN_TYPES = (NUMERIC_TYPES | STRING_TYPES | BINARY_TYPES | DATETIME_TYPES
               | {"uniqueidentifier", "xml", "sql_variant", "timestamp", "sysname"})
_MAX_LENGTH = {"char": 8000, "varchar": 8000, "binary": 8000, "varbinary": 8000,
               "nchar": 4000, "nvarchar": 4000}


def canonical_name(name: str) -> str:
    """A written type name as the one base name it denotes (``integer`` → ``int``,
    ``sys.int`` → ``int``, ``national char varying`` → ``nvarchar``)."""
    name = " ".join(name.lower().split())
    if "." in name:  # sys.int, dbo.nvarchar: schema-qualified system types
        schema, _, rest = name.rpartition(".")
        if schema.strip("[]") in ("sys", "dbo", ""):
            name = rest
    return _ALIASES.get(name, name)


def _is_int(a: Any) -> bool:
    return isinstance(a, int) or (isinstance(a, str) and a.strip().lstrip("-").isdigit())


def make_type(
    raw_name: str, args: tuple[Any, ...], context: str, position: int, coll: str | None = None
) -> SqlType:
    """The :class:`SqlType` a written type name with its arguments denotes.

    ``context`` decides defaults for a missing length: ``'declare'`` (DECLARE, parameters,
    columns) gives 1, ``'cast'`` (CAST/CONVERT) gives 30. ``decimal`` defaults to (18,0),
    ``float(1..24)`` is ``real``, the fractional-second types default to scale 7. Unknown
    names raise Msg 2715 (``position`` is the ``#%d`` of that message); ``coll`` is an xml
    type's schema collection.
    """
    name = canonical_name(raw_name)
    if name not in KNOWN_TYPES:
        resolve = ALIAS_TYPES.get()
        alias = resolve(raw_name) if resolve is not None and not args else None
        if alias is not None:
            return alias
        raise tsql_error(2715, position, raw_name, cls=BindError)
    if name not in _MAX_LENGTH and any(not _is_int(a) for a in args):
        raise tsql_error(2715, position, raw_name, cls=BindError)
    if name == "sysname":
        return SYSNAME
    if name == "timestamp":
        return SqlType("binary", 8)
    if name in _MAX_LENGTH:
        if not args:
            return SqlType(name, 30 if context == "cast" else 1)
        a = args[0]
        if isinstance(a, str):
            if a.lower() != "max":
                raise tsql_error(2715, position, raw_name, cls=BindError)
            if name in FIXED_LENGTH:
                raise tsql_error(2715, position, f"{name}(max)", cls=BindError)
            return SqlType(name, MAX)
        if not _is_int(a):
            raise tsql_error(2715, position, raw_name, cls=BindError)
        n = int(a)
        if n < 1 or n > _MAX_LENGTH[name]:
            raise tsql_error(131, n, "type", name, _MAX_LENGTH[name], cls=BindError)
        return SqlType(name, n)
    if name in DECIMAL_TYPES:
        p = int(args[0]) if args else 18
        s = int(args[1]) if len(args) > 1 else 0
        if p < 1 or p > 38:
            raise tsql_error(2750, position, p, 38, cls=BindError)
        if s < 0 or s > p:
            raise tsql_error(192, cls=BindError)
        return SqlType(name, precision=p, scale=s)
    if name == "float":
        n = int(args[0]) if args else 53
        if n < 1 or n > 53:
            raise tsql_error(2750, position, n, 53, cls=BindError)
        return REAL if n <= 24 else FLOAT
    if name in ("time", "datetime2", "datetimeoffset"):
        s = int(args[0]) if args else 7
        if s < 0 or s > 7:
            raise tsql_error(2750, position, s, 7, cls=BindError)
        return SqlType(name, scale=s)
    if name == "xml":
        return SqlType("xml", xml_collection=coll)
    if name == "text":
        return SqlType("text", MAX)
    if name == "ntext":
        return SqlType("ntext", MAX)
    if name == "image":
        return SqlType("image", MAX)
    return SqlType(name)


_SPEC_RE = re.compile(r"^\s*([A-Za-z_][\w .\[\]]*?)\s*(?:\(\s*([^)]*)\s*\))?\s*$")


def split_type_spec(spec: str) -> tuple[str, list[str]] | None:
    """A type spec text (``'nvarchar(max)'``, ``'decimal(10, 2)'``) as its written base name
    and argument texts, or None when it is not a type spec.

    The one reader of type-spec text: :func:`parse_type` builds a :class:`SqlType` from its
    parts, :func:`parse_spec` its catalog view of them.
    """
    m = _SPEC_RE.match(spec)
    if not m:
        return None
    name, argtext = m.group(1), m.group(2)
    return name, ([a.strip() for a in argtext.split(",")] if argtext else [])


def parse_type(spec: str, context: str = "declare") -> SqlType:
    """Parse a type spec string (``'nvarchar(max)'``, ``'decimal(10,2)'``) to a type, with the
    defaults of ``context`` (see :func:`make_type`); a bad spec raises Msg 2715."""
    parts = split_type_spec(spec)
    if parts is None:
        raise tsql_error(2715, 1, spec, cls=BindError)
    name, argv = parts
    if argv and canonical_name(name) == "xml":
        return SqlType("xml", xml_collection=argv[0])
    args = tuple(int(a) if a.lstrip("-").isdigit() else a for a in argv)
    return make_type(name, args, context, 1)


def parse_type_spec(spec: str) -> SqlType:
    """:func:`parse_type` in the ``declare`` context (the name callers used before issue 15)."""
    return parse_type(spec)


def constant_type(kind: str, value: Any, text: str | None) -> tuple[SqlType, Any]:
    """The type and runtime value of a constant, typed as SQL Server types constants.

    ``kind`` is the literal's lexical kind (``int``, ``decimal``, ``float``, ``money``,
    ``string``, ``nstring``, ``binary``, ``null``), ``text`` its source text when known.
    Integer constants are ``int`` when they fit, otherwise ``numeric(p,0)`` (SQL Server never
    types a constant as bigint); ``1.50`` is ``numeric(3,2)``; ``'ab'`` is ``varchar(2)``.
    """
    if kind == "null" or value is None:
        return NULL, None
    if kind == "int":
        v = int(value)
        digits = max(len(str(abs(v))), 1)
        if -(2**31) <= v < 2**31:
            return SqlType("int", const_digits=digits), v
        if digits > 38:
            return FLOAT, float(v)
        return SqlType("numeric", precision=digits, scale=0), Decimal(v)
    if kind == "decimal":
        written = (text or str(value)).strip()
        text = written.lstrip("+-")
        # The sign of a folded "-2.5" stays on the value; precision / scale ignore it.
        negative = (len(written) - len(text) - written[:len(written) - len(text)].count("+")) % 2
        d = (-Decimal(text) if negative else Decimal(text)) if text else Decimal(value)
        ip, _, fp = text.partition(".")
        if "e" in text.lower():  # defensive: an exponent makes it float
            return FLOAT, float(d)
        s = len(fp)
        p = max(len(ip.lstrip("0")) + s, 1, s)
        if p > 38:
            return FLOAT, float(d)
        return SqlType("numeric", precision=p, scale=s), d.quantize(Decimal(1).scaleb(-s),
                                                                    context=EXACT)
    if kind == "float":
        f = float(value)
        if f in (float("inf"), float("-inf")):
            raise tsql_error(168, (text or str(value)).strip(), 8, cls=BindError)
        return FLOAT, f
    if kind == "money":
        d = Decimal(str(value)).quantize(Decimal("0.0001"), context=EXACT)
        return MONEY, d
    if kind == "string":
        n = len(value)
        return SqlType("varchar", MAX if n > 8000 else max(n, 1)), value
    if kind == "nstring":
        n = len(value)
        return SqlType("nvarchar", MAX if n > 4000 else max(n, 1)), value
    if kind == "binary":
        n = len(value)
        return SqlType("varbinary", MAX if n > 8000 else max(n, 1)), bytes(value)
    raise ValueError(f"unknown literal kind {kind!r}")


def literal_spec(text: str, is_string: bool, national: bool = False) -> str | None:
    """The spec text of the type SQL Server gives a constant written ``text``: ``1`` int, ``2.50`` numeric(3,2), ``1e3`` float,
    ``'ab'`` varchar(2), ``N'ab'`` nvarchar(2). A minus sign written before a number is
    part of the constant: ``-2147483648`` is an int, as ``constant_type`` types it."""
    if is_string:
        return f"{'n' if national else ''}varchar({max(len(text), 1)})"
    if re.fullmatch(r"-?\d+", text):
        if -(2**31) <= int(text) < 2**31:
            return "int"
        digits = len(text.lstrip("-"))
        return f"numeric({digits},0)" if digits <= 38 else "float"
    m = re.fullmatch(r"(\d*)\.(\d*)", text)
    if m:
        whole, frac = m.group(1).lstrip("0"), m.group(2)
        scale = len(frac)
        return f"numeric({max(len(whole) + scale, 1)},{scale})"
    if re.fullmatch(r"[\d.]+[eE][-+]?\d+", text):
        return "float"
    return None


def type_of_value(v: Any) -> SqlType:
    """The type a runtime value stands for when nothing declared one (a sql_variant's base
    type, SQL_VARIANT_PROPERTY, a column made by SELECT … INTO), as far as its Python type
    tells: int or bigint by range, decimal(38,s) with the value's scale, datetime2(7) or
    datetimeoffset(7), time(7), xml for a value object naming its type, else nvarchar(max)."""
    if isinstance(v, (bool, int)):
        return SqlType("bigint") if not -(2**31) <= v < 2**31 else INT
    if isinstance(v, Decimal):
        exp = v.as_tuple().exponent
        s = -exp if isinstance(exp, int) and exp < 0 else 0
        return SqlType("decimal", precision=38, scale=min(s, 38))
    if isinstance(v, float):
        return FLOAT
    if isinstance(v, str):
        return NVARCHAR_MAX
    if isinstance(v, (bytes, bytearray)):
        return VARBINARY_MAX
    if isinstance(v, uuid.UUID):
        return UNIQUEIDENTIFIER
    if isinstance(v, datetime.datetime):
        return DATETIMEOFFSET if v.tzinfo else SqlType("datetime2", scale=7)
    if isinstance(v, datetime.date):
        return DATE
    if isinstance(v, datetime.time):
        return TIME
    name = getattr(v, "sql_type_name", None)  # XmlValue
    if name is not None:
        return SqlType(name)
    return NVARCHAR_MAX


# ------------------------------------------------- the catalog's view of a spec text
@dataclass(frozen=True)
class TypeSpec:
    """A type spec as the catalog stores it: base name (``sysname``, ``timestamp`` kept) and
    arguments (``None`` length means MAX); :func:`parse_spec` builds it."""

    name: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    is_max: bool = False

    @property
    def spec(self) -> str:
        """The canonical spec text."""
        if self.name in ("decimal", "numeric"):
            return f"{self.name}({self.precision},{self.scale})"
        if self.name in ("char", "varchar", "nchar", "nvarchar", "binary", "varbinary"):
            return f"{self.name}(max)" if self.is_max else f"{self.name}({self.length})"
        if self.name in ("datetime2", "time", "datetimeoffset") and self.scale is not None \
                and self.scale != 7:
            return f"{self.name}({self.scale})"
        return self.name

    @property
    def is_string(self) -> bool:
        return self.name in STRING_TYPES or self.name in ("sysname", "xml")

    @property
    def is_numeric(self) -> bool:
        return self.name in NUMERIC_TYPES

    @property
    def max_length(self) -> int | None:
        """Characters (or bytes) the type holds, None when unlimited."""
        if self.name in ("char", "varchar", "nchar", "nvarchar", "binary", "varbinary"):
            return None if self.is_max else self.length
        if self.name == "sysname":
            return 128
        return None


# Names sqlglot types expressions with that T-SQL does not write (a comparison is BOOLEAN).
_SQLGLOT_NAMES = {"bool": "bit", "boolean": "bit"}


def _spec_int(text: str, spec: str) -> int:
    if not text.lstrip("-").isdigit():
        raise tsql_error(2715, 1, spec)
    return int(text)


@functools.lru_cache(maxsize=1024)
def parse_spec(spec: str) -> TypeSpec:
    """The catalog's view of a type spec (names kept as written: ``sysname``, ``timestamp``;
    lengths not range-checked); an unknown base name raises Msg 2715 (results are cached).

    The text is read by :func:`split_type_spec`, the one type-name reader; this only arranges
    its parts as a :class:`TypeSpec` (the engine's view until P5 switches its callers to
    :class:`SqlType`).
    """
    parts = split_type_spec(spec)
    if parts is None:
        raise tsql_error(2715, 1, spec)
    name = canonical_name(parts[0])
    name = _SQLGLOT_NAMES.get(name, name)
    args = [a.lower() for a in parts[1] if a]
    if name in ("char", "varchar", "nchar", "nvarchar", "binary", "varbinary"):
        if args and args[0] == "max":
            return TypeSpec(name, is_max=True)
        return TypeSpec(name, length=_spec_int(args[0], spec) if args else 1)
    if name in ("decimal", "numeric"):
        p = _spec_int(args[0], spec) if args else 18
        s = _spec_int(args[1], spec) if len(args) > 1 else 0
        return TypeSpec(name, precision=p, scale=s)
    if name in ("datetime2", "time", "datetimeoffset"):
        return TypeSpec(name, scale=_spec_int(args[0], spec) if args else 7)
    if name == "float":
        return TypeSpec("real" if args and _spec_int(args[0], spec) <= 24 else "float")
    if name not in KNOWN_TYPES:
        raise tsql_error(2715, 1, spec)
    return TypeSpec(name)


def normalize_spec(spec: str) -> str:
    """The canonical form of ``spec`` (``'NVARCHAR( 50 )'`` → ``'nvarchar(50)'``)."""
    return parse_spec(spec).spec
