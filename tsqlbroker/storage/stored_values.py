"""Values in backend form: what a column of a T-SQL type stores, and back.

``to_storage`` converts a Python value of a declared type (a type spec) to what the backend
stores; ``from_storage`` converts a stored value back to the Python value of the declared type;
``check_length`` / ``pad_fixed`` apply the declared length; ``column_spec_for`` names the column
type of a value nobody declared.

SQLite storage: integers and bit as INTEGER; decimal/money with NUMERIC affinity (so that
comparison and arithmetic work in SQL; read back as a Decimal quantized to the scale); float
as REAL; strings as TEXT; binary as BLOB; uniqueidentifier as upper-case TEXT; date and time
types as ISO-8601 TEXT (which sorts correctly). PostgreSQL keeps decimals exact
(``Backend.native_decimal``).

A sql_variant column keeps each value with its base type, as text (docs/decisions.md): a
header — ``\x01``, the base type's family rank (one digit, so that the first two characters
sort the families), then ``|``-separated BaseType, Precision, Scale, MaxLength, Collation,
TotalBytes (SQL_VARIANT_PROPERTY's answers, computed by the values layer when the value is
written) and the base type's spec — ``\x02`` and the value's text in its base type's storage
form (binary as hex). :func:`variant_to_storage` writes it, :func:`variant_from_storage` reads
it back; a value without the header (written by a path that keeps no type) reads as itself.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from ..errors import tsql_error
from ..lazy import LazyModule
from ..values import dates
from ..values.convert import convert_value
from ..values.types import MAX, SqlType, TypeSpec, parse_spec, parse_type_spec, type_of_value
from ..values.variant_props import column_variant, family_rank, variant_property

if TYPE_CHECKING:
    from ..values import xml_value
else:
    # Start-up laziness: lxml (behind the xml type) loads with the first xml value stored.
    xml_value = LazyModule("tsqlbroker.values.xml_value", globals(), "xml_value")

INT_TYPES = {"bigint", "int", "smallint", "tinyint", "bit"}
DECIMAL_TYPES = {"decimal", "numeric", "money", "smallmoney"}
FLOAT_TYPES = {"float", "real"}
STRING_TYPES = {"char", "varchar", "nchar", "nvarchar", "text", "ntext", "sysname"}
BINARY_TYPES = {"binary", "varbinary", "image", "rowversion", "timestamp"}
DATE_TYPES = {"date", "time", "datetime", "datetime2", "smalldatetime", "datetimeoffset"}
NUMERIC_TYPES = INT_TYPES | DECIMAL_TYPES | FLOAT_TYPES

_INT_RANGES = {"bigint": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1),
               "smallint": (-2**15, 2**15 - 1), "tinyint": (0, 255)}


def _quantum(scale: int) -> Decimal:
    return Decimal(1).scaleb(-scale)


# Quantizing a decimal(38, s) needs 38 digits (a float made decimal up to 309): the
# default context has 28.
EXACT = Context(prec=1000)


def _type_name(t: TypeSpec) -> str:
    return t.spec


_BINARY_SOURCE = SqlType("varbinary", MAX)


def to_storage(value: Any, spec: str | None, native_decimal: bool) -> Any:
    """Convert a Python value to what the backend stores for a column (or parameter) of
    ``spec`` (``native_decimal``: the backend's flag, decimals kept exact). Raises SQL Server's
    conversion errors (245, 241, 8169 …)."""
    if value is None:
        return None
    if spec is None:
        return _plain(value, native_decimal)
    t = parse_spec(spec)
    name = t.name
    try:
        if name in INT_TYPES:
            if name == "bit":
                if isinstance(value, str):
                    low = value.strip().lower()
                    if low in ("true", "false"):
                        return 1 if low == "true" else 0
                return 1 if Decimal(str(value).strip()) != 0 else 0
            if isinstance(value, (bytes, bytearray)):
                # As CAST reads binary: the rightmost bytes the type holds (0x0102…0A into
                # int is 0x0708090A), never a number past the type's range.
                return convert_value(bytes(value), _BINARY_SOURCE, parse_type_spec(name))
            n = int(Decimal(str(value).strip())) if not isinstance(value, int) else int(value)
            lo, hi = _INT_RANGES[name]
            if not lo <= n <= hi:
                raise tsql_error(220, name, n)
            return n
        if name in DECIMAL_TYPES:
            d = value if isinstance(value, Decimal) else Decimal(str(value).strip())
            scale = t.scale if name in ("decimal", "numeric") else 4
            d = d.quantize(_quantum(scale or 0), rounding=ROUND_HALF_UP, context=EXACT)
            if name in ("decimal", "numeric") and \
                    abs(d) >= Decimal(10) ** ((t.precision or 18) - (scale or 0)):
                raise tsql_error(8115, _value_kind(value), "numeric")
            if native_decimal:
                return d
            # SQLite's INTEGER holds 64 bits; beyond that it keeps numbers as REAL anyway.
            return int(d) if scale == 0 and -(2**63) <= d < 2**63 else float(d)
        if name in FLOAT_TYPES:
            return float(value)
        if name in BINARY_TYPES:
            if isinstance(value, (bytes, bytearray, memoryview)):
                return bytes(value)
            if isinstance(value, str):
                return value.encode("utf-16-le")
            if isinstance(value, int):
                return value.to_bytes(4, "big", signed=True)
            if isinstance(value, uuid.UUID):
                return value.bytes_le
            raise ValueError
        if name == "uniqueidentifier":
            if isinstance(value, uuid.UUID):
                return str(value).upper()
            if isinstance(value, (bytes, bytearray)):
                return str(uuid.UUID(bytes_le=bytes(value))).upper()
            try:
                return str(uuid.UUID(str(value).strip())).upper()
            except ValueError:
                raise tsql_error(8169) from None
        if name in DATE_TYPES:
            return _date_to_storage(value, name)
        if name == "xml":  # SQL Server's own text (<a />), not the one written
            return xml_value.stored_xml_text(value) if isinstance(value, str) else _string_value(value)
        if name in STRING_TYPES:
            return _string_value(value)
    except (InvalidOperation, ValueError, TypeError, OverflowError):
        kind = _value_kind(value)
        shown = value if not isinstance(value, (bytes, bytearray)) else "0x" + value.hex()
        raise tsql_error(245, kind, str(shown), name) from None
    return _plain(value, native_decimal)


def _value_kind(value: Any) -> str:
    if isinstance(value, str):
        return "varchar"
    if isinstance(value, (bytes, bytearray)):
        return "varbinary"
    if isinstance(value, float):
        return "float"
    if isinstance(value, Decimal):
        return "numeric"
    return "int"


def _string_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-16-le", errors="replace")
    return str(value)


_DAY_ZERO = dt.datetime(1900, 1, 1)


def _date_to_storage(value: Any, name: str) -> str:
    if isinstance(value, str):
        value = _parse_datetime_text(value.strip())
    elif isinstance(value, (int, float, Decimal)) and name in ("datetime", "smalldatetime"):
        # Numbers convert to the old types only: days (and fractions) since 1900-01-01.
        value = _DAY_ZERO + dt.timedelta(days=float(value))
    elif not isinstance(value, (dt.date, dt.time)):
        raise tsql_error(206, _value_kind(value) if not isinstance(value, uuid.UUID)
                         else "uniqueidentifier", name)
    if name == "date":
        if isinstance(value, dt.datetime):
            value = value.date()
        return value.isoformat()
    if name == "time":
        if isinstance(value, dt.datetime):
            value = value.time()
        return value.strftime("%H:%M:%S.%f")
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if not isinstance(value, dt.datetime):
        raise ValueError(f"not a date/time: {value!r}")  # noqa: TRY004 - mapped to Msg 245
    if name == "datetimeoffset":
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.isoformat(sep=" ", timespec="microseconds")
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.isoformat(sep=" ", timespec="microseconds")


def _parse_datetime_text(text: str) -> dt.datetime | dt.date | dt.time:
    try:
        return dt.datetime.fromisoformat(text.replace("T", " ") if "T" in text else text)
    except ValueError:
        pass
    for fmt in ("%Y%m%d", "%m/%d/%Y", "%m/%d/%Y %H:%M:%S", "%Y%m%d %H:%M:%S",
                "%b %d %Y %I:%M%p", "%d %b %Y"):
        try:
            return dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
    try:
        return dt.time.fromisoformat(text)
    except ValueError:
        pass
    # Any other form CAST reads ('2024-02-29 10:11:12 +05:30', 'Feb 29 2024' …): the values
    # layer's parser, which also says Msg 241 when the text is no date.
    try:
        value, tz, _has_date = dates.parse_datetime(text)
    except (dates.NotADate, dates.DateOutOfRange, ValueError, OverflowError):
        raise tsql_error(241) from None
    return value.replace(tzinfo=tz) if tz is not None else value


def _plain(value: Any, native_decimal: bool) -> Any:
    """A value of unknown declared type in backend form."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return value if native_decimal else float(value)
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="microseconds")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def from_storage(value: Any, spec: str | None) -> Any:
    """Convert a stored value back to the Python value of ``spec`` (None: as stored)."""
    if value is None or spec is None:
        return value
    t = parse_spec(spec)
    name = t.name
    if name == "sql_variant":
        return variant_from_storage(value)
    try:
        if name in INT_TYPES:
            return int(value)
        if name in DECIMAL_TYPES:
            scale = t.scale if name in ("decimal", "numeric") else 4
            d = value if isinstance(value, Decimal) else Decimal(str(value))
            return d.quantize(_quantum(scale or 0), rounding=ROUND_HALF_UP, context=EXACT)
        if name in FLOAT_TYPES:
            return float(value)
        if name in BINARY_TYPES:
            return bytes(value) if not isinstance(value, str) else value.encode("utf-16-le")
        if name == "uniqueidentifier":
            return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
        if name == "date":
            return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])
        if name == "time":
            return value if isinstance(value, dt.time) else dt.time.fromisoformat(str(value))
        if name in DATE_TYPES:
            if isinstance(value, dt.datetime):
                return value
            parsed = dt.datetime.fromisoformat(str(value))
            return parsed
        if name == "xml":  # text a query made (a PostgreSQL CAST keeps the input's form)
            return xml_value.stored_xml_text(value) if isinstance(value, str) else _string_value(value)
        if name in STRING_TYPES:
            return value if isinstance(value, str) else _string_value(value)
    except (ValueError, InvalidOperation, TypeError):
        return value
    return value


