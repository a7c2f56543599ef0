"""``SQL_VARIANT_PROPERTY(value, property)``: a value's base type and its size facts.

The facts come from the value's T-SQL type: its declared type when the argument has one, else
(a sql_variant) the type its Python value stands for (``types.type_of_value``), which knows
no declared length or precision (docs/decisions.md). Precision and Scale follow the current
SQL_VARIANT_PROPERTY page (date and time types included); TotalBytes is the stored form of a
sql_variant: a 2-byte header (base type, format version), the base type's properties
(decimal: precision and scale, 2 bytes; binary: max length, 2; strings: max length and
collation, 6; time, datetime2, datetimeoffset: scale, 1) and the value's bytes.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Self

from tsqlbroker.errors import tsql_error

from .types import MAX, SqlType, parse_type_spec, type_of_value, varchar

__all__ = ["COLLATION", "NUMERIC_RANKS", "PROPERTIES", "TEXT_RANKS", "TypedVariant", "VariantSpec",
           "base_type_of", "column_variant", "family_rank", "typed_variant",
           "variant_base_type", "variant_data_length", "variant_overhead", "variant_overheads",
           "variant_property",
           "variant_spec_key"]

COLLATION = "SQL_Latin1_General_CP1_CI_AS"
# Precision and scale per base type, as the SQL_VARIANT_PROPERTY page lists them.
_PRECISION = {"datetime": 23, "smalldatetime": 16, "float": 53, "real": 24, "money": 19,
              "smallmoney": 10, "bigint": 19, "int": 10, "smallint": 5, "tinyint": 3, "bit": 1,
              "date": 10}
_SCALE = {"money": 4, "smallmoney": 4, "datetime": 3}
_FIXED_BYTES = {"bigint": 8, "int": 4, "smallint": 2, "tinyint": 1, "bit": 1, "float": 8,
                "real": 4, "money": 8, "smallmoney": 4, "datetime": 8, "smalldatetime": 4,
                "date": 3, "uniqueidentifier": 16}
# time(s), datetime2(s), datetimeoffset(s): precision when s = 0, else s + the second figure.
_TIME_PRECISION = {"time": (8, 9), "datetime2": (19, 20), "datetimeoffset": (26, 27)}
_TIME_EXTRA_BYTES = {"time": 0, "datetime2": 3, "datetimeoffset": 5}
_HEADER_BYTES = 2
# What the stored form keeps about the base type besides its name, in bytes.
_PROPERTY_BYTES = {"decimal": 2, "numeric": 2, "binary": 2, "varbinary": 2, "char": 6,
                   "varchar": 6, "nchar": 6, "nvarchar": 6, "time": 1, "datetime2": 1,
                   "datetimeoffset": 1}
PROPERTIES = frozenset({"basetype", "precision", "scale", "maxlength", "collation",
                        "totalbytes"})


def _decimal_bytes(precision: int) -> int:
    return 5 if precision <= 9 else 9 if precision <= 19 else 13 if precision <= 28 else 17


def _time_bytes(scale: int) -> int:
    return 3 if scale <= 2 else 4 if scale <= 4 else 5


def _time_scale(t: SqlType) -> int:
    return 7 if t.scale is None else t.scale


def _max_length(t: SqlType) -> int:
    n = t.name
    if n in _FIXED_BYTES:
        return _FIXED_BYTES[n]
    if n in ("decimal", "numeric"):
        return _decimal_bytes(t.precision or 18)
    if n in _TIME_EXTRA_BYTES:
        return _time_bytes(_time_scale(t)) + _TIME_EXTRA_BYTES[n]
    if t.length is None or t.length == MAX:
        return 8000
    return t.length * (2 if n in ("nchar", "nvarchar") else 1)


def _data_bytes(t: SqlType, value: Any) -> int:
    """The bytes of the value itself: a string's or binary's own length, else the type's."""
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, str) and t.is_string:
        if t.name in ("nchar", "nvarchar"):
            return len(value.encode("utf-16-le"))
        return len(value.encode("cp1252", errors="replace"))
    return _max_length(t)


def variant_data_length(t: SqlType, value: Any) -> int:
    """DATALENGTH of a sql_variant holding ``value`` of base type ``t``: the bytes of the
    value itself (TotalBytes less the header and the base type's properties)."""
    return _data_bytes(t, value)


def variant_overhead(base_name: str) -> int:
    """The bytes a stored sql_variant of base type ``base_name`` keeps besides its value."""
    return _HEADER_BYTES + _PROPERTY_BYTES.get(base_name, 0)


def variant_overheads() -> dict[str, int]:
    """:func:`variant_overhead` of each base type that keeps properties (any other:
    ``variant_overhead('')``)."""
    return {name: variant_overhead(name) for name in _PROPERTY_BYTES}


def _precision(t: SqlType) -> int:
    if t.name in ("decimal", "numeric"):
        return t.precision if t.precision is not None else 18
    if t.name in _TIME_PRECISION:
        scale = _time_scale(t)
        at_zero, plus = _TIME_PRECISION[t.name]
        return at_zero if scale == 0 else scale + plus
    return _PRECISION.get(t.name, 0)


def _scale(t: SqlType) -> int:
    if t.name in ("decimal", "numeric"):
        return t.scale or 0
    if t.name in _TIME_PRECISION:
        return _time_scale(t)
    return _SCALE.get(t.name, 0)