def check_length(value: Any, spec: str) -> bool:
    """Whether a storage value fits the declared length of ``spec`` (False → Msg 8152)."""
    if value is None:
        return True
    t = parse_spec(spec)
    limit = t.max_length
    if limit is None:
        return True
    if isinstance(value, str):
        # SQL Server ignores trailing spaces when checking for truncation.
        return len(value.rstrip(" ")) <= limit
    if isinstance(value, (bytes, bytearray)):
        return len(value) <= limit
    return True


def pad_fixed(value: Any, spec: str) -> Any:
    """char(n) / nchar(n) / binary(n) values are padded to their length, as SQL Server does;
    a string that passed :func:`check_length` but is longer (by trailing spaces) is cut to
    its type's length ('N ' into nchar(1) is 'N')."""
    if value is None:
        return None
    t = parse_spec(spec)
    if isinstance(value, str):
        limit = t.max_length
        if limit is not None and len(value) > limit:
            value = value[:limit]
        if t.name in ("char", "nchar") and t.length:
            return value.ljust(t.length)
        return value
    if t.name == "binary" and isinstance(value, (bytes, bytearray)) and t.length:
        return bytes(value).ljust(t.length, b"\x00")
    return value


# Stored column specs for the types of values nobody declared: the catalog keeps these texts
# (datetime, not datetime2; decimal(38,10) whatever the value's scale; text for time and xml).
_COLUMN_SPEC_OF = {"datetime2": "datetime", "datetimeoffset": "datetime", "time": "nvarchar(max)",
                   "xml": "nvarchar(max)"}


def column_spec_for(value: Any) -> str | None:
    """The spec of a column (or parameter) made for a value of unknown declared type (SELECT …
    INTO, a UDF argument): :func:`type_of_value` as the catalog names it; None for NULL."""
    if value is None:
        return None
    t = type_of_value(value)
    if t.name == "decimal":
        return "decimal(38,10)"
    return _COLUMN_SPEC_OF.get(t.name) or t.spec()


# The old name, called by query.py, udf_bridge.py, udf_calls.py until P5 (issue 15).
spec_of_value = column_spec_for


def backend_value(value: Any) -> Any:
    """A Python value in a form every backend driver accepts as a parameter or an SQLite
    function result: bool as int, an integral decimal as int (else float), a GUID as
    upper-case text, a date/time as ISO text, other values as text."""
    if value is None or isinstance(value, (int, float, str, bytes)):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and \
            value.as_tuple().exponent >= 0 else float(value)
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            return value.isoformat(sep=" ", timespec="microseconds")
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return str(value)


# ------------------------------------------------------------------------ sql_variant columns
VARIANT_MARK = "\x01"
VARIANT_SEP = "\x02"
# The header fields SQL_VARIANT_PROPERTY reads, by property: 1-based, after the rank.
VARIANT_FIELDS = {"basetype": 2, "precision": 3, "scale": 4, "maxlength": 5,
                  "collation": 6, "totalbytes": 7}