def variant_property(t: SqlType, name: str, value: Any = None) -> Any:
    """The property ``name`` (BaseType, Precision, Scale, TotalBytes, Collation, MaxLength)
    of ``value``, a value of type ``t``; NULL for another name."""
    prop = name.strip().lower()
    if prop not in PROPERTIES:
        return None
    if prop == "basetype":
        return t.name
    if prop == "precision":
        return _precision(t)
    if prop == "scale":
        return _scale(t)
    if prop == "maxlength":
        return _max_length(t)
    if prop == "totalbytes":
        return _HEADER_BYTES + _PROPERTY_BYTES.get(t.name, 0) + _data_bytes(t, value)
    return COLLATION if t.is_string else None


# ------------------------------------------------------------ a sql_variant with its base type
class TypedVariant(NamedTuple):
    """A sql_variant value with the base type it keeps (what a sql_variant variable's typed
    slot holds beside its plain value)."""

    value: Any
    base: SqlType


class VariantSpec(str):
    """The type spec ``sql_variant`` of a sql_variant variable a statement binds, carrying
    its typed slot: it is the spec ``sql_variant`` everywhere a spec is read, and a value
    written from it into a sql_variant column (or read by a session function such as
    SQL_VARIANT_PROPERTY) keeps the variable's base type."""

    typed: TypedVariant

    def __new__(cls, typed: TypedVariant) -> Self:
        spec = super().__new__(cls, "sql_variant")
        spec.typed = typed
        return spec


def variant_spec_key(spec: str | None) -> Any:
    """What a statement compiled with a variable of type ``spec`` depends on: the spec,
    and a sql_variant variable's base type."""
    return (spec, spec.typed.base.spec()) if isinstance(spec, VariantSpec) else spec


# Types a sql_variant cannot hold (the sql_variant page's list; sql_variant itself is
# unwrapped, not nested).
_NOT_IN_VARIANT = frozenset({"text", "ntext", "image", "xml", "timestamp"})


def variant_base_type(src: SqlType, value: Any) -> SqlType:
    """The base type a value of static type ``src`` keeps when stored in a sql_variant:
    ``src`` itself (``1.5`` numeric(2,1), ``'abc'`` varchar(3)); a value typed only at run
    time (``src`` sql_variant) or a bare NULL: the type its Python value stands for. A type
    a sql_variant cannot hold (the (max) types, text, ntext, image, xml, timestamp) raises
    Msg 206."""
    if src.name in ("sql_variant", "null"):
        return type_of_value(value)
    if src.name in _NOT_IN_VARIANT or src.length == MAX:
        raise tsql_error(206, src.spec(), "sql_variant", state=2)
    return src


def typed_variant(src: SqlType, value: Any) -> TypedVariant | None:
    """``value`` (of static type ``src``) with its base type; None for NULL."""
    return None if value is None else TypedVariant(value, variant_base_type(src, value))


def base_type_of(typed: Any, value: Any) -> SqlType:
    """The base type of ``value``, a sql_variant whose typed slot holds ``typed``: its kept
    base type while the slot holds this very value, else (the value was written by a path
    that keeps no type) the type the Python value stands for."""
    if isinstance(typed, TypedVariant) and typed.value is value:
        return typed.base
    return type_of_value(value)


def column_variant(spec: str | None, value: Any) -> TypedVariant | None:
    """``value``, read from a result column of type ``spec`` (None: the backend computed
    it), with the base type it keeps in a sql_variant: the column's type where a sql_variant
    holds that type, else the type the value stands for (a column typed wider here than on
    SQL Server must not fail at run time); None for NULL."""
    if value is None:
        return None
    if isinstance(spec, VariantSpec):  # a sql_variant variable's value: its own base type
        return TypedVariant(value, spec.typed.base)
    t = parse_type_spec(spec) if spec else None
    if t is not None and t.name == "varchar" and t.length == MAX and isinstance(value, str) \
            and len(value) <= 8000:
        # a concatenation typed varchar(max) here (CHAR(1) + 'abc') is varchar(n) there
        return TypedVariant(value, varchar(max(len(value), 1)))
    if t is None or t.name in _NOT_IN_VARIANT or t.length == MAX or t.name == "sql_variant":
        return TypedVariant(value, type_of_value(value))
    return TypedVariant(value, t)


# The sql_variant page's type families, from the lowest to the highest: a value of a higher
# family is the greater one, values of one family compare as values.
_FAMILIES = (("uniqueidentifier",), ("binary", "varbinary"),
             ("char", "varchar", "nchar", "nvarchar"),
             ("bit", "tinyint", "smallint", "int", "bigint", "smallmoney", "money", "decimal",
              "numeric"),
             ("real", "float"),
             ("time", "date", "smalldatetime", "datetime", "datetimeoffset", "datetime2"))
_RANK = {name: rank for rank, names in enumerate(_FAMILIES, start=1) for name in names}
# The ranks of the numeric families (their values compare as numbers), of the strings and
# of date and time (their values compare as text).
NUMERIC_RANKS = frozenset({_RANK["int"], _RANK["float"]})
TEXT_RANKS = frozenset({_RANK["varchar"], _RANK["date"]})


def family_rank(t: SqlType) -> int:
    """The rank of ``t``'s family in sql_variant comparisons (1 uniqueidentifier … 6 date and
    time); 0 for a type no family holds."""
    return _RANK.get(t.name, 0)