# The header field holding the base type's spec (what CAST converts from).
VARIANT_SPEC_FIELD = 8


def variant_to_storage(value: Any, source: str | None) -> str | None:
    """A value for a sql_variant column: with the base type it keeps (its type ``source``
    where known, else the type the value stands for), in the column's text form."""
    if value is None:
        return None
    # Every value is wrapped, a string that looks like a stored form too (CHAR(1) + ...):
    # a value read from a sql_variant column arrives as its Python value with its base type
    # as ``source`` (ResultSet.row_types), never in its stored form.
    typed = column_variant(source, value)
    if typed is None:
        return None
    base = typed.base
    spec = base.spec()
    stored = to_storage(value, spec, True)
    if isinstance(stored, (bytes, bytearray)):
        text = bytes(stored).hex()
    elif isinstance(stored, float):
        text = repr(stored)
    else:
        text = str(stored)
    props = [variant_property(base, name, value) for name in VARIANT_FIELDS]
    header = "|".join([VARIANT_MARK + str(family_rank(base)),
                       *("" if p is None else str(p) for p in props), spec])
    return header + VARIANT_SEP + text


def _variant_parts(stored: str) -> tuple[str, str] | None:
    """(base type spec, value text) of a sql_variant column's value; None without header."""
    if not stored.startswith(VARIANT_MARK):
        return None
    header, sep, text = stored.partition(VARIANT_SEP)
    fields = header.split("|")
    if not sep or len(fields) != VARIANT_SPEC_FIELD or not fields[0][1:].isdigit():
        return None  # not a header variant_to_storage wrote: the value reads as plain text
    return fields[VARIANT_SPEC_FIELD - 1], text


def variant_spec(stored: Any) -> str | None:
    """The base type spec a sql_variant column's stored value keeps; None for NULL or a
    value without header."""
    parts = _variant_parts(stored) if isinstance(stored, str) else None
    return None if parts is None else parts[0]


def variant_from_storage(stored: Any) -> Any:
    """The Python value of a sql_variant column's stored text (of its base type)."""
    parts = _variant_parts(stored) if isinstance(stored, str) else None
    if parts is None:
        return stored
    spec, text = parts
    if parse_spec(spec).name in BINARY_TYPES:
        return bytes.fromhex(text)
    return from_storage(text, spec)


def variant_backend_value(stored: Any) -> Any:
    """A sql_variant column's value as the store holds a column of its base type (SQLite:
    a number as a number), for the queries that compare and sort it."""
    parts = _variant_parts(stored) if isinstance(stored, str) else None
    if parts is None:
        return stored
    return backend_value(to_storage(variant_from_storage(stored), parts[0], False))


def variant_field(stored: Any, field: int) -> str | None:
    """Header field ``field`` (:data:`VARIANT_FIELDS`) of a sql_variant column's value; None
    for NULL, a value without header or an empty field."""
    if not isinstance(stored, str) or _variant_parts(stored) is None:
        return None
    fields = stored.partition(VARIANT_SEP)[0].split("|")
    return fields[field - 1] or None if 0 < field <= len(fields) else None
